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

export class StorageError extends Error {
  override readonly name = 'StorageError';
}
