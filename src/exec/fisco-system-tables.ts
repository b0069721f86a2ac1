// The system tables on FISCO's storage state, entry for entry as FISCO 2.x writes them, so a
// block's dbHash matches a real node's:
//   _sys_config_        one entry per key: key, value, enable_num
//   _sys_consensus_     one entry per node under key "node": name, node_id, type, enable_num
//                       (ConsensusPrecompiled: insert when new, else update type and enable_num;
//                       remove deletes the entry)
//   _sys_table_access_  one entry per (table, address): table_name, address, enable_num
// enable_num is the number of the block that writes the entry (FISCO: the parent's number + 1;
// 0 at genesis), and an entry is in force for blocks after it. Here `now` is the executing
// block's number and `at` the block a read is for, so in force means enable_num ≤ at − 1.
import type { BlockTables } from '../state/index.js';
import { SYS_CNS, SYS_CONFIG, SYS_CONSENSUS, SYS_TABLE_ACCESS, SYS_TABLES, type ConsensusNodes, type NodeType, type SystemTableApi, type TableInfo } from './system-tables.js';
import type { Row, RowStore } from './table-store.js';

const decoder = new TextDecoder();
const CONSENSUS_KEY = 'node';

/** FISCO 2.x's system tables (libstorage/Common.h): name, key field, value fields. */
export const SYSTEM_TABLE_LAYOUT: ReadonlyArray<readonly [string, string, readonly string[]]> = [
  [SYS_CONSENSUS, 'name', ['type', 'node_id', 'enable_num']],
  [SYS_TABLE_ACCESS, 'table_name', ['address', 'enable_num']],
  [SYS_CNS, 'name', ['version', 'address', 'abi']],
  [SYS_CONFIG, 'key', ['value', 'enable_num']],
];

function rowOf(fields: ReadonlyMap<string, Uint8Array>): Row {
  const row: Record<string, string> = {};
  for (const [name, value] of fields) if (!name.startsWith('_')) row[name] = decoder.decode(value);
  return row;
}

function enableOf(fields: ReadonlyMap<string, Uint8Array>): number {
  return Number(decoder.decode(fields.get('enable_num') ?? new Uint8Array(0)) || '0');
}

const inForce = (at: number) => (fields: ReadonlyMap<string, Uint8Array>) => enableOf(fields) <= at - 1;
const enableAt = (now: number) => String(Math.max(now, 0));

/**
 * Rows of any table as the row-level code (CNS, user tables) sees them, over BlockTables:
 * setRows turns the change into FISCO's operations on entries (an appended row is an insert,
 * a row changed in place an update of that entry, a dropped row a remove), so only the
 * entries really touched count in the dbHash.
 */
export class StorageRowStore implements RowStore {
  constructor(private readonly tables: () => BlockTables) {}

  async rows(table: string, key: string): Promise<Row[]> {
    return (await this.tables().select(table, key)).map((e) => rowOf(e.fields));
  }

  async setRows(table: string, key: string, rows: readonly Row[]): Promise<void> {
    const blockTables = this.tables();
    const entries = await blockTables.select(table, key);
    const before = entries.map((e) => rowOf(e.fields));
    const same = (a: Row, b: Row) => {
      const ka = Object.keys(a);
      return ka.length === Object.keys(b).length && ka.every((k) => a[k] === b[k]);
    };
    // walk both lists: equal rows stay; a row that differs is an update when the lengths match,
    // else a removal (shorter) or, past the end of the old rows, an insert
    let i = 0;
    let j = 0;
    while (i < before.length || j < rows.length) {
      if (i < before.length && j < rows.length && same(before[i]!, rows[j]!)) {
        i++;
        j++;
      } else if (i < before.length && (j >= rows.length || before.length - i > rows.length - j)) {
        const target = entries[i]!;
        await blockTables.remove(table, key, (f) => f === target.fields);
        i++;
      } else if (i < before.length && before.length - i === rows.length - j) {
        const target = entries[i]!;
        await blockTables.update(table, key, { ...rows[j]! }, (f) => f === target.fields);
        i++;
        j++;
      } else {
        await blockTables.insert(table, key, { ...rows[j]! });
        j++;
      }
    }
  }
}

export class FiscoSystemTables implements SystemTableApi {
  readonly tables: StorageRowStore;

  constructor(private readonly blockTables: () => BlockTables) {
    this.tables = new StorageRowStore(blockTables);
  }

  private get block(): BlockTables {
    return this.blockTables();
  }

