import { buildChain, BuildChainError, BuildChainUsageError, parseBuildChainArgs } from '../deploy/index.js';
import { CliError, UsageError } from './cli-error.js';
import { commands } from './commands.js';
import type { CliIo } from './io.js';

function usageError(error: unknown): never {
  if (error instanceof BuildChainUsageError) throw error.commandLine ? new UsageError(error.message) : new CliError(error.message);
  if (error instanceof BuildChainError) throw new CliError(error.message, 1);
  throw error;
}

/** twinchain build-chain: FISCO build_chain.sh's chain folder (certificates, config files, scripts). */
export async function run(args: string[], io: CliIo): Promise<number> {
  let options;
  try {
    options = parseBuildChainArgs(args);
  } catch (error) {
    usageError(error);
  }
  if (options === 'help') {
    io.out(commands.find((c) => c.name === 'build-chain')!.help);
    return 0;
  }
  try {
    await buildChain(options, { out: (line) => io.out(line), cleanUpOnSignal: true });
  } catch (error) {
    usageError(error);
  }
  return 0;
}
