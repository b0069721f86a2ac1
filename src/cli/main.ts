import { CliError } from './cli-error.js';
import type { CommandSpec } from './command.js';
import { commands } from './commands.js';
import { fileSystemError } from './output-path.js';
import { exitQuietlyWhenOutputCloses, processIo, type CliIo } from './io.js';

const VERSION = '0.1.0';

export function usage(): string {
  const width = Math.max(...commands.map((c) => c.synopsis.length));
  return `twinchain ${VERSION}: a FISCO BCOS 2.x compatible consortium-chain node, simulated or real

Usage: twinchain <command> [options]

Commands:
${commands.map((c) => `  ${c.synopsis.padEnd(width)}  ${c.summary}`).join('\n')}

Run \`twinchain help <command>\` (or \`twinchain <command> --help\`) for a command's options and examples.`;
}

function findCommand(argv: string[]): { spec: CommandSpec; rest: string[] } | undefined {
  for (const spec of commands) {
    const words = spec.name.split(' ');
    if (words.every((w, i) => argv[i] === w)) return { spec, rest: argv.slice(words.length) };
  }
  return undefined;
}

export async function main(argv: string[], io: CliIo = processIo): Promise<number> {
  if (io === processIo) exitQuietlyWhenOutputCloses();
  if (argv.length === 0 || argv[0] === '--help' || argv[0] === '-h' || (argv[0] === 'help' && argv.length === 1)) {
    io.out(usage());
    return 0;
  }
  if (argv[0] === 'help') {
    // `twinchain help run` is `twinchain run --help`
    const named = findCommand(argv.slice(1));
    if (!named || named.rest.length > 0) {
      io.err(`twinchain help: unknown command "${argv.slice(1).join(' ')}". Run \`twinchain --help\` for the list.`);
      return 2;
    }
    io.out(named.spec.help);
    return 0;
  }
  if (argv[0] === '--version' || argv[0] === '-v') {
    io.out(VERSION);
    return 0;
  }
  const found = findCommand(argv);
  if (!found) {
    io.err(`twinchain: unknown command "${argv.join(' ')}". Run \`twinchain --help\` for the list.`);
    return 2;
  }
  if (found.rest.includes('--help') || found.rest.includes('-h')) {
    io.out(found.spec.help);
    return 0;
  }
  try {
    const module = await found.spec.load();
    return await module.run(found.rest, io);
  } catch (e) {
    if (e instanceof CliError) {
      io.err(`twinchain ${found.spec.name}: ${e.message}`);
      return e.exitCode;
    }
    const fsError = fileSystemError(e);
    if (fsError) {
      io.err(`twinchain ${found.spec.name}: ${fsError.message}`);
      return fsError.exitCode;
    }
    io.err(`twinchain ${found.spec.name}: internal error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    return 70;
  }
}