  async config(key: string, at: number): Promise<string | undefined> {
    const [entry] = await this.block.select(SYS_CONFIG, key, inForce(at));
    return entry ? decoder.decode(entry.fields.get('value')) : undefined;
  }

  /** SystemConfigPrecompiled.setValueByKey: update the key's entry, or insert it. */
  async setConfig(key: string, value: string, now: number): Promise<void> {
    if (!(await this.block.openTable(SYS_CONFIG))) await this.block.createTable(SYS_CONFIG, 'key', ['value', 'enable_num']);
    const fields = { value, enable_num: enableAt(now) };
    if ((await this.block.update(SYS_CONFIG, key, fields)) === 0) await this.block.insert(SYS_CONFIG, key, fields);
  }

  async consensusNodes(at: number): Promise<ConsensusNodes> {
    const sealers: string[] = [];
    const observers: string[] = [];
    for (const entry of await this.block.select(SYS_CONSENSUS, CONSENSUS_KEY, inForce(at))) {
      const row = rowOf(entry.fields);
      if (row['type'] === 'sealer') sealers.push(row['node_id']!);
      else if (row['type'] === 'observer') observers.push(row['node_id']!);
    }
    return { sealers: sealers.sort(), observers: observers.sort() };
  }

  async setNodeType(nodeId: string, type: NodeType | null, now: number): Promise<void> {
    await this.setNodeTypes([[nodeId, type]], now);
  }

  async setNodeTypes(changes: ReadonlyArray<readonly [nodeId: string, type: NodeType | null]>, now: number): Promise<void> {
    if (!(await this.block.openTable(SYS_CONSENSUS))) await this.block.createTable(SYS_CONSENSUS, 'name', ['type', 'node_id', 'enable_num']);
    for (const [nodeId, type] of changes) {
      const isNode = (f: ReadonlyMap<string, Uint8Array>) => decoder.decode(f.get('node_id')) === nodeId;
      if (type === null) {
        await this.block.remove(SYS_CONSENSUS, CONSENSUS_KEY, isNode);
        continue;
      }
      const updated = await this.block.update(SYS_CONSENSUS, CONSENSUS_KEY, { type, name: CONSENSUS_KEY, enable_num: enableAt(now) }, isNode);
      if (updated === 0) await this.block.insert(SYS_CONSENSUS, CONSENSUS_KEY, { type, node_id: nodeId, enable_num: enableAt(now) });
    }
  }

  async accessRows(table: string, at: number): Promise<Row[]> {
    return (await this.block.select(SYS_TABLE_ACCESS, table, inForce(at))).map((e) => rowOf(e.fields));
  }

  async accessList(table: string, at: number): Promise<string[]> {
    return (await this.accessRows(table, at)).map((r) => r['address']!).sort();
  }

  /** AuthorityPrecompiled: grant inserts (table_name, address, enable_num); revoke removes the address's entries. */
  async setAccess(table: string, address: string, granted: boolean, now: number): Promise<void> {
    if (!(await this.block.openTable(SYS_TABLE_ACCESS))) await this.block.createTable(SYS_TABLE_ACCESS, 'table_name', ['address', 'enable_num']);
    const isAddress = (f: ReadonlyMap<string, Uint8Array>) => decoder.decode(f.get('address')) === address;
    if (!granted) {
      await this.block.remove(SYS_TABLE_ACCESS, table, isAddress);
      return;
    }
    if ((await this.block.select(SYS_TABLE_ACCESS, table, isAddress)).length > 0) return;
    await this.block.insert(SYS_TABLE_ACCESS, table, { address, enable_num: enableAt(now) });
  }

  async mayWrite(table: string, origin: string, at: number): Promise<boolean> {
    const list = await this.accessList(table, at);
    return list.length === 0 || list.includes(origin);
  }

  async tableInfo(name: string): Promise<TableInfo | undefined> {
    const info = await this.block.openTable(name);
    return info ? { name, keyField: info.keyField, valueFields: [...info.valueFields] } : undefined;
  }

  async createTable(info: TableInfo): Promise<void> {
    await this.block.createTable(info.name, info.keyField, info.valueFields);
  }

  /** The consensus-relevant system tables FISCO's genesis creates, with their key and value fields. */
  async createSystemTables(): Promise<void> {
    for (const [name, keyField, valueFields] of SYSTEM_TABLE_LAYOUT) await this.block.createTable(name, keyField, valueFields);
  }
}

export { SYS_TABLES };
