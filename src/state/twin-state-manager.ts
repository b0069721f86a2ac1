import { MerkleStateManager, type MerkleStateManagerOpts } from '@ethereumjs/statemanager';
import { RLP } from '@ethereumjs/rlp';
import { bytesToUnprefixedHex, concatBytes, createAccountFromRLP, hexToBytes, type Account, type Address } from '@ethereumjs/util';

/** The parts of ethereumjs' cache classes we touch directly (each cache keeps one of the two maps). */
interface EvictableCache {
  _lruCache?: { delete(key: string): unknown; get(key: string): unknown; set(key: string, value: unknown): unknown };
  _orderedMapCache?: { eraseElementByKey(key: string): unknown; getElementByKey(key: string): unknown; setElement(key: string, value: unknown): unknown };
}

const CODEHASH_PREFIX = new TextEncoder().encode('c');
const EMPTY = new Uint8Array(0);
const RLP_EMPTY = Uint8Array.of(0x80);

/**
 * Remember a value read from the trie without marking it modified. ethereumjs fills its caches
 * on reads with put(), which marks the entry dirty, so every account, code and slot a block
 * merely reads is written back into the trie at flush (and looks "touched").
 */
function fill(cache: EvictableCache | undefined, key: string, value: unknown): void {
  cache?._lruCache?.set(key, value);
  cache?._orderedMapCache?.setElement(key, value);
}

function peek(cache: EvictableCache | undefined, key: string): unknown {
  return cache?._lruCache ? cache._lruCache.get(key) : cache?._orderedMapCache?.getElementByKey(key);
}

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
  /** Addresses (unprefixed hex) written since touched was last reset. */
  readonly touched = new Set<string>();

  constructor(
    private readonly options: MerkleStateManagerOpts,
    codeOverride?: CodeOverride,
  ) {
    super(options);
    this.codeOverride = codeOverride;
  }

  override async getCode(address: Address): Promise<Uint8Array> {
    const code = await this.getStoredCode(address);
    if (code.length === 0 && this.codeOverride) return this.codeOverride(address) ?? code;
    return code;
  }

  /** The code as stored, without the precompile override (what getCode over RPC reports). */
  async getStoredCode(address: Address): Promise<Uint8Array> {
    const caches = this.cacheMaps();
    const key = bytesToUnprefixedHex(address.bytes);
    const elem = peek(caches?.code, key) as { code?: Uint8Array } | undefined;
    if (elem !== undefined) return elem.code ?? EMPTY;
    const account = await this.getAccount(address);
    if (!account || !account.isContract()) return EMPTY;
    const dbKey = this['_prefixCodeHashes'] ? concatBytes(CODEHASH_PREFIX, account.codeHash) : account.codeHash;
    const code = ((await this['_trie'].database().get(dbKey)) as Uint8Array | undefined) ?? EMPTY;
    fill(caches?.code, key, { code });
    return code;
  }

  override async getAccount(address: Address): Promise<Account | undefined> {
    const caches = this.cacheMaps();
    if (!caches) return super.getAccount(address);
    const key = bytesToUnprefixedHex(address.bytes);
    const elem = peek(caches.account, key) as { accountRLP?: Uint8Array } | undefined;
    if (elem !== undefined) return elem.accountRLP !== undefined ? createAccountFromRLP(elem.accountRLP) : undefined;
    const rlp = await this['_trie'].get(address.bytes);
    fill(caches.account, key, { accountRLP: rlp ?? undefined });
    return rlp ? createAccountFromRLP(rlp) : undefined;
  }

  override async getStorage(address: Address, key: Uint8Array): Promise<Uint8Array> {
    const caches = this.cacheMaps();
    if (!caches || key.length !== 32) return super.getStorage(address, key);
    const addressHex = bytesToUnprefixedHex(address.bytes);
    const slots = peek(caches.storage, addressHex) as Map<string, Uint8Array | undefined> | undefined;
    const slot = bytesToUnprefixedHex(key);
    const cached = slots?.get(slot);
    if (cached !== undefined) return RLP.decode(cached) as Uint8Array;
    const account = await this.getAccount(address);
    if (!account) return EMPTY;
    const value = await this._getStorageTrie(address, account).get(key);
    const map = slots ?? new Map<string, Uint8Array | undefined>();
    map.set(slot, value ?? RLP_EMPTY);
    if (!slots) fill(caches.storage, addressHex, map);
    return value ? (RLP.decode(value) as Uint8Array) : EMPTY;
  }

  private cacheMaps() {
    return this['_caches'] as unknown as Record<'account' | 'storage' | 'code', EvictableCache | undefined> | undefined;
  }

  override async putStorage(address: Address, key: Uint8Array, value: Uint8Array): Promise<void> {
    if (this.storageGuard) await this.storageGuard(address);
    this.touched.add(bytesToUnprefixedHex(address.bytes));
    return super.putStorage(address, key, value);
  }

  override async putAccount(address: Address, account?: Account): Promise<void> {
    this.touched.add(bytesToUnprefixedHex(address.bytes));
    return super.putAccount(address, account);
  }

  override async deleteAccount(address: Address): Promise<void> {
    this.touched.add(bytesToUnprefixedHex(address.bytes));
    return super.deleteAccount(address);
  }

  override async putCode(address: Address, value: Uint8Array): Promise<void> {
    this.touched.add(bytesToUnprefixedHex(address.bytes));
    return super.putCode(address, value);
  }

  override async clearStorage(address: Address): Promise<void> {
    this.touched.add(bytesToUnprefixedHex(address.bytes));
    return super.clearStorage(address);
  }

  /**
   * Point the state at another root that differs from the current one only in `touched`
   * accounts: forget exactly those from the caches (and their storage tries), keep the rest
   * warm. (setStateRoot would drop every cache.)
   */
  moveToRoot(root: Uint8Array, touched: Iterable<string>): void {
    const caches = this.cacheMaps();
    const storageTries = this['_storageTries'] as Record<string, unknown>;
    const hash = this['keccakFunction'] as (data: Uint8Array) => Uint8Array;
    for (const address of touched) {
      for (const cache of [caches?.account, caches?.storage, caches?.code]) {
        cache?._lruCache?.delete(address);
        cache?._orderedMapCache?.eraseElementByKey(address);
      }
      // ethereumjs keeps storage tries under the hashed address (and, after a write, the plain one)
      delete storageTries[bytesToUnprefixedHex(hash(hexToBytes(`0x${address}`)))];
      delete storageTries[address];
    }
    this['_trie'].root(root);
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
