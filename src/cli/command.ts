import type { CliIo } from './io.js';

export interface CommandModule {
  /** Runs the command; returns the process exit code. Throws CliError for usage and input errors. */
  run(args: string[], io: CliIo): Promise<number>;
}

export interface CommandSpec {
  /** One or two words, e.g. "run" or "tx decode". */
  readonly name: string;
  readonly synopsis: string;
  readonly summary: string;
  /** Full help text shown by `twinchain <command> --help`. */
  readonly help: string;
  /** Loaded only when the command runs, so `--help` stays fast. */
  readonly load: () => Promise<CommandModule>;
}
