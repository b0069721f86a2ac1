/** A failure the console reports in one line (or a few, for compile errors); never a stack trace. */
export class ConsoleError extends Error {
  override readonly name = 'ConsoleError';
}
