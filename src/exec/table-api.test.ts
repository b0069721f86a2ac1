import { describe, expect, it } from 'vitest';
import { fromHex, toHex } from '../codec/index.js';
import { decodeAbi, decodeErrorString, encodeAbi, encodeErrorString } from '../abi/index.js';
import { TX_STATUS } from '../chain/index.js';
import { harness, type Harness } from './exec-harness.test-helper.js';
import { intrinsicGas } from './execution-engine.js';
import { memoryGas } from './precompiled-gas.js';
import { BAD_LEXICAL_CAST } from './table-precompiles.js';

const CRUD = fromHex('0000000000000000000000000000000000001002');
const TABLE_FACTORY = fromHex('0000000000000000000000000000000000001001');

async function int(h: Harness, from: number, to: Uint8Array, signature: string, args: unknown[]): Promise<number> {
  const receipt = await h.run(from, to, h.callData(signature, args));
  expect(receipt.status, `${signature}: status`).toBe(0);
  return Number(decodeAbi('int256', receipt.output)[0]);
}

type Rows = [string[], bigint[], string[]];

describe.each(['ecdsa', 'sm'] as const)('TableUser (Table API objects) on %s', (suite) => {
  it('creates, inserts, selects with conditions and limits, updates and removes', async () => {
    const h = await harness({ suite });
    const user = await h.deploy(0, 'TableUser');
    // standard solc: the contract's own selectors are keccak; it calls the table objects with keccak too
    const { encodeFunctionCall } = await import('../abi/index.js');
    const { keccak256 } = await import('../crypto/index.js');
    const data = (sig: string, args: unknown[] = []) => encodeFunctionCall(sig, args, keccak256);
    const send = async (sig: string, args: unknown[] = []) => {
      const r = await h.run(0, user, data(sig, args));
      expect(r.status, sig).toBe(0);
      return Number(decodeAbi('int256', r.output)[0]);
    };
    const view = async (sig: string, args: unknown[]) => {
      const r = await h.executor.call({ from: h.account(0).address, to: user, data: data(sig, args) }, h.number);
      expect(r.status, sig).toBe(0);
      return decodeAbi('string[],int256[],string[]', r.output) as Rows;
    };

    expect(await send('create()')).toBe(0);
    expect(await send('create()')).toBe(-50001); // already exists
    for (const [id, name] of [[1n, 'apple'], [2n, 'pear'], [3n, 'plum']] as const) {
      expect(await send('insert(string,int256,string)', ['alice', id, name])).toBe(1);
    }
    expect(await send('insert(string,int256,string)', ['bob', 9n, 'fig'])).toBe(1);

    expect(await view('select(string)', ['alice'])).toEqual([['alice', 'alice', 'alice'], [1n, 2n, 3n], ['apple', 'pear', 'plum']]);
    expect(await view('select(string)', ['nobody'])).toEqual([[], [], []]);
    expect(await view('selectAbove(string,int256,int256)', ['alice', 1n, 1n])).toEqual([['alice'], [2n], ['pear']]);
    expect(await view('selectAbove(string,int256,int256)', ['alice', 1n, 10n])).toEqual([['alice', 'alice'], [2n, 3n], ['pear', 'plum']]);
    expect(await view('selectPage(string,int256,int256)', ['alice', 1n, 1n])).toEqual([['alice'], [2n], ['pear']]);

    expect(await send('update(string,int256,string)', ['alice', 2n, 'quince'])).toBe(1);
    expect(await send('update(string,int256,string)', ['alice', 7n, 'none'])).toBe(0);
    expect((await view('select(string)', ['alice']))[2]).toEqual(['apple', 'quince', 'plum']);
    expect(await send('remove(string,int256)', ['alice', 1n])).toBe(1);
    expect((await view('select(string)', ['alice']))[1]).toEqual([2n, 3n]);
    expect((await view('select(string)', ['bob']))[2]).toEqual(['fig']);
  });
});

