// FISCO BCOS 2.x's storage state, the table layer: every piece of state is an entry (named
// fields, an id, a status) in a named table, entries grouped under the value of the table's key
// field. `TableStorage` holds the committed tables over a KvStore; `BlockTables` is one block's
// working set on top (FISCO's MemoryTableFactory2): it records which tables the block opened,
// which committed entries it changed and which it created, undoes to savepoints (the EVM's
// call frames), hashes the changes into the block's dbHash and turns them into store writes.
import { bigintToBytes, bytesEqual, bytesToBigint, rlpDecode, rlpEncode, type RlpValue } from '../codec/index.js';
import type { KvOperation, KvStore } from '../storage/index.js';
import { computeDbHash, type DbHashOptions, type DumpEntry, type TableChanges } from './db-hash.js';

/** FISCO's table of tables: one row per table (table_name, key_field, value_field). */
export const SYS_TABLES = '_sys_tables_';
const SYS_TABLES_KEY_FIELD = 'table_name';

export interface TableEntry {
  /** FISCO's `_id_`; 0 until the block that created the entry commits. */
  readonly id: bigint;
  /** 0 normal, 1 deleted. */
  status: number;
  readonly fields: Map<string, Uint8Array>;
}

export interface TableInfo {
  readonly name: string;
  readonly keyField: string;
  readonly valueFields: readonly string[];
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const ENTRY_PREFIX = encoder.encode('t/');
const ID_COUNTER_KEY = encoder.encode('t#id');

/** Store key of the entries under `key` in `table`: `t/<table>\0<key>`. */
export function entriesKey(table: string, key: string): Uint8Array {
  const t = encoder.encode(table);
  const k = encoder.encode(key);
  const out = new Uint8Array(ENTRY_PREFIX.length + t.length + 1 + k.length);
  out.set(ENTRY_PREFIX);
  out.set(t, ENTRY_PREFIX.length);
  out.set(k, ENTRY_PREFIX.length + t.length + 1);
  return out;
}

function encodeEntries(entries: readonly TableEntry[]): Uint8Array {
  return rlpEncode(entries.map((e) => [bigintToBytes(e.id), [...e.fields].map(([name, value]) => [encoder.encode(name), value])]) as RlpValue[]);
}

function decodeEntries(bytes: Uint8Array): TableEntry[] {
  return (rlpDecode(bytes, 'table entries') as RlpValue[][]).map(([id, fields]) => ({
    id: bytesToBigint(id as Uint8Array),
    status: 0,
    fields: new Map((fields as RlpValue[][]).map(([name, value]) => [decoder.decode(name as Uint8Array), value as Uint8Array])),
  }));
}

function copyEntry(entry: TableEntry): TableEntry {
  return { id: entry.id, status: entry.status, fields: new Map(entry.fields) };
}

/** The committed tables of one group, read through a bounded cache. */
export class TableStorage {
  private readonly cache = new Map<string, TableEntry[]>();
  private nextIdValue: bigint | undefined;
  /** A finished block's entries, read before the store until it is kept or dropped. */
  private pending: { entries: Map<string, TableEntry[]>; lastId: bigint } | undefined;

  constructor(
    readonly store: KvStore,
    private readonly cacheLimit = 100_000,
  ) {}

  /** Committed entries under `key` (copies the caller may change). */
  async entries(table: string, key: string, committedOnly = false): Promise<TableEntry[]> {
    const cacheKey = `${table}\0${key}`;
    let entries = (committedOnly ? undefined : this.pending?.entries.get(cacheKey)) ?? this.cache.get(cacheKey);
    if (!entries) {
      const bytes = await this.store.get(entriesKey(table, key));
      entries = bytes ? decodeEntries(bytes) : [];
      this.remember(cacheKey, entries);
    }
    return entries.map(copyEntry);
  }

  /** The table's definition from `_sys_tables_`, or undefined when there is no such table. */
  async info(name: string, committedOnly = false): Promise<TableInfo | undefined> {
    if (name === SYS_TABLES) return { name, keyField: SYS_TABLES_KEY_FIELD, valueFields: ['key_field', 'value_field'] };
    const [row] = await this.entries(SYS_TABLES, name, committedOnly);
    return row ? infoOf(row) : undefined;
  }

  /** The last entry id handed out (FISCO's current_id). */
  async lastId(committedOnly = false): Promise<bigint> {
    if (this.pending && !committedOnly) return this.pending.lastId;
    if (this.nextIdValue === undefined) {
      const bytes = await this.store.get(ID_COUNTER_KEY);
      this.nextIdValue = bytes ? bytesToBigint(bytes) : 0n;
    }
    return this.nextIdValue;
  }

  /** After the writes of `apply` are stored: keep the cache in step with them. */
  applied(writes: ReadonlyMap<string, TableEntry[]>, lastId: bigint): void {
    for (const [cacheKey, entries] of writes) this.remember(cacheKey, entries);
    this.nextIdValue = lastId;
  }

