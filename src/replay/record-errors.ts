// What record() throws, by exit code.

/** The options cannot work (another chain's file, a --from the file does not allow, --to before --from): exit 2. */
export class RecordUsageError extends Error {
  override readonly name = 'RecordUsageError';
}

/** The node failed (nonsense answers, errors, gone after the retries): exit 1. */
export class RecordError extends Error {
  override readonly name = 'RecordError';
}

/** Stopped by the signal before the chain's genesis and head were read: nothing was written. */
export class RecordStoppedError extends Error {
  override readonly name = 'RecordStoppedError';
}

/** How long requests in flight when the signal comes may still answer. */
export const STOP_GRACE_MS = 1000;
