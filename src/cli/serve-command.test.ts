import { randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { afterEach, describe, expect, it } from 'vitest';
import { ChannelType, frameText, numericSeq } from '../channel/index.js';
import { connect, makeCerts, RawClient } from '../channel/channel-test-harness.test-helper.js';
import { TransactionBuilder } from '../chain/index.js';
import { toHex } from '../codec/index.js';
import { getSuite } from '../crypto/index.js';
import { captureIo } from './capture-io.test-helper.js';
import { main } from './main.js';
import { startServe } from './serve-harness.test-helper.js';
import { rpc } from './http-rpc.test-helper.js';

const BIN = new URL('../../bin/twinchain.js', import.meta.url).pathname;

// the in-process dev server's conformance and crash tests: dev-server-conformance.test.ts
describe('the dev server (twinchain serve)', () => {
  it('refuses bad options with exit status 2 and a message naming the option', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['serve', '--nodes', '0'], /--nodes must be an integer from 1 to 64 \(got "0"\)/],
      [['serve', '--consensus', 'poa'], /--consensus must be one of pbft, raft \(got "poa"\)/],
      [['serve', '--rpc-port', '65535', '--nodes', '4'], /--rpc-port 65535 leaves no room for 4 nodes/],
      [['serve', '--supported-version', '3.0.0'], /--supported-version: .*3\.0\.0/],
      [['serve', 'extra'], /unexpected argument "extra"/],
      [['serve', '--channel-port', '65534', '--nodes', '4'], /--channel-port 65534 leaves no room for 4 nodes/],
      [['serve', '--channel-port', 'x'], /--channel-port must be an integer from 0 to 65535 \(got "x"\)/],
      [['serve', '--no-channel', '--cert-dir', 'certs'], /--no-channel cannot be combined with --cert-dir/],
    ];
    for (const [args, message] of cases) {
      const io = captureIo();
      expect(await main(args, io), args.join(' ')).toBe(2);
      expect(io.stderr).toMatch(message);
    }
  });

  it('runs as a process: endpoints and a ready line, `twinchain conform` passes against it, Ctrl-C (SIGINT) stops it cleanly', async () => {
    const child = spawn(process.execPath, [BIN, 'serve', '--nodes', '3', '--consensus', 'raft', '--supported-version', '2.0.0-rc1', '--rpc-port', '0', '--channel-port', '0', '--quiet'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const ready = new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => {
        stdout += d.toString();
        if (/^ready: /m.test(stdout)) resolve();
      });
      child.once('exit', (code) => reject(new Error(`serve exited with ${code} before ready: ${stderr}`)));
    });
    await ready;
    const urls = [...stdout.matchAll(/^node\d+\s+JSON-RPC\s+(\S+)$/gm)].map((m) => m[1]!);
    expect(urls).toHaveLength(3);
    expect([...stdout.matchAll(/^node\d+\s+channel\s+127\.0\.0\.1:(\d+)$/gm)]).toHaveLength(3);
    // without --cert-dir the certificates live in a temporary folder that is gone after the stop
    const sdkDir = /^SDK certificates: (\S+) \(a temporary folder, removed when serve stops\)$/m.exec(stdout)?.[1];
    expect(sdkDir && existsSync(path.join(sdkDir, 'sdk.key'))).toBe(true);
    expect(stdout).toMatch(/ready: 3 RAFT sealers in group 1, supported_version 2\.0\.0-rc1, ecdsa, seed twinchain-serve; Ctrl-C stops/);
    // the earlier variant's client version has no "Supported Version" key; its FISCO-BCOS Version is the rc
    expect(await rpc(urls[1]!, 'getClientVersion', [])).toMatchObject({ result: { 'FISCO-BCOS Version': '2.0.0-rc1' } });
    const conform = captureIo();
    expect(await main(['conform', urls[2]!], conform)).toBe(0);
    expect(conform.stdout).toMatch(/earlier interface variant \(detected\); RAFT/);
    expect(conform.stdout).toMatch(/\d+ checks: \d+ passed, 0 failed/);
    const exited = once(child, 'exit');
    child.kill('SIGINT');
    const [code] = (await exited) as [number | null];
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toMatch(/stopped\n$/);
    await expect(fetch(urls[0]!, { method: 'POST', body: '{}' })).rejects.toThrow();
    expect(existsSync(path.dirname(sdkDir!))).toBe(false);
  });
});

