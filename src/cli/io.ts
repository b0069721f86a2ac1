/** Where a command writes; tests pass their own to capture output. */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  /** Whether stdout is an interactive terminal (progress bars only there). */
  readonly isTty: boolean;
}

export const processIo: CliIo = {
  out: (text) => void process.stdout.write(text.endsWith('\n') ? text : `${text}\n`),
  err: (text) => void process.stderr.write(text.endsWith('\n') ? text : `${text}\n`),
  isTty: Boolean(process.stdout.isTTY),
};
