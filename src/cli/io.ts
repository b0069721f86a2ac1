/** Where a command writes; tests pass their own to capture output. */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  /** Whether stdout is an interactive terminal (progress bars only there). */
  readonly isTty: boolean;
  /** All of standard input, as text (absent: the process's own; tests pass their own). */
  readonly readStdin?: () => Promise<string>;
}

export const processIo: CliIo = {
  out: (text) => void process.stdout.write(text.endsWith('\n') ? text : `${text}\n`),
  err: (text) => void process.stderr.write(text.endsWith('\n') ? text : `${text}\n`),
  isTty: Boolean(process.stdout.isTTY),
};

/** The exit status of a process that a closed pipe stopped (128 + SIGPIPE), as \`yes | head -1\` leaves \`yes\`. */
export const CLOSED_PIPE_EXIT = 141;

let guarded = false;

/**
 * When the reader of stdout or stderr goes away (\`twinchain run … | head\`), writing fails
 * with EPIPE; Node ignores SIGPIPE and would crash with an unhandled 'error' event and a stack
 * trace. Instead the process stops at once, printing nothing, with the status a shell shows for
 * a command a closed pipe stopped. Other stream errors are left to crash as before.
 */
export function exitQuietlyWhenOutputCloses(): void {
  if (guarded) return;
  guarded = true;
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code !== 'EPIPE') throw e;
      process.exit(CLOSED_PIPE_EXIT);
    });
  }
}