describe('Table API guards', () => {
  it('user table writes are permission-checked (-50000 off the list)', async () => {
    const h = await harness();
    const user = await h.deploy(0, 'TableUser');
    expect(await int(h, 0, user, 'create()', [])).toBe(0);
    expect(await int(h, 0, fromHex('0000000000000000000000000000000000001005'), 'insert(string,string)', ['t_user', toHex(h.account(0).address)])).toBe(1);
    await h.block([]);
    expect(await int(h, 1, user, 'insert(string,int256,string)', ['x', 1n, 'y'])).toBe(-50000);
    expect(await int(h, 0, user, 'insert(string,int256,string)', ['x', 1n, 'y'])).toBe(1);
  });

  it("createTable refuses a name as FISCO 2.x's TableFactoryPrecompiled does: a StorageException, status 1 (Unknown), its message", async () => {
    const h = await harness();
    const create = async (name: string, key: string, fields: string): Promise<number | string | undefined> => {
      const receipt = await h.run(0, TABLE_FACTORY, h.callData('createTable(string,string,string)', [name, key, fields]));
      if (receipt.status === 0) return Number(decodeAbi('int256', receipt.output)[0]);
      expect(receipt.status, `${name} ${key} ${fields}`).toBe(TX_STATUS.Unknown);
      return decodeErrorString(receipt.output);
    };
    // the limits themselves: u_ + 48 = 50 bytes, a field name of 64
    expect(await create('t'.repeat(49), 'k', 'v')).toBe('tableName length overflow 64');
    expect(await create('t'.repeat(48), 'k', 'v')).toBe(0);
    expect(await create('t_f64', 'k', 'f'.repeat(64))).toBe(0);
    expect(await create('t_f65', 'k', 'f'.repeat(65))).toBe('table field name length overflow 64');
    expect(await create('t_ok', 'k', 'v,v')).toBe('dumplicate field:v');
    expect(await create('t_ok', 'k', 'v,k')).toBe('dumplicate field:k');
    expect(await create('t_ok', 'k', 'bad field')).toBe('invalid field:bad field');
    expect(await create('t_ok', '_k', 'v')).toBe('invalid field:_k');
    expect(await create('t_ok', 'k', 'a,,b')).toBe('invalid field:');
    expect(await create('t_ok', 'k', '')).toBe('invalid field:');
    expect(await create('bad-name', 'k', 'v')).toBe('invalid tablename:bad-name');
    const wide = Array.from({ length: 17 }, (_, i) => `${'a'.repeat(58)}${String(i).padStart(2, '0')}`).join(',');
    expect(await create('t_ok', 'k', wide)).toBe('total table field name length overflow 1024');
    // names are trimmed of white space around the commas; an empty table name is u_ itself
    expect(await create('t_ok', ' k ', ' a , b ')).toBe(0);
    expect(await h.call(CRUD, 'desc(string)', ['t_ok'], 'string,string')).toEqual(['k', 'a,b']);
    expect(await create('', 'k', 'v')).toBe(0);
    // a table that exists is -50001 even for an account that may not create tables
    expect(await int(h, 0, fromHex('0000000000000000000000000000000000001005'), 'insert(string,string)', ['_sys_tables_', toHex(h.account(0).address)])).toBe(1);
    await h.block([]);
    expect(await int(h, 1, TABLE_FACTORY, 'createTable(string,string,string)', ['t_ok', 'k', 'v'])).toBe(-50001);
    expect(await int(h, 1, TABLE_FACTORY, 'createTable(string,string,string)', ['t_new', 'k', 'v'])).toBe(-50000);
  });

  it('before 2.2.0 createTable checks lengths only: an empty or repeated field name is stored as it is', async () => {
    const h = await harness({ version: '2.1.0' });
    const create = (name: string, key: string, fields: string) => int(h, 0, TABLE_FACTORY, 'createTable(string,string,string)', [name, key, fields]);
    expect(await create('t_gap', 'k', 'a,,b')).toBe(0);
    expect(await h.call(CRUD, 'desc(string)', ['t_gap'], 'string,string')).toEqual(['k', 'a,,b']);
    expect(await create('bad-name', '_k', 'v,v')).toBe(0);
    // _user_ + 58 = 64 bytes
    expect(await create('t'.repeat(58), 'k', 'v')).toBe(0);
    const long = await h.run(0, TABLE_FACTORY, h.callData('createTable(string,string,string)', ['t'.repeat(59), 'k', 'v']));
    // refused by the same StorageException; before 2.3.0 its message is not output
    expect(long.status).toBe(TX_STATUS.Unknown);
    expect(long.output).toHaveLength(0);
  });

  it('openTable on a missing table gives the zero address', async () => {
    const h = await harness();
    const r = await h.executor.call({ from: h.account(0).address, to: TABLE_FACTORY, data: h.callData('openTable(string)', ['missing']) }, h.number);
    expect(decodeAbi('address', r.output)).toEqual(['0x0000000000000000000000000000000000000000']);
  });
});

