import type { CliIo } from './io.js';

/** A CliIo that keeps what a command printed. */
export function captureIo(): CliIo & { stdout: string; stderr: string } {
  const io = {
    stdout: '',
    stderr: '',
    isTty: false,
    out(t: string) {
      io.stdout += `${t}\n`;
    },
    err(t: string) {
      io.stderr += `${t}\n`;
    },
  };
  return io;
}
