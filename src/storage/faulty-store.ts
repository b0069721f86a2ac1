import { StorageFailure, type KvOperation, type KvRange, type KvStore, type KvStoreFactory, type StorageOperation } from './kv-store.js';

/** One operation as a FaultyStore sees it, for a fault's `when`. */
export interface StoreCall {
  readonly operation: StorageOperation;
  /** The batch of a write (put and del are one-operation batches); empty for reads and syncs. */
  readonly operations: readonly KvOperation[];
  /** Whether the write asked to be durable. */
  readonly sync: boolean;
}

export interface StoreFault {
  /** Which call fails (default: the next write or sync). */
  readonly when?: (call: StoreCall) => boolean;
  /** The error text, like the OS's (default `EIO: input/output error`). */
  readonly error?: string;
}

/**
 * A store whose disk fails on command, for fault tests: after `failNext`, the first call that
 * matches fails with a StorageFailure (as LevelStore reports a failing disk, the write not
 * applied), and from then on, as a dead disk does, every write and sync fails too. Reads keep
 * working unless the fault matched a read.
 */
export class FaultyStore implements KvStore {
  private armed: Required<StoreFault> | undefined;
  private dead: string | undefined;
  private readonly fired: Array<(call: StoreCall) => void> = [];

  constructor(
    private readonly inner: KvStore,
    readonly location: string,
  ) {}

  /** Arms a fault; resolves with the call it failed once it fired. */
  failNext(fault: StoreFault = {}): Promise<StoreCall> {
    this.armed = { when: fault.when ?? ((c) => c.operation !== 'read'), error: fault.error ?? 'EIO: input/output error' };
    return new Promise((resolve) => this.fired.push(resolve));
  }

  /** Whether a fault fired (the disk is failed). */
  get failed(): boolean {
    return this.dead !== undefined;
  }

  async get(key: Uint8Array): Promise<Uint8Array | undefined> {
    this.check({ operation: 'read', operations: [], sync: false });
    return this.inner.get(key);
  }

  async batch(operations: readonly KvOperation[], options: { sync?: boolean } = {}): Promise<void> {
    this.check({ operation: operations.length === 0 ? 'sync' : 'write', operations, sync: options.sync ?? false });
    return this.inner.batch(operations, options);
  }

  put(key: Uint8Array, value: Uint8Array): Promise<void> {
    return this.batch([{ type: 'put', key, value }]);
  }

  del(key: Uint8Array): Promise<void> {
    return this.batch([{ type: 'del', key }]);
  }

  async *entries(range?: KvRange): AsyncIterable<[Uint8Array, Uint8Array]> {
    this.check({ operation: 'read', operations: [], sync: false });
    yield* this.inner.entries(range);
  }

  async sync(): Promise<void> {
    this.check({ operation: 'sync', operations: [], sync: true });
    return this.inner.sync();
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  private check(call: StoreCall): void {
    if (this.dead !== undefined && call.operation !== 'read') throw this.failure(call, this.dead);
    const armed = this.armed;
    if (armed === undefined || !armed.when(call)) return;
    this.armed = undefined;
    this.dead = armed.error;
    for (const resolve of this.fired.splice(0)) resolve(call);
    throw this.failure(call, armed.error);
  }

  private failure(call: StoreCall, error: string): StorageFailure {
    return new StorageFailure(this.location, call.operation, new Error(`${error} (injected fault)`));
  }
}

/** A node's disk for fault tests: every store it opens is a FaultyStore (at `<directory>/<name>`), kept by name to fail on command. */
export class FaultyStoreFactory implements KvStoreFactory {
  readonly stores = new Map<string, FaultyStore>();

  constructor(
    private readonly inner: KvStoreFactory,
    private readonly directory: string,
  ) {}

  async open(name: string): Promise<KvStore> {
    const store = new FaultyStore(await this.inner.open(name), `${this.directory}/${name}`);
    this.stores.set(name, store);
    return store;
  }
}
