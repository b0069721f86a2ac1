/** A user-facing failure: printed as one line to stderr, and the process exits with `exitCode`. */
export class CliError extends Error {
  override readonly name: string = 'CliError';
  constructor(
    message: string,
    readonly exitCode = 2,
  ) {
    super(message);
  }
}

/** A command line the command cannot take (an unknown option, a missing value): main points at the command's --help. */
export class UsageError extends CliError {
  override readonly name = 'UsageError';
}