describe('CRUD 0x1002', () => {
  it('insert, select with JSON conditions and limit, update, remove, desc', async () => {
    const h = await harness();
    expect(await int(h, 0, TABLE_FACTORY, 'createTable(string,string,string)', ['t_crud', 'name', 'id,score'])).toBe(0);
    for (const [id, score] of [['1', '10'], ['2', '20'], ['3', '30']]) {
      expect(await int(h, 0, CRUD, 'insert(string,string,string,string)', ['t_crud', 'k', JSON.stringify({ id, score }), ''])).toBe(1);
    }
    const select = async (cond: object) =>
      (await h.call(CRUD, 'select(string,string,string,string)', ['t_crud', 'k', JSON.stringify(cond), ''], 'string'))[0] as string;
    expect(JSON.parse(await select({ score: { gt: '15' } }))).toEqual([
      { id: '2', name: 'k', score: '20' },
      { id: '3', name: 'k', score: '30' },
    ]);
    expect(await select({ score: { ge: '10' }, limit: { limit: '1,1' } })).toBe('[\n   {\n      "id" : "2",\n      "name" : "k",\n      "score" : "20"\n   }\n]\n');
    expect(JSON.parse(await select({ id: { ne: '2' }, score: { lt: '30' } }))).toEqual([{ id: '1', name: 'k', score: '10' }]);
    expect(await int(h, 0, CRUD, 'update(string,string,string,string,string)', ['t_crud', 'k', '{"score":"99"}', '{"id":{"le":"2"}}', ''])).toBe(2);
    expect(await int(h, 0, CRUD, 'remove(string,string,string,string)', ['t_crud', 'k', '{"id":{"eq":"3"}}', ''])).toBe(1);
    expect(JSON.parse(await select({})).map((r: { score: string }) => r.score)).toEqual(['99', '99']);
    expect(await h.call(CRUD, 'desc(string)', ['t_crud'], 'string,string')).toEqual(['name', 'id,score']);
  });

  it('reports parse errors and missing tables with FISCO codes', async () => {
    const h = await harness();
    expect(await int(h, 0, TABLE_FACTORY, 'createTable(string,string,string)', ['t_c', 'name', 'v'])).toBe(0);
    expect(await int(h, 0, CRUD, 'insert(string,string,string,string)', ['t_c', 'k', '{oops', ''])).toBe(-51500);
    expect(await int(h, 0, CRUD, 'remove(string,string,string,string)', ['t_c', 'k', '[1,2]', ''])).toBe(-51501);
    expect(await int(h, 0, CRUD, 'remove(string,string,string,string)', ['t_c', 'k', '{"v":{"like":"x"}}', ''])).toBe(-51502);
    expect(await int(h, 0, CRUD, 'insert(string,string,string,string)', ['t_missing', 'k', '{}', ''])).toBe(-50100);
  });

  it('takes JSON numbers in an entry as their text (FISCO reads each field with asString)', async () => {
    const h = await harness();
    expect(await int(h, 0, TABLE_FACTORY, 'createTable(string,string,string)', ['t_num', 'name', 'age,score'])).toBe(0);
    expect(await int(h, 0, CRUD, 'insert(string,string,string,string)', ['t_num', 'k', '{"age":30,"score":"7"}', ''])).toBe(1);
    expect(await int(h, 0, CRUD, 'update(string,string,string,string,string)', ['t_num', 'k', '{"score":8}', '{"age":{"eq":"30"}}', ''])).toBe(1);
    const rows = (await h.call(CRUD, 'select(string,string,string,string)', ['t_num', 'k', '{}', ''], 'string'))[0] as string;
    expect(JSON.parse(rows)).toEqual([{ age: '30', name: 'k', score: '8' }]);
  });

  it('works through the Crud contract, results emitted as events', async () => {
    const h = await harness();
    const crud = await h.deploy(0, 'Crud');
    expect(await int(h, 0, TABLE_FACTORY, 'createTable(string,string,string)', ['t_via', 'name', 'v'])).toBe(0);
    const r = await h.run(0, crud, h.callData('insert(string,string,string,string)', ['t_via', 'k', '{"v":"1"}', '']));
    expect(r.status).toBe(0);
    expect(r.logs).toHaveLength(1);
    expect(r.logs[0]!.data.subarray(32, 64)).toEqual(encodeAbi('int256', [1n]));
    const [rows] = (await h.call(crud, 'select(string,string,string,string)', ['t_via', 'k', '{}', ''], 'string')) as [string];
    expect(JSON.parse(rows)).toEqual([{ name: 'k', v: '1' }]);
  });
});

