import { describe, expect, it } from 'vitest';
import { rpcHarness } from './rpc-harness.test-helper.js';
import { scanNesting } from './rpc-service.js';

type Reply = { jsonrpc: string; id: unknown; result?: unknown; error?: { code: number; message: string } };

async function answer(body: string, options: { maxBatch?: number } = {}): Promise<Reply & Reply[]> {
  const h = await rpcHarness({}, options);
  return JSON.parse(await h.service.handle(body)) as Reply & Reply[];
}

describe('the JSON-RPC envelope', () => {
  it('echoes jsonrpc and id (numbers and strings)', async () => {
    expect(await answer('{"jsonrpc":"2.0","id":7,"method":"getBlockNumber","params":[1]}')).toEqual({ jsonrpc: '2.0', id: 7, result: '0x0' });
    expect(await answer('{"jsonrpc":"2.0","id":"a","method":"getBlockNumber","params":[1]}')).toMatchObject({ id: 'a', result: '0x0' });
    expect(await answer('{"jsonrpc":"2.0","id":null,"method":"getGroupList"}')).toMatchObject({ id: null, result: [1] });
  });

  it.each([
    ['not JSON at all', 'hello', -32700],
    ['truncated JSON', '{"jsonrpc":"2.0","id":1,', -32700],
    ['an empty body', '', -32700],
    ['a bare number', '42', -32600],
    ['null', 'null', -32600],
    ['a string', '"getBlockNumber"', -32600],
    ['jsonrpc 1.0', '{"jsonrpc":"1.0","id":1,"method":"getBlockNumber","params":[1]}', -32600],
    ['no jsonrpc', '{"id":1,"method":"getBlockNumber","params":[1]}', -32600],
    ['a numeric method', '{"jsonrpc":"2.0","id":1,"method":5,"params":[1]}', -32600],
    ['an object id', '{"jsonrpc":"2.0","id":{},"method":"getBlockNumber","params":[1]}', -32600],
    ['string params', '{"jsonrpc":"2.0","id":1,"method":"getBlockNumber","params":"1"}', -32600],
    ['an unknown method', '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}', -32601],
    ['a prototype name as method', '{"jsonrpc":"2.0","id":1,"method":"toString","params":[]}', -32601],
    ['named params', '{"jsonrpc":"2.0","id":1,"method":"getBlockNumber","params":{"groupID":1}}', -32602],
    ['no id (a notification)', '{"jsonrpc":"2.0","method":"getBlockNumber","params":[1]}', -32604],
  ])('answers %s with %i', async (_what, body, code) => {
    const reply = await answer(body);
    expect(reply.jsonrpc).toBe('2.0');
    expect(reply.error?.code).toBe(code);
    expect(reply.error?.message).toMatch(/^[A-Z_ ]+: ./);
  });

  it('uses SPEC\'s message names for the standard codes', async () => {
    expect((await answer('{')).error?.message).toMatch(/^JSON_PARSE_ERROR: /);
    expect((await answer('1')).error?.message).toMatch(/^INVALID_JSON_REQUEST: /);
    expect((await answer('{"jsonrpc":"2.0","id":1,"method":"nope"}')).error?.message).toBe('METHOD_NOT_FOUND: no method "nope"');
    expect((await answer('{"jsonrpc":"2.0","method":"getGroupList"}')).error?.message).toMatch(/^PROCEDURE_IS_METHOD: /);
  });
});

