/** A user-facing failure: printed as one line to stderr, and the process exits with `exitCode`. */
export class CliError extends Error {
  override readonly name = 'CliError';
  constructor(
    message: string,
    readonly exitCode = 2,
  ) {
    super(message);
  }
}
