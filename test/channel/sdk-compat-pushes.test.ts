// Issue 16, continued: what FISCO's SDKs get from a node beyond requests and block notify (the
// 0x1000 receipt push, 0x15 / 0x16 / 0x1002 event logs), the handshake some Java SDK builds send,
// and replies under load, each read the way that SDK's channel code reads it (sdk-clients.ts).
import { describe, expect, it } from 'vitest';
import { toHex } from '../../src/codec/index.js';
import { ChannelType, frameText } from '../../src/channel/channel-frame.js';
import {
  NodeSdkClient,
  PySdkClient,
  commitBlock,
  connectJavaSdk,
  connectJavaSdkV3,
  javaSeq,
  splitTopic,
  topicData,
  useSdkNode,
  waitFor,
} from './sdk-clients.js';

const node = useSdkNode();
const port = () => node().server.port;
const auth = () => node().auth;
const rawDeploy = () => toHex(node().h.deployTx().raw);
/** Keys of FISCO's receipt JSON (getTransactionReceipt / the 0x1000 body) the SDKs read. */
const RECEIPT_KEYS = ['blockHash', 'blockNumber', 'contractAddress', 'from', 'gasUsed', 'logs', 'output', 'status', 'to', 'transactionHash', 'transactionIndex'];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** java.lang.String.trim: strips every char ≤ U+0020 at both ends (the 0x01 topic byte included). */
// eslint-disable-next-line no-control-regex
const javaTrim = (s: string) => s.replace(/^[\u0000-\u0020]+|[\u0000-\u0020]+$/g, '');
/** An event-log filter on the head block as the SDKs write one (groupID as a string). */
const latestFilter = (filterID: string) => ({ fromBlock: 'latest', toBlock: 'latest', addresses: [], topics: [], groupID: '1', filterID });

describe('0x1000 receipt push on the sendRawTransaction seq', () => {
  it('Node.js SDK: ignores the 0x12 hash reply and settles on the 0x1000 receipt (top-level status)', async () => {
    const c = await NodeSdkClient.connect(port(), auth(), 'TLSv1.2');
    const settled = c.transaction(rawDeploy(), 1);
    await sleep(50);
    await commitBlock(node());
    const receipt = await settled;
    expect(receipt.status).toBe('0x0');
    for (const key of RECEIPT_KEYS) expect(receipt, key).toHaveProperty(key);
    expect(String(receipt.contractAddress)).toMatch(/^0x[0-9a-f]{40}$/);
    expect(c.failures).toEqual([]);
    c.socket.destroy();
  });

  it('Python SDK: channel_sendRawTransactionGetReceipt gets the receipt from 0x1000 (wrapped as {"result": receipt})', async () => {
    const c = await PySdkClient.connect(port(), auth());
    const seq = c.sendPack(ChannelType.RPC, c.rpcBody('sendRawTransaction', [1, rawDeploy()]));
    const hashReply = PySdkClient.commonResult(await c.waitPack(seq, ChannelType.RPC));
    expect(hashReply).toMatch(/^0x[0-9a-f]{64}$/);
    const number = await commitBlock(node());
    const receipt = PySdkClient.commonResult(await c.waitPack(seq, ChannelType.TX_RECEIPT_NOTIFY)) as Record<string, string>;
    expect(receipt.transactionHash).toBe(hashReply);
    expect(parseInt(receipt.blockNumber!, 16)).toBe(number);
    expect(receipt.contractAddress).toMatch(/^0x[0-9a-f]{40}$/);
    c.socket.destroy();
  });

  it('Java SDK: TransactionNotifyHandler maps the 0x1000 data with Jackson onto TransactionReceipt', async () => {
    const c = await connectJavaSdkV3(port(), auth());
    const seq = javaSeq();
    const reply = await c.request(ChannelType.RPC, seq, JSON.stringify({ jsonrpc: '2.0', method: 'sendRawTransaction', params: [1, rawDeploy()], id: 5 }));
    const hash = (JSON.parse(frameText(reply)) as { result: string }).result;
    await commitBlock(node());
    const push = await c.next(seq);
    expect(push).toMatchObject({ type: ChannelType.TX_RECEIPT_NOTIFY, result: 0 });
    const receipt = JSON.parse(frameText(push)) as Record<string, unknown>;
    expect(receipt.transactionHash).toBe(hash);
    for (const key of RECEIPT_KEYS) expect(receipt, key).toHaveProperty(key);
    c.socket.destroy();
  });
});