  /** Read a finished block's entries (from commitWrites or decodeWrites) as if committed. */
  setPending(entries: Map<string, TableEntry[]>, lastId: bigint): void {
    this.pending = { entries, lastId };
  }

  /** The pending block's writes are stored: they become the committed state. */
  keepPending(): void {
    if (!this.pending) return;
    this.applied(this.pending.entries, this.pending.lastId);
    this.pending = undefined;
  }

  dropPending(): void {
    this.pending = undefined;
  }

  /** Forget cached entries (after a store was changed behind this object's back). */
  clearCache(): void {
    this.cache.clear();
    this.nextIdValue = undefined;
  }

  private remember(cacheKey: string, entries: TableEntry[]): void {
    if (this.cache.size >= this.cacheLimit) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(cacheKey, entries);
  }

  static idCounterKey(): Uint8Array {
    return ID_COUNTER_KEY;
  }
}

function infoOf(row: TableEntry): TableInfo {
  const text = (field: string) => decoder.decode(row.fields.get(field) ?? new Uint8Array(0));
  return { name: text('table_name'), keyField: text('key_field'), valueFields: text('value_field').split(',').filter((f) => f !== '') };
}

/** Entries under one key as the block sees them, and whether each committed one was changed. */
interface WorkingKey {
  readonly table: string;
  readonly key: string;
  entries: TableEntry[];
  /** Ids of committed entries the block changed (dirty, even when set to the same value, as FISCO marks them). */
  readonly dirty: Set<bigint>;
}

type Undo = () => void;

export class BlockTables {
  private readonly working = new Map<string, WorkingKey>();
  private readonly infos = new Map<string, TableInfo | null>();
  private readonly opened = new Set<string>();
  private readonly journal: Undo[] = [];

  /** `committedOnly`: read past a finished block that is not committed yet (read views). */
  constructor(
    readonly storage: TableStorage,
    private readonly committedOnly = false,
  ) {}

  /** Opens an existing table (remembered: the 2.4 rule hashes every table a block opened). */
  async openTable(name: string): Promise<TableInfo | undefined> {
    let info = this.infos.get(name);
    if (info === undefined) {
      const working = this.working.get(`${SYS_TABLES}\0${name}`);
      const row = working?.entries.find((e) => e.status === 0);
      info = working ? (row ? infoOf(row) : null) : ((await this.storage.info(name, this.committedOnly)) ?? null);
      this.infos.set(name, info);
    }
    // as in FISCO, a rollback does not close what was opened
    if (info) this.opened.add(name);
    return info ?? undefined;
  }

  /** Creates a table (a `_sys_tables_` row); false if it exists already. */
  async createTable(name: string, keyField: string, valueFields: readonly string[]): Promise<boolean> {
    if (await this.openTable(name)) return false;
    await this.insert(SYS_TABLES, name, { table_name: name, key_field: keyField, value_field: valueFields.join(',') });
    this.infos.delete(name);
    this.journal.push(() => this.infos.delete(name));
    await this.openTable(name);
    return true;
  }

  private async slot(table: string, key: string): Promise<WorkingKey> {
    const cacheKey = `${table}\0${key}`;
    let slot = this.working.get(cacheKey);
    if (!this.opened.has(table)) await this.openTable(table);
    if (!slot) {
      slot = { table, key, entries: await this.storage.entries(table, key, this.committedOnly), dirty: new Set() };
      this.working.set(cacheKey, slot);
    }
    return slot;
  }

  /** Live entries under `key` (not deleted), optionally filtered. */
  async select(table: string, key: string, match?: (fields: ReadonlyMap<string, Uint8Array>) => boolean): Promise<TableEntry[]> {
    const slot = await this.slot(table, key);
    return slot.entries.filter((e) => e.status === 0 && (!match || match(e.fields)));
  }

  /** A new entry under `key` (its key field set to `key`). */
  async insert(table: string, key: string, fields: Readonly<Record<string, string | Uint8Array>>): Promise<void> {
    const info = await this.openTable(table);
    const slot = await this.slot(table, key);
    const entry: TableEntry = { id: 0n, status: 0, fields: new Map() };
    entry.fields.set(info?.keyField ?? 'key', encoder.encode(key));
    for (const [name, value] of Object.entries(fields)) entry.fields.set(name, typeof value === 'string' ? encoder.encode(value) : value);
    slot.entries.push(entry);
    this.journal.push(() => void slot.entries.splice(slot.entries.indexOf(entry), 1));
    if (table === SYS_TABLES) this.infos.delete(key);
  }

