import { MerkleStateManager, type MerkleStateManagerOpts } from '@ethereumjs/statemanager';
import type { Address } from '@ethereumjs/util';

/** Gives code to addresses that hold none in the trie (FISCO reports size 1 for precompiled contracts). */
export type CodeOverride = (address: Address) => Uint8Array | undefined;

/** Called before a contract storage write; throws (an EVM error) to refuse it. */
export type StorageGuard = (address: Address) => Promise<void>;

/**
 * MerkleStateManager with a hook for EXTCODESIZE & co. on precompiled addresses, so Solidity's
 * "target has code" check passes for calls to FISCO's system contracts and table objects.
 */
export class TwinStateManager extends MerkleStateManager {
  codeOverride: CodeOverride | undefined;
  storageGuard: StorageGuard | undefined;

  constructor(
    private readonly options: MerkleStateManagerOpts,
    codeOverride?: CodeOverride,
  ) {
    super(options);
    this.codeOverride = codeOverride;
  }

  override async getCode(address: Address): Promise<Uint8Array> {
    const code = await super.getCode(address);
    if (code.length === 0 && this.codeOverride) return this.codeOverride(address) ?? code;
    return code;
  }

  override async putStorage(address: Address, key: Uint8Array, value: Uint8Array): Promise<void> {
    if (this.storageGuard) await this.storageGuard(address);
    return super.putStorage(address, key, value);
  }

  /** The code as stored, without the precompile override (what getCode over RPC reports). */
  getStoredCode(address: Address): Promise<Uint8Array> {
    return super.getCode(address);
  }

  override shallowCopy(downlevelCaches = true): TwinStateManager {
    const base = super.shallowCopy(downlevelCaches);
    // Rebuild as a TwinStateManager around the copied trie and caches.
    const copy = new TwinStateManager(
      {
        ...this.options,
        common: base.common,
        trie: base['_trie'],
        caches: base['_caches'],
      },
      this.codeOverride,
    );
    return copy;
  }
}
