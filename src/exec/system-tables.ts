import type { TableNames } from '../chain/index.js';
import type { Row, RowStore, TableStore } from './table-store.js';

/** FISCO's system table names. */
export const SYS_TABLES = '_sys_tables_';
export const SYS_CONFIG = '_sys_config_';
export const SYS_CONSENSUS = '_sys_consensus_';
export const SYS_CNS = '_sys_cns_';
export const SYS_TABLE_ACCESS = '_sys_table_access_';

/**
 * The table whose access list guards writes to a contract's storage (Permission.grantWrite;
 * StorageState::checkAuthority): the contract's own table, `c_<address>` from 2.2.0.
 */
export function contractTableName(address: string, names: TableNames): string {
  return names.accountTable(address.toLowerCase());
}

export type NodeType = 'sealer' | 'observer';

export interface ConsensusNodes {
  /** Node ids, ascending (the PBFT index order). */
  readonly sealers: string[];
  readonly observers: string[];
}

export interface TableInfo {
  readonly name: string;
  readonly keyField: string;
  readonly valueFields: string[];
}

const ENABLE = 'enable_num';
const REMOVED = '__removed__';

/**
 * Rows that take effect from a block number, FISCO's `enable_num`: a change written while
 * executing block N is seen from block N + 1. Per identity we keep the row in force and at most
 * one pending row.
 */
function effective(rows: readonly Row[], identity: string, at: number): Map<string, Row> {
  const best = new Map<string, Row>();
  for (const row of rows) {
    const enable = Number(row[ENABLE] ?? 0);
    if (enable > at) continue;
    const id = row[identity]!;
    const current = best.get(id);
    if (!current || Number(current[ENABLE] ?? 0) <= enable) best.set(id, row);
  }
  for (const [id, row] of best) if (row[REMOVED] === 'true') best.delete(id);
  return best;
}

/** Replace any pending change for `id` by `next` (in force from now + 1), keeping the row in force now. */
function withPending(rows: readonly Row[], identity: string, id: string, now: number, next: Row): Row[] {
  const others = rows.filter((r) => r[identity] !== id);
  let inForce: Row | undefined;
  for (const r of rows) {
    if (r[identity] !== id || Number(r[ENABLE] ?? 0) > now) continue;
    if (!inForce || Number(r[ENABLE] ?? 0) >= Number(inForce[ENABLE] ?? 0)) inForce = r;
  }
  const keep = inForce && inForce[REMOVED] !== 'true' ? [inForce] : [];
  return [...others, ...keep, { ...next, [identity]: id, [ENABLE]: String(now + 1) }];
}

/** The system tables as the precompiles and the executor use them, on either world state. */
export interface SystemTableApi {
  readonly tables: RowStore;
  config(key: string, at: number): Promise<string | undefined>;
  setConfig(key: string, value: string, now: number): Promise<void>;
  consensusNodes(at: number): Promise<ConsensusNodes>;
  setNodeType(nodeId: string, type: NodeType | null, now: number): Promise<void>;
  setNodeTypes(changes: ReadonlyArray<readonly [nodeId: string, type: NodeType | null]>, now: number): Promise<void>;
  accessList(table: string, at: number): Promise<string[]>;
  accessRows(table: string, at: number): Promise<Row[]>;
  setAccess(table: string, address: string, granted: boolean, now: number): Promise<void>;
  mayWrite(table: string, origin: string, at: number): Promise<boolean>;
  tableInfo(name: string): Promise<TableInfo | undefined>;
  createTable(info: TableInfo): Promise<void>;
  /** A new group's empty system tables, where the state keeps tables of its own (FISCO's genesis). */
  createSystemTables?(): Promise<void>;
}

/**
 * Typed access to the system tables for one block being executed (or read at a height), kept
 * in the trie's contract storage (the layout the trie's state roots were made with).
 */
export class SystemTables implements SystemTableApi {
  constructor(private readonly store: TableStore) {}

  get tables(): TableStore {
    return this.store;
  }

  // --- system configuration -------------------------------------------------------------

  async config(key: string, at: number): Promise<string | undefined> {
    return effective(await this.store.rows(SYS_CONFIG, key), 'key', at).get(key)?.value;
  }

  async setConfig(key: string, value: string, now: number): Promise<void> {
    const rows = await this.store.rows(SYS_CONFIG, key);
    await this.store.setRows(SYS_CONFIG, key, withPending(rows, 'key', key, now, { value }));
  }

  // --- consensus nodes ------------------------------------------------------------------

  async consensusNodes(at: number): Promise<ConsensusNodes> {
    const rows = effective(await this.store.rows(SYS_CONSENSUS, 'node'), 'node_id', at);
    const sealers: string[] = [];
    const observers: string[] = [];
    for (const [id, row] of rows) (row.type === 'sealer' ? sealers : observers).push(id);
    return { sealers: sealers.sort(), observers: observers.sort() };
  }

  /** Set a node's role from block now + 1; null removes it from both lists. */
  async setNodeType(nodeId: string, type: NodeType | null, now: number): Promise<void> {
    await this.setNodeTypes([[nodeId, type]], now);
  }

  /**
   * setNodeType for several nodes in turn, with one write of the table (the state is the same as
   * after the separate calls, which rewrite the whole table each: quadratic for a big genesis).
   */
  async setNodeTypes(changes: ReadonlyArray<readonly [nodeId: string, type: NodeType | null]>, now: number): Promise<void> {
    let rows = await this.store.rows(SYS_CONSENSUS, 'node');
    for (const [nodeId, type] of changes) {
      const next: Row = type ? { type } : { type: 'removed', [REMOVED]: 'true' };
      rows = withPending(rows, 'node_id', nodeId, now, next);
    }
    await this.store.setRows(SYS_CONSENSUS, 'node', rows);
  }

  // --- access lists (Permission) --------------------------------------------------------

  /** Addresses (0x-prefixed, lower case) allowed to write `table`; empty means everyone. */
  async accessList(table: string, at: number): Promise<string[]> {
    return [...effective(await this.store.rows(SYS_TABLE_ACCESS, table), 'address', at).keys()].sort();
  }

  async accessRows(table: string, at: number): Promise<Row[]> {
    return [...effective(await this.store.rows(SYS_TABLE_ACCESS, table), 'address', at).values()];
  }

  async setAccess(table: string, address: string, granted: boolean, now: number): Promise<void> {
    const rows = await this.store.rows(SYS_TABLE_ACCESS, table);
    const next: Row = granted ? { table_name: table } : { table_name: table, [REMOVED]: 'true' };
    await this.store.setRows(SYS_TABLE_ACCESS, table, withPending(rows, 'address', address, now, next));
  }

  async mayWrite(table: string, origin: string, at: number): Promise<boolean> {
    const list = await this.accessList(table, at);
    return list.length === 0 || list.includes(origin);
  }

  // --- table metadata -------------------------------------------------------------------

  async tableInfo(name: string): Promise<TableInfo | undefined> {
    const row = (await this.store.rows(SYS_TABLES, name))[0];
    if (!row) return undefined;
    return { name, keyField: row.key_field!, valueFields: row.value_field ? row.value_field.split(',') : [] };
  }

  async createTable(info: TableInfo): Promise<void> {
    await this.store.setRows(SYS_TABLES, info.name, [
      { table_name: info.name, key_field: info.keyField, value_field: info.valueFields.join(',') },
    ]);
  }
}
