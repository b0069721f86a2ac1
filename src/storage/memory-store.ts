import { compareBytes } from '../codec/index.js';
import { StorageError, type KvOperation, type KvRange, type KvStore, type KvStoreFactory } from './kv-store.js';

const keyOf = (key: Uint8Array): string => Buffer.from(key.buffer, key.byteOffset, key.byteLength).toString('latin1');
const bytesOf = (key: string): Uint8Array => new Uint8Array(Buffer.from(key, 'latin1'));
/** Marks a deletion that is not yet durable. */
const TOMBSTONE = null;

/**
 * In-memory store that keeps durable and not-yet-synced writes apart, so a simulated crash can
 * drop exactly what a real process would lose.
 */
export class MemoryStore implements KvStore {
  private readonly durable = new Map<string, Uint8Array>();
  private readonly pending = new Map<string, Uint8Array | typeof TOMBSTONE>();
  private closed = false;

  async get(key: Uint8Array): Promise<Uint8Array | undefined> {
    return this.getSync(key);
  }

  /** Synchronous read for callers that know they hold a MemoryStore. */
  getSync(key: Uint8Array): Uint8Array | undefined {
    this.checkOpen();
    const k = keyOf(key);
    const p = this.pending.get(k);
    if (p !== undefined) return p === TOMBSTONE ? undefined : p;
    return this.durable.get(k);
  }

  async batch(operations: readonly KvOperation[], options: { sync?: boolean } = {}): Promise<void> {
    this.checkOpen();
    for (const op of operations) {
      this.pending.set(keyOf(op.key), op.type === 'put' ? new Uint8Array(op.value) : TOMBSTONE);
    }
    if (options.sync) this.syncNow();
  }

  put(key: Uint8Array, value: Uint8Array): Promise<void> {
    return this.batch([{ type: 'put', key, value }]);
  }

  del(key: Uint8Array): Promise<void> {
    return this.batch([{ type: 'del', key }]);
  }

  async *entries(range: KvRange = {}): AsyncIterable<[Uint8Array, Uint8Array]> {
    this.checkOpen();
    const merged = new Map(this.durable);
    for (const [k, v] of this.pending) {
      if (v === TOMBSTONE) merged.delete(k);
      else merged.set(k, v);
    }
    let keys = [...merged.keys()].map(bytesOf).filter((k) => (!range.gte || compareBytes(k, range.gte) >= 0) && (!range.lt || compareBytes(k, range.lt) < 0));
    keys.sort(compareBytes);
    if (range.reverse) keys.reverse();
    if (range.limit !== undefined) keys = keys.slice(0, range.limit);
    for (const k of keys) yield [k, merged.get(keyOf(k))!];
  }

  async sync(): Promise<void> {
    this.checkOpen();
    this.syncNow();
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  /** Open again after close(), as a process reopens its database (the data is kept). */
  reopen(): void {
    this.closed = false;
  }

  /** Simulated crash: forget every write since the last sync. The store stays usable (it models the disk). */
  crash(): void {
    this.pending.clear();
    this.closed = false;
  }

  /** Number of writes a crash would lose now. */
  get unsyncedWrites(): number {
    return this.pending.size;
  }

  /** Number of live keys (durable and pending). */
  get size(): number {
    let n = this.durable.size;
    for (const [k, v] of this.pending) {
      const had = this.durable.has(k);
      if (v === TOMBSTONE && had) n--;
      else if (v !== TOMBSTONE && !had) n++;
    }
    return n;
  }

  private syncNow(): void {
    for (const [k, v] of this.pending) {
      if (v === TOMBSTONE) this.durable.delete(k);
      else this.durable.set(k, v);
    }
    this.pending.clear();
  }

  private checkOpen(): void {
    if (this.closed) throw new StorageError('store is closed');
  }
}

/** Memory stores by name; the same name returns the same store (it plays the disk across restarts). */
export class MemoryStoreFactory implements KvStoreFactory {
  private readonly stores = new Map<string, MemoryStore>();

  async open(name: string): Promise<MemoryStore> {
    return this.openSync(name);
  }

  openSync(name: string): MemoryStore {
    let store = this.stores.get(name);
    if (!store) {
      store = new MemoryStore();
      this.stores.set(name, store);
    }
    store.reopen();
    return store;
  }

  /** Simulated crash of the owning process: every store loses its unsynced writes. */
  crash(): void {
    for (const store of this.stores.values()) store.crash();
  }

  get names(): string[] {
    return [...this.stores.keys()];
  }
}
