// A console run: connect, then either the commands given (-e) or the lines on stdin without a
// prompt (stop at the first failure, exit 1), or an interactive session on a terminal with the
// prompt, history (kept in <dir>/.console_history) and tab completion.
import { appendFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { readConsoleConfig } from './console-config.js';
import { ConsoleError } from './console-error.js';
import { ConsoleRunner, type ConsoleOutput } from './console-runner.js';
import { ConsoleSession } from './console-session.js';

export const HISTORY_FILE = '.console_history';
const HISTORY_SIZE = 1000;

export interface ConsoleRunOptions {
  readonly dir: string;
  readonly group: number;
  /** Commands to run instead of reading stdin (from -e). */
  readonly commands?: readonly string[];
  readonly input: Readable;
  readonly output: Writable;
  /** Whether input and output are a terminal: prompt, history and completion only then. */
  readonly interactive: boolean;
  readonly io: ConsoleOutput;
}

function readHistory(file: string): string[] {
  try {
    // readline wants the newest first
    return readFileSync(file, 'utf8').split('\n').filter((l) => l.trim() !== '').slice(-HISTORY_SIZE).reverse();
  } catch {
    return [];
  }
}

/** Runs the console; resolves with the exit status. */
export async function runConsole(options: ConsoleRunOptions): Promise<number> {
  const { io } = options;
  let session: ConsoleSession;
  try {
    session = await ConsoleSession.open(readConsoleConfig(options.dir), options.group);
  } catch (error) {
    if (!(error instanceof ConsoleError)) throw error;
    io.err(`Error: ${error.message}`);
    return 1;
  }
  try {
    const runner = new ConsoleRunner(session, io);
    if (options.commands) {
      for (const command of options.commands) {
        const outcome = await runner.execute(command);
        if (outcome === 'failed') return 1;
        if (outcome === 'quit') break;
      }
      return 0;
    }
    if (!options.interactive) return await runScript(runner, options.input);
    return await runInteractive(runner, session, options);
  } finally {
    session.close();
  }
}

async function runScript(runner: ConsoleRunner, input: Readable): Promise<number> {
  const lines = readline.createInterface({ input, terminal: false, crlfDelay: Infinity });
  try {
    for await (const line of lines) {
      const outcome = await runner.execute(line);
      if (outcome === 'failed') return 1;
      if (outcome === 'quit') return 0;
    }
    return 0;
  } finally {
    lines.close();
  }
}

async function runInteractive(runner: ConsoleRunner, session: ConsoleSession, options: ConsoleRunOptions): Promise<number> {
  const { io } = options;
  const historyFile = path.join(options.dir, HISTORY_FILE);
  io.out(`Welcome to the Twinchain console, connected to ${session.client.address} (FISCO BCOS ${session.client.nodeVersion || 'node'}, channel protocol v${session.client.protocolVersion}).`);
  io.out(`Account ${session.account.address}${session.account.created ? ' (new)' : ''}, ${session.suiteName === 'sm' ? 'SM2/SM3' : 'ECDSA/keccak256'}. Type "help" for the commands, "quit" to leave.`);
  const rl = readline.createInterface({
    input: options.input,
    output: options.output,
    terminal: true,
    history: readHistory(historyFile),
    historySize: HISTORY_SIZE,
    removeHistoryDuplicates: true,
    completer: (line: string) => runner.complete(line),
    prompt: runner.prompt,
  });
  // a failed command is shown and the session goes on; only a lost connection ends it with status 1
  let failed = false;
  const ended = new Promise<void>((resolve) => rl.once('close', resolve));
  const lines = (async () => {
    rl.prompt();
    for await (const line of rl) {
      if (line.trim() !== '') {
        try {
          appendFileSync(historyFile, `${line}\n`);
        } catch {
          // history is a convenience; an unwritable folder must not stop the console
        }
      }
      rl.pause();
      const outcome = await runner.execute(line);
      if (outcome === 'quit') {
        rl.close();
        return;
      }
      if (!session.client.isOpen) {
        io.err('Error: the connection to the node was lost; leaving the console');
        failed = true;
        rl.close();
        return;
      }
      rl.setPrompt(runner.prompt);
      rl.resume();
      rl.prompt();
    }
  })();
  await Promise.race([ended, lines]);
  await lines.catch(() => undefined);
  return failed ? 1 : 0;
}
