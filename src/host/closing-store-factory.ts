import { CachedStore, FaultyStore, LevelStoreFactory, type KvStore, type KvStoreFactory, type StoreCall } from '../storage/index.js';
import { armStorageFault, type StorageFaultSpec } from './storage-faults.js';

/**
 * LevelDB stores under a data directory, each behind a read cache (state trie nodes are read
 * again and again), remembered so the process can close every one on exit. With a fault spec
 * (fault tests only), each store's disk fails at the write it names.
 */
export class ClosingStoreFactory implements KvStoreFactory {
  private readonly inner: LevelStoreFactory;
  private readonly open_: KvStore[] = [];

  constructor(
    readonly dataDir: string,
    private readonly fault?: { readonly spec: StorageFaultSpec; readonly onInjected: (store: string, call: StoreCall) => void },
  ) {
    this.inner = new LevelStoreFactory(dataDir);
  }

  async open(name: string): Promise<KvStore> {
    const level = await this.inner.open(name);
    let disk: KvStore = level;
    if (this.fault) {
      const faulty = new FaultyStore(level, level.location);
      const { onInjected } = this.fault;
      const { fired } = await armStorageFault(faulty, this.fault.spec);
      void fired.then((call) => onInjected(level.location, call));
      disk = faulty;
    }
    const store = new CachedStore(disk);
    this.open_.push(store);
    return store;
  }

  /** Make every write durable and close every store (a store whose disk failed is closed all the same). */
  async closeAll(): Promise<void> {
    const stores = this.open_.splice(0);
    const results = await Promise.allSettled(
      stores.map(async (store) => {
        try {
          await store.sync();
        } finally {
          await store.close();
        }
      }),
    );
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
  }
}
