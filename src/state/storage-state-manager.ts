// The EVM's view of FISCO's storage state: ethereumjs' StateManagerInterface over BlockTables,
// with accounts as FISCO's StorageState keeps them. Every account is a table c_<address>
// (key/value entries): balance, codeHash, code, nonce, alive, and for contracts authority
// (the creating transaction's origin); each storage slot is an entry keyed by the slot's
// decimal number holding the decimal value (a zero is stored as "0", never deleted).
//
// Nonces: FISCO starts accounts at 0 and bumps a sender only when it creates a contract;
// ethereumjs starts contracts at 1. A contract's table keeps FISCO's nonce and the EVM sees
// one more; while a contract is being created the EVM sees the stored value, so its own
// "nonce = 1" lands as FISCO's 0.
import { Account, KECCAK256_NULL, KECCAK256_RLP, bytesToUnprefixedHex, type Address } from '@ethereumjs/util';
import type { StateManagerInterface } from '@ethereumjs/common';
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
}

export function accountTableName(address: Address | Uint8Array): string {
  return `c_${bytesToUnprefixedHex(address instanceof Uint8Array ? address : address.bytes)}`;
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

  /** `reset`: for read views, go back to the committed tables (what setStateRoot means here). */
  constructor(
    private readonly tablesOf: () => BlockTables,
    readonly options: StorageStateOptions,
    private readonly reset?: () => void,
  ) {
    this.emptyCodeHash = options.hash(EMPTY);
  }

  readonly originalStorageCache = {
    get: (address: Address, key: Uint8Array) => this.getStorage(address, key),
    clear: () => undefined,
  };

  private get tables(): BlockTables {
    return this.tablesOf();
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

  private async exists(address: Address): Promise<boolean> {
    return (await this.tables.openTable(accountTableName(address))) !== undefined;
  }

  private isCreating(address: Address): boolean {
    return this.creating.has(bytesToUnprefixedHex(address.bytes));
  }

  async getAccount(address: Address): Promise<Account | undefined> {
    const table = accountTableName(address);
    if (!(await this.tables.openTable(table))) return undefined;
    const nonce = BigInt(decoder.decode((await this.row(table, 'nonce')) ?? encoder.encode('0')));
    const balance = BigInt(decoder.decode((await this.row(table, 'balance')) ?? encoder.encode('0')));
    const isContract = (await this.row(table, 'authority')) !== undefined;
    const codeHash = await this.storedCodeHash(table);
    const evmNonce = isContract && !this.isCreating(address) ? nonce + 1n : nonce;
    return new Account(evmNonce, balance, KECCAK256_RLP, codeHash === undefined || bytesEqual(codeHash, this.emptyCodeHash) ? KECCAK256_NULL : codeHash);
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
  private async createAccount(address: Address, nonce: bigint, balance: bigint, contract: boolean): Promise<void> {
    const table = accountTableName(address);
    await this.tables.createTable(table, 'key', ['value']);
    await this.tables.insert(table, 'balance', { value: balance.toString() });
    await this.tables.insert(table, 'codeHash', { value: this.codeHashValue(this.emptyCodeHash) });
    await this.tables.insert(table, 'code', { value: '' });
    await this.tables.insert(table, 'nonce', { value: nonce.toString() });
    await this.tables.insert(table, 'alive', { value: 'true' });
    if (contract) await this.tables.insert(table, 'authority', { value: this.origin.replace(/^0x/, '').toLowerCase() });
  }

  async putAccount(address: Address, account?: Account): Promise<void> {
    if (account === undefined) return this.deleteAccount(address);
    const table = accountTableName(address);
    const creating = this.isCreating(address);
    // the EVM's EIP-161 "nonce = 1" of a new contract is FISCO's 0; from then on it is a contract
    if (creating && account.nonce >= 1n) this.endCreate(address);
    if (!(await this.exists(address))) {
      // ethereumjs writes back accounts it only looked at; FISCO creates a table only for a
      // contract or a sender whose nonce moves
      if (!creating && account.nonce === 0n && account.balance === 0n) return;
      this.touched.add(bytesToUnprefixedHex(address.bytes));
      await this.createAccount(address, creating ? clampNonce(account.nonce - 1n) : account.nonce, account.balance, creating);
      return;
    }
    const isContract = (await this.row(table, 'authority')) !== undefined;
    const nonce = isContract ? clampNonce(account.nonce - 1n) : account.nonce;
    const storedNonce = BigInt(decoder.decode((await this.row(table, 'nonce')) ?? encoder.encode('0')));
    const storedBalance = BigInt(decoder.decode((await this.row(table, 'balance')) ?? encoder.encode('0')));
    if (nonce !== storedNonce) {
      this.touched.add(bytesToUnprefixedHex(address.bytes));
      await this.setRow(table, 'nonce', nonce.toString());
    }
    if (account.balance !== storedBalance) {
      this.touched.add(bytesToUnprefixedHex(address.bytes));
      await this.setRow(table, 'balance', account.balance.toString());
    }
  }

  /** FISCO's kill: the account stays, emptied and marked not alive. */
  async deleteAccount(address: Address): Promise<void> {
    const table = accountTableName(address);
    if (!(await this.exists(address))) return;
    this.touched.add(bytesToUnprefixedHex(address.bytes));
    await this.setRow(table, 'nonce', '0');
    await this.setRow(table, 'balance', '0');
    await this.setRow(table, 'code', '');
    await this.setRow(table, 'codeHash', this.codeHashValue(this.emptyCodeHash));
    await this.setRow(table, 'alive', 'false');
  }

  async modifyAccountFields(address: Address, fields: Parameters<StateManagerInterface['modifyAccountFields']>[1]): Promise<void> {
    const account = (await this.getAccount(address)) ?? new Account();
    if (fields.nonce !== undefined) account.nonce = fields.nonce;
    if (fields.balance !== undefined) account.balance = fields.balance;
    await this.putAccount(address, account);
  }

  async putCode(address: Address, code: Uint8Array): Promise<void> {
    const table = accountTableName(address);
    if (!(await this.exists(address))) await this.createAccount(address, 0n, 0n, this.isCreating(address));
    this.touched.add(bytesToUnprefixedHex(address.bytes));
    await this.setRow(table, 'code', this.options.binaryCode ? code : toHexNoPrefix(code));
    await this.setRow(table, 'codeHash', this.codeHashValue(this.options.hash(code)));
  }

  /** The code as stored, without the precompile override (what getCode over RPC reports). */
  async getStoredCode(address: Address): Promise<Uint8Array> {
    const table = accountTableName(address);
    if (!(await this.tables.openTable(table))) return EMPTY;
    const value = await this.row(table, 'code');
    if (!value || value.length === 0) return EMPTY;
    return this.options.binaryCode ? value : fromHex(decoder.decode(value));
  }

  async getCode(address: Address): Promise<Uint8Array> {
    const code = await this.getStoredCode(address);
    if (code.length === 0 && this.codeOverride) return this.codeOverride(address) ?? code;
    return code;
  }

  async getCodeSize(address: Address): Promise<number> {
    return (await this.getCode(address)).length;
  }

  async getStorage(address: Address, key: Uint8Array): Promise<Uint8Array> {
    const table = accountTableName(address);
    if (!(await this.tables.openTable(table))) return EMPTY;
    const value = await this.row(table, bytesToBigint(key).toString());
    return value === undefined ? EMPTY : bigintToBytes(BigInt(decoder.decode(value)));
  }

  async putStorage(address: Address, key: Uint8Array, value: Uint8Array): Promise<void> {
    if (this.storageGuard) await this.storageGuard(address);
    const table = accountTableName(address);
    if (!(await this.exists(address))) return; // FISCO's setStorage writes only into an existing account
    this.touched.add(bytesToUnprefixedHex(address.bytes));
    await this.setRow(table, bytesToBigint(key).toString(), bytesToBigint(value).toString());
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
    if (savepoint !== undefined) this.tables.rollback(savepoint);
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
