import { createWriteStream, type WriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startChannelServer, type ChannelServer } from '../channel/index.js';
import { ensureChannelCertificates, OpensslError, type ChannelCertificates } from '../deploy/index.js';
import { startDevServer, type DevServer } from '../sim/index.js';
import { CliError } from './cli-error.js';
import { withStopSignal } from './signals.js';
import type { CliIo } from './io.js';
import { fileSystemError, fileSystemReason, folderProblem } from './output-path.js';
import { integerOption, oneOf, parseOptions } from './parse-options.js';


/** `host:port`, with an IPv6 host in brackets. */
function address(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/**
 * A failed listen or host look-up as one sentence naming the option to change (`what` names the
 * port's node and kind), or undefined for any other error.
 */
function listenFailure(error: unknown, host: string, what: (port: number | undefined) => string, option: string): CliError | undefined {
  const e = error as NodeJS.ErrnoException & { port?: number };
  const port = typeof e.port === 'number' ? e.port : undefined;
  const where = port === undefined ? `${what(port)} on ${host}` : `${address(host, port)} (${what(port)})`;
  switch (e.code) {
    case 'EADDRINUSE':
      return new CliError(`${where} is already in use; pick another ${option}`);
    case 'EACCES':
      return new CliError(`cannot listen on ${where}: permission denied (ports below 1024 need privileges); pick another ${option}`);
    case 'EADDRNOTAVAIL':
      return new CliError(`--host ${host}: not an address of this machine, so nothing can listen on it (e.g. --host 127.0.0.1)`);
    case 'ENOTFOUND':
      return new CliError(`--host ${host}: no such host (the name does not resolve)`);
    case 'EAI_AGAIN':
      return new CliError(`--host ${host}: the name server did not answer for it`);
    default:
      return undefined;
  }
}

/**
 * The channel ports' certificates (chain CA, one per node, one for SDKs) in `--cert-dir`, or
 * in a new temporary folder (`temporary`, removed when serve stops).
 */
async function channelCertificates(certDir: string | undefined, names: readonly string[]): Promise<{ certs: ChannelCertificates; temporary: boolean }> {
  if (certDir !== undefined) {
    const problem = await folderProblem(certDir);
    if (problem) throw new CliError(`--cert-dir ${certDir}: ${problem}`);
  }
  const dir = certDir !== undefined ? path.resolve(certDir) : await mkdtemp(path.join(tmpdir(), 'twinchain-serve-'));
  try {
    return { certs: await ensureChannelCertificates(dir, names), temporary: certDir === undefined };
  } catch (error) {
    if (certDir === undefined) await rm(dir, { recursive: true, force: true });
    if (error instanceof OpensslError && /not found on PATH/.test(error.exitStatus)) {
      throw new CliError(`openssl not found on PATH: serve makes its channel certificates with the system openssl (3.0 or newer); install it, or pass --no-channel`, 1);
    }
    const fsError = fileSystemError(error);
    if (fsError) throw new CliError(`${certDir !== undefined ? `--cert-dir ${certDir}: ` : ''}${fsError.message}`, 1);
    const reason = (error as Error).message.split('\n')[0];
    throw new CliError(`cannot make the channel certificates in ${dir}: ${reason}`, 1);
  }
}

/**
 * twinchain serve: a simulated group paced to the wall clock, node i's JSON-RPC on rpc-port + i
 * and its FISCO channel port (TLS with serve's own certificates) on channel-port + i.
 */
export function run(args: string[], io: CliIo, until?: Promise<unknown>): Promise<number> {
  return withStopSignal(until, (stop) => serve(args, io, stop));
}

async function serve(args: string[], io: CliIo, until: Promise<unknown>): Promise<number> {
  const { values, positionals } = parseOptions(args, {
    nodes: { type: 'string' },
    consensus: { type: 'string' },
    'rpc-port': { type: 'string' },
    'channel-port': { type: 'string' },
    'no-channel': { type: 'boolean' },
    'cert-dir': { type: 'string' },
    host: { type: 'string' },
    seed: { type: 'string' },
    'supported-version': { type: 'string' },
    suite: { type: 'string' },
    log: { type: 'string' },
    quiet: { type: 'boolean' },
  });
  if (positionals.length > 0) throw new CliError(`unexpected argument "${positionals[0]}"`);
  const nodes = integerOption(values.nodes, 'nodes', 4, 1, 64);
  const consensus = oneOf(values.consensus, ['pbft', 'raft'] as const, 'consensus') ?? 'pbft';
  const rpcPort = integerOption(values['rpc-port'], 'rpc-port', 8545, 0, 65535);
  if (rpcPort > 0 && rpcPort + nodes - 1 > 65535) throw new CliError(`--rpc-port ${rpcPort} leaves no room for ${nodes} nodes`);
  const channel = !values['no-channel'];
  if (!channel && (values['channel-port'] !== undefined || values['cert-dir'] !== undefined)) {
    throw new CliError(`--no-channel cannot be combined with --${values['channel-port'] !== undefined ? 'channel-port' : 'cert-dir'}`);
  }
  const channelPort = integerOption(values['channel-port'], 'channel-port', 20200, 0, 65535);
  if (channelPort > 0 && channelPort + nodes - 1 > 65535) throw new CliError(`--channel-port ${channelPort} leaves no room for ${nodes} nodes`);
  const suite = oneOf(values.suite, ['ecdsa', 'sm'] as const, 'suite');
  const supportedVersion = values['supported-version'];
  const host = values.host ?? '127.0.0.1';
  const seed = values.seed ?? 'twinchain-serve';

  let log: WriteStream | undefined;
  if (values.log !== undefined) {
    const file = values.log;
    log = createWriteStream(file, { flags: 'a' });
    await new Promise<void>((resolve, reject) => {
      log!.once('open', () => resolve());
      log!.once('error', (e: NodeJS.ErrnoException) => reject(new CliError(`--log ${file}: cannot write it: ${fileSystemReason(e, file)}`)));
    });
  }
  const names = Array.from({ length: nodes }, (_, i) => `node${i}`);
  let certs: ChannelCertificates | undefined;
  let temporary = false;
  if (channel) {
    try {
      ({ certs, temporary } = await channelCertificates(values['cert-dir'], names));
    } catch (error) {
      log?.end();
      throw error;
    }
  }
  const removeCerts = () => (temporary && certs ? rm(certs.dir, { recursive: true, force: true }) : Promise.resolve());
  const channels: ChannelServer[] = [];
  let server: DevServer;
  try {
    server = await startDevServer({
      nodes,
      consensus,
      rpcPort,
      host,
      seed,
      ...(suite ? { suite } : {}),
      ...(supportedVersion ? { supportedVersion } : {}),
      epochMs: Math.floor(Date.now() / 1000) * 1000,
      ...(values.quiet ? {} : {
            // every node commits every block; one line per block, as node0 saw it
            onBlock: (b) => {
              if (b.node === 'node0') io.out(`block ${b.number}  ${b.txs} tx  ${b.hash}`);
            },
          }),
      ...(log ? { onLog: (node: string, line: string) => void log!.write(`${node} ${line}\n`) } : {}),
      ...(certs
        ? {
            attach: async ({ name, index, service, supportedVersion }) => {
              const port = channelPort === 0 ? 0 : channelPort + index;
              const identity = certs!.nodes[index]!;
              const started = await startChannelServer({
                host,
                port,
                tls: { key: identity.key, cert: identity.cert, ca: identity.ca },
                service,
                supportedVersion,
                ...(log ? { log: (message: string) => void log!.write(`${name} [CHANNEL]${message}\n`) } : {}),
              }).catch((error: unknown) => {
                throw listenFailure(error, host, () => `${name}'s channel port`, '--channel-port') ?? error;
              });
              channels[index] = started;
              return started;
            },
          }
        : {}),
    });
  } catch (error) {
    log?.end();
    await removeCerts();
    if (error instanceof CliError) throw error;
    const message = (error as Error).message;
    const rpcNode = (port: number | undefined) => (port === undefined || rpcPort === 0 ? 'a JSON-RPC port' : `node${port - rpcPort}'s JSON-RPC port`);
    const listen = listenFailure(error, host, rpcNode, '--rpc-port');
    if (listen) throw listen;
    throw new CliError(supportedVersion !== undefined && /supported_version/.test(message) ? `--supported-version: ${message}` : message);
  }
  for (const [i, e] of server.endpoints.entries()) {
    io.out(`${e.node}  JSON-RPC  ${e.url}`);
    if (channels[i]) io.out(`${e.node}  channel   ${address(channels[i].host, channels[i].port)}`);
  }
  if (certs) io.out(`SDK certificates: ${certs.sdkDir}${temporary ? ' (a temporary folder, removed when serve stops)' : ''}`);
  io.out(
    `ready: ${nodes} ${consensus.toUpperCase()} sealer${nodes === 1 ? '' : 's'} in group 1, supported_version ${server.chain.version.text}, ` +
      `${server.chain.suite.name}, seed ${seed}; Ctrl-C stops`,
  );
  const failed = server.done.then(
    () => undefined,
    (error: unknown) => error as Error,
  );
  const outcome = await Promise.race([until.then(() => undefined), failed]);
  await server.close();
  await removeCerts();
  await new Promise<void>((resolve) => (log ? log.end(resolve) : resolve()));
  if (outcome instanceof Error) {
    io.err(`twinchain serve: the simulation stopped: ${outcome.message}`);
    return 1;
  }
  io.out('stopped');
  return 0;
}
