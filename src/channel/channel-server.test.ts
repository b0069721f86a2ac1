import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect as tcpConnect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toHex } from '../codec/index.js';
import { rpcHarness } from '../rpc/rpc-harness.test-helper.js';
import { ChannelType, encodeFrame, frameText, numericSeq } from './channel-frame.js';
import { HEARTBEAT_V2_REPLY } from './channel-session.js';
import { FrameQueue, startChannelServer, type ChannelServer, type ChannelServerOptions } from './channel-server.js';
import { RawClient, connect, makeCerts } from './channel-test-harness.test-helper.js';

const seq = (n: number) => numericSeq(n);

describe('FrameQueue (a session\'s output)', () => {
  /** A socket whose writes complete only when the test says so. */
  const fakeSocket = () => {
    const pending: Array<{ bytes: Buffer; done: (error?: Error | null) => void }> = [];
    const socket = {
      destroyed: false,
      get writableLength() {
        return pending.reduce((sum, w) => sum + w.bytes.length, 0);
      },
      write(bytes: Buffer, done: (error?: Error | null) => void) {
        pending.push({ bytes, done });
        return true;
      },
      /** Completes the oldest write. */
      complete(error?: Error) {
        pending.shift()!.done(error);
      },
    };
    return { socket, pending };
  };
  const frame = (n: number) => Buffer.alloc(n, n);

  it('writes one frame at a time, the next from the previous write\'s callback, and counts queued bytes as unsent', () => {
    const { socket, pending } = fakeSocket();
    const seen: Buffer[] = [];
    const q = new FrameQueue(socket, (b) => seen.push(b));
    q.push(frame(10));
    q.push(frame(20));
    q.push(frame(30));
    expect(pending.map((w) => w.bytes.length)).toEqual([10]);
    expect(q.queued).toBe(2);
    expect(q.unsentBytes).toBe(60);
    socket.complete();
    expect(pending.map((w) => w.bytes.length)).toEqual([20]);
    expect(q.unsentBytes).toBe(50);
    socket.complete();
    socket.complete();
    expect(pending).toEqual([]);
    expect(q.unsentBytes).toBe(0);
    expect(seen.map((b) => b.length)).toEqual([10, 20, 30]);
    q.push(frame(5));
    expect(pending.map((w) => w.bytes.length)).toEqual([5]);
  });

  it('clear drops what waits; a destroyed socket or a failed write gets nothing more', () => {
    const { socket, pending } = fakeSocket();
    const q = new FrameQueue(socket);
    q.push(frame(1));
    q.push(frame(2));
    q.push(frame(3));
    q.clear();
    expect(q.queued).toBe(0);
    expect(q.unsentBytes).toBe(1);
    socket.complete();
    expect(pending).toEqual([]);
    q.push(frame(4));
    q.push(frame(5));
    socket.complete(new Error('EPIPE'));
    expect(pending).toEqual([]);
    expect(q.queued).toBe(1);
    socket.destroyed = true;
    q.push(frame(6));
    expect(pending).toEqual([]);
  });
});

