import { StorageError, type KvOperation, type KvRange, type KvStore, type KvStoreFactory, type MemoryStoreFactory } from '../../storage/index.js';
import type { Incarnation } from './sim-node.js';

/**
 * The storage port of one node incarnation, over the node's simulated disk. Once the incarnation
 * crashes every handle it opened refuses use, so a leftover promise of a dead node cannot write
 * to the disk its successor boots from. `close()` closes this handle only, never the disk.
 */
export class IncarnationStorage implements KvStoreFactory {
  constructor(
    private readonly disk: MemoryStoreFactory,
    private readonly life: Incarnation,
    private readonly nodeName: string,
  ) {}

  async open(name: string): Promise<KvStore> {
    if (!this.life.alive) throw this.deadError(name);
    return new IncarnationStore(this.disk.openSync(name), this, name);
  }

  /** @internal */
  check(name: string): void {
    if (!this.life.alive) throw this.deadError(name);
  }

  private deadError(name: string): StorageError {
    return new StorageError(
      `${this.nodeName}: store "${name}" belongs to incarnation ${this.life.number}, which crashed; the restarted node opens its own`,
    );
  }
}

class IncarnationStore implements KvStore {
  private closed = false;

  constructor(
    private readonly store: KvStore,
    private readonly owner: IncarnationStorage,
    private readonly name: string,
  ) {}

  async get(key: Uint8Array): Promise<Uint8Array | undefined> {
    this.check();
    return this.store.get(key);
  }

  async batch(operations: readonly KvOperation[], options?: { sync?: boolean }): Promise<void> {
    this.check();
    return this.store.batch(operations, options);
  }

  async put(key: Uint8Array, value: Uint8Array): Promise<void> {
    this.check();
    return this.store.put(key, value);
  }

  async del(key: Uint8Array): Promise<void> {
    this.check();
    return this.store.del(key);
  }

  async *entries(range?: KvRange): AsyncIterable<[Uint8Array, Uint8Array]> {
    this.check();
    for await (const entry of this.store.entries(range)) {
      this.check();
      yield entry;
    }
  }

  async sync(): Promise<void> {
    this.check();
    return this.store.sync();
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  private check(): void {
    this.owner.check(this.name);
    if (this.closed) throw new StorageError(`store "${this.name}" is closed`);
  }
}