describe('parameter validation', () => {
  const call = (method: string, params: unknown) => answer(JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }));

  it.each([
    ['a string group id', 'getBlockNumber', ['1'], 'groupID', '"1"'],
    ['a negative group id', 'getBlockNumber', [-1], 'groupID', '-1'],
    ['a fractional group id', 'getBlockNumber', [1.5], 'groupID', '1.5'],
    ['a huge group id', 'getBlockNumber', [1e300], 'groupID', '1e+300'],
    ['a group id above 2^31-1', 'getBlockNumber', [2 ** 31], 'groupID', '2147483648'],
    ['a missing parameter', 'getBlockNumber', [], 'getBlockNumber takes 1 parameter (groupID), got 0', ''],
    ['an extra parameter', 'getBlockNumber', [1, 2], 'getBlockNumber takes 1 parameter (groupID), got 2', ''],
    ['no group id for getPeers', 'getPeers', [], 'getPeers takes 1 parameter (groupID), got 0', ''],
    ['no group id for getNodeIDList', 'getNodeIDList', [], 'getNodeIDList takes 1 parameter (groupID), got 0', ''],
    ['a string group id for getPeers', 'getPeers', ['1'], 'groupID', '"1"'],
    ['a group id beyond int32 for getNodeIDList', 'getNodeIDList', [2 ** 31], 'groupID', '2147483648'],
    ['a fractional group id for getPeers', 'getPeers', [1.5], 'groupID', '1.5'],
    ['a non-boolean includeTransactions', 'getBlockByNumber', [1, '0x0', 'true'], 'includeTransactions', '"true"'],
    ['a numeric block number', 'getBlockByNumber', [1, 0, false], 'blockNumber', '0'],
    ['a negative block number', 'getBlockHashByNumber', [1, '-1'], 'blockNumber', '"-1"'],
    ['"latest" as block number', 'getBlockHashByNumber', [1, 'latest'], 'blockNumber', '"latest"'],
    ['a block number above 2^63-1', 'getBlockHashByNumber', [1, `0x${'f'.repeat(64)}`], 'blockNumber', '"0xfff'],
    ['a 1000-digit block number', 'getBlockHashByNumber', [1, '9'.repeat(1000)], 'blockNumber', '"999'],
    ['a short block hash', 'getBlockByHash', [1, '0x1234', false], 'blockHash', '"0x1234"'],
    ['a non-hex transaction hash', 'getTransactionByHash', [1, `0x${'zz'.repeat(32)}`], 'transactionHash', '"0xzz'],
    ['a transaction index with a leading zero FISCO reads as octal', 'getTransactionByBlockNumberAndIndex', [1, '0x0', '010'], 'transactionIndex', '"010"'],
    ['a block number FISCO reads as octal', 'getBlockByNumber', [1, '010', false], 'blockNumber', 'octal, 8'],
    ['a block number FISCO cannot read as octal', 'getBlockHashByNumber', [1, '09'], 'blockNumber', 'FISCO 2.x refuses it'],
    ['"0x" without digits as transaction index', 'getTransactionByBlockNumberAndIndex', [1, '0x0', '0x'], 'transactionIndex', '"0x"'],
    ['an empty transaction index', 'getTransactionByBlockHashAndIndex', [1, `0x${'11'.repeat(32)}`, ''], 'transactionIndex', 'empty'],
    ['an upper-case 0X transaction index', 'getTransactionByBlockNumberAndIndex', [1, '0x0', '0X0'], 'transactionIndex', 'lower-case 0x'],
    ['a numeric transaction index', 'getTransactionByBlockNumberAndIndex', [1, '0x0', 0], 'transactionIndex', '0'],
    ['a numeric address', 'getCode', [1, 12], 'address', '12'],
    ['a numeric key', 'getSystemConfigByKey', [1, 1], 'key', '1'],
    ['a numeric rlp', 'sendRawTransaction', [1, 1234], 'rlp', '1234'],
    ['an odd-length rlp', 'sendRawTransaction', [1, 'abc'], 'rlp', '"abc"'],
    ['an upper-case 0X address', 'getCode', [1, `0X${'11'.repeat(20)}`], 'address', '"0X1111'],
    ['an upper-case 0X rlp', 'sendRawTransaction', [1, '0Xf8'], 'rlp', '"0Xf8"'],
    ['an upper-case 0X call data', 'call', [1, { from: `0x${'11'.repeat(20)}`, to: `0x${'11'.repeat(20)}`, data: '0X00' }], 'request.data', '"0X00"'],
  ])('%s is -32602 naming the parameter and quoting the value', async (_what, method, params, name, quoted) => {
    const reply = await call(method, params);
    expect(reply.error?.code).toBe(-32602);
    expect(reply.error?.message).toContain(name);
    expect(reply.error?.message).toContain(quoted);
  });

  it('accepts leading zeros in quantities and hex data in either case, with or without 0x', async () => {
    expect((await call('getBlockHashByNumber', [1, '0x000'])).result).toMatch(/^0x[0-9a-f]{64}$/);
    const hash = (await call('getBlockHashByNumber', [1, '0x0'])).result as string;
    expect((await call('getBlockByHash', [1, hash.toUpperCase().replace('0X', '0x'), false])).result).toMatchObject({ hash });
    expect((await call('getBlockByHash', [1, hash.slice(2), false])).result).toMatchObject({ hash });
  });
});

