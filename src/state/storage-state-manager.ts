// The EVM's view of FISCO's storage state: ethereumjs' StateManagerInterface over BlockTables,
// with accounts as FISCO's StorageState keeps them. Every account is a table c_<address>
// (`_contract_data_<address>_` before 2.2.0; chain's TableNames) of key/value entries: balance, codeHash, code, nonce, alive, and for contracts authority
// (the creating transaction's origin); each storage slot is an entry keyed by the slot's
// decimal number holding the decimal value (a zero is stored as "0", never deleted).
//
// Nonces: FISCO starts accounts at 0 and bumps a sender only when it creates a contract;
// ethereumjs starts contracts at 1. A contract's table keeps FISCO's nonce and the EVM sees
// one more; while a contract is being created the EVM sees the stored value, so its own
// "nonce = 1" lands as FISCO's 0.
import { Account, KECCAK256_NULL, KECCAK256_RLP, bytesToUnprefixedHex, type Address } from '@ethereumjs/util';
import type { StateManagerInterface } from '@ethereumjs/common';
import { TableNames } from '../chain/index.js';
import { bigintToBytes, bytesEqual, bytesToBigint, fromHex, toHexNoPrefix, type HashFunction } from '../codec/index.js';
import type { BlockTables } from './storage-tables.js';
import type { CodeOverride, StorageGuard } from './twin-state-manager.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const EMPTY = new Uint8Array(0);

export const ACCOUNT_ROWS = ['balance', 'codeHash', 'code', 'nonce', 'alive'] as const;

export interface StorageStateOptions {
  /** The chain's hash (codeHash, and the empty code's hash). */
  readonly hash: HashFunction;
  /** Code stored as raw bytes (FISCO ≥ 2.4 with binary fields) rather than hex text. */
  readonly binaryCode: boolean;
  /** codeHash stored as 32 raw bytes (≥ 2.5) rather than hex text. */
  readonly binaryCodeHash: boolean;
  /** The account tables' names, by supported_version (default: `c_<address>`, 2.2.0 on). */
  readonly tableNames?: TableNames;
}

export function accountTableName(address: Address | Uint8Array, names: TableNames = TableNames.SHORT): string {
  return names.accountTable(bytesToUnprefixedHex(address instanceof Uint8Array ? address : address.bytes));
}

/** An account's entries as read (or last written) in the current block's tables. */
interface AccountRecord {
  nonce: bigint;
  balance: bigint;
  /** Has an authority entry: created by a transaction's CREATE. */
  contract: boolean;
  /** The EVM's view: KECCAK256_NULL for the empty code. */
  codeHash: Uint8Array;
}

export class StorageStateManager implements StateManagerInterface {
  codeOverride: CodeOverride | undefined;
  storageGuard: StorageGuard | undefined;
  /** The transaction's origin (lower-case hex without 0x): a contract's authority entry. */
  origin = '';
  /** Addresses (unprefixed hex) written since touched was last reset. */
  readonly touched = new Set<string>();
  private readonly creating = new Set<string>();
  private readonly savepoints: number[] = [];
  private readonly emptyCodeHash: Uint8Array;
  // Parsed accounts, code and slots of the tables they were read from: the EVM asks for the same
  // accounts many times per transaction. Writes go through to the tables and update these; a
  // rollback that undoes writes, or another block's tables, empties them.
  private cacheOwner: BlockTables | undefined;
  private readonly accounts = new Map<string, AccountRecord | null>();
  private readonly codes = new Map<string, Uint8Array>();
  private readonly slots = new Map<string, Uint8Array>();

  /** `reset`: for read views, go back to the committed tables (what setStateRoot means here). */
  constructor(
    private readonly tablesOf: () => BlockTables,
    readonly options: StorageStateOptions,
    private readonly reset?: () => void,
  ) {
    this.emptyCodeHash = options.hash(EMPTY);
    this.names = options.tableNames ?? TableNames.SHORT;
  }

  private readonly names: TableNames;

  readonly originalStorageCache = {
    get: (address: Address, key: Uint8Array) => this.getStorage(address, key),
    clear: () => undefined,
  };

  private get tables(): BlockTables {
    const tables = this.tablesOf();
    if (tables !== this.cacheOwner) {
      this.cacheOwner = tables;
      this.forget();
    }
    return tables;
  }

  private forget(): void {
    this.accounts.clear();
    this.codes.clear();
    this.slots.clear();
  }

  blockTables(): BlockTables {
    return this.tablesOf();
  }

  /** FiscoEvm tells which address a CREATE is making, and when it is done. */
  beginCreate(address: Address): void {
    this.creating.add(bytesToUnprefixedHex(address.bytes));
  }

  endCreate(address: Address): void {
    this.creating.delete(bytesToUnprefixedHex(address.bytes));
  }

  private async row(table: string, key: string): Promise<Uint8Array | undefined> {
    const [entry] = await this.tables.select(table, key);
    return entry?.fields.get('value');
  }

