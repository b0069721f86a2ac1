import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { ClassicLevel } from 'classic-level';
import { StorageError, type KvOperation, type KvRange, type KvStore, type KvStoreFactory } from './kv-store.js';

type Db = ClassicLevel<Uint8Array, Uint8Array>;

// LevelDB fsyncs its log on a synced write; an empty batch writes nothing, so sync() rewrites this key.
const SYNC_MARK = new TextEncoder().encode('\u0000twinchain/sync');

/** LevelDB (classic-level) store: the real node's storage. */
export class LevelStore implements KvStore {
  private constructor(
    private readonly db: Db,
    readonly location: string,
  ) {}

  static async open(location: string): Promise<LevelStore> {
    await mkdir(location, { recursive: true });
    const db: Db = new ClassicLevel<Uint8Array, Uint8Array>(location, { keyEncoding: 'view', valueEncoding: 'view' });
    try {
      await db.open();
    } catch (e) {
      const cause = (e as { cause?: Error }).cause;
      throw new StorageError(`cannot open LevelDB at ${location}: ${cause?.message ?? (e as Error).message}`);
    }
    return new LevelStore(db, location);
  }

  async get(key: Uint8Array): Promise<Uint8Array | undefined> {
    const value = await this.db.get(key);
    return value === undefined ? undefined : new Uint8Array(value);
  }

  async batch(operations: readonly KvOperation[], options: { sync?: boolean } = {}): Promise<void> {
    if (operations.length === 0 && !options.sync) return;
    const ops = operations.length > 0 ? operations : [{ type: 'put' as const, key: SYNC_MARK, value: SYNC_MARK }];
    await this.db.batch(
      ops.map((op) => (op.type === 'put' ? { type: 'put', key: op.key, value: op.value } : { type: 'del', key: op.key })),
      { sync: options.sync ?? false },
    );
  }

  put(key: Uint8Array, value: Uint8Array): Promise<void> {
    return this.batch([{ type: 'put', key, value }]);
  }

  del(key: Uint8Array): Promise<void> {
    return this.batch([{ type: 'del', key }]);
  }

  async *entries(range: KvRange = {}): AsyncIterable<[Uint8Array, Uint8Array]> {
    const options: { gte?: Uint8Array; lt?: Uint8Array; reverse?: boolean; limit?: number } = {};
    if (range.gte) options.gte = range.gte;
    if (range.lt) options.lt = range.lt;
    if (range.reverse) options.reverse = true;
    if (range.limit !== undefined) options.limit = range.limit;
    for await (const [k, v] of this.db.iterator(options)) yield [new Uint8Array(k), new Uint8Array(v)];
  }

  sync(): Promise<void> {
    return this.batch([], { sync: true });
  }

  close(): Promise<void> {
    return this.db.close();
  }
}

/** One LevelDB directory per store name under a data directory (names may contain '/'). */
export class LevelStoreFactory implements KvStoreFactory {
  constructor(readonly dataDir: string) {}

  async open(name: string): Promise<LevelStore> {
    if (name.split('/').some((part) => part === '..' || part === '')) {
      throw new StorageError(`invalid store name "${name}"`);
    }
    return LevelStore.open(path.join(this.dataDir, name));
  }
}