describe('TableProbe: every Entry getter/setter and Condition operator', () => {
  it.each([
    ['2.11.0', encodeErrorString(BAD_LEXICAL_CAST)],
    ['2.2.0', new Uint8Array(0)],
  ])("%s: getInt of a field the row lacks throws FISCO's bad_lexical_cast, and the caller reverts with what the failed call output", async (version, output) => {
    const h = await harness({ version });
    const probe = await h.deploy(0, 'TableProbe');
    expect(await int(h, 0, probe, 'create()', [])).toBe(0);
    // a row without `i` (CRUD inserts only the fields it is given), then one whose `i` is not a number
    expect(await int(h, 0, CRUD, 'insert(string,string,string,string)', ['t_probe', 'gap', '{"s":"x"}', ''])).toBe(1);
    expect(await int(h, 0, CRUD, 'insert(string,string,string,string)', ['t_probe', 'text', '{"i":"seven","u":"1","s":"x"}', ''])).toBe(1);
    for (const key of ['gap', 'text']) {
      const result = await h.executor.call({ from: h.account(0).address, to: probe, data: h.callData('first(string)', [key]) }, h.number);
      expect(result.status, key).toBe(TX_STATUS.RevertInstruction);
      expect(toHex(result.output), key).toBe(toHex(output));
    }
  });


  it("getAddress reads the field as Address(string): 39 digits make an address, another size the zero address, a bad character throws (std::exception's what())", async () => {
    const h = await harness();
    const probe = await h.deploy(0, 'TableProbe');
    expect(await int(h, 0, probe, 'create()', [])).toBe(0);
    const row = async (key: string, a: string) => expect(await int(h, 0, CRUD, 'insert(string,string,string,string)', ['t_probe', key, JSON.stringify({ i: '1', u: '1', s: 's', a, b: 'b' }), ''])).toBe(1);
    const first = (key: string) => h.executor.call({ from: h.account(0).address, to: probe, data: h.callData('first(string)', [key]) }, h.number);
    await row('odd', '1'.repeat(39));
    await row('short', '0x1234');
    await row('bad', `0x${'zz'.repeat(20)}`);
    const read = async (key: string) => decodeAbi('int256,int256,string,address,bytes32,bytes1,bytes1', (await first(key)).output)[3];
    expect(String(await read('odd')).toLowerCase()).toBe(`0x0${'1'.repeat(39)}`);
    expect(await read('short')).toBe('0x0000000000000000000000000000000000000000');
    const bad = await first('bad');
    expect(bad.status).toBe(TX_STATUS.RevertInstruction);
    expect(toHex(bad.output)).toBe(toHex(encodeErrorString('std::exception')));
  });

  it('Table.insert with a key of more than 255 bytes fails the call with the StorageException of checkLengthValidate', async () => {
    const h = await harness();
    const probe = await h.deploy(0, 'TableProbe');
    expect(await int(h, 0, probe, 'create()', [])).toBe(0);
    const who = '0x00000000000000000000000000000000000000aa';
    const put = (k: string) => h.run(0, probe, h.callData('put(string,int256,uint256,string,address)', [k, 1n, 1n, 's', who]));
    const refused = await put('k'.repeat(256));
    expect(refused.status).toBe(TX_STATUS.RevertInstruction);
    expect(toHex(refused.output)).toBe(toHex(encodeErrorString('size of value/key greater than255')));
    expect((await put('k'.repeat(255))).status).toBe(0);
  });

  it('round-trips typed fields and counts rows under each operator', async () => {
    const h = await harness();
    const probe = await h.deploy(0, 'TableProbe');
    const who = '0x00000000000000000000000000000000000000aa';
    expect(await int(h, 0, probe, 'create()', [])).toBe(0);
    for (const [i, s] of [[-5n, 'neg'], [0n, 'zero'], [7n, 'seven']] as const) {
      expect(await int(h, 0, probe, 'put(string,int256,uint256,string,address)', ['k', i, 2n ** 200n, s, who])).toBe(1);
    }
    const [i, u, s, a, b32, firstByte, lastByte] = await h.call(
      probe,
      'first(string)',
      ['k'],
      'int256,int256,string,address,bytes32,bytes1,bytes1',
    );
    expect([i, u, s]).toEqual([-5n, 2n ** 200n, 'neg']);
    expect(String(a).toLowerCase()).toBe(who);
    // stored as EntryPrecompiled stores it, toHex(address): no 0x (the row is in the block's dbHash)
    const [rows] = (await h.call(CRUD, 'select(string,string,string,string)', ['t_probe', 'k', '{}', ''], 'string')) as [string];
    expect((JSON.parse(rows) as Array<Record<string, string>>).map((r) => r.a)).toEqual(Array(3).fill(who.slice(2)));
    expect(b32).toBe(`0x${Buffer.from('neg').toString('hex').padEnd(64, '0')}`);
    expect([firstByte, lastByte]).toEqual(['0x6e', '0x00']);
    // getBytes64 answers 64 bytes as two words (FISCO's EntryPrecompiled), so byte 63 is the last of the second
    const long = `${'a'.repeat(63)}Z`;
    expect(await int(h, 0, probe, 'put(string,int256,uint256,string,address)', ['long', 1n, 1n, long, who])).toBe(1);
    const [, , , , , longFirst, longLast] = await h.call(probe, 'first(string)', ['long'], 'int256,int256,string,address,bytes32,bytes1,bytes1');
    expect([longFirst, longLast]).toEqual(['0x61', '0x5a']);
    const count = async (op: number, iv: bigint, sv = '', av = who) =>
      Number((await h.call(probe, 'count(string,uint8,int256,string,address)', ['k', op, iv, sv, av], 'int256'))[0]);
    expect(await count(0, 0n)).toBe(1); // EQ i
    expect(await count(1, 0n)).toBe(2); // NE i
    expect(await count(2, -5n)).toBe(2); // GT i (numeric, not text, comparison)
    expect(await count(3, 0n)).toBe(2); // GE i
    expect(await count(4, 0n)).toBe(1); // LT i
    expect(await count(5, 7n)).toBe(3); // LE i
    expect(await count(6, 0n, 'seven')).toBe(1); // EQ s
    expect(await count(7, 0n, 'seven')).toBe(2); // NE s
    expect(await count(8, 0n, '', who)).toBe(3); // EQ a
    expect(await count(8, 0n, '', '0x00000000000000000000000000000000000000bb')).toBe(0);
  });
});

