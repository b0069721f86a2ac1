// FISCO BCOS 2.x's storage-state commitment: every block's stateRoot (= dbHash) is a hash over
// the table entries the block changed (MemoryTableFactory::hash over MemoryTable2::dump).
//
// A table's dump is its changed existing entries, then its new entries, each group sorted by
// entry id, then by the value of the table's key field (new entries all have id 0). An entry
// contributes its fields in byte order of the field name, skipping names that begin or end
// with "_" (_id_, _status_, _num_, _hash_), each as name bytes then value bytes, then one
// status byte (0 normal, 1 deleted).
//
// Two rules by supported_version:
//   ≤ 2.4: table hash and final hash are sha256 (SM3 on SM chains); every table opened during
//          the block counts, one opened but unchanged contributes 32 zero bytes;
//   ≥ 2.5: the chain's hash (keccak256 or SM3) at both levels, changed tables only.
// The final hash is over the 32-byte table hashes concatenated in table-name order.
import { sha256 } from '@noble/hashes/sha2.js';
import { compareBytes, concatBytes, type HashFunction } from '../codec/index.js';

export type DbHashRule = 'v2.4' | 'v2.5';

/** One entry as the dump sees it. */
export interface DumpEntry {
  /** FISCO's `_id_`: 0 for an entry the block created. */
  readonly id: bigint;
  /** 0 normal, 1 deleted. */
  readonly status: number;
  /** Field name → value bytes (text fields as UTF-8; `code` and `codeHash` raw from 2.5 on). */
  readonly fields: ReadonlyMap<string, Uint8Array>;
}

/** What a block did to one table. */
export interface TableChanges {
  readonly name: string;
  readonly keyField: string;
  /** Entries that existed before the block and changed in it. */
  readonly changed: readonly DumpEntry[];
  /** Entries the block created. */
  readonly created: readonly DumpEntry[];
}

const encoder = new TextEncoder();
const ZERO_HASH = new Uint8Array(32);

function compareNames(a: string, b: string): number {
  return compareBytes(encoder.encode(a), encoder.encode(b));
}

const EMPTY = new Uint8Array(0);

function sortEntries(entries: readonly DumpEntry[], keyField: string): DumpEntry[] {
  return [...entries].sort((a, b) => (a.id !== b.id ? (a.id < b.id ? -1 : 1) : compareBytes(a.fields.get(keyField) ?? EMPTY, b.fields.get(keyField) ?? EMPTY)));
}

/** Whether a field takes part in the dump (FISCO skips its bookkeeping fields, _x or x_). */
export function isHashedField(name: string): boolean {
  return !name.startsWith('_') && !name.endsWith('_');
}

function entryBytes(entry: DumpEntry, out: Uint8Array[]): void {
  const names = [...entry.fields.keys()].filter(isHashedField).sort(compareNames);
  for (const name of names) {
    out.push(encoder.encode(name), entry.fields.get(name)!);
  }
  out.push(Uint8Array.of(entry.status));
}

/** The bytes MemoryTable2::dump hashes for one table's changes. */
export function tableDump(table: TableChanges): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const entry of sortEntries(table.changed, table.keyField)) entryBytes(entry, parts);
  for (const entry of sortEntries(table.created, table.keyField)) entryBytes(entry, parts);
  return concatBytes(...parts);
}

export interface DbHashOptions {
  readonly rule: DbHashRule;
  /** The chain's hash: keccak256, or SM3 on SM chains. */
  readonly hash: HashFunction;
  /** SM chains hash with SM3 under the 2.4 rule too. */
  readonly sm: boolean;
}

/**
 * The block's dbHash (= stateRoot) from what it did to each table. `opened` lists tables the
 * block opened without changing them; only the 2.4 rule counts those (as 32 zero bytes).
 */
export function computeDbHash(changes: readonly TableChanges[], options: DbHashOptions, opened: readonly string[] = []): Uint8Array {
  const tableHash = options.rule === 'v2.4' && !options.sm ? (d: Uint8Array) => sha256(d) : options.hash;
  const hashes = new Map<string, Uint8Array>();
  if (options.rule === 'v2.4') for (const name of opened) hashes.set(name, ZERO_HASH);
  for (const table of changes) {
    if (table.changed.length === 0 && table.created.length === 0) {
      if (options.rule === 'v2.4') hashes.set(table.name, ZERO_HASH);
      continue;
    }
    hashes.set(table.name, tableHash(tableDump(table)));
  }
  if (hashes.size === 0) return new Uint8Array(32);
  const names = [...hashes.keys()].sort(compareNames);
  return tableHash(concatBytes(...names.map((n) => hashes.get(n)!)));
}
