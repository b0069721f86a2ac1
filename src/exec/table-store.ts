import { Account, Address } from '@ethereumjs/util';
import {
  bigintToBytes,
  bigintToFixedBytes,
  bytesToBigint,
  rlpDecode,
  rlpEncode,
  type RlpValue,
} from '../codec/index.js';
import type { FiscoStateManager } from '../state/index.js';

/** One table row: field name → string value (FISCO tables store strings). */
export type Row = Readonly<Record<string, string>>;

/** Rows of a table by key, as the row-level code (CNS, user tables) reads and writes them. */
export interface RowStore {
  rows(table: string, key: string): Promise<Row[]>;
  setRows(table: string, key: string, rows: readonly Row[]): Promise<void>;
}

/** All system and user tables live in the storage of this account (FISCO's TableFactory address). */
export const TABLE_ACCOUNT = new Address(bigintToFixedBytes(0x1001n, 20));

const SLOT_SPACE = 1n << 256n;
const textEncoder = new TextEncoder();
const textDecoder = new TextDecoder();

/**
 * FISCO-style tables (rows grouped under a key) kept in contract storage, so they are part of
 * the state root and follow the EVM journal: a reverted call or transaction undoes its writes.
 * Layout: the rows under (table, key) are RLP-encoded and stored in 32-byte chunks; the first
 * slot (hash of table and key) holds the byte length.
 */
export class TableStore implements RowStore {
  constructor(
    private readonly state: () => FiscoStateManager,
    private readonly hash: (data: Uint8Array) => Uint8Array,
  ) {}

  async rows(table: string, key: string): Promise<Row[]> {
    const sm = this.state();
    const base = this.baseSlot(table, key);
    const length = Number(bytesToBigint(await sm.getStorage(TABLE_ACCOUNT, slotBytes(base))));
    if (length === 0) return [];
    const data = new Uint8Array(Math.ceil(length / 32) * 32);
    for (let i = 0; i * 32 < length; i++) {
      const chunk = await sm.getStorage(TABLE_ACCOUNT, slotBytes(base + 1n + BigInt(i)));
      data.set(chunk, i * 32 + (32 - chunk.length));
    }
    return decodeRows(data.subarray(0, length));
  }

  async setRows(table: string, key: string, rows: readonly Row[]): Promise<void> {
    const sm = this.state();
    if (!(await sm.getAccount(TABLE_ACCOUNT))) await sm.putAccount(TABLE_ACCOUNT, new Account());
    const base = this.baseSlot(table, key);
    const oldLength = Number(bytesToBigint(await sm.getStorage(TABLE_ACCOUNT, slotBytes(base))));
    const data = rows.length === 0 ? new Uint8Array(0) : encodeRows(rows);
    await sm.putStorage(TABLE_ACCOUNT, slotBytes(base), bigintToBytes(BigInt(data.length)));
    const chunks = Math.ceil(data.length / 32);
    for (let i = 0; i < chunks; i++) {
      const chunk = new Uint8Array(32);
      chunk.set(data.subarray(i * 32, i * 32 + 32));
      await sm.putStorage(TABLE_ACCOUNT, slotBytes(base + 1n + BigInt(i)), stripLeadingZeros(chunk));
    }
    for (let i = chunks; i < Math.ceil(oldLength / 32); i++) {
      await sm.putStorage(TABLE_ACCOUNT, slotBytes(base + 1n + BigInt(i)), new Uint8Array(0));
    }
  }

  private baseSlot(table: string, key: string): bigint {
    return bytesToBigint(this.hash(rlpEncode([textEncoder.encode(table), textEncoder.encode(key)]))) % SLOT_SPACE;
  }
}

function slotBytes(slot: bigint): Uint8Array {
  return bigintToFixedBytes(slot % SLOT_SPACE, 32);
}

function stripLeadingZeros(bytes: Uint8Array): Uint8Array {
  let i = 0;
  while (i < bytes.length && bytes[i] === 0) i++;
  return bytes.subarray(i);
}

function encodeRows(rows: readonly Row[]): Uint8Array {
  return rlpEncode(
    rows.map((row) =>
      Object.keys(row)
        .sort()
        .map((field) => [textEncoder.encode(field), textEncoder.encode(row[field]!)]),
    ),
  );
}

function decodeRows(data: Uint8Array): Row[] {
  const value = rlpDecode(data, 'table rows') as RlpValue[];
  return value.map((row) => {
    const out: Record<string, string> = {};
    for (const pair of row as RlpValue[][]) out[textDecoder.decode(pair[0] as Uint8Array)] = textDecoder.decode(pair[1] as Uint8Array);
    return out;
  });
}
