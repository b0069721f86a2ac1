import { CliError, UsageError } from './cli-error.js';
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

/** Commands whose name starts with `word` as a group (`tx` for `tx decode`), when `word` is no command itself. */
function commandGroup(argv: string[]): CommandSpec[] | undefined {
  if (argv.length === 0 || commands.some((c) => c.name === argv[0])) return undefined;
  const members = commands.filter((c) => c.name.split(' ')[0] === argv[0]);
  return members.length > 0 ? members : undefined;
}

/** `twinchain help tx`, `twinchain tx --help`: the group's commands, each with its synopsis. */
export function groupUsage(word: string, members: readonly CommandSpec[]): string {
  const width = Math.max(...members.map((c) => c.synopsis.length));
  return `Usage: twinchain ${word} <command> [options]

Commands:
${members.map((c) => `  ${c.synopsis.padEnd(width)}  ${c.summary}`).join('\n')}

Run \`twinchain help ${members[0]!.name}\` (or \`twinchain ${members[0]!.name} --help\`) for a command's options and examples.`;
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
    const group = named ? undefined : commandGroup(argv.slice(1));
    if (group && argv.length === 2) {
      io.out(groupUsage(argv[1]!, group));
      return 0;
    }
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
  const group = found ? undefined : commandGroup(argv);
  if (group) {
    if (argv.length === 1 || (argv.length === 2 && (argv[1] === '--help' || argv[1] === '-h'))) {
      io.out(groupUsage(argv[0]!, group));
      return 0;
    }
    io.err(`twinchain: unknown command "${argv.join(' ')}".\n\n${groupUsage(argv[0]!, group)}`);
    return 2;
  }
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
    if (e instanceof UsageError) {
      io.err(`twinchain ${found.spec.name}: ${e.message}. Run \`twinchain ${found.spec.name} --help\` for its options.`);
      return e.exitCode;
    }
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
