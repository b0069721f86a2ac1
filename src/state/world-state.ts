import { createCustomCommon, Hardfork, Mainnet, type Common } from '@ethereumjs/common';
import { createMPT } from '@ethereumjs/mpt';
import { Caches } from '@ethereumjs/statemanager';
import { ValueEncoding } from '@ethereumjs/util';
import { toHex } from '../codec/index.js';
import { keccak256 } from '../crypto/index.js';
import type { KvOperation, KvStore } from '../storage/index.js';
import type { GroupState } from './fisco-state-manager.js';
import { BufferedTrieDb } from './trie-db.js';
import { TwinStateManager, type CodeOverride } from './twin-state-manager.js';

/** Key prefix of state trie nodes and code inside a group's store. */
export const STATE_KEY_PREFIX = new TextEncoder().encode('s/');

export interface WorldStateOptions {
  readonly store: KvStore;
  /** Committed root to open at; the empty trie when absent. */
  readonly root?: Uint8Array;
  readonly codeOverride?: CodeOverride;
}

/**
 * Starts at Petersburg (FISCO's Constantinople without EIP-1283); the EVM moves it to the
 * hardfork of the chain's supported_version (src/exec/fisco-gas-schedule.ts). `hash` feeds SHA3 and everything else that reads customCrypto (trie, code hashes): the
 * suite's hash for the EVM, hash-wasm keccak (much faster than the default) for the state trie.
 */
export function createFiscoCommon(hash: (data: Uint8Array) => Uint8Array = keccak256): Common {
  return createCustomCommon({ chainId: 1 }, Mainnet, {
    hardfork: Hardfork.Petersburg,
    customCrypto: { keccak256: hash },
  });
}

/**
 * The world state of one group: accounts, code and storage in a Merkle Patricia trie hashed with
 * the chain's hash, persisted in the group's store. Block execution happens inside one
 * checkpoint, so a block is applied whole or not at all; committed trie writes are handed to
 * the caller to store atomically with the block.
 */
export class WorldState implements GroupState {
  readonly kind = 'mpt' as const;
  private constructor(
    readonly common: Common,
    readonly stateManager: TwinStateManager,
    private readonly db: BufferedTrieDb,
    private committedRoot: Uint8Array,
  ) {}

  /** A finished block awaiting commit or discard, with the accounts it changed. */
  private pendingBlock: { root: Uint8Array; writes: KvOperation[]; touched: string[] } | undefined;

  static async open(options: WorldStateOptions): Promise<WorldState> {
    // The trie itself always hashes with keccak256: ethereumjs hard-codes keccak empty-root and
    // empty-code constants, and the state root is our own commitment (FISCO's is a table hash).
    // The EVM gets the suite's hash for SHA3 through its own Common (see exec).
    const common = createFiscoCommon();
    const db = new BufferedTrieDb(options.store, STATE_KEY_PREFIX);
    const trie = await createMPT({
      db,
      useKeyHashing: true,
      common,
      valueEncoding: ValueEncoding.Bytes,
      ...(options.root ? { root: options.root } : {}),
    });
    if (options.root && !(await trie.checkRoot(options.root))) {
      throw new Error(`state root ${toHex(options.root)} is not in the store: the state is missing or corrupt`);
    }
    const stateManager = new TwinStateManager({ common, trie, caches: new Caches() }, options.codeOverride);
    return new WorldState(common, stateManager, db, trie.root());
  }

  /** Root of the last committed state. */
  get root(): Uint8Array {
    return this.committedRoot;
  }

  /**
   * Start a block. Until finishBlock() it runs inside a state checkpoint, so a failure midway
   * (abortBlock) leaves nothing behind.
   */
  async begin(): Promise<void> {
    if (this.inBlock || this.pendingBlock) throw new Error('a block is already being applied to this state');
    this.stateManager.touched.clear();
    await this.stateManager.checkpoint();
  }

  /** Root of the state as it stands inside the current block (flushes caches into the trie). */
  async pendingRoot(): Promise<Uint8Array> {
    return this.stateManager.getStateRoot();
  }

  /**
   * End the block: its trie writes move into the write buffer, and the state reads as the
   * block's result until commitPending() stores them or discardPending() returns to the parent.
   */
  async finishBlock(): Promise<{ root: Uint8Array; writes: KvOperation[]; touched: string[] }> {
    const root = await this.stateManager.getStateRoot();
    await this.stateManager.commit();
    this.pendingBlock = { root, writes: this.db.peekWrites(), touched: [...this.stateManager.touched] };
    return this.pendingBlock;
  }

  /**
   * Take a block's result computed elsewhere on the same parent state: its trie writes, root and
   * the accounts it touched (only those leave the caches).
   */
  async adoptPending(root: Uint8Array, writes: readonly KvOperation[], touched: readonly string[]): Promise<void> {
    if (this.inBlock || this.pendingBlock) throw new Error('a block is already being applied to this state');
    this.db.load(writes);
    this.stateManager.moveToRoot(root, touched);
    this.pendingBlock = { root, writes: [...writes], touched: [...touched] };
  }

  /** A failure while executing: undo everything since begin(). */
  async abortBlock(): Promise<void> {
    if (this.inBlock) {
      await this.stateManager.revert();
      // caches flushed inside the checkpoint (by pendingRoot) are not restored by revert: drop them
      this.stateManager.clearCaches();
    }
    this.db.discardWrites();
    if (this.pendingBlock) await this.discardPending();
  }

  /**
   * Keep the pending block. `persist` receives its store writes (to batch with the ledger's);
   * until it resolves, readers still find the new nodes in the buffer.
   */
  async commitPending(persist: (writes: KvOperation[], root: Uint8Array) => Promise<void>): Promise<void> {
    const pending = this.pendingBlock;
    if (!pending) throw new Error('no finished block to commit');
    await persist(pending.writes, pending.root);
    this.db.discardWrites();
    this.pendingBlock = undefined;
    this.committedRoot = pending.root;
  }

  /** Drop the pending block and read the parent state again. */
  async discardPending(): Promise<void> {
    const pending = this.pendingBlock;
    this.pendingBlock = undefined;
    this.db.discardWrites();
    if (pending) this.stateManager.moveToRoot(this.committedRoot, pending.touched);
  }

  get inBlock(): boolean {
    return this.stateManager['_checkpointCount'] > 0;
  }

  get hasPending(): boolean {
    return this.pendingBlock !== undefined;
  }

  /** A read-only copy pinned at the last committed root; later blocks do not change what it sees. */
  readView(): TwinStateManager {
    const view = this.stateManager.shallowCopy(false);
    view['_trie'].root(this.committedRoot);
    return view;
  }
}
