// Runs console lines: looks the command up (with "did you mean" for typos), checks the number
// of arguments against its usage, runs it and turns failures into one message. Interactive
// use (prompt, history, completion) and scripting (-e, stdin) both go through `execute`.
import { closest, splitCommandLine } from './command-line.js';
import { COMMANDS, type ConsoleCommand } from './console-commands.js';
import { ConsoleError } from './console-error.js';
import type { ConsoleSession } from './console-session.js';

export const QUIT_WORDS = ['quit', 'q', 'exit'];
const HELP_WORDS = ['help', 'h'];

export type LineOutcome = 'ok' | 'failed' | 'quit';

export interface ConsoleOutput {
  out(text: string): void;
  err(text: string): void;
}

export function commandNames(): string[] {
  return [...COMMANDS.flatMap((c) => [c.name, ...(c.aliases ?? [])]), ...HELP_WORDS, ...QUIT_WORDS].sort();
}

function findCommand(word: string): ConsoleCommand | undefined {
  return COMMANDS.find((c) => c.name === word || c.aliases?.includes(word));
}

function usageLine(command: ConsoleCommand): string {
  return `Usage: ${command.name}${command.usage ? ` ${command.usage}` : ''}`;
}

function helpText(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length)) + 2;
  const lines = COMMANDS.map((c) => `${c.name.padEnd(width)}${c.summary}`);
  lines.push(`${'help'.padEnd(width)}this list; "help <command>" or "<command> -h" shows its usage`);
  lines.push(`${'quit'.padEnd(width)}leave the console (also q, exit)`);
  return lines.join('\n');
}

export class ConsoleRunner {
  constructor(
    readonly session: ConsoleSession,
    private readonly output: ConsoleOutput,
  ) {}

  get prompt(): string {
    return `[group:${this.session.group}]> `;
  }

  /** Runs one line; failures are printed to err, never thrown. */
  async execute(line: string): Promise<LineOutcome> {
    let words: string[];
    try {
      words = splitCommandLine(line.trim());
    } catch (error) {
      this.output.err(`Error: ${(error as Error).message}`);
      return 'failed';
    }
    if (words.length === 0 || words[0]!.startsWith('#')) return 'ok';
    const [word, ...args] = words as [string, ...string[]];
    if (QUIT_WORDS.includes(word)) return 'quit';
    if (HELP_WORDS.includes(word)) {
      if (args.length === 0) this.output.out(helpText());
      else {
        const command = findCommand(args[0]!);
        if (!command) return this.unknown(args[0]!);
        this.output.out(`${usageLine(command)}\n${command.summary}`);
      }
      return 'ok';
    }
    const command = findCommand(word);
    if (!command) return this.unknown(word);
    if (args.length === 1 && (args[0] === '-h' || args[0] === '--help')) {
      this.output.out(`${usageLine(command)}\n${command.summary}`);
      return 'ok';
    }
    if (args.length < command.minArgs || args.length > command.maxArgs) {
      const expected = command.minArgs === command.maxArgs ? `${command.minArgs}` : command.maxArgs === Infinity ? `at least ${command.minArgs}` : `${command.minArgs} to ${command.maxArgs}`;
      this.output.err(`Error: ${command.name} takes ${expected} argument(s), got ${args.length}\n${usageLine(command)}`);
      return 'failed';
    }
    try {
      await command.run({ session: this.session, out: (text) => this.output.out(text) }, args);
      return 'ok';
    } catch (error) {
      if (!(error instanceof ConsoleError)) throw error;
      this.output.err(`Error: ${error.message}`);
      return 'failed';
    }
  }

  private unknown(word: string): LineOutcome {
    const guess = closest(word, commandNames());
    this.output.err(`Error: unknown command "${word}"${guess ? `; did you mean "${guess}"?` : ''} ("help" lists the commands)`);
    return 'failed';
  }

  /** Completions for the text before the cursor: command names, then contract names and `latest`. */
  complete(line: string): [string[], string] {
    const words = line.split(/\s+/);
    const current = words.at(-1) ?? '';
    let candidates: string[];
    if (words.length <= 1) candidates = commandNames();
    else if ((words[0] === 'deploy' || words[0] === 'call') && words.length === 2) candidates = this.session.contracts.names();
    else if (words[0] === 'call' && words.length === 3) candidates = ['latest'];
    else if (words[0] === 'call' && words.length === 4) {
      try {
        candidates = [...new Set(this.session.contracts.compile(words[1]!).abi.flatMap((i) => (i.type === 'function' ? [i.name] : [])))];
      } catch {
        candidates = [];
      }
    } else if ((words[0] === 'help' || words[0] === 'h') && words.length === 2) candidates = commandNames();
    else candidates = [];
    return [candidates.filter((c) => c.startsWith(current)), current];
  }
}
