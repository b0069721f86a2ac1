// User tables are named as FISCO names them for the chain's supported_version (`u_<name>` from
// 2.2.0, `_user_<name>` before: libprecompiled/Common.cpp getTableName), and the name is part of
// the storage state: the dbHash (= stateRoot) of a block that creates and writes a user table is
// re-derived here by FISCO's rule (fixtures/realdata/README.md) from the entries FISCO writes,
// and must be the one the block executor commits.
import { describe, expect, it } from 'vitest';
import { toHex } from '../codec/index.js';
import { keccak256 } from '../crypto/index.js';
import { decodeAbi } from '../abi/index.js';
import { computeDbHash, type DumpEntry, type TableChanges } from '../state/index.js';
import { harness, type Harness } from './exec-harness.test-helper.js';

const TABLE_FACTORY = Uint8Array.from([...new Uint8Array(18), 0x10, 0x01]);
const CRUD = Uint8Array.from([...new Uint8Array(18), 0x10, 0x02]);
const text = (value: string) => new TextEncoder().encode(value);

function entry(fields: Record<string, string>, id = 0n, status = 0): DumpEntry {
  return { id, status, fields: new Map(Object.entries(fields).map(([k, v]) => [k, text(v)])) };
}

const createTable = (h: Harness) => h.tx(0, TABLE_FACTORY, h.callData('createTable(string,string,string)', ['t_demo', 'name', 'item_id,item_name']));
const insert = (h: Harness, key: string, id: string, name: string) =>
  h.tx(0, CRUD, h.callData('insert(string,string,string,string)', ['t_demo', key, JSON.stringify({ item_id: id, item_name: name }), '']));

async function select(h: Harness, table: string, key: string): Promise<Array<Record<string, string>>> {
  const result = await h.executor.call({ from: h.account(0).address, to: CRUD, data: h.callData('select(string,string,string,string)', [table, key, '{}', '']) }, h.number);
  const [json] = decodeAbi('string', result.output) as [string];
  return JSON.parse(json) as Array<Record<string, string>>;
}

