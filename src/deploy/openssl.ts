import { execFile } from 'node:child_process';
import { availableParallelism } from 'node:os';

/** Runs `openssl <args>` and resolves with its stdout; rejects with an OpensslError. */
export type OpensslRunner = (args: readonly string[]) => Promise<string>;

/** A failed openssl run: the command as typed in a shell, its exit status and its stderr. */
export class OpensslError extends Error {
  override readonly name = 'OpensslError';
  constructor(
    readonly command: string,
    readonly exitStatus: string,
    readonly stderr: string,
  ) {
    const firstLine = stderr.split('\n').find((l) => l.trim() !== '') ?? '';
    super(`${command} failed (${exitStatus})${firstLine ? `: ${firstLine.trim()}` : ''}`);
  }
}

/** How a shell would show the command (for logs only: the command itself runs without a shell). */
export function shellText(binary: string, args: readonly string[]): string {
  return [binary, ...args].map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ');
}

/**
 * The system openssl run through execFile (no shell), at most `parallel` at once so a build
 * of many nodes does not start hundreds of processes together.
 */
export function systemOpenssl(binary = 'openssl', parallel = Math.max(2, availableParallelism() * 2)): OpensslRunner {
  let running = 0;
  const waiting: (() => void)[] = [];
  const acquire = async () => {
    if (running >= parallel) await new Promise<void>((resolve) => waiting.push(resolve));
    running += 1;
  };
  const release = () => {
    running -= 1;
    waiting.shift()?.();
  };
  return async (args) => {
    await acquire();
    try {
      return await new Promise<string>((resolve, reject) => {
        execFile(binary, [...args], { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024, env: { ...process.env, LC_ALL: 'C' } }, (error, stdout, stderr) => {
          if (!error) {
            resolve(stdout);
            return;
          }
          const e = error as NodeJS.ErrnoException & { code?: unknown; signal?: unknown };
          const status =
            typeof e.code === 'string'
              ? e.code === 'ENOENT'
                ? `${binary} not found on PATH`
                : e.code
              : e.signal
                ? `killed by ${String(e.signal)}`
                : `exit status ${String(e.code)}`;
          reject(new OpensslError(shellText(binary, args), status, stderr || (typeof e.code === 'string' ? e.message : '')));
        });
      });
    } finally {
      release();
    }
  };
}
