// A group's world state as FISCO's storage state: the same block lifecycle as the trie's
// WorldState (begin, finish, commit or discard, adopt a result computed elsewhere), over
// BlockTables. A block's stateRoot is its dbHash; what identifies the state as a whole (for
// memo keys and reopening) is `root`, the hash chain of every block's dbHash since genesis.
import { bytesToUnprefixedHex } from '@ethereumjs/util';
import { concatBytes, type HashFunction } from '../codec/index.js';
import type { KvOperation, KvStore } from '../storage/index.js';
import type { DbHashOptions } from './db-hash.js';
import type { GroupState } from './fisco-state-manager.js';
import { StorageStateManager, type StorageStateOptions } from './storage-state-manager.js';
import { BlockTables, TableStorage, decodeWrites } from './storage-tables.js';

const STATE_ID_KEY = new TextEncoder().encode('t#root');

export interface StorageWorldStateOptions {
  readonly store: KvStore;
  /** The dbHash rule and hash (by supported_version and suite). */
  readonly dbHash: DbHashOptions;
  /** How accounts keep code and codeHash (by supported_version). */
  readonly accounts: Omit<StorageStateOptions, 'hash'>;
}

interface Pending {
  readonly root: Uint8Array;
  readonly stateId: Uint8Array;
  readonly writes: KvOperation[];
  readonly touched: string[];
}

export class StorageWorldState implements GroupState {
  readonly kind = 'storage' as const;
  readonly stateManager: StorageStateManager;
  private block: BlockTables;
  private pendingBlock: Pending | undefined;
  private started = false;

  private constructor(
    private readonly storage: TableStorage,
    private readonly options: StorageWorldStateOptions,
    private committedId: Uint8Array,
  ) {
    this.block = new BlockTables(storage);
    this.stateManager = new StorageStateManager(() => this.block, { hash: options.dbHash.hash, ...options.accounts });
  }

  static async open(options: StorageWorldStateOptions): Promise<StorageWorldState> {
    const id = (await options.store.get(STATE_ID_KEY)) ?? new Uint8Array(32);
    return new StorageWorldState(new TableStorage(options.store), options, id);
  }

  /** What identifies the committed state: the hash chain of the blocks' dbHashes. */
  get root(): Uint8Array {
    return this.committedId;
  }

  get inBlock(): boolean {
    return this.started;
  }

  get hasPending(): boolean {
    return this.pendingBlock !== undefined;
  }

  private chain(root: Uint8Array): Uint8Array {
    const hash: HashFunction = this.options.dbHash.hash;
    return hash(concatBytes(this.committedId, root));
  }

  async begin(): Promise<void> {
    if (this.started || this.pendingBlock) throw new Error('a block is already being applied to this state');
    this.stateManager.touched.clear();
    this.block = new BlockTables(this.storage);
    this.started = true;
    await this.stateManager.checkpoint();
  }

  /** The block's dbHash so far. */
  async pendingRoot(): Promise<Uint8Array> {
    return this.block.dbHash(this.options.dbHash);
  }

  /**
   * End the block: its root is its dbHash; its entries are read as committed until
   * commitPending() stores them or discardPending() drops them.
   */
  async finishBlock(): Promise<{ root: Uint8Array; writes: KvOperation[]; touched: string[] }> {
    const root = this.block.dbHash(this.options.dbHash);
    const { writes, cache, lastId } = await this.block.commitWrites();
    const stateId = this.chain(root);
    writes.push({ type: 'put', key: STATE_ID_KEY, value: stateId });
    await this.stateManager.commit();
    this.started = false;
    this.storage.setPending(cache, lastId);
    this.block = new BlockTables(this.storage);
    this.pendingBlock = { root, stateId, writes, touched: [...this.stateManager.touched] };
    return { root, writes, touched: this.pendingBlock.touched };
  }

  /** Take a block's result computed elsewhere on the same parent state. */
  async adoptPending(root: Uint8Array, writes: readonly KvOperation[], touched: readonly string[]): Promise<void> {
    if (this.started || this.pendingBlock) throw new Error('a block is already being applied to this state');
    const decoded = decodeWrites(writes);
    this.storage.setPending(decoded.entries, decoded.lastId ?? (await this.storage.lastId()));
    this.block = new BlockTables(this.storage);
    this.pendingBlock = { root, stateId: this.chain(root), writes: [...writes], touched: [...touched] };
  }

  async abortBlock(): Promise<void> {
    this.started = false;
    this.block = new BlockTables(this.storage);
    if (this.pendingBlock) await this.discardPending();
  }

  async commitPending(persist: (writes: KvOperation[], root: Uint8Array) => Promise<void>): Promise<void> {
    const pending = this.pendingBlock;
    if (!pending) throw new Error('no finished block to commit');
    await persist(pending.writes, pending.root);
    this.storage.keepPending();
    this.pendingBlock = undefined;
    this.committedId = pending.stateId;
    this.block = new BlockTables(this.storage);
  }

  async discardPending(): Promise<void> {
    this.pendingBlock = undefined;
    this.storage.dropPending();
    this.block = new BlockTables(this.storage);
  }

  /** A read-only state over the committed tables (a block in progress is not seen). */
  readView(): StorageStateManager {
    let view = new BlockTables(this.storage, true);
    return new StorageStateManager(() => view, this.stateManager.options, () => (view = new BlockTables(this.storage, true)));
  }

  /** For logs and tests: the state id as hex. */
  describe(): string {
    return bytesToUnprefixedHex(this.committedId);
  }
}
