import { describe, expect, it } from 'vitest';
import { toHex } from '../codec/index.js';
import { rpcHarness } from '../rpc/rpc-harness.test-helper.js';
import { ChannelType, ZERO_SEQ, frameText, numericSeq, type ChannelFrame } from './channel-frame.js';
import {
  refusedReceipt,
  ChannelPushes,
  EventLogParamsError,
  EventLogResult,
  eventLogReplyData,
  logMatches,
  parseEventLogFilterParams,
  type ChannelPushesOptions,
} from './channel-pushes.js';
import { ChannelSession } from './channel-session.js';

const A1 = `0x${'11'.repeat(20)}`;
const A2 = `0x${'22'.repeat(20)}`;
const T1 = `0x${'aa'.repeat(32)}`;
const T2 = `0x${'bb'.repeat(32)}`;
const T3 = `0x${'cc'.repeat(32)}`;

describe('parseEventLogFilterParams (EventLogFilterParams.cpp)', () => {
  it('reads the java-sdk request: filterID, groupID as text, blocks, addresses, positional topics', () => {
    const p = parseEventLogFilterParams(
      JSON.stringify({ fromBlock: '1', toBlock: 'latest', addresses: [A1.toUpperCase().replace('0X', '0x')], topics: [T1, null, [T2, T3]], groupID: '1', filterID: 'f1', timeout: 0 }),
    );
    expect(p.filterId).toBe('f1');
    expect(p.groupId).toBe(1);
    expect(p.fromBlock).toBe(1);
    expect(p.toBlock).toBe(Number.MAX_SAFE_INTEGER);
    expect([...p.addresses]).toEqual([A1]);
    expect(p.topics.map((s) => [...s])).toEqual([[T1], [], [T2, T3], []]);
    const q = parseEventLogFilterParams(JSON.stringify({ fromBlock: '0x2', toBlock: 5, addresses: A2, topics: T1, groupID: 2, filterID: 'x' }));
    expect(q).toMatchObject({ fromBlock: 2, toBlock: 5, groupId: 2 });
    expect([...q.addresses]).toEqual([A2]);
    expect([...q.topics[0]!]).toEqual([T1]);
    const both = parseEventLogFilterParams(JSON.stringify({ addresses: [A1, A2], topics: [], groupID: 1, filterID: 'z' }));
    expect([...both.addresses]).toEqual([A1, A2]);
    expect(logMatches(both, { address: A2, topics: [] })).toBe(true);
    // fromBlock / toBlock absent: latest
    expect(parseEventLogFilterParams('{"addresses":[],"topics":[],"groupID":"1","filterID":"y"}')).toMatchObject({ fromBlock: Number.MAX_SAFE_INTEGER });
  });

  it.each([
    ['not JSON', 'nope', 'not json'],
    ['no filterID', '{"groupID":"1","addresses":[],"topics":[]}', 'filterID'],
    ['no groupID', '{"filterID":"f","addresses":[],"topics":[]}', 'groupID'],
    ['group 0', '{"filterID":"f","groupID":"0","addresses":[],"topics":[]}', 'groupID'],
    ['no addresses', '{"filterID":"f","groupID":"1","topics":[]}', 'addresses'],
    ['no topics', '{"filterID":"f","groupID":"1","addresses":[]}', 'topics'],
    ['five topic positions', `{"filterID":"f","groupID":"1","addresses":[],"topics":[null,null,null,null,"${T1}"]}`, 'at most 4'],
    ['a short address', '{"filterID":"f","groupID":"1","addresses":["0x12"],"topics":[]}', '20 bytes'],
    ['a bad block', '{"filterID":"f","groupID":"1","fromBlock":"soon","addresses":[],"topics":[]}', 'fromBlock'],
  ])('refuses %s', (_name, json, message) => {
    expect(() => parseEventLogFilterParams(json)).toThrow(EventLogParamsError);
    expect(() => parseEventLogFilterParams(json)).toThrow(message);
  });
});

