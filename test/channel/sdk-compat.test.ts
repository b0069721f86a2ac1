// Issue 16: FISCO's Node.js, Python and Java SDKs work against a Twinchain channel port unmodified.
// Each describe drives the channel server the way that SDK's source does (see sdk-clients.ts for
// the TLS setup, seqs and frame parsing of each); what the SDK relies on is listed per test.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChannelType, frameText } from '../../src/channel/channel-frame.js';
import {
  JAVA_HANDSHAKE,
  NodeSdkClient,
  PySdkClient,
  connectJavaSdk,
  connectJavaSdkV3,
  javaHandshakeSupported,
  javaSeq,
  newBlock,
  splitTopic,
  until,
  useSdkNode,
  type Harness,
} from './sdk-clients.js';
import type { ChannelServer } from '../../src/channel/channel-server.js';

const node = useSdkNode();
let h: Harness;
let server: ChannelServer;
const sdkAuth = () => node().auth;

beforeAll(() => {
  ({ h, server } = node());
});

describe('Node.js SDK (nodejs-sdk packages/api/common/network/channelPromise.js)', () => {
  let client: NodeSdkClient;

  beforeAll(async () => {
    client = await NodeSdkClient.connect(server.port, sdkAuth(), 'TLSv1.2');
  });
  afterAll(() => client?.socket.destroy());

  it('needs --tls-max-v1.2 on Node ≥ 17: offering only secp256k1 with TLS 1.3 enabled cannot make a ClientHello', async () => {
    await expect(NodeSdkClient.connect(server.port, sdkAuth(), undefined)).rejects.toThrow(/no suitable groups|No groups enabled/);
  });

  it('gets TLS 1.2 with ECDHE over secp256k1 and an ECDSA suite, with the node certificate unchecked', () => {
    expect(client.socket.getProtocol()).toBe('TLSv1.2');
    expect(client.socket.getEphemeralKeyInfo()).toMatchObject({ type: 'ECDH', name: 'secp256k1' });
    expect(client.socket.getCipher().name).toMatch(/^ECDHE-ECDSA-/);
  });

  it('reads the web3jService queries it sends with the group id as first param, node-level ones included (id 1, uuid v4 seqs)', async () => {
    expect(await client.query('getBlockNumber', [1])).toEqual({ jsonrpc: '2.0', id: 1, result: '0x' + h.group.blockNumber().toString(16) });
    const version = (await client.query('getClientVersion', [1])).result as Record<string, string>;
    expect(version['FISCO-BCOS Version']).toBe(h.node.clientVersion().productVersion);
    expect((await client.query('getGroupList', [1])).result).toEqual([1]);
    for (const method of ['getPeers', 'getNodeIDList', 'getGroupPeers', 'getSealerList', 'getObserverList', 'getPbftView', 'getConsensusStatus', 'getSyncStatus', 'getPendingTxSize', 'getTotalTransactionCount']) {
      const reply = await client.query(method, [1]);
      expect(reply.error, method).toBeUndefined();
      expect(reply.result, method).toBeDefined();
    }
    expect((await client.query('getSystemConfigByKey', [1, 'tx_count_limit'])).result).toBe('1000');
    // a JSON-RPC error also settles the promise (rejects with it): no hang
    expect((await client.query('getBlockByNumber', [1, '0x7fffff', false])).error).toBeDefined();
  });

  it('subscribes with 0x32 ["_block_notify_1"] and reads 0x1001 as "<group>,<height>" after the topic (it never handshakes: v1)', async () => {
    client.send(ChannelType.SUBSCRIBE_TOPICS, ['_block_notify_1']);
    await client.query('getBlockNumber', [1]); // the subscription is in once a later request is answered
    const number = await newBlock(node());
    const notify = await until(() => client.messages.find((x) => x.type === ChannelType.BLOCK_NOTIFY), 'block notify');
    expect(notify.body).toEqual([1, number]);
    expect(notify.seq).toBe('0'.repeat(32));
  });

  it('only ever gets frame types its parseResponse knows (anything else throws inside its data handler)', async () => {
    await client.query('getBlockNumber', [1]);
    expect(client.failures).toEqual([]);
    expect(new Set(client.messages.map((m) => m.type))).toEqual(new Set([ChannelType.RPC, ChannelType.BLOCK_NOTIFY]));
  });
});