  private async setRow(table: string, key: string, value: string | Uint8Array): Promise<void> {
    if ((await this.tables.update(table, key, { value })) === 0) await this.tables.insert(table, key, { value });
  }

  /** The account's entries, or null when it has no table. */
  private record(hex: string): Promise<AccountRecord | null> {
    return this.readThrough(this.accounts, hex, hex, null, async (table) => {
      const codeHash = await this.storedCodeHash(table);
      return {
        nonce: BigInt(decoder.decode((await this.row(table, 'nonce')) ?? encoder.encode('0'))),
        balance: BigInt(decoder.decode((await this.row(table, 'balance')) ?? encoder.encode('0'))),
        contract: (await this.row(table, 'authority')) !== undefined,
        codeHash: codeHash === undefined || bytesEqual(codeHash, this.emptyCodeHash) ? KECCAK256_NULL : codeHash,
      };
    });
  }

  /** What account `hex`'s table gives for `key`, read once per block (`absent` when it has no table). */
  private async readThrough<T>(cache: Map<string, T>, key: string, hex: string, absent: T, load: (table: string) => Promise<T>): Promise<T> {
    const tables = this.tables; // first: it empties the caches when the block's tables changed
    const hit = cache.get(key);
    if (hit !== undefined) return hit;
    const table = this.names.accountTable(hex);
    const value = (await tables.openTable(table)) ? await load(table) : absent;
    cache.set(key, value);
    return value;
  }

  async getAccount(address: Address): Promise<Account | undefined> {
    const hex = bytesToUnprefixedHex(address.bytes);
    const record = await this.record(hex);
    if (!record) return undefined;
    const evmNonce = record.contract && !this.creating.has(hex) ? record.nonce + 1n : record.nonce;
    return new Account(evmNonce, record.balance, KECCAK256_RLP, record.codeHash);
  }

  private async storedCodeHash(table: string): Promise<Uint8Array | undefined> {
    const value = await this.row(table, 'codeHash');
    if (value === undefined) return undefined;
    return this.options.binaryCodeHash ? value : fromHex(decoder.decode(value));
  }

  private codeHashValue(hash: Uint8Array): string | Uint8Array {
    return this.options.binaryCodeHash ? hash : toHexNoPrefix(hash);
  }

  /** FISCO's createAccount, plus the authority entry of a contract. */
  private async createAccount(hex: string, nonce: bigint, balance: bigint, contract: boolean): Promise<AccountRecord> {
    const table = this.names.accountTable(hex);
    await this.tables.createTable(table, 'key', ['value']);
    await this.tables.insert(table, 'balance', { value: balance.toString() });
    await this.tables.insert(table, 'codeHash', { value: this.codeHashValue(this.emptyCodeHash) });
    await this.tables.insert(table, 'code', { value: '' });
    await this.tables.insert(table, 'nonce', { value: nonce.toString() });
    await this.tables.insert(table, 'alive', { value: 'true' });
    if (contract) await this.tables.insert(table, 'authority', { value: this.origin.replace(/^0x/, '').toLowerCase() });
    const record = { nonce, balance, contract, codeHash: KECCAK256_NULL };
    this.accounts.set(hex, record);
    this.codes.set(hex, EMPTY);
    return record;
  }

  async putAccount(address: Address, account?: Account): Promise<void> {
    if (account === undefined) return this.deleteAccount(address);
    const hex = bytesToUnprefixedHex(address.bytes);
    const table = this.names.accountTable(hex);
    const creating = this.creating.has(hex);
    // the EVM's EIP-161 "nonce = 1" of a new contract is FISCO's 0; from then on it is a contract
    if (creating && account.nonce >= 1n) this.endCreate(address);
    const record = await this.record(hex);
    if (!record) {
      // ethereumjs writes back accounts it only looked at; FISCO creates a table only for a
      // contract or a sender whose nonce moves
      if (!creating && account.nonce === 0n && account.balance === 0n) return;
      this.touched.add(hex);
      await this.createAccount(hex, creating ? clampNonce(account.nonce - 1n) : account.nonce, account.balance, creating);
      return;
    }
    const nonce = record.contract ? clampNonce(account.nonce - 1n) : account.nonce;
    if (nonce !== record.nonce) {
      this.touched.add(hex);
      await this.setRow(table, 'nonce', nonce.toString());
      record.nonce = nonce;
    }
    if (account.balance !== record.balance) {
      this.touched.add(hex);
      await this.setRow(table, 'balance', account.balance.toString());
      record.balance = account.balance;
    }
  }

