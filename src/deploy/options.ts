import { parseArgs } from 'node:util';
import { DEFAULT_SUPPORTED_VERSION, ProtocolVersion } from '../chain/index.js';

/** One `-l` entry: an IPv4 address and how many nodes run there. */
export interface BuildChainHost {
  readonly ip: string;
  readonly count: number;
}

/** Start ports (`-p p2p,channel,rpc`); node i of an IP uses start + i for each. */
export interface BuildChainPorts {
  readonly p2p: number;
  readonly channel: number;
  readonly rpc: number;
}

/** What `twinchain build-chain` builds; every field has been checked by parseBuildChainArgs. */
export interface BuildChainOptions {
  /** `-l`, in the given order: node.N numbering follows it. */
  readonly hosts: readonly BuildChainHost[];
  /** `-p`, default 30300,20200,8545. */
  readonly ports: BuildChainPorts;
  /** `-o`, default ./nodes (relative to the build's current directory). */
  readonly outputDir: string;
  /** `-i`: channel and JSON-RPC listen on 0.0.0.0. */
  readonly listenAll: boolean;
  /** `-c`, default pbft. */
  readonly consensus: 'pbft' | 'raft';
  /** `-g`: an SM2/SM3 chain. */
  readonly sm: boolean;
  /** `-v`, `[compatibility] supported_version`, default 2.11.0. */
  readonly supportedVersion: string;
  /** `-C`, `[chain] id`, default 1. */
  readonly chainId: number;
  /** `-T`: `[log] level=debug` instead of info. */
  readonly debugLog: boolean;
  /** `--state`: the group's `[state] type`, storage (FISCO's default) or mpt. */
  readonly stateType?: 'storage' | 'mpt';
}

export const DEFAULT_PORTS: BuildChainPorts = { p2p: 30300, channel: 20200, rpc: 8545 };
export const DEFAULT_OUTPUT_DIR = './nodes';
/** `[chain] id` as the node reads it: 1 … 2^31 − 1. */
export const MAX_CHAIN_ID = 2 ** 31 - 1;

/** A refused command line: one line naming the option and the value. */
export class BuildChainUsageError extends Error {
  override readonly name = 'BuildChainUsageError';
  constructor(
    message: string,
    /** The command line itself cannot be read (an unknown option, a missing value): worth a pointer to -h. */
    readonly commandLine = false,
  ) {
    super(message);
  }
}

