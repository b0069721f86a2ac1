import type { StateManagerInterface } from '@ethereumjs/common';
import type { Address } from '@ethereumjs/util';
import type { KvOperation } from '../storage/index.js';
import type { BlockTables } from './storage-tables.js';
import type { CodeOverride, StorageGuard } from './twin-state-manager.js';

/**
 * What the executor needs of a state manager beyond ethereumjs' interface; the trie
 * (TwinStateManager) and FISCO's storage state (StorageStateManager) both provide it.
 */
export interface FiscoStateManager extends StateManagerInterface {
  codeOverride: CodeOverride | undefined;
  storageGuard: StorageGuard | undefined;
  /** Addresses (unprefixed hex) written since touched was last reset. */
  readonly touched: Set<string>;
  /** The transaction's origin, for states that record it (a contract's authority). */
  origin?: string;
  /** The code as stored, without the precompile override. */
  getStoredCode(address: Address): Promise<Uint8Array>;
  /** A CREATE is making `address` (and is done with it): for states that keep FISCO's nonces. */
  beginCreate?(address: Address): void;
  endCreate?(address: Address): void;
  /** FISCO's storage state: the block's tables, where the system tables live too. */
  blockTables?(): BlockTables;
}

/**
 * A group's world state as the block executor drives it: the Merkle Patricia trie (WorldState)
 * or FISCO's storage state (StorageWorldState).
 */
export interface GroupState {
  /** mpt: Twinchain's Merkle Patricia trie; storage: FISCO's tables, stateRoot = dbHash. */
  readonly kind: 'mpt' | 'storage';
  readonly stateManager: FiscoStateManager;
  /** Identifies the committed state (the trie root, or the storage state's dbHash chain). */
  readonly root: Uint8Array;
  readonly inBlock: boolean;
  readonly hasPending: boolean;
  begin(): Promise<void>;
  /** The block's state root (trie root or dbHash), its store writes and the accounts it changed. */
  finishBlock(): Promise<{ root: Uint8Array; writes: KvOperation[]; touched: string[] }>;
  adoptPending(root: Uint8Array, writes: readonly KvOperation[], touched: readonly string[]): Promise<void>;
  abortBlock(): Promise<void>;
  commitPending(persist: (writes: KvOperation[], root: Uint8Array) => Promise<void>): Promise<void>;
  discardPending(): Promise<void>;
  /** A read-only state of the committed tables or root; setStateRoot(root) moves it to a later commit. */
  readView(): FiscoStateManager;
}