  /** FISCO's kill: the account stays, emptied and marked not alive. */
  async deleteAccount(address: Address): Promise<void> {
    const hex = bytesToUnprefixedHex(address.bytes);
    const table = this.names.accountTable(hex);
    const record = await this.record(hex);
    if (!record) return;
    this.touched.add(hex);
    await this.setRow(table, 'nonce', '0');
    await this.setRow(table, 'balance', '0');
    await this.setRow(table, 'code', '');
    await this.setRow(table, 'codeHash', this.codeHashValue(this.emptyCodeHash));
    await this.setRow(table, 'alive', 'false');
    Object.assign(record, { nonce: 0n, balance: 0n, codeHash: KECCAK256_NULL });
    this.codes.set(hex, EMPTY);
  }

  async modifyAccountFields(address: Address, fields: Parameters<StateManagerInterface['modifyAccountFields']>[1]): Promise<void> {
    const account = (await this.getAccount(address)) ?? new Account();
    if (fields.nonce !== undefined) account.nonce = fields.nonce;
    if (fields.balance !== undefined) account.balance = fields.balance;
    await this.putAccount(address, account);
  }

  async putCode(address: Address, code: Uint8Array): Promise<void> {
    const hex = bytesToUnprefixedHex(address.bytes);
    const table = this.names.accountTable(hex);
    const record = (await this.record(hex)) ?? (await this.createAccount(hex, 0n, 0n, this.creating.has(hex)));
    this.touched.add(hex);
    await this.setRow(table, 'code', this.options.binaryCode ? code : toHexNoPrefix(code));
    const codeHash = this.options.hash(code);
    await this.setRow(table, 'codeHash', this.codeHashValue(codeHash));
    record.codeHash = bytesEqual(codeHash, this.emptyCodeHash) ? KECCAK256_NULL : codeHash;
    this.codes.set(hex, code);
  }

  /** The code as stored, without the precompile override (what getCode over RPC reports). */
  getStoredCode(address: Address): Promise<Uint8Array> {
    const hex = bytesToUnprefixedHex(address.bytes);
    return this.readThrough(this.codes, hex, hex, EMPTY, async (table) => {
      const value = await this.row(table, 'code');
      return !value || value.length === 0 ? EMPTY : this.options.binaryCode ? value : fromHex(decoder.decode(value));
    });
  }


  async getCode(address: Address): Promise<Uint8Array> {
    const code = await this.getStoredCode(address);
    if (code.length === 0 && this.codeOverride) return this.codeOverride(address) ?? code;
    return code;
  }

  async getCodeSize(address: Address): Promise<number> {
    return (await this.getCode(address)).length;
  }

  getStorage(address: Address, key: Uint8Array): Promise<Uint8Array> {
    const hex = bytesToUnprefixedHex(address.bytes);
    return this.readThrough(this.slots, hex + bytesToUnprefixedHex(key), hex, EMPTY, async (table) => {
      const stored = await this.row(table, bytesToBigint(key).toString());
      return stored === undefined ? EMPTY : bigintToBytes(BigInt(decoder.decode(stored)));
    });
  }


  async putStorage(address: Address, key: Uint8Array, value: Uint8Array): Promise<void> {
    if (this.storageGuard) await this.storageGuard(address);
    const hex = bytesToUnprefixedHex(address.bytes);
    if (!(await this.record(hex))) return; // FISCO's setStorage writes only into an existing account
    const number = bytesToBigint(value);
    // FISCO's host answers "unchanged" without writing, so the entry stays out of the dbHash
    if (bytesToBigint(await this.getStorage(address, key)) === number) return;
    this.touched.add(hex);
    await this.setRow(this.names.accountTable(hex), bytesToBigint(key).toString(), number.toString());
    this.slots.set(hex + bytesToUnprefixedHex(key), bigintToBytes(number));
  }

  /** FISCO's clearStorage does nothing. */
  async clearStorage(): Promise<void> {}

  async checkpoint(): Promise<void> {
    this.savepoints.push(this.tables.savepoint());
  }

  async commit(): Promise<void> {
    this.savepoints.pop();
  }

  async revert(): Promise<void> {
    const savepoint = this.savepoints.pop();
    const tables = this.tables;
    if (savepoint === undefined || tables.savepoint() === savepoint) return;
    tables.rollback(savepoint);
    this.forget();
  }

  get checkpoints(): number {
    return this.savepoints.length;
  }

  async getStateRoot(): Promise<Uint8Array> {
    throw new Error('the storage state has no root of its own: the block computes its dbHash');
  }

  async setStateRoot(): Promise<void> {
    if (!this.reset) throw new Error('the storage state reads the committed tables; it cannot be moved to a root');
    this.reset();
  }

  async hasStateRoot(): Promise<boolean> {
    return false;
  }

  /** Nothing to drop: the caches follow the block's tables exactly (see `tables`, `revert`). */
  clearCaches(): void {}

  shallowCopy(): StorageStateManager {
    const copy = new StorageStateManager(this.tablesOf, this.options, this.reset);
    copy.codeOverride = this.codeOverride;
    copy.storageGuard = this.storageGuard;
    return copy;
  }
}

function clampNonce(n: bigint): bigint {
  return n < 0n ? 0n : n;
}