/**
 * CRUD 0x1002 as FISCO 2.x's CRUDPrecompiled.cpp and MemoryTable2.cpp read it (the 2.x sources of
 * 2.0 and of 2.7+ agree on each rule here, and FISCO's CRUDPrecompiledTest expects -51503 for an
 * update whose entry names the key field).
 */
describe('CRUD 0x1002 in the order FISCO 2.x reads a call', () => {
  const write = async (h: Harness, signature: string, args: unknown[]) => {
    const data = h.callData(signature, args);
    const receipt = await h.run(0, CRUD, data);
    expect(receipt.status, `${signature}: status`).toBe(0);
    // the gas the precompile charged beyond its OpenTable and the memory of its input and 32-byte output
    const extra = Number(receipt.gasUsed - intrinsicGas(data, false)) - 200 - memoryGas(Math.max(data.length, 32));
    return { code: Number(decodeAbi('int256', receipt.output)[0]), extra };
  };
  const rows = async (h: Harness, table: string, key: string, cond = '{}') =>
    JSON.parse((await h.call(CRUD, 'select(string,string,string,string)', [table, key, cond, ''], 'string'))[0] as string) as Record<string, string>[];
  const table = async (version = '2.11.0') => {
    const h = await harness({ version });
    expect(await int(h, 0, TABLE_FACTORY, 'createTable(string,string,string)', ['t_k', 'name', 'v,w'])).toBe(0);
    expect(await int(h, 0, CRUD, 'insert(string,string,string,string)', ['t_k', 'k', '{"v":"1","w":"a"}', ''])).toBe(1);
    return h;
  };

  it('opens the table first: a missing one is -50100 whatever the entry or condition, with no condition gas', async () => {
    const h = await table();
    expect(await write(h, 'insert(string,string,string,string)', ['t_none', 'k', '{oops', ''])).toEqual({ code: -50100, extra: 0 });
    expect(await write(h, 'update(string,string,string,string,string)', ['t_none', 'k', '{oops', '{"v":{"eq":"1"}}', ''])).toEqual({ code: -50100, extra: 0 });
    expect(await write(h, 'remove(string,string,string,string)', ['t_none', 'k', '{"v":{"like":"x"}}', ''])).toEqual({ code: -50100, extra: 0 });
    expect(await write(h, 'remove(string,string,string,string)', ['t_none', 'k', '{"v":{"eq":"1"}}', ''])).toEqual({ code: -50100, extra: 0 });
    // on a table that exists the same condition costs its EQ
    expect(await write(h, 'remove(string,string,string,string)', ['t_k', 'x', '{"v":{"eq":"1"}}', ''])).toEqual({ code: 0, extra: 3 });
  });

  it('select answers a missing table or an unreadable condition with the code as a word, desc a missing table with two empty strings', async () => {
    const h = await table();
    const raw = async (name: string, cond: string) => (await h.executor.call({ from: h.account(0).address, to: CRUD, data: h.callData('select(string,string,string,string)', [name, 'k', cond, '']) }, h.number)).output;
    expect(decodeAbi('int256', await raw('t_none', '{}'))).toEqual([-50100n]);
    expect(await raw('t_none', '{}')).toHaveLength(32);
    expect(decodeAbi('int256', await raw('t_k', '[1,2]'))).toEqual([-51501n]);
    expect(decodeAbi('int256', await raw('t_k', '{"v":{"like":"1"}}'))).toEqual([-51502n]);
    expect(await h.call(CRUD, 'desc(string)', ['t_none'], 'string,string')).toEqual(['', '']);
    expect(await h.call(CRUD, 'desc(string)', ['t_k'], 'string,string')).toEqual(['name', 'v,w']);
  });

  it('from 2.7.0 an update whose entry names the key field is -51503, before its condition is read, and changes nothing', async () => {
    const h = await table('2.7.0');
    expect(await write(h, 'update(string,string,string,string,string)', ['t_k', 'k', '{"name":"other","v":"2"}', '{"v":{"eq":"1"}}', ''])).toEqual({ code: -51503, extra: 0 });
    expect(await write(h, 'update(string,string,string,string,string)', ['t_k', 'k', '{"name":"k"}', '{"v":{"like":"1"}}', ''])).toEqual({ code: -51503, extra: 0 });
    expect(await write(h, 'update(string,string,string,string,string)', ['t_k', 'k', '{oops', '{}', ''])).toEqual({ code: -51500, extra: 0 });
    expect(await rows(h, 't_k', 'k')).toEqual([{ name: 'k', v: '1', w: 'a' }]);
  });

  it('before 2.7.0 an update skips the key field of its entry and writes the rest', async () => {
    const h = await table('2.6.0');
    expect(await int(h, 0, CRUD, 'update(string,string,string,string,string)', ['t_k', 'k', '{"name":"other","v":"2"}', '{"v":{"eq":"1"}}', ''])).toBe(1);
    expect(await rows(h, 't_k', 'k')).toEqual([{ name: 'k', v: '2', w: 'a' }]);
    expect(await rows(h, 't_k', 'other')).toEqual([]);
  });

  it("insert sets the key field to the key, whatever the entry's says", async () => {
    const h = await table();
    expect(await int(h, 0, CRUD, 'insert(string,string,string,string)', ['t_k', 'k2', '{"name":"other","v":"3"}', ''])).toBe(1);
    expect(await rows(h, 't_k', 'k2')).toEqual([{ name: 'k2', v: '3' }]);
    expect(await rows(h, 't_k', 'other')).toEqual([]);
  });

  it("reads a condition as FISCO's parser: members sorted, fields that are not hash fields skipped, limit under any field", async () => {
    const h = await table();
    expect(await int(h, 0, CRUD, 'insert(string,string,string,string)', ['t_k', 'k', '{"v":"2","w":"b"}', ''])).toBe(1);
    expect((await rows(h, 't_k', 'k', '{"_x_":{"eq":"nothing"}}')).length).toBe(2);
    expect((await rows(h, 't_k', 'k', '{"x_":{"eq":"nothing"},"w":{"eq":"b"}}')).map((r) => r.v)).toEqual(['2']);
    expect((await rows(h, 't_k', 'k', '{"v":{"limit":"1,1"}}')).map((r) => r.v)).toEqual(['2']);
    // jsoncpp's members are in name order: the EQ of "a" is read (and paid) before "b"'s undefined
    // operation whichever comes first in the text
    expect(await write(h, 'remove(string,string,string,string)', ['t_k', 'k', '{"a":{"eq":"1"},"b":{"zz":"1"}}', ''])).toEqual({ code: -51502, extra: 3 });
    expect(await write(h, 'remove(string,string,string,string)', ['t_k', 'k', '{"b":{"zz":"1"},"a":{"eq":"1"}}', ''])).toEqual({ code: -51502, extra: 3 });
  });

  it("bounds an update and a remove by the condition's limit (MemoryTable2 picks their rows with selectNoLock, which applies it)", async () => {
    const h = await table();
    expect(await int(h, 0, CRUD, 'insert(string,string,string,string)', ['t_k', 'k', '{"v":"2","w":"b"}', ''])).toBe(1);
    expect(await int(h, 0, CRUD, 'update(string,string,string,string,string)', ['t_k', 'k', '{"w":"z"}', '{"v":{"ge":"1"},"limit":{"limit":"0,1"}}', ''])).toBe(1);
    expect((await rows(h, 't_k', 'k')).map((r) => `${r.v}${r.w}`)).toEqual(['1z', '2b']);
    expect(await int(h, 0, CRUD, 'remove(string,string,string,string)', ['t_k', 'k', '{"limit":{"limit":"1,1"}}', ''])).toBe(1);
    expect((await rows(h, 't_k', 'k')).map((r) => `${r.v}${r.w}`)).toEqual(['1z']);
  });

  it("reads entry and condition values with jsoncpp's asString: true and false as words, null as empty", async () => {
    const h = await table();
    expect(await int(h, 0, CRUD, 'insert(string,string,string,string)', ['t_k', 'j', '{"v":true,"w":null}', ''])).toBe(1);
    expect(await rows(h, 't_k', 'j')).toEqual([{ name: 'j', v: 'true', w: '' }]);
    expect(await rows(h, 't_k', 'j', '{"v":{"eq":true}}')).toHaveLength(1);
    expect(await int(h, 0, CRUD, 'insert(string,string,string,string)', ['t_k', 'j', '{"v":{"a":1}}', ''])).toBe(-51500);
  });
});
