import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toHex } from '../codec/index.js';
import { rpcHarness } from '../rpc/rpc-harness.test-helper.js';
import { ChannelClient, ChannelClientError, newSeq } from './channel-client.js';
import { ChannelType } from './channel-frame.js';
import { startChannelServer, type ChannelServer } from './channel-server.js';
import { makeCerts } from './channel-test-harness.test-helper.js';

describe('ChannelClient against the channel server', () => {
  let dir: string;
  let certs: ReturnType<typeof makeCerts>;
  let server: ChannelServer;
  let h: Awaited<ReturnType<typeof rpcHarness>>;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'twinchain-channel-client-'));
    certs = makeCerts(dir);
    h = await rpcHarness();
    server = await startChannelServer({ host: '127.0.0.1', port: 0, tls: { key: certs.node.key, cert: certs.node.cert, ca: certs.ca }, service: h.service, supportedVersion: '2.9.0' });
  }, 30_000);

  afterAll(async () => {
    await server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const open = (auth: { key: string; cert: string } = certs.sdk, ca = certs.ca, port = server.port, timeoutMs = 5000) =>
    ChannelClient.connect({ host: '127.0.0.1', port, tls: { ca, ...auth }, timeoutMs, heartbeatMs: 0 });

  const failure = async (attempt: Promise<unknown>) => {
    const error = await attempt.then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(ChannelClientError);
    return error as ChannelClientError;
  };

  it('makes 32-character hex seqs', () => {
    expect(newSeq()).toMatch(/^[0-9a-f]{32}$/);
    expect(newSeq()).not.toBe(newSeq());
  });

  it('shakes hands at v3 and calls JSON-RPC; node errors carry their code', async () => {
    const client = await open();
    expect(client.protocolVersion).toBe(3);
    expect(client.nodeVersion).toBe('2.9.0');
    expect(await client.call('getBlockNumber', [1])).toBe(await h.result('getBlockNumber', [1]));
    const error = await failure(client.call('getBlockByNumber', [1, '0x99', false]));
    expect(error.kind).toBe('rpc');
    expect(error.code).toBe(-40004);
    expect(error.message).toMatch(/^getBlockByNumber: .* \(code -40004\)$/);
    client.close();
    expect(client.isOpen).toBe(false);
    expect((await failure(client.call('getBlockNumber', [1]))).kind).toBe('closed');
  });

  it('gets the hash, then the receipt pushed on the same seq, and block notifies through onPush', async () => {
    const client = await open();
    const notified: string[] = [];
    client.onPush(ChannelType.BLOCK_NOTIFY, (frame) => notified.push(Buffer.from(frame.data).subarray(1).toString()));
    client.subscribe(['_block_notify_1']);
    const tx = h.deployTx();
    const sent = await client.sendRawTransaction(1, toHex(tx.raw));
    expect(sent.hash).toBe(toHex(tx.hash));
    const block = await h.node.seal();
    server.blockCommitted(1, block!.block.header.number);
    const receipt = await sent.receipt;
    expect(receipt).toEqual(await h.result('getTransactionReceipt', [1, toHex(tx.hash)]));
    expect(notified).toEqual([`_block_notify_1{"groupID":1,"blockNumber":${block!.block.header.number}}`]);
    client.close();
  });

  it('says why it could not connect: refused port, refused certificate, wrong CA, not TLS, no answer', async () => {
    const closed = net.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const freePort = (closed.address() as net.AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const refused = await failure(open(certs.sdk, certs.ca, freePort));
    expect(refused.kind).toBe('connect');
    expect(refused.message).toBe(`cannot connect to 127.0.0.1:${freePort}: connection refused (is the node running, and is this its channel port?)`);

    const rogue = await failure(open(certs.rogue));
    expect(rogue.kind).toBe('tls');
    expect(rogue.message).toMatch(/the node refused this client certificate/);

    const wrongCa = await failure(open(certs.sdk, certs.rogue.cert));
    expect(wrongCa.message).toMatch(/the node's certificate does not chain to the configured CA certificate/);

    // a plain TCP server that never answers: the handshake times out
    const silent = net.createServer(() => undefined);
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const silentPort = (silent.address() as net.AddressInfo).port;
    const timeout = await failure(open(certs.sdk, certs.ca, silentPort, 300));
    expect(timeout.kind).toBe('timeout');
    expect(timeout.message).toBe(`no TLS handshake with 127.0.0.1:${silentPort} within 300 ms`);
    silent.close();

    // an HTTP server where the channel port should be
    const http = net.createServer((s) => s.end('HTTP/1.1 400 Bad Request\r\n\r\n'));
    await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
    const notTls = await failure(open(certs.sdk, certs.ca, (http.address() as net.AddressInfo).port));
    expect(notTls.message).toMatch(/does not speak TLS 1.2/);
    http.close();
  });
});
