import { ConfigError, StartError, startNodeHost, stdoutStamp, type NodeHost } from '../host/index.js';
import { CliError } from './cli-error.js';
import { inputFileProblem } from './output-path.js';
import { withStopSignal } from './signals.js';
import type { CliIo } from './io.js';
import { parseOptions } from './parse-options.js';

/** A clean stop must take less than this; past it the process exits anyway (every committed block is already synced). */
const STOP_DEADLINE_MS = 4_500;

export interface NodeRunOptions {
  /** Resolves when the node should stop (default: the first SIGTERM or SIGINT). */
  readonly until?: Promise<unknown>;
}


/** twinchain node -c config.ini: one real node process, as FISCO's `fisco-bcos -c config.ini`. */
export function run(args: string[], io: CliIo, options: NodeRunOptions = {}): Promise<number> {
  return withStopSignal(options.until, (until) => runNode(args, io, options, until));
}

async function runNode(args: string[], io: CliIo, options: NodeRunOptions, until: Promise<unknown>): Promise<number> {
  const { values, positionals } = parseOptions(args, { config: { type: 'string', short: 'c' } });
  if (positionals.length > 0) throw new CliError(`unexpected argument "${positionals[0]}"`);
  if (values.config === undefined) throw new CliError('-c config.ini is required (the node directory\'s config.ini that build-chain wrote)');
  const problem = await inputFileProblem(values.config);
  if (problem) throw new CliError(`-c ${values.config}: ${problem}; -c takes the config.ini of a node directory (e.g. -c nodes/127.0.0.1/node0/config.ini)`);
  // the node's data and logs (LevelDB's files follow the umask) are its user's alone
  if (options.until === undefined) process.umask(0o077);
  io.out(`${stdoutStamp()} Initializing...`);

  let failure: unknown;
  let wake: () => void = () => undefined;
  const failed = new Promise<void>((resolve) => (wake = resolve));
  let host: NodeHost;
  try {
    host = await startNodeHost(values.config, {
      say: (line) => io.err(line),
      onStorageFailure: (groupId, failure) => io.out(`${stdoutStamp()} storage failure in group ${groupId}: ${failure.message}; the node stops`),
      onFatal: (error) => {
        failure ??= error;
        wake();
      },
    });
  } catch (error) {
    // what a user can fix is one line; anything else is a bug and keeps its stack
    const known =
      error instanceof ConfigError ||
      error instanceof StartError ||
      (error as NodeJS.ErrnoException).code !== undefined ||
      (error as Error).name === 'StorageError' ||
      (error as Error).name === 'StorageFailure';
    const reason = known ? (error as Error).message : ((error as Error).stack ?? String(error));
    io.out(`${stdoutStamp()} Init failed!!! ${reason}`);
    return 1;
  }
  const { config } = host;
  io.out(
    `${stdoutStamp()} The Twinchain node is running... (${host.name}, node id ${host.node.nodeId.slice(0, 16)}…, ` +
      `p2p ${config.p2p.listen.host}:${config.p2p.listen.port}, rpc ${host.rpc.host}:${host.rpc.port}, supported_version ${config.version.text})`,
  );

  await Promise.race([until, failed]);
  const deadline = new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), STOP_DEADLINE_MS).unref());
  const outcome = await Promise.race([host.stop().then(() => 'stopped' as const), deadline]);
  if (outcome === 'late') io.out(`${stdoutStamp()} the node did not stop within ${STOP_DEADLINE_MS} ms; exiting anyway (committed blocks are on disk)`);
  // nothing of the node should keep a node process alive now; if something does, leave anyway
  // (not when a test runs the command in its own process and says when to stop)
  if (options.until === undefined) setTimeout(() => process.exit(failure === undefined ? 0 : 1), 1_000).unref();
  if (failure !== undefined) {
    // a failed disk is one line that says what failed; anything else is a bug and keeps its stack
    const why = (failure as Error)?.name === 'StorageFailure' ? (failure as Error).message : ((failure as Error)?.stack ?? String(failure));
    io.out(`${stdoutStamp()} Twinchain program exit with an error: ${why}`);
    return 1;
  }
  io.out(`${stdoutStamp()} Twinchain program exit normally.`);
  return 0;
}