describe('Python SDK (python-sdk client/channelhandler.py, channelpack.py, bcosclient.py)', () => {
  let client: PySdkClient;

  beforeAll(async () => {
    client = await PySdkClient.connect(server.port, sdkAuth());
  });
  afterAll(() => client?.socket.destroy());

  it('connects with PROTOCOL_TLSv1_2 + set_ecdh_curve("secp256k1") and verifies the node certificate against ca.crt', () => {
    expect(client.socket.authorized).toBe(true);
    expect(client.socket.getProtocol()).toBe('TLSv1.2');
    expect(client.socket.getEphemeralKeyInfo()).toMatchObject({ name: 'secp256k1' });
  });

  it('runs BcosClient.init without a handshake: getBlockNumber [groupid] with id 0, then 0x32 for _block_notify_<group>', async () => {
    const seq = client.sendPack(ChannelType.RPC, client.rpcBody('getBlockNumber', [1]));
    const pack = await client.waitPack(seq, ChannelType.RPC);
    expect(JSON.parse(pack.data.toString('utf8'))).toMatchObject({ id: 0 });
    const blockNumber = parseInt(PySdkClient.commonResult(pack) as string, 16);
    expect(blockNumber).toBe(h.group.blockNumber());
    client.sendPack(ChannelType.SUBSCRIBE_TOPICS, JSON.stringify(['_block_notify_1']));
    // getNodeVersion sends getClientVersion with params [] (not the group id)
    const version = (await client.request('getClientVersion', [])) as Record<string, string>;
    expect(version['Supported Version']).toBe(h.node.clientVersion().supportedVersion);
    expect(await client.request('getGroupList', [1])).toEqual([1]);
  });

  it('takes the whole 0x1001 data as text and reads int(data.split(",")[1]) as the block number, on seq 32 × "0"', async () => {
    const number = await newBlock(node());
    const pack = await client.waitPack('0'.repeat(32), ChannelType.BLOCK_NOTIFY);
    expect(pack.result).toBe(0);
    const data = pack.data.toString('utf8');
    expect(parseInt(data.split(',')[1]!, 10)).toBe(number);
    expect(data.split(',')).toHaveLength(2);
  });

  it('sends an empty 0x13 every 3 s while idle and stays connected; the v1 "0" heartbeat gets "1"', async () => {
    const empty = client.sendPack(ChannelType.HEARTBEAT, '');
    const beat = client.sendPack(ChannelType.HEARTBEAT, '0');
    expect((await client.waitPack(beat, ChannelType.HEARTBEAT)).data.toString()).toBe('1');
    // whatever comes back for the empty beat goes to the push dispatcher, which drops 0x13
    const anyEmptyReply = client.packs.find((p) => p.seq === empty);
    if (anyEmptyReply) expect(anyEmptyReply.result).toBe(0);
    expect(await client.request('getBlockNumber', [1])).toBe('0x' + h.group.blockNumber().toString(16));
  });

  it('gets a JSON-RPC error back as {"result": {"error": …}} and raises on it (no hang)', async () => {
    await expect(client.request('getTransactionReceipt', [1, '0xzz'])).rejects.toThrow(/is_error_response/);
  });
});