describe('batches', () => {
  it('answers each item in order, errors per item', async () => {
    const replies = await answer(
      JSON.stringify([
        { jsonrpc: '2.0', id: 1, method: 'getBlockNumber', params: [1] },
        { jsonrpc: '2.0', id: 2, method: 'getBlockNumber', params: [9] },
        { jsonrpc: '2.0', id: 3, method: 'nope', params: [] },
        { jsonrpc: '2.0', method: 'getBlockNumber', params: [1] },
        null,
        5,
        [],
        { jsonrpc: '2.0', id: 4, method: 'getBlockNumber', params: ['x'] },
      ]),
    );
    expect(replies.map((r) => [r.id, r.result ?? r.error?.code])).toEqual([
      [1, '0x0'],
      [2, -40001],
      [3, -32601],
      [null, -32604],
      [null, -32600],
      [null, -32600],
      [null, -32600],
      [4, -32602],
    ]);
  });

  it('refuses an empty batch and one over the limit with a single -32600', async () => {
    expect(await answer('[]')).toMatchObject({ id: null, error: { code: -32600 } });
    const item = { jsonrpc: '2.0', id: 1, method: 'getBlockNumber', params: [1] };
    expect((await answer(JSON.stringify(Array(100).fill(item)))).length).toBe(100);
    expect(await answer(JSON.stringify(Array(101).fill(item)))).toMatchObject({ error: { code: -32600, message: expect.stringContaining('maximum of 100') } });
    expect(await answer(JSON.stringify(Array(3).fill(item)), { maxBatch: 2 })).toMatchObject({ error: { code: -32600 } });
  });
});