describe('channel server over TLS', () => {
  let dir: string;
  let certs: ReturnType<typeof makeCerts>;
  let server: ChannelServer;
  let h: Awaited<ReturnType<typeof rpcHarness>>;
  const logs: string[] = [];
  const writes: Buffer[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'twinchain-channel-'));
    certs = makeCerts(dir);
    h = await rpcHarness();
    server = await startChannelServer({
      host: '127.0.0.1',
      port: 0,
      tls: { key: certs.node.key, cert: certs.node.cert, ca: certs.ca },
      service: h.service,
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

  /** Sends `n` heartbeats and getBlockNumber calls (seqs from `first`) in one chunk and waits for every reply. */
  const burst = async (c: RawClient, n: number, first: number) => {
    const requests = Array.from({ length: n }, (_, i) =>
      i % 2 === 0
        ? encodeFrame({ type: ChannelType.HEARTBEAT, seq: seq(first + i), data: '0' })
        : encodeFrame({ type: ChannelType.RPC, seq: seq(first + i), data: `{"jsonrpc":"2.0","method":"getBlockNumber","params":[1],"id":${i}}` }),
    );
    c.socket.write(Buffer.concat(requests));
    for (let i = 0; i < n; i++) await c.next(seq(first + i));
  };

  it('writes one frame per socket write, even for many requests in one chunk', async () => {
    const c = await sdk();
    writes.length = 0;
    await burst(c, 20, 100);
    expect(writes.length).toBe(20);
    for (const w of writes) expect(w.readUInt32BE(0)).toBe(w.length);
    c.socket.destroy();
  });

  it('sends one frame per TLS record: every client read of a burst of replies holds exactly one whole frame', async () => {
    const c = await sdk();
    const reads: Buffer[] = [];
    c.socket.on('data', (chunk: Buffer) => reads.push(chunk));
    const n = 200;
    await burst(c, n, 1000);
    expect(reads).toHaveLength(n);
    for (const r of reads) expect(r.length >= 42 && r.readUInt32BE(0) === r.length, `a read of ${r.length} bytes starting with length ${r.readUInt32BE(0)}`).toBe(true);
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

  const rpc = (method: string, params: unknown[]) => JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });
  /** Seals the pending transactions and tells the server, as the node host does on commit. */
  const commit = async () => {
    const block = await h.node.seal();
    server.blockCommitted(1, block!.block.header.number);
    return block!;
  };
  /** An empty topic (its length byte 0x01), then the JSON. */
  const eventRequest = (body: unknown) => `\x01${JSON.stringify(body)}`;

  it('answers node-level methods with the group id as first param (getClientVersion [1], getPeers [1])', async () => {
    const c = await sdk();
    const version = JSON.parse(frameText(await c.request(ChannelType.RPC, seq(200), rpc('getClientVersion', [1])))) as { result: Record<string, string> };
    expect(version.result['FISCO-BCOS Version']).toBe('2.11.0');
    const peers = JSON.parse(frameText(await c.request(ChannelType.RPC, seq(201), rpc('getPeers', [1])))) as { result: unknown };
    expect(peers.result).toEqual([]);
    c.socket.destroy();
  });

  it('pushes 0x1000 with the receipt on the sendRawTransaction seq when the block commits', async () => {
    const c = await sdk();
    const tx = h.deployTx();
    const txSeq = 'd'.repeat(32);
    const reply = await c.request(ChannelType.RPC, txSeq, rpc('sendRawTransaction', [1, toHex(tx.raw)]));
    expect(JSON.parse(frameText(reply)).result).toBe(toHex(tx.hash));
    await commit();
    const push = await c.next(txSeq);
    expect(push).toMatchObject({ type: 0x1000, result: 0 });
    expect(JSON.parse(frameText(push))).toEqual(await h.result('getTransactionReceipt', [1, toHex(tx.hash)]));
    c.socket.destroy();
  });

  it('registers an event-log filter (0x15), pushes history and live logs (0x1002), completes at toBlock', async () => {
    const c = await sdk();
    const deploy = h.deployTx();
    await h.send(deploy);
    await commit();
    const address = (await h.result<{ contractAddress: string }>('getTransactionReceipt', [1, toHex(deploy.hash)])).contractAddress;
    const setAt = (text: string) => h.callTx(Buffer.from(address.slice(2), 'hex'), h.abi('set(string)', [text]));
    const old = setAt('old');
    await h.send(old);
    const oldBlock = (await commit()).block.header.number;
    const toBlock = oldBlock + 1;
    const reg = await c.request(0x15, seq(300), eventRequest({ fromBlock: String(oldBlock), toBlock: String(toBlock), addresses: [address], topics: [], groupID: '1', filterID: 'tls-1' }));
    expect(reg).toMatchObject({ type: 0x15, result: 0 });
    expect(Buffer.from(reg.data).toString('latin1')).toBe('\x01{"result":0}\n');
    const zero = '0'.repeat(32);
    const historic = JSON.parse(frameText(await c.next(zero))) as { filterID: string; result: number; logs: Array<{ transactionHash: string; blockNumber: string }> };
    expect(historic).toMatchObject({ filterID: 'tls-1', result: 0 });
    expect(historic.logs.map((l) => [l.transactionHash, l.blockNumber])).toEqual([[toHex(old.hash), String(oldBlock)]]);
    const live = setAt('live');
    await h.send(live);
    await commit();
    const pushed = JSON.parse(frameText(await c.next(zero))) as { logs: Array<{ transactionHash: string }> };
    expect(pushed.logs.map((l) => l.transactionHash)).toEqual([toHex(live.hash)]);
    expect(frameText(await c.next(zero))).toBe('{"filterID":"tls-1","logs":null,"result":1}\n');
    c.socket.destroy();
  });

  it('unregisters a filter with 0x16: no more pushes', async () => {
    const c = await sdk();
    const body = { fromBlock: 'latest', toBlock: 'latest', addresses: [], topics: [], groupID: '1', filterID: 'tls-2' };
    await c.request(0x15, seq(310), eventRequest(body));
    const zero = '0'.repeat(32);
    await c.next(zero); // the head block's logs ("latest" starts there)
    const un = await c.request(0x16, seq(311), eventRequest(body));
    expect(frameText(un)).toBe('\x01{"result":0}\n');
    expect(server.pushes?.filterCount).toBe(0);
    const tx = h.deployTx();
    await h.send(tx);
    await commit();
    await c.request(ChannelType.HEARTBEAT, seq(312), '0');
    await new Promise((r) => setTimeout(r, 50));
    expect(c.frames.filter((f) => f.type === 0x1002)).toEqual([]);
    const again = await c.request(0x16, seq(313), eventRequest(body));
    expect(frameText(again)).toBe('\x01{"result":-41007}\n');
    c.socket.destroy();
  });

  it('answers a malformed registration with -41001 and logs it', async () => {
    const c = await sdk();
    const reply = await c.request(0x15, seq(320), eventRequest({ groupID: '1' }));
    expect(frameText(reply)).toBe('\x01{"result":-41001}\n');
    expect(logs.some((l) => l.includes('bad event log register request') && l.includes('get filterID failed'))).toBe(true);
    expect(frameText(await c.request(ChannelType.HEARTBEAT, seq(321), '0'))).toBe('1');
    c.socket.destroy();
  });

  describe('with other server options', () => {
    let direct: { key: string; cert: string };
    const extra: ChannelServer[] = [];
    const start = async (more: Partial<ChannelServerOptions>, sink: string[]) => {
      const s = await startChannelServer({
        port: 0,
        tls: { key: certs.node.key, cert: certs.node.cert, ca: certs.ca },
        service: h.service,
        supportedVersion: '2.9.0',
        log: (m) => sink.push(m),
        ...more,
      });
      extra.push(s);
      return s;
    };

    beforeAll(() => {
      // An SDK certificate chained to the same CA but issued by the CA itself, not the node's agency.
      const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
      ssl('ecparam', '-name', 'secp256k1', '-genkey', '-noout', '-out', 'direct.key');
      ssl('req', '-new', '-key', 'direct.key', '-subj', '/CN=direct', '-out', 'direct.csr');
      ssl('x509', '-req', '-in', 'direct.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-days', '30', '-extfile', 'v3_leaf.ext', '-out', 'direct.crt');
      direct = { key: readFileSync(path.join(dir, 'direct.key'), 'utf8'), cert: readFileSync(path.join(dir, 'direct.crt'), 'utf8') };
    });
    afterAll(async () => {
      for (const s of extra) await s.close();
    });

    it('check_cert_issuer (default true) refuses an SDK certificate from another issuer; false lets it in', async () => {
      const strictLogs: string[] = [];
      const strict = await start({}, strictLogs);
      const c = await connect(strict.port, direct);
      if (c instanceof RawClient) {
        c.send(ChannelType.HEARTBEAT, seq(400), '0');
        await c.done;
        expect(c.frames).toEqual([]);
      }
      expect(strictLogs.some((l) => l.includes('certificate issuer') && l.includes('CN=ca') && l.includes('CN=agency') && l.includes('check_cert_issuer'))).toBe(true);
      // the agency's own SDK certificate still works
      const ok = await connect(strict.port, certs.sdk);
      if (!(ok instanceof RawClient)) throw ok;
      expect(frameText(await ok.request(ChannelType.HEARTBEAT, seq(401), '0'))).toBe('1');
      ok.socket.destroy();

      const lax = await start({ checkCertIssuer: false }, []);
      const d = await connect(lax.port, direct);
      if (!(d instanceof RawClient)) throw d;
      expect(frameText(await d.request(ChannelType.HEARTBEAT, seq(402), '0'))).toBe('1');
      d.socket.destroy();
    });

    it('silent connections are cut at the handshake deadline, and past maxPendingHandshakes the oldest silent one makes room for an SDK', async () => {
      const sink: string[] = [];
      const guarded = await start({ handshakeTimeoutMs: 500, maxPendingHandshakes: 10 }, sink);
      let stopped = false;
      let closed = 0;
      const held = new Set<ReturnType<typeof tcpConnect>>();
      const hold = () => {
        if (stopped) return;
        const socket = tcpConnect(guarded.port, '127.0.0.1');
        held.add(socket);
        socket.on('error', () => undefined);
        socket.on('close', () => {
          held.delete(socket);
          closed++;
          setImmediate(hold);
        });
      };
      for (let i = 0; i < 30; i++) hold();
      try {
        // 30 held past a bound of 10: the server closes the oldest silent ones as the rest arrive
        for (const deadline = Date.now() + 5_000; closed < 20 && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 20));
        expect(closed).toBeGreaterThanOrEqual(20);
        const started = Date.now();
        const c = await connect(guarded.port, certs.sdk);
        if (!(c instanceof RawClient)) throw c;
        expect(frameText(await c.request(ChannelType.HEARTBEAT, seq(420), '0'))).toBe('1');
        expect(Date.now() - started).toBeLessThan(1_000);
        c.socket.destroy();
        expect(sink.filter((l) => l.startsWith('channel: too many connections in their TLS handshake'))).toHaveLength(1);
      } finally {
        stopped = true;
        for (const socket of held) socket.destroy();
      }
      // alone, a silent connection lasts until the deadline
      const lone = await new Promise<number>((resolve) => {
        const t0 = Date.now();
        const socket = tcpConnect(guarded.port, '127.0.0.1');
        socket.on('error', () => undefined);
        socket.on('close', () => resolve(Date.now() - t0));
      });
      expect(lone).toBeGreaterThanOrEqual(400);
      expect(lone).toBeLessThan(2_000);
    });

    it('closes a session whose unsent output passes maxBufferedBytes, with a log line', async () => {
      const sink: string[] = [];
      const small = await start({ maxBufferedBytes: 256 * 1024 }, sink);
      const c = await connect(small.port, certs.sdk);
      if (!(c instanceof RawClient)) throw c;
      c.send(ChannelType.SUBSCRIBE_TOPICS, seq(410), '["big"]');
      await c.request(ChannelType.HEARTBEAT, seq(411), '0');
      c.socket.pause(); // the client stops reading
      const big = Buffer.alloc(1024 * 1024, 7);
      let sent = 0;
      for (let i = 0; i < 64 && small.sessions > 0; i++) {
        sent += small.broadcastTopic('big', () => ({ type: ChannelType.BLOCK_NOTIFY, seq: '0'.repeat(32), result: 0, data: big }));
        await new Promise((r) => setImmediate(r));
      }
      expect(small.sessions).toBe(0);
      expect(sent).toBeLessThan(64);
      expect(sink.some((l) => l.includes('bytes wait to be sent, more than 262144'))).toBe(true);
      c.socket.destroy();
    });
  });
});