describe('Java SDK (java-sdk ChannelMsgHandler, ChannelImp, ConnectionManager)', () => {
  it('connects offering TLS 1.2–1.3 and gets TLS 1.2, the node verified against ca.crt', async () => {
    const c = await connectJavaSdk(server.port, sdkAuth());
    expect(c.socket.authorized).toBe(true);
    expect(c.socket.getProtocol()).toBe('TLSv1.2');
    c.socket.destroy();
  });

  it('queries getClientVersion [] first, handshakes v3 on "Supported Version" ≥ 2.1, then beats {"heartBeat":0} and reads an int heartBeat', async () => {
    const c = await connectJavaSdk(server.port, sdkAuth());
    // queryNodeVersion: ChannelRequest("getClientVersion", []) as Jackson writes it
    const versionReply = await c.request(ChannelType.RPC, javaSeq(), JSON.stringify({ jsonrpc: '2.0', method: 'getClientVersion', params: [], id: 1 }));
    expect(versionReply.result).toBe(0);
    const nodeVersion = JSON.parse(frameText(versionReply)) as { result: Record<string, string> };
    expect(javaHandshakeSupported(nodeVersion.result['Supported Version']!)).toBe(true);
    // queryChannelProtocolVersion: ChannelHandshake {maximumSupport, minimumSupport, clientType} in field order
    const handshake = await c.request(ChannelType.HANDSHAKE, javaSeq(), JAVA_HANDSHAKE);
    expect(handshake.result).toBe(0);
    const protocol = JSON.parse(frameText(handshake)) as { protocol: number; nodeVersion: string };
    expect([1, 2, 3]).toContain(protocol.protocol); // EnumChannelProtocolVersion.toEnum
    expect(protocol).toEqual({ protocol: 3, nodeVersion: h.node.clientVersion().supportedVersion });
    // sendHeartbeatMessage every 2 s: HeartBeatParser(v3).encode("0") → NodeHeartbeat JSON
    for (let i = 0; i < 3; i++) {
      const beat = await c.request(ChannelType.HEARTBEAT, javaSeq(), '{"heartBeat":0}');
      expect(beat.result).toBe(0);
      expect(Number.isInteger((JSON.parse(frameText(beat)) as { heartBeat: unknown }).heartBeat)).toBe(true);
    }
    c.socket.destroy();
  });

  it('after the handshake fetches the group list and block number, subscribes to _block_notify_1 and reads the v3 JSON notify after the topic', async () => {
    const c = await connectJavaSdkV3(server.port, sdkAuth());
    // Client.getGroupList(peer): params []; the strings are Integer.valueOf'd
    const groups = JSON.parse(frameText(await c.request(ChannelType.RPC, javaSeq(), '{"jsonrpc":"2.0","method":"getGroupList","params":[],"id":2}'))) as { result: unknown[] };
    expect(groups.result.map((g) => Number.parseInt(String(g), 10))).toEqual([1]);
    const height = JSON.parse(frameText(await c.request(ChannelType.RPC, javaSeq(), '{"jsonrpc":"2.0","method":"getBlockNumber","params":[1],"id":3}'))) as { result: string };
    expect(BigInt(height.result)).toBe(BigInt(h.group.blockNumber()));
    c.send(ChannelType.SUBSCRIBE_TOPICS, javaSeq(), JSON.stringify(['_block_notify_1']));
    await c.request(ChannelType.HEARTBEAT, javaSeq(), '{"heartBeat":0}');
    const number = await newBlock(node());
    const push = await c.next('0'.repeat(32));
    expect(push).toMatchObject({ type: ChannelType.BLOCK_NOTIFY, result: 0 });
    const { topic, content } = splitTopic(push.data);
    expect(topic).toBe('_block_notify_1');
    // BlockNumberNotification {blockNumber: String, @JsonProperty("groupID") groupId: String}
    const notification = JSON.parse(content) as { groupID: unknown; blockNumber: unknown };
    expect(String(notification.groupID)).toBe('1');
    expect(new Set(Object.keys(notification))).toEqual(new Set(['groupID', 'blockNumber']));
    expect(BigInt(String(notification.blockNumber))).toBe(BigInt(number));
    c.socket.destroy();
  });

  it('treats a non-zero header result as an error: a supported request never carries one', async () => {
    const c = await connectJavaSdk(server.port, sdkAuth());
    const reply = await c.request(ChannelType.RPC, javaSeq(), '{"jsonrpc":"2.0","method":"getPbftView","params":[1],"id":4}');
    expect(reply.result).toBe(0);
    c.socket.destroy();
  });
});
