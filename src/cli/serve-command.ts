import { createWriteStream, type WriteStream } from 'node:fs';
import { startDevServer, type DevServer } from '../sim/index.js';
import { CliError } from './cli-error.js';
import { firstSignal } from './signals.js';
import type { CliIo } from './io.js';
import { integerOption, oneOf, parseOptions } from './parse-options.js';


/** twinchain serve: a simulated group paced to the wall clock, node i's JSON-RPC on rpc-port + i. */
export async function run(args: string[], io: CliIo, until: Promise<unknown> = firstSignal()): Promise<number> {
  const { values, positionals } = parseOptions(args, {
    nodes: { type: 'string' },
    consensus: { type: 'string' },
    'rpc-port': { type: 'string' },
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
      ...(values.quiet ? {} : { onBlock: (b: { number: number; txs: number; hash: string }) => io.out(`block ${b.number}  ${b.txs} tx  ${b.hash}`) }),
      ...(log ? { onLog: (node: string, line: string) => void log!.write(`${node} ${line}\n`) } : {}),
    });
  } catch (error) {
    log?.end();
    const message = (error as Error).message;
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') throw new CliError(`a port is already in use (${message}); pick another --rpc-port`);
    throw new CliError(supportedVersion !== undefined && /supported_version/.test(message) ? `--supported-version: ${message}` : message);
  }
  for (const e of server.endpoints) io.out(`${e.node}  JSON-RPC  ${e.url}`);
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
  await new Promise<void>((resolve) => (log ? log.end(resolve) : resolve()));
  if (outcome instanceof Error) {
    io.err(`twinchain serve: the simulation stopped: ${outcome.message}`);
    return 1;
  }
  io.out('stopped');
  return 0;
}
