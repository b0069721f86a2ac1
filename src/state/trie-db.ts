import type { BatchDBOp, DB } from '@ethereumjs/util';
import { concatBytes, fromHex } from '../codec/index.js';
import type { KvOperation, KvStore } from '../storage/index.js';

/**
 * The MPT's database, over a KvStore: node writes collect in a buffer until the caller takes
 * them (to commit them atomically with the block that produced them) or discards them.
 * The trie hands us unprefixed-hex keys and byte values.
 */
export class BufferedTrieDb implements DB<string, Uint8Array> {
  private buffer: Map<string, Uint8Array | null>;
  /**
   * Values handed out from the store since the last discard. The trie's checkpoint layer writes
   * back everything it read inside a checkpoint (code and nodes merely looked at); a put of the
   * very object the store gave us changes nothing and is dropped.
   */
  private readonly readFromStore = new Map<string, Uint8Array>();

  constructor(
    private readonly store: KvStore,
    private readonly prefix: Uint8Array,
    buffer?: Map<string, Uint8Array | null>,
  ) {
    this.buffer = buffer ?? new Map();
  }

  async get(key: string): Promise<Uint8Array | undefined> {
    const buffered = this.buffer.get(key);
    if (buffered !== undefined) return buffered ?? undefined;
    const value = await this.store.get(this.storeKey(key));
    if (value) {
      // only an optimisation: a reader that never discards (a read-only view) must not grow it forever
      if (this.readFromStore.size >= 100_000) this.readFromStore.clear();
      this.readFromStore.set(key, value);
    }
    return value;
  }

  async put(key: string, value: Uint8Array): Promise<void> {
    if (this.unchanged(key, value)) return;
    this.buffer.set(key, value);
  }

  /** A put of exactly what the store holds, and nothing buffered for the key since. */
  private unchanged(key: string, value: Uint8Array): boolean {
    return this.readFromStore.get(key) === value && !this.buffer.has(key);
  }

  async del(key: string): Promise<void> {
    this.buffer.set(key, null);
  }

  async batch(operations: BatchDBOp<string, Uint8Array>[]): Promise<void> {
    for (const op of operations) {
      if (op.type === 'put' && this.unchanged(op.key, op.value)) continue;
      this.buffer.set(op.key, op.type === 'put' ? op.value : null);
    }
  }

  /** Shares the store and the buffer: copies see each other's unflushed writes. */
  shallowCopy(): BufferedTrieDb {
    return new BufferedTrieDb(this.store, this.prefix, this.buffer);
  }

  async open(): Promise<void> {}

  /** Buffered writes as store operations (the buffer keeps them until discardWrites). */
  peekWrites(): KvOperation[] {
    const ops: KvOperation[] = [];
    for (const [key, value] of this.buffer) {
      ops.push(value === null ? { type: 'del', key: this.storeKey(key) } : { type: 'put', key: this.storeKey(key), value });
    }
    return ops;
  }

  /** Put store operations (from peekWrites of another instance) into the buffer. */
  load(writes: readonly KvOperation[]): void {
    for (const op of writes) {
      const key = Buffer.from(op.key.subarray(this.prefix.length)).toString('hex');
      this.buffer.set(key, op.type === 'put' ? op.value : null);
    }
  }

  discardWrites(): void {
    this.buffer.clear();
    this.readFromStore.clear();
  }

  get pendingWrites(): number {
    return this.buffer.size;
  }

  private storeKey(key: string): Uint8Array {
    return concatBytes(this.prefix, fromHex(key));
  }
}
