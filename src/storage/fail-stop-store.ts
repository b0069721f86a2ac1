import { StorageFailure, type KvOperation, type KvRange, type KvStore } from './kv-store.js';

/**
 * A store that stops at its first StorageFailure: `onFailure` hears of it once, at the moment the
 * failing operation rejects (before its caller sees the rejection), and from then on every
 * operation rejects with that same failure, so nothing reads or writes a database whose state on
 * disk is no longer known. Plain StorageErrors (use after close, a crashed simulated node's
 * leftover handle) pass through and stop nothing.
 */
export class FailStopStore implements KvStore {
  private failed: StorageFailure | undefined;

  constructor(
    private readonly inner: KvStore,
    private readonly onFailure: (failure: StorageFailure) => void,
  ) {}

  /** The failure that stopped this store, if one did. */
  get failure(): StorageFailure | undefined {
    return this.failed;
  }

  get(key: Uint8Array): Promise<Uint8Array | undefined> {
    return this.guard(() => this.inner.get(key));
  }

  batch(operations: readonly KvOperation[], options?: { sync?: boolean }): Promise<void> {
    return this.guard(() => this.inner.batch(operations, options));
  }

  put(key: Uint8Array, value: Uint8Array): Promise<void> {
    return this.guard(() => this.inner.put(key, value));
  }

  del(key: Uint8Array): Promise<void> {
    return this.guard(() => this.inner.del(key));
  }

  async *entries(range?: KvRange): AsyncIterable<[Uint8Array, Uint8Array]> {
    if (this.failed) throw this.failed;
    try {
      for await (const entry of this.inner.entries(range)) {
        if (this.failed) throw this.failed;
        yield entry;
      }
    } catch (error) {
      throw this.seen(error);
    }
  }

  sync(): Promise<void> {
    return this.guard(() => this.inner.sync());
  }

  /** Closes the store under it (also after a failure: its files are released). */
  close(): Promise<void> {
    return this.inner.close();
  }

  /**
   * The operation's own promise, not one chained to it: a wrapper that awaited it would add a
   * microtask hop to every read and write, and the simulation's order of same-time events (so its
   * trace digests) would change. The failure is observed by a reaction registered before the
   * caller's, so the store stops before the caller goes on.
   */
  private guard<T>(operation: () => Promise<T>): Promise<T> {
    if (this.failed) return Promise.reject(this.failed);
    let pending: Promise<T>;
    try {
      pending = operation();
    } catch (error) {
      return Promise.reject(this.seen(error));
    }
    pending.catch((error: unknown) => this.seen(error));
    return pending;
  }

  private seen(error: unknown): unknown {
    if (this.failed) return this.failed;
    if (!(error instanceof StorageFailure)) return error;
    this.failed = error;
    this.onFailure(error);
    return error;
  }
}