  /** Sets `fields` on every live entry under `key` that `match` accepts; returns how many. */
  async update(table: string, key: string, fields: Readonly<Record<string, string | Uint8Array>>, match?: (fields: ReadonlyMap<string, Uint8Array>) => boolean): Promise<number> {
    const targets = await this.select(table, key, match);
    const slot = await this.slot(table, key);
    for (const entry of targets) {
      const before = new Map(entry.fields);
      const wasDirty = slot.dirty.has(entry.id);
      for (const [name, value] of Object.entries(fields)) entry.fields.set(name, typeof value === 'string' ? encoder.encode(value) : value);
      if (entry.id !== 0n) slot.dirty.add(entry.id);
      this.journal.push(() => {
        entry.fields.clear();
        for (const [k, v] of before) entry.fields.set(k, v);
        if (!wasDirty) slot.dirty.delete(entry.id);
      });
    }
    return targets.length;
  }

  /** Marks every live entry under `key` that `match` accepts as deleted; returns how many. */
  async remove(table: string, key: string, match?: (fields: ReadonlyMap<string, Uint8Array>) => boolean): Promise<number> {
    const targets = await this.select(table, key, match);
    const slot = await this.slot(table, key);
    for (const entry of targets) {
      const wasDirty = slot.dirty.has(entry.id);
      entry.status = 1;
      if (entry.id !== 0n) slot.dirty.add(entry.id);
      this.journal.push(() => {
        entry.status = 0;
        if (!wasDirty) slot.dirty.delete(entry.id);
      });
    }
    return targets.length;
  }

  savepoint(): number {
    return this.journal.length;
  }

  rollback(savepoint: number): void {
    while (this.journal.length > savepoint) this.journal.pop()!();
  }

  /** What the block did to each table it touched, for the dbHash. */
  changes(): TableChanges[] {
    const byTable = new Map<string, { changed: DumpEntry[]; created: DumpEntry[] }>();
    for (const slot of this.working.values()) {
      for (const entry of slot.entries) {
        const isNew = entry.id === 0n;
        if (!isNew && !slot.dirty.has(entry.id)) continue;
        let table = byTable.get(slot.table);
        if (!table) byTable.set(slot.table, (table = { changed: [], created: [] }));
        (isNew ? table.created : table.changed).push(entry);
      }
    }
    return [...byTable].map(([name, t]) => ({ name, keyField: this.keyFieldOf(name), ...t }));
  }

  private keyFieldOf(table: string): string {
    if (table === SYS_TABLES) return SYS_TABLES_KEY_FIELD;
    return this.infos.get(table)?.keyField ?? 'key';
  }

  /** Tables the block opened, changed or not. */
  openedTables(): string[] {
    return [...this.opened];
  }

  /** The block's dbHash under `options`' rule. */
  dbHash(options: DbHashOptions): Uint8Array {
    return computeDbHash(this.changes(), options, this.openedTables());
  }

  /**
   * The store writes that make the block's changes the committed state, ids handed to new
   * entries in table-name order, then key order, as they appear in the dump. Call
   * `storage.applied(result.cache, result.lastId)` once the writes are stored.
   */
  async commitWrites(): Promise<{ writes: KvOperation[]; cache: Map<string, TableEntry[]>; lastId: bigint }> {
    let lastId = await this.storage.lastId();
    const slots = [...this.working.values()].filter((s) => s.dirty.size > 0 || s.entries.some((e) => e.id === 0n));
    slots.sort((a, b) => (a.table !== b.table ? (a.table < b.table ? -1 : 1) : a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    const writes: KvOperation[] = [];
    const cache = new Map<string, TableEntry[]>();
    for (const slot of slots) {
      const kept: TableEntry[] = [];
      for (const entry of slot.entries) {
        if (entry.status !== 0) continue;
        kept.push(entry.id === 0n ? { id: ++lastId, status: 0, fields: new Map(entry.fields) } : copyEntry(entry));
      }
      const key = entriesKey(slot.table, slot.key);
      writes.push(kept.length === 0 ? { type: 'del', key } : { type: 'put', key, value: encodeEntries(kept) });
      cache.set(`${slot.table}\0${slot.key}`, kept);
    }
    writes.push({ type: 'put', key: ID_COUNTER_KEY, value: bigintToBytes(lastId) });
    return { writes, cache, lastId };
  }
}

/** The entries a block's store writes hold, keyed as TableStorage caches them, and the last id. */
export function decodeWrites(writes: readonly KvOperation[]): { entries: Map<string, TableEntry[]>; lastId: bigint | undefined } {
  const entries = new Map<string, TableEntry[]>();
  let lastId: bigint | undefined;
  for (const op of writes) {
    if (bytesEqual(op.key, ID_COUNTER_KEY)) {
      if (op.type === 'put') lastId = bytesToBigint(op.value);
      continue;
    }
    if (op.key.length < ENTRY_PREFIX.length || !bytesEqual(op.key.subarray(0, ENTRY_PREFIX.length), ENTRY_PREFIX)) continue;
    const rest = op.key.subarray(ENTRY_PREFIX.length);
    const split = rest.indexOf(0);
    const cacheKey = `${decoder.decode(rest.subarray(0, split))}\0${decoder.decode(rest.subarray(split + 1))}`;
    entries.set(cacheKey, op.type === 'put' ? decodeEntries(op.value) : []);
  }
  return { entries, lastId };
}
