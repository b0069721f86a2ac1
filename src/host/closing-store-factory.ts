import { CachedStore, LevelStoreFactory, type KvStore, type KvStoreFactory } from '../storage/index.js';

/**
 * LevelDB stores under a data directory, each behind a read cache (state trie nodes are read
 * again and again), remembered so the process can close every one on exit.
 */
export class ClosingStoreFactory implements KvStoreFactory {
  private readonly inner: LevelStoreFactory;
  private readonly open_: KvStore[] = [];

  constructor(readonly dataDir: string) {
    this.inner = new LevelStoreFactory(dataDir);
  }

  async open(name: string): Promise<KvStore> {
    const store = new CachedStore(await this.inner.open(name));
    this.open_.push(store);
    return store;
  }

  /** Make every write durable and close every store. */
  async closeAll(): Promise<void> {
    const stores = this.open_.splice(0);
    await Promise.all(
      stores.map(async (store) => {
        await store.sync();
        await store.close();
      }),
    );
  }
}
