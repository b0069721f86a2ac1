import { createWriteStream, type WriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startChannelServer, type ChannelServer } from '../channel/index.js';
import { ensureChannelCertificates, OpensslError, type ChannelCertificates } from '../deploy/index.js';
import { startDevServer, type DevServer } from '../sim/index.js';
import { CliError } from './cli-error.js';
import { firstSignal } from './signals.js';
import type { CliIo } from './io.js';
import { integerOption, oneOf, parseOptions } from './parse-options.js';


/** `host:port`, with an IPv6 host in brackets. */
function address(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/**
 * The channel ports' certificates (chain CA, one per node, one for SDKs) in `--cert-dir`, or
 * in a new temporary folder (`temporary`, removed when serve stops).
 */
async function channelCertificates(certDir: string | undefined, names: readonly string[]): Promise<{ certs: ChannelCertificates; temporary: boolean }> {
  const dir = certDir !== undefined ? path.resolve(certDir) : await mkdtemp(path.join(tmpdir(), 'twinchain-serve-'));
  try {
    return { certs: await ensureChannelCertificates(dir, names), temporary: certDir === undefined };
  } catch (error) {
    if (certDir === undefined) await rm(dir, { recursive: true, force: true });
    if (error instanceof OpensslError && /not found on PATH/.test(error.exitStatus)) {
      throw new CliError(`openssl not found on PATH: serve makes its channel certificates with the system openssl (3.0 or newer); install it, or pass --no-channel`, 1);
    }
    const reason = (error as Error).message.split('\n')[0];
    throw new CliError(`cannot make the channel certificates in ${dir}: ${reason}`, 1);
  }
}

/**
 * twinchain serve: a simulated group paced to the wall clock, node i's JSON-RPC on rpc-port + i
 * and its FISCO channel port (TLS with serve's own certificates) on channel-port + i.
 */
export async function run(args: string[], io: CliIo, until: Promise<unknown> = firstSignal()): Promise<number> {
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
    log = createWriteStream(values.log, { flags: 'a' });
    await new Promise<void>((resolve, reject) => {
      log!.once('open', () => resolve());
      log!.once('error', (e) => reject(new CliError(`cannot write ${values.log}: ${e.message}`)));
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
              }).catch((error: NodeJS.ErrnoException) => {
                if (error.code === 'EADDRINUSE') throw new CliError(`${address(host, port)} (${name}'s channel port) is already in use; pick another --channel-port`);
                throw error;
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
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') throw new CliError(`a port is already in use (${message}); pick another --rpc-port`);
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