describe('logMatches (EventLogFilter::matches)', () => {
  const p = parseEventLogFilterParams(JSON.stringify({ filterID: 'f', groupID: 1, addresses: [A1], topics: [T1, null, [T2, T3]] }));
  it('needs the address and every constrained topic position', () => {
    expect(logMatches(p, { address: A1, topics: [T1, T3, T2] })).toBe(true);
    expect(logMatches(p, { address: A1, topics: [T1, T1, T3, T1] })).toBe(true);
    expect(logMatches(p, { address: A2, topics: [T1, T3, T2] })).toBe(false);
    expect(logMatches(p, { address: A1, topics: [T2, T3, T2] })).toBe(false);
    expect(logMatches(p, { address: A1, topics: [T1, T3, T1] })).toBe(false);
    // position 2 is constrained and the log has no third topic
    expect(logMatches(p, { address: A1, topics: [T1, T2] })).toBe(false);
  });
  it('matches anything with no addresses and no topics', () => {
    const any = parseEventLogFilterParams('{"filterID":"f","groupID":1,"addresses":[],"topics":[]}');
    expect(logMatches(any, { address: A2, topics: [] })).toBe(true);
  });
});

const eventFrame = (type: number, seq: string, body: unknown): ChannelFrame => ({
  type,
  seq,
  result: 0,
  data: Buffer.concat([Buffer.of(1), Buffer.from(typeof body === 'string' ? body : JSON.stringify(body))]),
});

async function setup(options: Partial<ChannelPushesOptions> = {}) {
  const h = await rpcHarness();
  const logs: string[] = [];
  const pushes = new ChannelPushes({ node: h.node, service: h.service, log: (m) => logs.push(m), ...options });
  const open = () => {
    const sent: ChannelFrame[] = [];
    const session: ChannelSession = new ChannelSession({
      service: h.service,
      supportedVersion: '2.11.0',
      pushes,
      send: (f) => sent.push(f),
      close: () => pushes.sessionClosed(session),
    });
    return { session, sent };
  };
  /** Seals and hands the commit to the pushes, as the host does. */
  const commit = async () => {
    const block = await h.node.seal();
    await pushes.blockCommitted(1, block!.block.header.number);
    // Let the filter runners (started, not awaited) finish.
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    return block!;
  };
  const rpcFrame = (seq: string, method: string, params: unknown[]): ChannelFrame => ({
    type: ChannelType.RPC,
    seq,
    result: 0,
    data: Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 1, method, params })),
  });
  /** Deploys HelloWorld (block 1); returns its address. */
  const deploy = async () => {
    const tx = h.deployTx();
    await h.send(tx);
    await commit();
    const receipt = await h.result<{ contractAddress: string }>('getTransactionReceipt', [1, toHex(tx.hash)]);
    return receipt.contractAddress;
  };
  /** A set(string) call: one log with two topics. */
  const setTx = (address: string, text: string) => h.callTx(Buffer.from(address.slice(2), 'hex'), h.abi('set(string)', [text]));
  return { h, pushes, logs, open, commit, rpcFrame, deploy, setTx };
}

const json = (f: ChannelFrame) => JSON.parse(frameText(f)) as Record<string, unknown>;
const pushesOf = (sent: ChannelFrame[]) => sent.filter((f) => f.type === ChannelType.EVENT_LOG_PUSH).map(json);