describe('hostile bodies', () => {
  it('refuses deep nesting before parsing, and is not fooled by brackets inside strings', async () => {
    const deep = `{"jsonrpc":"2.0","id":1,"method":"call","params":[1,${'['.repeat(100_000)}${']'.repeat(100_000)}]}`;
    expect(await answer(deep)).toMatchObject({ id: null, error: { code: -32600, message: expect.stringContaining('deeper than 32') } });
    // too deep and not JSON at all: a parse error, not an invalid request
    expect(await answer('['.repeat(40))).toMatchObject({ id: null, error: { code: -32700, message: expect.stringContaining('brackets') } });
    expect(await answer(`${'['.repeat(40)}${']'.repeat(39)}}`)).toMatchObject({ error: { code: -32700 } });
    expect(scanNesting('{"a":["]",{}]}', 3)).toBe('within');
    expect(scanNesting('{"a":["]",[{}]]}', 2)).toBe('too-deep');
    expect(scanNesting('{"a":[[}]]', 2)).toBe('unmatched');
    expect(scanNesting('[[["unclosed]]]', 2)).toBe('unmatched');
    expect(scanNesting(`["${'['.repeat(100)}"]`, 2)).toBe('within');
    expect(scanNesting('["\\"", [[]]]', 2)).toBe('too-deep');
    const inString = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getSystemConfigByKey', params: [1, '[[[[{{{{'.repeat(1000)] });
    expect(await answer(inString)).toMatchObject({ id: 1, error: { code: -40008 } });
  });

  it('survives a megabyte of garbage in a parameter, and huge numbers', async () => {
    const h = await rpcHarness();
    const big = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'sendRawTransaction', params: [1, 'ff'.repeat(1 << 19)] });
    const reply = JSON.parse(await h.service.handle(big)) as Reply;
    expect(reply.error?.code).toBe(-32603);
    expect(reply.error!.message.length).toBeLessThan(400);
    expect(JSON.parse(await h.service.handle('{"jsonrpc":"2.0","id":1e999,"method":"getGroupList"}'))).toMatchObject({ id: null, error: { code: -32600 } });
    expect(JSON.parse(await h.service.handle(`{"jsonrpc":"2.0","id":1,"method":"getBlockNumber","params":[${'9'.repeat(400)}]}`))).toMatchObject({
      error: { code: -32602 },
    });
    expect(await h.result('getBlockNumber', [1])).toBe('0x0');
  });

  it('turns an unexpected failure below into -32603 and reports it', async () => {
    const seen: string[] = [];
    const h = await rpcHarness({}, { onInternalError: (method) => seen.push(method) });
    h.group.blockByNumber = () => Promise.reject(new Error('disk on fire'));
    expect(await h.rpc('getBlockByNumber', [1, '0x0', false])).toMatchObject({
      error: { code: -32603, message: 'INTERNAL ERROR: getBlockByNumber: disk on fire' },
    });
    expect(seen).toEqual(['getBlockByNumber']);
    expect(await h.result('getBlockNumber', [1])).toBe('0x0');
  });
});

describe('integer ids of any size are echoed exactly (issue 14)', () => {
  const IDS = ['9007199254740993', '18446744073709551615', '-9223372036854775809', '9007199254740992', '12345678901234567890123'];
  /** The "id" member of a reply's JSON text, as written. */
  const idText = (text: string) => /"id":(-?[0-9]+)/.exec(text)?.[1];

  it.each(IDS)('single request with id %s: success and error replies', async (id) => {
    const h = await rpcHarness();
    const ok = await h.service.handle(`{"jsonrpc":"2.0","id":${id},"method":"getBlockNumber","params":[1]}`);
    expect(idText(ok)).toBe(id);
    expect(JSON.parse(ok)).toMatchObject({ result: '0x0' });
    const failed = await h.service.handle(`{"jsonrpc":"2.0","id":${id},"method":"getBlockNumber","params":[77]}`);
    expect(idText(failed)).toBe(id);
    expect(JSON.parse(failed)).toMatchObject({ error: { code: -40001 } });
  });

  it('a batch echoes each item\'s own id, nested "id" members and strings left alone', async () => {
    const h = await rpcHarness();
    const body = `[{"jsonrpc":"2.0","id":9007199254740993,"method":"getBlockNumber","params":[1]},
      {"method":"call","jsonrpc":"2.0","params":[1,{"from":"0x${'11'.repeat(20)}","to":"0x${'11'.repeat(20)}","id":1}],"id":18446744073709551615},
      {"jsonrpc":"2.0","id":"9007199254740993","method":"getBlockNumber","params":[1]},
      {"jsonrpc":"2.0","id":3,"method":"getBlockNumber","params":[1]},
      {"jsonrpc":"2.0","id":-9223372036854775809,"method":"nope"}]`;
    const text = await h.service.handle(body);
    expect([...text.matchAll(/"id":(-?[0-9]+|"[^"]*")/g)].map((m) => m[1])).toEqual([
      '9007199254740993',
      '18446744073709551615',
      '"9007199254740993"',
      '3',
      '-9223372036854775809',
    ]);
    expect((JSON.parse(text) as Reply[]).map((r) => r.error?.code ?? 'ok')).toEqual(['ok', 'ok', 'ok', 'ok', -32601]);
  });

  it('ids written with escapes in the key, fractions and exponents are read as JSON.parse reads them', async () => {
    const h = await rpcHarness();
    expect(idText(await h.service.handle('{"jsonrpc":"2.0","\\u0069d":9007199254740993,"method":"getGroupList"}'))).toBe('9007199254740993');
    expect(JSON.parse(await h.service.handle('{"jsonrpc":"2.0","id":1e3,"method":"getGroupList"}')).id).toBe(1000);
    expect(JSON.parse(await h.service.handle('{"jsonrpc":"2.0","id":2.5,"method":"getGroupList"}')).id).toBe(2.5);
  });
});
