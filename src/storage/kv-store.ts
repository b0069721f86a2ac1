/** One write in an atomic batch. */
export type KvOperation =
  | { readonly type: 'put'; readonly key: Uint8Array; readonly value: Uint8Array }
  | { readonly type: 'del'; readonly key: Uint8Array };

export interface KvRange {
  /** Inclusive lower bound. */
  readonly gte?: Uint8Array;
  /** Exclusive upper bound. */
  readonly lt?: Uint8Array;
  readonly reverse?: boolean;
  readonly limit?: number;
}

/**
 * The storage port: a byte-keyed store with atomic batches. Writes become durable at `sync()`
 * (or when the batch asks for it); a crash may lose what was written since the last sync,
 * never part of a batch.
 */
export interface KvStore {
  get(key: Uint8Array): Promise<Uint8Array | undefined>;
  /** Apply all operations or none. `sync: true` makes this and every earlier write durable. */
  batch(operations: readonly KvOperation[], options?: { sync?: boolean }): Promise<void>;
  put(key: Uint8Array, value: Uint8Array): Promise<void>;
  del(key: Uint8Array): Promise<void>;
  /** Entries in ascending key order (descending with `reverse`). */
  entries(range?: KvRange): AsyncIterable<[Uint8Array, Uint8Array]>;
  /** Make every write so far durable. */
  sync(): Promise<void>;
  close(): Promise<void>;
}

/** Opens named stores (one per group ledger, say); the Env hands one of these to a node. */
export interface KvStoreFactory {
  open(name: string): Promise<KvStore>;
}

/** A store used wrongly or after it was closed (a bug or a shutdown), not a failing disk. */
export class StorageError extends Error {
  override readonly name: string = 'StorageError';
}

/** What a store was doing when the disk or the database under it failed. */
export type StorageOperation = 'open' | 'read' | 'write' | 'sync';

/**
 * The disk or the database under a store failed (an I/O error, a full disk, a corrupted or
 * locked database): what the store holds on disk is no longer known, so nothing may go on using
 * it. `location` names the database (for LevelDB its directory; the cause's text often names the
 * file inside it).
 */
export class StorageFailure extends StorageError {
  override readonly name = 'StorageFailure';
  constructor(
    readonly location: string,
    readonly operation: StorageOperation,
    cause: unknown,
  ) {
    super(`${operation} of ${location} failed: ${causeText(cause)}`, { cause });
  }
}

function causeText(cause: unknown): string {
  if (!(cause instanceof Error)) return String(cause);
  // classic-level wraps LevelDB's status ("IO error: …/000005.log: No space left on device") in `cause`
  const inner = (cause as { cause?: unknown }).cause;
  const text = inner instanceof Error && inner.message && !cause.message.includes(inner.message) ? `${cause.message}: ${inner.message}` : cause.message;
  const code = (cause as NodeJS.ErrnoException).code;
  return code && !text.includes(code) ? `${code}: ${text}` : text;
}