describe('a block that creates and writes a user table: dbHash by FISCO\'s rule', () => {
  it('2.11.0: the table is u_t_demo; stateRoot and dbHash are H over the _sys_tables_ row and the table\'s new entries', async () => {
    const h = await harness({ stateType: 'storage', version: '2.11.0' });
    const executed = await h.block([createTable(h), insert(h, 'fruit', '1', 'apple'), insert(h, 'banana', '2', 'banana')]);
    expect(executed.block.receipts.map((r) => r.status)).toEqual([0, 0, 0]);

    // supported_version ≥ 2.5: keccak256 at both levels, changed tables only; entries by id, then key
    const changes: TableChanges[] = [
      { name: '_sys_tables_', keyField: 'table_name', changed: [], created: [entry({ table_name: 'u_t_demo', key_field: 'name', value_field: 'item_id,item_name' })] },
      {
        name: 'u_t_demo',
        keyField: 'name',
        changed: [],
        created: [entry({ name: 'fruit', item_id: '1', item_name: 'apple' }), entry({ name: 'banana', item_id: '2', item_name: 'banana' })],
      },
    ];
    const fisco = computeDbHash(changes, { rule: 'v2.5', hash: keccak256, sm: false });
    expect(toHex(executed.block.header.stateRoot)).toBe(toHex(fisco));
    expect(toHex(executed.block.header.dbHash)).toBe(toHex(fisco));
    // the name is part of it: the same entries under the name FISCO used before 2.2.0 hash otherwise
    const long = changes.map((t) => ({ ...t, name: t.name.replace('u_', '_user_'), created: t.created.map((e) => (e.fields.has('table_name') ? entry({ table_name: '_user_t_demo', key_field: 'name', value_field: 'item_id,item_name' }) : e)) }));
    expect(toHex(computeDbHash(long, { rule: 'v2.5', hash: keccak256, sm: false }))).not.toBe(toHex(fisco));

    // the next block changes an entry it finds (its id from the store) and adds one
    const update = h.tx(0, CRUD, h.callData('update(string,string,string,string,string)', ['t_demo', 'fruit', '{"item_name":"pear"}', '{}', '']));
    const next = await h.block([update, insert(h, 'cherry', '3', 'cherry')]);
    expect(next.block.receipts.map((r) => r.status)).toEqual([0, 0]);
    const [fruit] = await select(h, 't_demo', 'fruit');
    expect(fruit).toMatchObject({ name: 'fruit', item_id: '1', item_name: 'pear' });
    const written: TableChanges = {
      name: 'u_t_demo',
      keyField: 'name',
      changed: [entry({ name: 'fruit', item_id: '1', item_name: 'pear' }, 1n)],
      created: [entry({ name: 'cherry', item_id: '3', item_name: 'cherry' })],
    };
    expect(toHex(next.block.header.stateRoot)).toBe(toHex(computeDbHash([written], { rule: 'v2.5', hash: keccak256, sm: false })));

    // looked up as FISCO's SDKs look: CRUD select of _sys_tables_ by u_<name> (their desc)
    expect(await select(h, '_sys_tables_', 'u_t_demo')).toEqual([{ key_field: 'name', table_name: 'u_t_demo', value_field: 'item_id,item_name' }]);
    expect(await select(h, '_sys_tables_', '_user_t_demo')).toEqual([]);
  });

  it('a field the insert leaves out is absent from the row and from the dump (MemoryTable2::insert stores what it is given), until an update sets it', async () => {
    const h = await harness({ stateType: 'storage', version: '2.11.0' });
    const partial = h.tx(0, CRUD, h.callData('insert(string,string,string,string)', ['t_demo', 'fig', JSON.stringify({ item_id: '4' }), '']));
    const executed = await h.block([createTable(h), partial]);
    expect(executed.block.receipts.map((r) => r.status)).toEqual([0, 0]);
    const changes: TableChanges[] = [
      { name: '_sys_tables_', keyField: 'table_name', changed: [], created: [entry({ table_name: 'u_t_demo', key_field: 'name', value_field: 'item_id,item_name' })] },
      { name: 'u_t_demo', keyField: 'name', changed: [], created: [entry({ name: 'fig', item_id: '4' })] },
    ];
    expect(toHex(executed.block.header.stateRoot)).toBe(toHex(computeDbHash(changes, { rule: 'v2.5', hash: keccak256, sm: false })));
    // an empty item_name would be another dump, another root
    const filled = [changes[0]!, { ...changes[1]!, created: [entry({ name: 'fig', item_id: '4', item_name: '' })] }];
    expect(toHex(computeDbHash(filled, { rule: 'v2.5', hash: keccak256, sm: false }))).not.toBe(toHex(executed.block.header.stateRoot));
    expect(await select(h, 't_demo', 'fig')).toEqual([{ item_id: '4', name: 'fig' }]);
    const update = h.tx(0, CRUD, h.callData('update(string,string,string,string,string)', ['t_demo', 'fig', '{"item_name":"dried"}', '{}', '']));
    await h.block([update]);
    expect(await select(h, 't_demo', 'fig')).toEqual([{ item_id: '4', item_name: 'dried', name: 'fig' }]);
  });

  it('a block\'s new rows get their ids in table-name order, then key order (the dump\'s order), not the order of the inserts: a later change of two of them is hashed by those ids', async () => {
    const h = await harness({ stateType: 'storage', version: '2.11.0' });
    // inserted fruit, then banana: ids 1 (the _sys_tables_ row), banana 2, fruit 3
    await h.block([createTable(h), insert(h, 'fruit', '1', 'apple'), insert(h, 'banana', '2', 'banana')]);
    const change = (key: string, name: string) => h.tx(0, CRUD, h.callData('update(string,string,string,string,string)', ['t_demo', key, JSON.stringify({ item_name: name }), '{}', '']));
    const next = await h.block([change('fruit', 'pear'), change('banana', 'plantain')]);
    expect(next.block.receipts.map((r) => r.status)).toEqual([0, 0]);
    const changed = (fruitId: bigint, bananaId: bigint): TableChanges => ({
      name: 'u_t_demo',
      keyField: 'name',
      changed: [entry({ name: 'fruit', item_id: '1', item_name: 'pear' }, fruitId), entry({ name: 'banana', item_id: '2', item_name: 'plantain' }, bananaId)],
      created: [],
    });
    const rule = { rule: 'v2.5' as const, hash: keccak256, sm: false };
    expect(toHex(next.block.header.stateRoot)).toBe(toHex(computeDbHash([changed(3n, 2n)], rule)));
    // ids in insert order would list fruit first: another dump, another root
    expect(toHex(computeDbHash([changed(2n, 3n)], rule))).not.toBe(toHex(next.block.header.stateRoot));
  });

  it('2.1.0: the table is _user_t_demo, in _sys_tables_ and in the lookups', async () => {
    const h = await harness({ stateType: 'storage', version: '2.1.0' });
    const executed = await h.block([createTable(h), insert(h, 'fruit', '1', 'apple')]);
    expect(executed.block.receipts.map((r) => r.status)).toEqual([0, 0]);
    expect(await select(h, '_sys_tables_', '_user_t_demo')).toEqual([{ key_field: 'name', table_name: '_user_t_demo', value_field: 'item_id,item_name' }]);
    expect(await select(h, '_sys_tables_', 'u_t_demo')).toEqual([]);
    expect(await select(h, 't_demo', 'fruit')).toEqual([{ name: 'fruit', item_id: '1', item_name: 'apple' }]);
  });

  it.each([
    ['2.11.0', (hex: string) => `c_${hex}`],
    ['2.1.0', (hex: string) => `_contract_data_${hex}_`],
  ])('%s: account tables are named as FISCO\'s StorageState names them', async (version, name) => {
    const h = await harness({ stateType: 'storage', version });
    const contract = toHex(await h.deploy(0, 'HelloWorld')).slice(2);
    const sender = toHex(h.account(0).address).slice(2);
    for (const hex of [contract, sender]) expect(await select(h, '_sys_tables_', name(hex))).toEqual([{ key_field: 'key', table_name: name(hex), value_field: 'value' }]);
  });

  it('the TableFactory and CRUD precompiles prefix every name, as getTableName does: a system table is not reachable through them', async () => {
    const h = await harness({ stateType: 'storage', version: '2.11.0' });
    // CRUD select reads _sys_tables_ as it is (what the SDKs' desc uses); any other name gets the prefix
    expect((await select(h, '_sys_tables_', '_sys_config_')).length).toBe(1);
    const config = await h.executor.call({ from: h.account(0).address, to: CRUD, data: h.callData('select(string,string,string,string)', ['_sys_config_', 'tx_count_limit', '{}', '']) }, h.number);
    expect(decodeAbi('int256', config.output)).toEqual([-50100n]); // CODE_TABLE_NOT_EXIST, as a word
    const opened = await h.executor.call({ from: h.account(0).address, to: TABLE_FACTORY, data: h.callData('openTable(string)', ['_sys_config_']) }, h.number);
    expect(decodeAbi('address', opened.output)).toEqual(['0x0000000000000000000000000000000000000000']);
  });
});
