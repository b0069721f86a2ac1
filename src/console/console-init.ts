// `twinchain console init <dir> --sdk <node sdk folder>`: a console folder as FISCO's console
// lays it out: conf/config.toml and the SDK certificates, contracts/solidity/ with HelloWorld and
// the other Solidity fixtures. The account key is made on first use, not here.
import { copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { CONFIG_FILE, parsePeer, renderConsoleConfig, type Peer } from './console-config.js';
import { ConsoleError } from './console-error.js';
import { CONTRACTS_DIR } from './contracts.js';
import { packagePath } from '../package-root.js';

/** The repository's Solidity fixtures (src/console → fixtures/contracts). */
export const FIXTURE_CONTRACTS = packagePath('fixtures', 'contracts');

const SDK_FILES = ['ca.crt', 'sdk.crt', 'sdk.key'];

export interface InitResult {
  readonly dir: string;
  readonly peers: readonly Peer[];
  /** Where the peers came from: the option, the nodes beside the sdk folder, or the default. */
  readonly peersFrom: string;
  readonly certificates: readonly string[];
  readonly contracts: readonly string[];
}

/** Channel endpoints of the build-chain nodes beside an `sdk/` folder (`<ip>/node*\/config.ini`). */
export function siblingNodePeers(sdkDir: string): Peer[] {
  const ipDir = path.dirname(path.resolve(sdkDir));
  let names: string[];
  try {
    names = readdirSync(ipDir).filter((n) => /^node\d+$/.test(n)).sort((a, b) => Number(a.slice(4)) - Number(b.slice(4)));
  } catch {
    return [];
  }
  const peers: Peer[] = [];
  for (const name of names) {
    let text: string;
    try {
      text = readFileSync(path.join(ipDir, name, 'config.ini'), 'utf8');
    } catch {
      continue;
    }
    const ip = /^\s*channel_listen_ip\s*=\s*(\S+)/m.exec(text)?.[1];
    const port = /^\s*channel_listen_port\s*=\s*(\d+)/m.exec(text)?.[1];
    if (ip && port) peers.push({ host: ip === '0.0.0.0' ? '127.0.0.1' : ip, port: Number(port) });
  }
  return peers;
}

export function initConsole(dir: string, sdkDir: string, peersOption?: string): InitResult {
  const configFile = path.join(dir, CONFIG_FILE);
  if (existsSync(configFile)) throw new ConsoleError(`${configFile} already exists; pick a new folder (nothing was changed)`);
  let sdkEntries: string[];
  try {
    if (!statSync(sdkDir).isDirectory()) throw new ConsoleError(`--sdk ${sdkDir}: not a folder`);
    sdkEntries = readdirSync(sdkDir);
  } catch (error) {
    if (error instanceof ConsoleError) throw error;
    throw new ConsoleError(`--sdk ${sdkDir}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such folder' : (error as Error).message} (give a node's sdk/ folder, e.g. nodes/127.0.0.1/sdk)`);
  }
  const missing = SDK_FILES.filter((f) => !sdkEntries.includes(f));
  if (missing.length > 0) throw new ConsoleError(`--sdk ${sdkDir}: ${missing.join(', ')} missing (a node's sdk/ folder from build-chain holds ca.crt, sdk.crt and sdk.key)`);

  let peers: Peer[];
  let peersFrom: string;
  if (peersOption !== undefined) {
    peers = peersOption.split(',').map((p) => parsePeer(p, '--peers'));
    peersFrom = '--peers';
  } else {
    peers = siblingNodePeers(sdkDir);
    peersFrom = peers.length > 0 ? `the nodes beside ${sdkDir}` : 'the default channel port';
    if (peers.length === 0) peers = [{ host: '127.0.0.1', port: 20200 }];
  }

  const created = !existsSync(dir);
  try {
    const conf = path.join(dir, 'conf');
    mkdirSync(conf, { recursive: true });
    const certificates: string[] = [];
    for (const entry of sdkEntries) {
      const from = path.join(sdkDir, entry);
      cpSync(from, path.join(conf, entry), { recursive: true });
      certificates.push(path.join('conf', entry));
    }
    const contractsDir = path.join(dir, CONTRACTS_DIR);
    mkdirSync(contractsDir, { recursive: true });
    const contracts = readdirSync(FIXTURE_CONTRACTS).filter((n) => n.endsWith('.sol')).sort();
    for (const name of contracts) copyFileSync(path.join(FIXTURE_CONTRACTS, name), path.join(contractsDir, name));
    writeFileSync(configFile, renderConsoleConfig(peers));
    return { dir, peers, peersFrom, certificates: certificates.sort(), contracts: contracts.map((n) => n.slice(0, -4)) };
  } catch (error) {
    if (created) rmSync(dir, { recursive: true, force: true });
    throw new ConsoleError(`cannot prepare ${dir}: ${(error as Error).message}`);
  }
}