const OPTIONS = {
  'ip-list': { type: 'string', short: 'l' },
  ports: { type: 'string', short: 'p' },
  output: { type: 'string', short: 'o' },
  'listen-all': { type: 'boolean', short: 'i' },
  consensus: { type: 'string', short: 'c' },
  sm: { type: 'boolean', short: 'g' },
  version: { type: 'string', short: 'v' },
  'chain-id': { type: 'string', short: 'C' },
  'debug-log': { type: 'boolean', short: 'T' },
  state: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

function refuseOption(option: string, value: string, problem: string, isDefault = false): never {
  throw new BuildChainUsageError(`-${option} "${value}"${isDefault ? ' (the default)' : ''}: ${problem}`);
}

function refuse(option: string, value: string, problem: string): never {
  return refuseOption(option, value, problem);
}

/** A dotted-quad IPv4 address (no leading zeros); 0.0.0.0 names no host and is refused. */
export function isIpv4(text: string): boolean {
  const parts = text.split('.');
  return parts.length === 4 && parts.every((p) => /^(0|[1-9][0-9]{0,2})$/.test(p) && Number(p) <= 255) && text !== '0.0.0.0';
}

function parseHosts(value: string): BuildChainHost[] {
  if (value.trim() === '') refuse('l', value, 'empty: expected "ip:count[,ip:count…]", e.g. "127.0.0.1:4"');
  const hosts: BuildChainHost[] = [];
  for (const entry of value.split(',')) {
    const m = /^([^:]*)(?::(.*))?$/.exec(entry)!;
    const ip = m[1]!;
    const countText = m[2];
    if (entry === '') refuse('l', value, 'an empty entry: expected "ip:count[,ip:count…]" with no spaces, e.g. "127.0.0.1:2,127.0.0.2:2"');
    if (!isIpv4(ip)) refuse('l', value, `"${ip}" is not an IPv4 address like 127.0.0.1`);
    let count = 1; // FISCO: an IP without ":count" runs one node
    if (countText !== undefined) {
      if (!/^[0-9]+$/.test(countText)) refuse('l', value, `the node count of ${ip} ("${countText}") is not a whole number`);
      count = Number(countText);
      if (count < 1) refuse('l', value, `${ip} has ${count} nodes: each IP needs at least 1`);
    }
    if (hosts.some((h) => h.ip === ip)) refuse('l', value, `${ip} is listed twice: give each IP once with its node count`);
    hosts.push({ ip, count });
  }
  return hosts;
}

function parsePorts(value: string, hosts: readonly BuildChainHost[], isDefault = false): BuildChainPorts {
  const refuse = (option: string, v: string, problem: string): never => refuseOption(option, v, problem, isDefault);
  const parts = value.split(',');
  if (parts.length !== 3 || parts.some((p) => !/^[0-9]+$/.test(p))) {
    refuse('p', value, 'expected three start ports "p2p,channel,rpc", e.g. 30300,20200,8545');
  }
  const [p2p, channel, rpc] = parts.map(Number) as [number, number, number];
  const named = [
    ['p2p', p2p],
    ['channel', channel],
    ['rpc', rpc],
  ] as const;
  for (const [name, port] of named) if (port < 1 || port > 65535) refuse('p', value, `the ${name} start port ${port} is outside 1..65535`);
  const most = Math.max(...hosts.map((h) => h.count));
  for (const [name, port] of named) {
    if (port + most - 1 > 65535) {
      refuse('p', value, `the ${name} ports of ${most} nodes on one IP would run to ${port + most - 1}, past 65535`);
    }
  }
  for (let a = 0; a < 3; a++) {
    for (let b = a + 1; b < 3; b++) {
      const [nameA, startA] = named[a]!;
      const [nameB, startB] = named[b]!;
      if (Math.abs(startA - startB) < most) {
        refuse('p', value, `with ${most} nodes on one IP the ${nameA} ports ${startA}..${startA + most - 1} and the ${nameB} ports ${startB}..${startB + most - 1} overlap`);
      }
    }
  }
  return { p2p, channel, rpc };
}

/** `-v`: a supported_version the project accepts (2.0.0-rc1 … 2.11.0); a leading v is dropped, as FISCO does. */
function parseVersion(value: string): string {
  const text = value.replace(/^[vV]/, '');
  const range = `2.0.0-rc1 … ${DEFAULT_SUPPORTED_VERSION}`;
  let version: ProtocolVersion | undefined;
  try {
    version = ProtocolVersion.parse(text);
  } catch {
    version = undefined;
  }
  if (!version || version.number > ProtocolVersion.parse(DEFAULT_SUPPORTED_VERSION).number) {
    refuse('v', value, `not a supported_version Twinchain runs: expected one of ${range} (x.y.z, or 2.0.0-rc1, -rc2, -rc3)`);
  }
  return text;
}

function parseChainId(value: string): number {
  if (!/^[0-9]+$/.test(value) || Number(value) < 1 || Number(value) > MAX_CHAIN_ID) {
    refuse('C', value, `the chain id must be a positive integer up to ${MAX_CHAIN_ID}`);
  }
  return Number(value);
}

/**
 * FISCO build_chain.sh's options (`-l -p -o -i -c -g -v -C -T -h`). Returns 'help' for -h;
 * throws BuildChainUsageError (one line naming the option and the value) for anything wrong,
 * before any file is written.
 */
export function parseBuildChainArgs(args: readonly string[]): BuildChainOptions | 'help' {
  let parsed;
  try {
    parsed = parseArgs({ args: [...args], options: OPTIONS, strict: true, allowPositionals: true });
  } catch (error) {
    const e = error as Error & { code?: string };
    const unknown = /^Unknown option '([^']*)'/.exec(e.message);
    if (e.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && unknown) {
      throw new BuildChainUsageError(`unknown option ${unknown[1]} (build-chain takes -l -p -o -i -c -g -v -C -T --state -h)`, true);
    }
    const option = /^Option '(-[\w-]+)/.exec(e.message)?.[1];
    if (option && /argument missing/.test(e.message)) throw new BuildChainUsageError(`${option} needs a value`, true);
    if (option && /ambiguous/.test(e.message)) throw new BuildChainUsageError(`${option} needs a value (the next argument starts with "-")`, true);
    if (option && /does not take an argument/.test(e.message)) throw new BuildChainUsageError(`${option} takes no value`, true);
    throw new BuildChainUsageError('the options cannot be read', true);
  }
  const { values, positionals } = parsed;
  if (values.help) return 'help';
  if (positionals.length > 0) throw new BuildChainUsageError(`unexpected argument "${positionals[0]}" (options take one value each; quote -l "ip:n,ip2:m")`);
  if (values['ip-list'] === undefined) throw new BuildChainUsageError('-l "ip:count[,ip:count…]" is required, e.g. -l 127.0.0.1:4');
  const hosts = parseHosts(values['ip-list']);
  const ports =
    values.ports === undefined ? parsePorts(`${DEFAULT_PORTS.p2p},${DEFAULT_PORTS.channel},${DEFAULT_PORTS.rpc}`, hosts, true) : parsePorts(values.ports, hosts);
  const consensus = values.consensus ?? 'pbft';
  if (consensus !== 'pbft' && consensus !== 'raft') refuse('c', consensus, 'the consensus must be pbft or raft');
  const outputDir = values.output ?? DEFAULT_OUTPUT_DIR;
  if (outputDir === '') refuse('o', outputDir, 'the output directory must not be empty');
  return {
    hosts,
    ports,
    outputDir,
    listenAll: values['listen-all'] ?? false,
    consensus,
    sm: values.sm ?? false,
    supportedVersion: values.version === undefined ? DEFAULT_SUPPORTED_VERSION : parseVersion(values.version),
    chainId: values['chain-id'] === undefined ? 1 : parseChainId(values['chain-id']),
    debugLog: values['debug-log'] ?? false,
    stateType: parseState(values.state),
  };
}

/** `--state`: storage (FISCO's storage state, stateRoot = dbHash; the default) or mpt (a trie). */
function parseState(value: string | undefined): 'storage' | 'mpt' {
  if (value === undefined) return 'storage';
  if (value !== 'storage' && value !== 'mpt') throw new BuildChainUsageError(`--state "${value}": expected storage (FISCO's storage state, the default) or mpt (a Merkle Patricia trie)`);
  return value;
}

/**
 * Checks options built in code (not from a command line) as parseBuildChainArgs would;
 * throws BuildChainUsageError.
 */
export function checkBuildChainOptions(options: BuildChainOptions): void {
  parseHosts(options.hosts.map((h) => `${h.ip}:${h.count}`).join(','));
  parsePorts(`${options.ports.p2p},${options.ports.channel},${options.ports.rpc}`, options.hosts);
  if (options.consensus !== 'pbft' && options.consensus !== 'raft') refuse('c', String(options.consensus), 'the consensus must be pbft or raft');
  parseVersion(options.supportedVersion);
  parseChainId(String(options.chainId));
  if (options.outputDir === '') refuse('o', options.outputDir, 'the output directory must not be empty');
}