describe('ChannelPushes: 0x1000 receipts', () => {
  it('pushes getTransactionReceipt\'s object on the sendRawTransaction seq when the block commits', async () => {
    const s = await setup();
    const { session, sent } = s.open();
    const tx = s.h.deployTx();
    const seq = 'r'.repeat(32);
    await session.receive(s.rpcFrame(seq, 'sendRawTransaction', [1, toHex(tx.raw)]));
    expect(sent).toHaveLength(1);
    expect(json(sent[0]!).result).toBe(toHex(tx.hash));
    expect(s.pushes.pendingReceipts).toBe(1);
    await s.commit();
    expect(sent).toHaveLength(2);
    const push = sent[1]!;
    expect(push).toMatchObject({ type: 0x1000, seq, result: 0 });
    const receipt = await s.h.result('getTransactionReceipt', [1, toHex(tx.hash)]);
    expect(JSON.parse(frameText(push))).toEqual(receipt);
    expect(Object.keys(JSON.parse(frameText(push)) as object)).toEqual(Object.keys(receipt as object));
    expect(s.pushes.pendingReceipts).toBe(0);
    // one push only
    await s.pushes.blockCommitted(1, 1);
    expect(sent).toHaveLength(2);
  });

  it('pushes nothing for a refused transaction, a batch, another method or a group given as text', async () => {
    const s = await setup();
    const { session, sent } = s.open();
    const tx = s.h.deployTx();
    await session.receive(s.rpcFrame(numericSeq(1), 'sendRawTransaction', [1, '0x00']));
    expect(json(sent[0]!).error).toBeDefined();
    await session.receive({ type: ChannelType.RPC, seq: numericSeq(2), result: 0, data: Buffer.from(JSON.stringify([{ jsonrpc: '2.0', id: 1, method: 'sendRawTransaction', params: [1, toHex(tx.raw)] }])) });
    await session.receive(s.rpcFrame(numericSeq(3), 'getBlockNumber', [1]));
    expect(s.pushes.pendingReceipts).toBe(0);
    await s.commit();
    expect(sent.filter((f) => f.type === 0x1000)).toEqual([]);
  });

  it('pushes at once when the block committed before the reply was seen', async () => {
    const s = await setup();
    const { session, sent } = s.open();
    const tx = s.h.deployTx();
    await s.h.send(tx);
    await s.h.node.seal();
    // The session learns of the hash after the commit (its handler raced with sealing).
    s.pushes.rpcAnswered(session, numericSeq(9), JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'sendRawTransaction', params: ['1', toHex(tx.raw)] }), JSON.stringify({ jsonrpc: '2.0', id: 1, result: toHex(tx.hash) }));
    for (let i = 0; i < 10 && sent.length === 0; i++) await new Promise((r) => setImmediate(r));
    expect(sent.map((f) => [f.type, f.seq])).toEqual([[0x1000, numericSeq(9)]]);
  });

  it('pushes FISCO\'s refused receipt (status 0x1d) when the transaction left the pool without a block', async () => {
    const s = await setup();
    const { session, sent } = s.open();
    const gone = `0x${'ab'.repeat(32)}`;
    // a hash the pool no longer holds, as after an expired block limit
    s.pushes.rpcAnswered(session, numericSeq(7), JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'sendRawTransaction', params: [1, '0x00'] }), JSON.stringify({ jsonrpc: '2.0', id: 1, result: gone }));
    expect(s.pushes.pendingReceipts).toBe(1);
    await s.h.send(s.h.deployTx());
    await s.commit();
    const pushed = sent.filter((f) => f.type === 0x1000);
    expect(pushed.map((f) => f.seq)).toEqual([numericSeq(7)]);
    expect(JSON.parse(frameText(pushed[0]!))).toEqual(refusedReceipt());
    expect(refusedReceipt()['status']).toBe('0x1d');
    expect(s.pushes.pendingReceipts).toBe(0);
    expect(s.logs.some((l) => l.includes(`${gone} of group 1 left the pool without a block; refused receipt (0x1d)`))).toBe(true);
  });

  it('bounds the registrations per session and forgets them when the session closes', async () => {
    const s = await setup({ maxPendingReceipts: 2 });
    const { session, sent } = s.open();
    const txs = [s.h.deployTx(), s.h.deployTx(), s.h.deployTx()];
    for (const [i, tx] of txs.entries()) await session.receive(s.rpcFrame(numericSeq(i), 'sendRawTransaction', [1, toHex(tx.raw)]));
    expect(s.pushes.pendingReceipts).toBe(2);
    expect(s.logs.some((l) => l.includes('2 receipts outstanding'))).toBe(true);
    await s.commit();
    expect(sent.filter((f) => f.type === 0x1000).map((f) => f.seq)).toEqual([numericSeq(1), numericSeq(2)]);

    const other = s.open();
    await other.session.receive(s.rpcFrame(numericSeq(5), 'sendRawTransaction', [1, toHex(s.h.deployTx().raw)]));
    expect(s.pushes.pendingReceipts).toBe(1);
    other.session.close('test');
    expect(s.pushes.pendingReceipts).toBe(0);
    await s.commit();
    expect(other.sent.filter((f) => f.type === 0x1000)).toEqual([]);
  });
});