describe('event-log subscription 0x15 / 0x16 / 0x1002', () => {
  it('Python SDK: register_eventlog_filter gets a topic-prefixed {"result":0} on its seq, then 0x1002 {filterID, logs, result} on 32 × "0"', async () => {
    const { h } = node();
    const c = await PySdkClient.connect(port(), auth());
    const deploy = await h.send(h.deployTx());
    await commitBlock(node());
    const receipt = await h.result<{ contractAddress: string }>('getTransactionReceipt', [1, deploy.result]);
    const filterID = PySdkClient.makeSeq32();
    const request = JSON.stringify({ fromBlock: 'latest', toBlock: 'latest', addresses: [receipt.contractAddress], topics: [], groupID: 1, filterID });
    const seq = c.sendPack(ChannelType.EVENT_LOG_REGISTER, topicData('', request));
    const answer = await c.waitPack(seq, ChannelType.EVENT_LOG_REGISTER);
    const { topic, content } = splitTopic(answer.data);
    expect(topic).toBe('');
    expect(JSON.parse(content)).toEqual({ result: 0 });
    // HelloWorld.set(string) emits no event in every build; any call that logs works here
    const set = await h.send(h.callTx(Buffer.from(receipt.contractAddress.slice(2), 'hex'), h.abi('set(string)', ['x'])));
    expect(set.error).toBeUndefined();
    await commitBlock(node());
    const push = await c.waitPack('0'.repeat(32), ChannelType.EVENT_LOG_PUSH);
    const body = JSON.parse(push.data.toString('utf8')) as { filterID: string; result: number; logs: Array<Record<string, unknown>> };
    expect(body.filterID).toBe(filterID);
    expect(body.result).toBe(0);
    expect(Array.isArray(body.logs)).toBe(true);
    c.socket.destroy();
  });

  it('Node.js SDK: registerEventLogCallback parses the 0x15 reply after the topic byte and routes 0x1002 by filterID', async () => {
    const c = await NodeSdkClient.connect(port(), auth(), 'TLSv1.2');
    const seq = c.send(ChannelType.EVENT_LOG_REGISTER, latestFilter(javaSeq()), '');
    await waitFor(() => c.messages.some((m) => m.seq === seq) || c.failures.length > 0, '0x15 reply');
    expect(c.messages.find((m) => m.seq === seq)?.body).toMatchObject({ result: 0 });
    expect(c.failures).toEqual([]);
    c.socket.destroy();
  });

  it('Java SDK: the 0x15 / 0x16 replies read with trim() then Jackson (the 0x01 topic byte is trimmed) give result 0', async () => {
    const c = await connectJavaSdkV3(port(), auth());
    const params = topicData('', JSON.stringify(latestFilter(javaSeq()))).toString('latin1');
    const reg = await c.request(ChannelType.EVENT_LOG_REGISTER, javaSeq(), params);
    expect(reg.result).toBe(0);
    expect(JSON.parse(javaTrim(frameText(reg)))).toEqual({ result: 0 });
    const unreg = await c.request(ChannelType.EVENT_LOG_UNREGISTER, javaSeq(), params);
    expect(JSON.parse(javaTrim(frameText(unreg)))).toEqual({ result: 0 });
    c.socket.destroy();
  });
});

describe('FISCO handshake defaults', () => {
  it('Java SDK builds whose ChannelHandshake has only clientType get protocol 1 (FISCO defaults min/max to 1), not a disconnect', async () => {
    const c = await connectJavaSdk(port(), auth());
    const reply = await c.request(ChannelType.HANDSHAKE, javaSeq(), '{"clientType":"java-sdk"}');
    expect(JSON.parse(frameText(reply))).toEqual({ protocol: 1, nodeVersion: node().h.node.clientVersion().supportedVersion });
    // v1 from here on: the heartbeat answer is "1"
    expect(frameText(await c.request(ChannelType.HEARTBEAT, javaSeq(), '0'))).toBe('1');
    c.socket.destroy();
  });
});

describe('one frame per TLS record under load', () => {
  it('Node.js SDK: parses every reply of a burst (its data handler JSON-parses everything after byte 42)', async () => {
    const c = await NodeSdkClient.connect(port(), auth(), 'TLSv1.2');
    const seqs = Array.from({ length: 30 }, (_, i) => c.send(0x11, { jsonrpc: '2.0', method: 'getBlockNumber', params: [1], id: i }));
    await waitFor(() => c.failures.length > 0 || c.messages.length >= seqs.length, 'the burst replies');
    expect(c.failures).toEqual([]);
    expect(c.messages.filter((m) => seqs.includes(m.seq))).toHaveLength(seqs.length);
    c.socket.destroy();
  });

  it('Python SDK: decodes every frame of a burst (ChannelPack.unpack takes all buffered bytes as the data)', async () => {
    const c = await PySdkClient.connect(port(), auth());
    const seqs = Array.from({ length: 20 }, () => c.sendPack(ChannelType.RPC, c.rpcBody('getBlockNumber', [1])));
    for (const seq of seqs) expect(PySdkClient.commonResult(await c.waitPack(seq, ChannelType.RPC))).toMatch(/^0x/);
    c.socket.destroy();
  });
});
