import { chmod, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { ClassicLevel } from 'classic-level';
import { StorageError, StorageFailure, type KvOperation, type KvRange, type KvStore, type KvStoreFactory, type StorageOperation } from './kv-store.js';

type Db = ClassicLevel<Uint8Array, Uint8Array>;

// LevelDB fsyncs its log on a synced write; an empty batch writes nothing, so sync() rewrites this key.
const SYNC_MARK = new TextEncoder().encode('\u0000twinchain/sync');

/**
 * LevelDB (classic-level) store: the real node's storage. A failing disk or database (LevelDB's
 * IO error, corruption, a full disk) is a StorageFailure naming the directory and the operation;
 * use after close is a plain StorageError.
 */
export class LevelStore implements KvStore {
  private constructor(
    private readonly db: Db,
    readonly location: string,
  ) {}

  /** Opens (creating it if needed, mode 0700) the database in `location`. */
  static async open(location: string): Promise<LevelStore> {
    try {
      // the node's data is its user's alone, whatever the umask (LevelDB's files follow the process umask)
      await mkdir(location, { recursive: true, mode: 0o700 });
      await chmod(location, 0o700);
    } catch (e) {
      throw new StorageFailure(location, 'open', e);
    }
    const db: Db = new ClassicLevel<Uint8Array, Uint8Array>(location, { keyEncoding: 'view', valueEncoding: 'view' });
    try {
      await db.open();
    } catch (e) {
      throw new StorageFailure(location, 'open', (e as { cause?: Error }).cause ?? e);
    }
    return new LevelStore(db, location);
  }

  async get(key: Uint8Array): Promise<Uint8Array | undefined> {
    let value;
    try {
      value = await this.db.get(key);
    } catch (e) {
      throw this.failure('read', e);
    }
    return value === undefined ? undefined : new Uint8Array(value);
  }

  async batch(operations: readonly KvOperation[], options: { sync?: boolean } = {}): Promise<void> {
    if (operations.length === 0 && !options.sync) return;
    const ops = operations.length > 0 ? operations : [{ type: 'put' as const, key: SYNC_MARK, value: SYNC_MARK }];
    try {
      await this.db.batch(
        ops.map((op) => (op.type === 'put' ? { type: 'put', key: op.key, value: op.value } : { type: 'del', key: op.key })),
        { sync: options.sync ?? false },
      );
    } catch (e) {
      throw this.failure(operations.length === 0 ? 'sync' : 'write', e);
    }
  }

  /** A failure of the database, or (once close was called) a plain error: a shutdown is not a failing disk. */
  private failure(operation: StorageOperation, error: unknown): StorageError {
    if (this.db.status !== 'open') return new StorageError(`${this.location}: the store is ${this.db.status} (${operation} refused)`);
    return new StorageFailure(this.location, operation, error);
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
    const iterator = this.db.iterator(options);
    try {
      for (;;) {
        let entry;
        try {
          entry = await iterator.next();
        } catch (e) {
          throw this.failure('read', e);
        }
        if (entry === undefined) return;
        yield [new Uint8Array(entry[0]), new Uint8Array(entry[1])];
      }
    } finally {
      await iterator.close().catch(() => undefined);
    }
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