describe('ChannelPushes: 0x15 / 0x16 event-log filters and 0x1002', () => {
  const request = (filterID: string, extra: Record<string, unknown> = {}) => ({ fromBlock: '1', toBlock: 'latest', addresses: [], topics: [], groupID: '1', filterID, ...extra });

  it('replies {"result":0} behind an empty topic, pushes the history, then live blocks, and completes at toBlock', async () => {
    const s = await setup();
    const address = await s.deploy(); // block 1
    const first = s.setTx(address, 'one');
    await s.h.send(first);
    const b2 = await s.commit(); // block 2
    const { session, sent } = s.open();
    await session.receive(eventFrame(ChannelType.EVENT_LOG_REGISTER, 's'.repeat(32), request('f1', { toBlock: '3', addresses: address })));
    for (let i = 0; i < 10; i++) await new Promise((r) => setImmediate(r));
    expect(sent[0]).toMatchObject({ type: 0x15, seq: 's'.repeat(32), result: 0 });
    expect(Buffer.from(sent[0]!.data)).toEqual(eventLogReplyData(0));
    expect(Buffer.from(sent[0]!.data).toString('latin1')).toBe('\x01{"result":0}\n');
    const historic = sent[1]!;
    expect(historic).toMatchObject({ type: 0x1002, seq: ZERO_SEQ, result: 0 });
    const text = frameText(historic);
    expect(text.endsWith('}\n')).toBe(true);
    const body = JSON.parse(text) as { filterID: string; result: number; logs: Array<Record<string, unknown>> };
    expect(Object.keys(body)).toEqual(['filterID', 'logs', 'result']);
    expect(body.filterID).toBe('f1');
    expect(body.result).toBe(0);
    expect(body.logs).toHaveLength(1);
    const receipt = await s.h.result<{ logs: Array<{ address: string; topics: string[]; data: string }> }>('getTransactionReceipt', [1, toHex(first.hash)]);
    expect(body.logs[0]).toEqual({
      address,
      blockHash: toHex(b2.hash),
      blockNumber: '2',
      data: receipt.logs[0]!.data,
      logIndex: '0x0',
      topics: receipt.logs[0]!.topics,
      transactionHash: toHex(first.hash),
      transactionIndex: '0x0',
    });
    expect(Object.keys(body.logs[0]!)).toEqual(['address', 'blockHash', 'blockNumber', 'data', 'logIndex', 'topics', 'transactionHash', 'transactionIndex']);

    // live: block 3 has two logs in transactions 0 and 1; then the completion
    const a = s.setTx(address, 'two');
    const b = s.setTx(address, 'three');
    await s.h.send(a);
    await s.h.send(b);
    await s.commit();
    const all = pushesOf(sent);
    expect(all).toHaveLength(3);
    expect((all[1]!.logs as Array<Record<string, unknown>>).map((l) => [l.blockNumber, l.transactionIndex, l.transactionHash])).toEqual([
      ['3', '0x0', toHex(a.hash)],
      ['3', '0x1', toHex(b.hash)],
    ]);
    expect(frameText(sent.at(-1)!)).toBe('{"filterID":"f1","logs":null,"result":1}\n');
    expect(s.pushes.filterCount).toBe(0);
    expect(s.logs.some((l) => l.includes('f1 completed at block 3'))).toBe(true);
    await s.h.send(s.setTx(address, 'four'));
    await s.commit();
    expect(pushesOf(sent)).toHaveLength(3);
  });

  it('filters by address and topic, and "latest" starts at the head block', async () => {
    const s = await setup();
    const address = await s.deploy();
    const set = s.setTx(address, 'x');
    await s.h.send(set);
    await s.commit(); // block 2 holds the log
    const receipt = await s.h.result<{ logs: Array<{ topics: string[] }> }>('getTransactionReceipt', [1, toHex(set.hash)]);
    const [topic0, topic1] = receipt.logs[0]!.topics;
    const { session, sent } = s.open();
    const reg = (id: string, extra: Record<string, unknown>) => session.receive(eventFrame(0x15, numericSeq(id.length), request(id, extra)));
    await reg('latest', { fromBlock: 'latest', toBlock: 'latest' });
    await reg('wrong-address', { addresses: [A1] });
    await reg('wrong-topic', { topics: [T1] });
    await reg('second-topic', { topics: [null, [T2, topic1]] });
    await reg('first-topic', { topics: topic0, addresses: [address] });
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    const got = pushesOf(sent).map((p) => p.filterID).sort();
    expect(got).toEqual(['first-topic', 'latest', 'second-topic']);
    expect(s.pushes.filterCount).toBe(5);
  });

  it('unregisters with 0x16 (then -41007), and stops pushing', async () => {
    const s = await setup();
    const address = await s.deploy();
    const { session, sent } = s.open();
    await session.receive(eventFrame(0x15, numericSeq(1), request('gone', { fromBlock: '2' })));
    await session.receive(eventFrame(0x16, numericSeq(2), request('gone')));
    expect(sent.map((f) => [f.type, f.seq, frameText(f).slice(1)])).toEqual([
      [0x15, numericSeq(1), '{"result":0}\n'],
      [0x16, numericSeq(2), '{"result":0}\n'],
    ]);
    await session.receive(eventFrame(0x16, numericSeq(3), { filterID: 'gone' }));
    expect(frameText(sent[2]!).slice(1)).toBe(`{"result":${EventLogResult.NONEXISTENT_EVENT}}\n`);
    await s.h.send(s.setTx(address, 'after'));
    await s.commit();
    expect(pushesOf(sent)).toEqual([]);
    expect(s.pushes.filterCount).toBe(0);
  });

  it('gives FISCO\'s error codes to bad registrations, with a log line, and keeps going', async () => {
    const s = await setup({ maxFilters: 1 });
    await s.deploy();
    const { session, sent } = s.open();
    const codes = async (body: unknown) => {
      await session.receive(eventFrame(0x15, numericSeq(sent.length), body));
      return JSON.parse(frameText(sent.at(-1)!).slice(1)) as { result: number };
    };
    expect(await codes('{broken')).toEqual({ result: -41001 });
    expect(await codes({ filterID: 'f', groupID: '1' })).toEqual({ result: -41001 });
    expect(await codes(request('g', { groupID: '7' }))).toEqual({ result: -41002 });
    expect(await codes(request('r', { fromBlock: '5', toBlock: '3' }))).toEqual({ result: -41003 });
    expect(await codes(request('r', { fromBlock: '5', toBlock: '4' }))).toEqual({ result: -41003 });
    // a range of one block is a range
    expect(await codes(request('ok', { fromBlock: '5', toBlock: '5' }))).toEqual({ result: 0 });
    expect(await codes(request('too-many'))).toEqual({ result: -41001 });
    // an empty frame
    await session.receive({ type: 0x15, seq: numericSeq(99), result: 0, data: new Uint8Array(0) });
    expect(frameText(sent.at(-1)!).slice(1)).toBe('{"result":-41001}\n');
    expect(s.logs.filter((l) => l.includes('bad event log register request'))).toHaveLength(3);
    expect(s.logs.some((l) => l.includes('group 7 does not exist'))).toBe(true);
    expect(session.isClosed).toBe(false);
  });

  it('walks a long history in batches, giving the event loop a turn between them', async () => {
    let turns = 0;
    const s = await setup({ blocksPerBatch: 2, yieldTurn: () => { turns++; return new Promise((r) => setImmediate(r)); } });
    const address = await s.deploy();
    for (let i = 0; i < 5; i++) {
      await s.h.send(s.setTx(address, `v${i}`));
      await s.commit(); // blocks 2..6
    }
    const { session, sent } = s.open();
    await session.receive(eventFrame(0x15, numericSeq(1), request('long', { fromBlock: '0', toBlock: '6' })));
    for (let i = 0; i < 40; i++) await new Promise((r) => setImmediate(r));
    const all = pushesOf(sent);
    // batches 0-1, 2-3, 4-5, 6; logs from block 2 on; then the completion
    expect(all.map((p) => (p.logs as Array<{ blockNumber: string }> | null)?.map((l) => l.blockNumber) ?? null)).toEqual([['2', '3'], ['4', '5'], ['6'], null]);
    expect(turns).toBeGreaterThanOrEqual(3);
  });

  it('drops the filters of a closed session', async () => {
    const s = await setup();
    const { session } = s.open();
    await session.receive(eventFrame(0x15, numericSeq(1), request('a', { fromBlock: 'latest' })));
    expect(s.pushes.filterCount).toBe(1);
    session.close('test');
    expect(s.pushes.filterCount).toBe(0);
  });
});