describe('serve: each node\'s FISCO channel port', () => {
  const dirs: string[] = [];
  const clients: RawClient[] = [];
  let running: { stop(): Promise<number> } | undefined;
  afterEach(async () => {
    for (const c of clients.splice(0)) c.socket.destroy();
    await running?.stop();
    running = undefined;
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  const tempDir = (name: string) => {
    const d = mkdtempSync(path.join(tmpdir(), `twinchain-serve-test-${name}-`));
    dirs.push(d);
    return d;
  };

  it("takes SDK clients with the printed sdk/ certificates: getBlockNumber over 0x12, a transaction's 0x1000 receipt, a block notify per commit on each node, another CA refused", async () => {
    const certDir = path.join(tempDir('certs'), 'certs');
    const s = await startServe(['--nodes', '2', '--rpc-port', '0', '--channel-port', '0', '--cert-dir', certDir, '--seed', 'serve-channel']);
    running = s;
    expect(s.channels).toHaveLength(2);
    expect(s.sdkDir).toBe(path.join(certDir, 'sdk'));
    expect(s.io.stdout).toMatch(/^node0 {2}JSON-RPC {2}http:\/\/127\.0\.0\.1:\d+\/\nnode0 {2}channel {3}127\.0\.0\.1:\d+\nnode1 {2}JSON-RPC/m);
    const read = (f: string) => readFileSync(path.join(s.sdkDir!, f), 'utf8');
    const sdk = { key: read('sdk.key'), cert: read('sdk.crt') };

    // the node's certificate chains to the printed ca.crt (what an SDK checks)
    const verified = await new Promise<boolean>((resolve, reject) => {
      const socket = tls.connect({ host: '127.0.0.1', port: s.channels[0]!, ...sdk, ca: read('ca.crt'), checkServerIdentity: () => undefined, ecdhCurve: 'secp256k1', maxVersion: 'TLSv1.2' });
      socket.once('secureConnect', () => (resolve(socket.authorized), socket.destroy()));
      socket.once('error', reject);
    });
    expect(verified).toBe(true);

    const open = async (port: number) => {
      const c = await connect(port, sdk);
      if (c instanceof Error) throw c;
      clients.push(c);
      return c;
    };
    const [c0, c1] = [await open(s.channels[0]!), await open(s.channels[1]!)];
    const seq = 'a'.repeat(32);
    const reply = await c0.request(ChannelType.RPC, seq, '{"jsonrpc":"2.0","method":"getBlockNumber","params":[1],"id":9}');
    expect(reply).toMatchObject({ type: 0x12, seq, result: 0 });
    expect(JSON.parse(frameText(reply))).toEqual({ jsonrpc: '2.0', id: 9, result: '0x0' });

    // a client certificate from another CA gets no session
    const rogue = makeCerts(tempDir('rogue')).rogue;
    const refused = await connect(s.channels[0]!, rogue);
    if (refused instanceof RawClient) {
      // TLS 1.2: the client may see secureConnect before the server's verdict; it must get nothing
      refused.send(ChannelType.HEARTBEAT, numericSeq(1), '0');
      await refused.done;
      expect(refused.frames).toEqual([]);
    }

    // both nodes' channels push the block a transaction sent to node1's JSON-RPC lands in
    for (const [i, c] of [c0, c1].entries()) {
      c.send(ChannelType.SUBSCRIBE_TOPICS, numericSeq(10 + i), '["_block_notify_1"]');
      await c.request(ChannelType.HEARTBEAT, numericSeq(20 + i), '0'); // a round trip: the subscription is in
    }
    const suite = getSuite('ecdsa');
    const builder = new TransactionBuilder({ suite, generation: 'rc2', key: suite.generateKeyPair((n) => new Uint8Array(randomBytes(n))), random: (n) => new Uint8Array(randomBytes(n)) });
    const tx = builder.build({ blockLimit: 500n });
    const sent = await (await fetch(s.urls[1]!, { method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'sendRawTransaction', params: [1, toHex(tx.raw)] }) })).json();
    expect(sent).toMatchObject({ result: toHex(tx.hash) });
    // a transaction sent over node0's channel gets its receipt pushed (0x1000) on the request's seq
    const tx2 = builder.build({ blockLimit: 500n });
    const txSeq = 'c'.repeat(32);
    const accepted = await c0.request(ChannelType.RPC, txSeq, JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'sendRawTransaction', params: [1, toHex(tx2.raw)] }));
    expect(JSON.parse(frameText(accepted))).toMatchObject({ result: toHex(tx2.hash) });
    const receipt = await c0.next(txSeq, 10_000);
    expect(receipt.type).toBe(0x1000);
    expect(JSON.parse(frameText(receipt))).toMatchObject({ transactionHash: toHex(tx2.hash), status: '0x0' });
    for (const c of [c0, c1]) {
      const push = await c.next('0'.repeat(32), 10_000);
      expect(push.type).toBe(0x1001);
      // topic data: one byte (topic length + 1), the topic, then "<group>,<number>" (protocol v1)
      const data = Buffer.from(push.data);
      expect(data.subarray(1, data[0]!).toString()).toBe('_block_notify_1');
      expect(data.subarray(data[0]!).toString()).toBe('1,1');
    }
  }, 30_000);

  it('reuses the certificates of an earlier run in --cert-dir, and names --channel-port when the port is taken', async () => {
    const certDir = path.join(tempDir('reuse'), 'certs');
    const first = await startServe(['--nodes', '1', '--rpc-port', '0', '--channel-port', '0', '--cert-dir', certDir, '--quiet']);
    running = first;
    const ca = readFileSync(path.join(certDir, 'sdk', 'ca.crt'), 'utf8');
    // node0's channel port is taken: a second serve on it fails with one line naming the option
    const taken = first.channels[0]!;
    const io = captureIo();
    expect(await main(['serve', '--nodes', '1', '--rpc-port', '0', '--channel-port', String(taken), '--cert-dir', certDir], io)).toBe(2);
    expect(io.stderr).toBe(`twinchain serve: 127.0.0.1:${taken} (node0's channel port) is already in use; pick another --channel-port\n`);
    expect(await first.stop()).toBe(0);
    running = undefined;
    // the folder stays, and a later run with more nodes keeps its CA and adds node1's certificate
    const again = await startServe(['--nodes', '2', '--rpc-port', '0', '--channel-port', '0', '--cert-dir', certDir, '--quiet']);
    running = again;
    expect(readFileSync(path.join(certDir, 'sdk', 'ca.crt'), 'utf8')).toBe(ca);
    expect(readFileSync(path.join(certDir, 'node1', 'conf', 'ca.crt'), 'utf8')).toBe(ca);
    const c = await connect(again.channels[1]!, { key: readFileSync(path.join(certDir, 'sdk', 'sdk.key'), 'utf8'), cert: readFileSync(path.join(certDir, 'sdk', 'sdk.crt'), 'utf8') });
    if (c instanceof Error) throw c;
    clients.push(c);
    expect(frameText(await c.request(ChannelType.HEARTBEAT, numericSeq(1), '0'))).toBe('1');
  }, 30_000);

  it('says so in one line when openssl is missing', async () => {
    const child = spawn(process.execPath, [BIN, 'serve', '--nodes', '1', '--rpc-port', '0', '--channel-port', '0'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, PATH: tempDir('nopath') },
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(stderr).toBe('twinchain serve: openssl not found on PATH: serve makes its channel certificates with the system openssl (3.0 or newer); install it, or pass --no-channel\n');
    expect(code).toBe(1);
  }, 20_000);
});
