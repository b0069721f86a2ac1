import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRpcService } from '../rpc/index.js';
import { DevNode } from '../rpc/testing/index.js';
import { ChannelType, encodeFrame, frameText, numericSeq } from './channel-frame.js';
import { HEARTBEAT_V2_REPLY } from './channel-session.js';
import { startChannelServer, type ChannelServer } from './channel-server.js';
import { RawClient, connect, makeCerts } from './channel-test-harness.test-helper.js';

const seq = (n: number) => numericSeq(n);

describe('channel server over TLS', () => {
  let dir: string;
  let certs: ReturnType<typeof makeCerts>;
  let server: ChannelServer;
  const logs: string[] = [];
  const writes: Buffer[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'twinchain-channel-'));
    certs = makeCerts(dir);
    const node = await DevNode.create({ now: () => Date.UTC(2026, 0, 2) });
    server = await startChannelServer({
      host: '127.0.0.1',
      port: 0,
      tls: { key: certs.node.key, cert: certs.node.cert, ca: certs.ca },
      service: createRpcService(node),
      supportedVersion: '2.9.0',
      log: (m) => logs.push(m),
      onWrite: (b) => writes.push(b),
    });
  }, 30_000);

  afterAll(async () => {
    await server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const sdk = async () => {
    const c = await connect(server.port, certs.sdk);
    if (c instanceof Error) throw c;
    return c;
  };

  it('answers getBlockNumber over 0x12 on the request seq', async () => {
    const c = await sdk();
    const reply = await c.request(ChannelType.RPC, 'b'.repeat(32), '{"jsonrpc":"2.0","method":"getBlockNumber","params":[1],"id":7}');
    expect(reply).toMatchObject({ type: 0x12, result: 0 });
    expect(JSON.parse(frameText(reply))).toEqual({ jsonrpc: '2.0', id: 7, result: '0x0' });
    c.socket.destroy();
  });

  it('handshakes v1/v2/v3 and answers heartbeats in the matching form', async () => {
    const c1 = await sdk();
    expect(frameText(await c1.request(ChannelType.HEARTBEAT, seq(1), '0'))).toBe('1');
    for (const max of [1, 2, 3]) {
      const c = await sdk();
      const reply = await c.request(ChannelType.HANDSHAKE, seq(10 + max), JSON.stringify({ minimumSupport: 1, maximumSupport: max, clientType: 'raw' }));
      expect(JSON.parse(frameText(reply))).toEqual({ protocol: max, nodeVersion: '2.9.0' });
      const beat = await c.request(ChannelType.HEARTBEAT, seq(20 + max), '');
      expect(frameText(beat)).toBe(max === 1 ? '1' : HEARTBEAT_V2_REPLY);
      c.socket.destroy();
    }
    const bad = await sdk();
    bad.send(ChannelType.HANDSHAKE, seq(30), '{"minimumSupport":4,"maximumSupport":9}');
    await bad.done;
    expect(bad.frames).toEqual([]);
    c1.socket.destroy();
  });

  it('gives an error reply for an unknown type and keeps the session', async () => {
    const c = await sdk();
    const reply = await c.request(0x4242, seq(40), 'what');
    expect(reply.type).toBe(0x4242);
    expect(reply.result).not.toBe(0);
    expect(frameText(await c.request(ChannelType.HEARTBEAT, seq(41), '0'))).toBe('1');
    c.socket.destroy();
  });

  it('cuts off a client sending a malformed frame while another keeps working', async () => {
    const good = await sdk();
    const bad = await sdk();
    const junk = Buffer.alloc(42);
    junk.writeUInt32BE(5, 0);
    bad.socket.write(junk);
    await bad.done;
    expect(logs.some((l) => l.includes('malformed frame'))).toBe(true);
    const reply = await good.request(ChannelType.RPC, seq(50), '{"jsonrpc":"2.0","method":"getBlockNumber","params":[1],"id":1}');
    expect(JSON.parse(frameText(reply)).result).toBe('0x0');
    good.socket.destroy();
  });

  it('writes one frame per socket write, even for many requests in one chunk', async () => {
    const c = await sdk();
    writes.length = 0;
    const n = 20;
    const burst = Buffer.concat(
      Array.from({ length: n }, (_, i) =>
        i % 2 === 0
          ? encodeFrame({ type: ChannelType.HEARTBEAT, seq: seq(100 + i), data: '0' })
          : encodeFrame({ type: ChannelType.RPC, seq: seq(100 + i), data: `{"jsonrpc":"2.0","method":"getBlockNumber","params":[1],"id":${i}}` }),
      ),
    );
    c.socket.write(burst);
    for (let i = 0; i < n; i++) await c.next(seq(100 + i));
    expect(writes.length).toBe(n);
    for (const w of writes) expect(w.readUInt32BE(0)).toBe(w.length);
    c.socket.destroy();
  });

  it('pushes to the sessions subscribed to a topic', async () => {
    const a = await sdk();
    const b = await sdk();
    a.send(ChannelType.SUBSCRIBE_TOPICS, seq(60), '["_block_notify_1"]');
    b.send(ChannelType.SUBSCRIBE_TOPICS, seq(61), '["other"]');
    // A round trip on each so the subscriptions are in.
    await a.request(ChannelType.HEARTBEAT, seq(62), '0');
    await b.request(ChannelType.HEARTBEAT, seq(63), '0');
    const pushSeq = '0'.repeat(32);
    const sent = server.broadcastTopic('_block_notify_1', (s) => ({
      type: ChannelType.BLOCK_NOTIFY,
      seq: pushSeq,
      result: 0,
      data: Buffer.from(s.protocolVersion >= 2 ? '{"groupID":1,"blockNumber":1}' : '1,1'),
    }));
    expect(sent).toBe(1);
    const push = await a.next(pushSeq);
    expect(push.type).toBe(0x1001);
    expect(frameText(push)).toBe('1,1');
    await b.request(ChannelType.HEARTBEAT, seq(64), '0');
    expect(b.frames).toEqual([]);
    a.socket.destroy();
    b.socket.destroy();
  });

  it('refuses a client with a certificate from another CA and one without a certificate', async () => {
    const before = logs.length;
    for (const auth of [certs.rogue, undefined]) {
      const c = await connect(server.port, auth);
      if (c instanceof RawClient) {
        // TLS 1.2: the client may see secureConnect before the server's verdict; it must get nothing.
        c.send(ChannelType.HEARTBEAT, seq(70), '0');
        await c.done;
        expect(c.frames).toEqual([]);
      }
    }
    await new Promise((r) => setTimeout(r, 100));
    const refused = logs.slice(before).filter((l) => l.includes('TLS handshake refused from 127.0.0.1:'));
    expect(refused.length).toBe(2);
    expect(refused.some((l) => l.includes('client certificate refused: UNABLE_TO_VERIFY_LEAF_SIGNATURE'))).toBe(true);
    expect(refused.some((l) => l.includes('peer did not return a certificate'))).toBe(true);
  });

  it('counts sessions, drops closed ones, and closes', async () => {
    const before = server.sessions;
    const c = await sdk();
    await c.request(ChannelType.HEARTBEAT, seq(80), '0');
    expect(server.sessions).toBe(before + 1);
    c.socket.destroy();
    await c.done;
    for (let i = 0; i < 50 && server.sessions > before; i++) await new Promise((r) => setTimeout(r, 10));
    expect(server.sessions).toBe(before);
    expect(server.allSessions().every((s) => !s.isClosed)).toBe(true);
  });
});
