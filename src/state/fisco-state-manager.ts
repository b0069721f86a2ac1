import type { StateManagerInterface } from '@ethereumjs/common';
import type { Address } from '@ethereumjs/util';
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
}
