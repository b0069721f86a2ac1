import type { KvOperation, KvRange, KvStore } from './kv-store.js';

const cacheKey = (key: Uint8Array) => Buffer.from(key.buffer, key.byteOffset, key.byteLength).toString('latin1');

/**
 * A read cache in front of a store: recently read or written values by key, least recently
 * used evicted past `maxBytes`. A real node's state trie reads the nodes its last blocks wrote
 * again and again, and each LevelDB read costs a trip through libuv's thread pool; the cache
 * answers those from memory. Writes go to the store first and update the cache after, so the
 * cache never holds what the store does not (a crash loses only the cache).
 */
export class CachedStore implements KvStore {
  private readonly cache = new Map<string, Uint8Array>();
  private bytes = 0;

  constructor(
    private readonly inner: KvStore,
    private readonly maxBytes = 64 * 1024 * 1024,
  ) {}

  async get(key: Uint8Array): Promise<Uint8Array | undefined> {
    const k = cacheKey(key);
    const hit = this.cache.get(k);
    if (hit !== undefined) {
      this.cache.delete(k);
      this.cache.set(k, hit);
      return hit;
    }
    const value = await this.inner.get(key);
    if (value !== undefined) this.remember(k, value);
    return value;
  }

  async batch(operations: readonly KvOperation[], options?: { sync?: boolean }): Promise<void> {
    await this.inner.batch(operations, options);
    for (const op of operations) {
      const k = cacheKey(op.key);
      if (op.type === 'put') this.remember(k, op.value);
      else this.forget(k);
    }
  }

  put(key: Uint8Array, value: Uint8Array): Promise<void> {
    return this.batch([{ type: 'put', key, value }]);
  }

  del(key: Uint8Array): Promise<void> {
    return this.batch([{ type: 'del', key }]);
  }

  entries(range?: KvRange): AsyncIterable<[Uint8Array, Uint8Array]> {
    return this.inner.entries(range);
  }

  sync(): Promise<void> {
    return this.inner.sync();
  }

  close(): Promise<void> {
    this.cache.clear();
    this.bytes = 0;
    return this.inner.close();
  }

  /** Bytes of values held (keys not counted). */
  get cachedBytes(): number {
    return this.bytes;
  }

  private remember(k: string, value: Uint8Array): void {
    this.forget(k);
    if (value.length > this.maxBytes / 16) return;
    this.cache.set(k, value);
    this.bytes += value.length;
    while (this.bytes > this.maxBytes) {
      const oldest = this.cache.keys().next().value!;
      this.forget(oldest);
    }
  }

  private forget(k: string): void {
    const old = this.cache.get(k);
    if (old === undefined) return;
    this.cache.delete(k);
    this.bytes -= old.length;
  }
}
