import { readFileSync } from 'node:fs';
import { connect as tlsConnect } from 'node:tls';
import { ChannelType, FrameDecoder, encodeFrame, frameText, type ChannelFrame } from '../../src/channel/index.js';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChainClient } from './chain-client.js';
import {
  blockNumber,
  chainNodes,
  freePortBlock,
  nodeLog,
  pidOf,
  rpc,
  runningPids,
  sh,
  tempChainDir,
  twinchain,
  waitFor,
  type ChainNode,
  said,
} from './real-chain.js';
import { blockHashes } from './chain-checks.js';

// One chain for the whole file: build, start, transactions, the channel port, the console,
// conformance, stop and restart. Steps run in order and share the chain.
describe.sequential('a real 4-node PBFT chain (build-chain, start_all.sh, stop_all.sh)', () => {
  let tmp: Awaited<ReturnType<typeof tempChainDir>>;
  let out: string;
  let ipDir: string;
  let nodes: ChainNode[];
  const client = new ChainClient();
  let contract: string;

  beforeAll(async () => {
    tmp = await tempChainDir('pbft');
    out = path.join(tmp.dir, 'nodes');
    ipDir = path.join(out, '127.0.0.1');
    const base = await freePortBlock(12);
    const built = await twinchain(['build-chain', '-l', '127.0.0.1:4', '-p', `${base},${base + 4},${base + 8}`, '-o', out]);
    expect(built.stderr).toBe('');
    expect(built.code, said(built)).toBe(0);
    expect(built.stdout).toContain(`[INFO] All completed. Files in ${out}`);
    nodes = chainNodes(out);
    expect(nodes.map((n) => n.rpcUrl)).toEqual([0, 1, 2, 3].map((i) => `http://127.0.0.1:${base + 8 + i}/`));
  }, 60_000);

  afterAll(() => tmp?.dispose());

  it('start_all.sh starts every node, and each is connected to the other three', async () => {
    const started = await sh('bash', [path.join(ipDir, 'start_all.sh')], { timeoutMs: 120_000, cwd: tmp.dir });
    for (const i of [0, 1, 2, 3]) expect(started.stdout).toContain(` node${i} start successfully`);
    expect(started.code, said(started)).toBe(0);
    expect(nodes.every((n) => pidOf(n) !== undefined)).toBe(true);
    // (the log's heartbeat line comes every 10 s: checked further down, once that much has passed)
    await waitFor('three peers of every node', async () => (await Promise.all(nodes.map((n) => rpc<unknown[]>(n.rpcUrl, 'getPeers', [1])))).every((p) => p.length === 3), 30_000, 100);
    for (const n of nodes) expect(readFileSync(path.join(n.dir, 'nohup.out'), 'utf8')).toMatch(/The Twinchain node is running\.\.\./);
  }, 150_000);

  it('commits transactions sent to different nodes; all four report the same heights and block hashes, and log sealer lines', async () => {
    contract = await client.deploy(nodes[1]!.rpcUrl);
    const limit = (await blockNumber(nodes[0]!.rpcUrl)) + 500;
    const hashes = await Promise.all(nodes.map((n, i) => client.send(n.rpcUrl, client.signedSet(contract, `hello from a client of ${n.name} #${i}`, limit))));
    const receipts = await Promise.all(hashes.map((h, i) => client.receipt(nodes[(i + 1) % 4]!.rpcUrl, h)));
    expect(receipts.map((r) => r.status)).toEqual(['0x0', '0x0', '0x0', '0x0']);
    const top = Math.max(...receipts.map((r) => Number(r.blockNumber)));
    await waitFor(`every node at height ≥ ${top}`, async () => (await Promise.all(nodes.map((n) => blockNumber(n.rpcUrl)))).every((h) => h >= top), 20_000);
    // build-chain's groups keep FISCO's storage state: stateRoot = dbHash, per block
    const header = await rpc<{ stateRoot: string; dbHash: string }>(nodes[0]!.rpcUrl, 'getBlockByNumber', [1, '0x1', false]);
    expect(header.dbHash).toBe(header.stateRoot);
    expect(header.dbHash).not.toBe(`0x${'0'.repeat(64)}`);
    const reference = await blockHashes(nodes[0]!, top);
    for (const n of nodes.slice(1)) expect(await blockHashes(n, top)).toEqual(reference);
    const logs = nodes.map(nodeLog).join('\n');
    expect(logs).toMatch(/\[CONSENSUS\]\[SEALER\]\+{16} Generating seal on,blkNum=\d+,tx=\d+/);
    for (const n of nodes) expect(nodeLog(n)).toMatch(/\[CONSENSUS\]\[PBFT\]\^{8}Report,num=\d+/);
  }, 60_000);

  it('the channel port: an SDK-certified TLS client shakes hands, calls JSON-RPC, gets a block notify per new block and its transaction\'s receipt (0x1000)', async () => {
    const sdk = path.join(ipDir, 'sdk');
    const port = Number(/channel_listen_port=(\d+)/.exec(readFileSync(path.join(nodes[0]!.dir, 'config.ini'), 'utf8'))![1]);
    const frames: ChannelFrame[] = [];
    const decoder = new FrameDecoder();
    const socket = tlsConnect({
      host: '127.0.0.1',
      port,
      key: readFileSync(path.join(sdk, 'sdk.key')),
      cert: readFileSync(path.join(sdk, 'sdk.crt')),
      ca: readFileSync(path.join(sdk, 'ca.crt')),
      ecdhCurve: 'secp256k1',
      minVersion: 'TLSv1.2',
      maxVersion: 'TLSv1.2',
      checkServerIdentity: () => undefined,
    });
    socket.on('data', (chunk: Buffer) => frames.push(...decoder.push(chunk)));
    socket.on('error', () => undefined);
    try {
      await new Promise<void>((resolve, reject) => {
        socket.once('secureConnect', () => resolve());
        socket.once('error', reject);
      });
      const seq = (n: number) => String(n).padStart(32, '0');
      const reply = (s: string, type: number) => waitFor(`a 0x${type.toString(16)} frame on seq ${s}`, () => frames.find((f) => f.seq === s && f.type === type), 10_000, 50);
      socket.write(encodeFrame({ type: ChannelType.HANDSHAKE, seq: seq(1), data: JSON.stringify({ minimumSupport: 1, maximumSupport: 3, clientType: 'twinchain-test' }) }));
      expect(JSON.parse(frameText(await reply(seq(1), ChannelType.HANDSHAKE)))).toMatchObject({ protocol: 3, nodeVersion: '2.11.0' });
      socket.write(encodeFrame({ type: ChannelType.RPC, seq: seq(2), data: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'getBlockNumber', params: [1] }) }));
      const height = Number((JSON.parse(frameText(await reply(seq(2), ChannelType.RPC))) as { result: string }).result);
      expect(height).toBe(await blockNumber(nodes[0]!.rpcUrl));
      socket.write(encodeFrame({ type: ChannelType.SUBSCRIBE_TOPICS, seq: seq(3), data: JSON.stringify(['_block_notify_1']) }));
      await new Promise((r) => setTimeout(r, 200));
      const hash = await client.send(nodes[2]!.rpcUrl, client.signedSet(contract, 'over the channel', height + 500));
      const receipt = await client.receipt(nodes[0]!.rpcUrl, hash);
      const notify = await waitFor('a block notify', () => frames.find((f) => f.type === ChannelType.BLOCK_NOTIFY), 10_000, 50);
      expect(notify.seq).toBe('0'.repeat(32));
      const topic = '_block_notify_1';
      expect(notify.data[0]).toBe(topic.length + 1);
      expect(Buffer.from(notify.data.subarray(1, 1 + topic.length)).toString()).toBe(topic);
      expect(JSON.parse(Buffer.from(notify.data.subarray(1 + topic.length)).toString())).toEqual({ groupID: 1, blockNumber: Number(receipt.blockNumber) });
      // sendRawTransaction over the channel: the hash on seq 4, then the receipt (0x1000) on seq 4 when it commits
      const raw = client.signedSet(contract, 'receipt over the channel', height + 500);
      socket.write(encodeFrame({ type: ChannelType.RPC, seq: seq(4), data: JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'sendRawTransaction', params: [1, raw] }) }));
      const sent = (JSON.parse(frameText(await reply(seq(4), ChannelType.RPC))) as { result: string }).result;
      const pushed = JSON.parse(frameText(await reply(seq(4), ChannelType.TX_RECEIPT_NOTIFY))) as Record<string, unknown>;
      expect(pushed).toEqual(await client.receipt(nodes[0]!.rpcUrl, sent));
      expect(pushed).toMatchObject({ transactionHash: sent, status: '0x0' });
    } finally {
      socket.destroy();
    }
  }, 60_000);

  it('twinchain console from node0\'s sdk/: deploy HelloWorld, get leaves the height, set raises it by one, get reads it; the same on stdin', async () => {
    const dir = path.join(tmp.dir, 'console');
    const init = await twinchain(['console', 'init', dir, '--sdk', path.join(ipDir, 'sdk')]);
    expect(init.stderr).toBe('');
    expect(init.stdout).toContain(`peers ${nodes.map((n) => `127.0.0.1:${/channel_listen_port=(\d+)/.exec(readFileSync(path.join(n.dir, 'config.ini'), 'utf8'))![1]}`).join(', ')} (from the nodes beside`);
    const height = () => blockNumber(nodes[0]!.rpcUrl);

    const deployed = await twinchain(['console', dir, '-e', 'deploy HelloWorld'], { timeoutMs: 60_000 });
    expect(deployed.stderr).toBe('');
    expect(deployed.stdout).toMatch(/^transaction hash: 0x[0-9a-f]{64}\ncontract address: 0x[0-9a-f]{40}\n/);
    const before = await height();
    const get = await twinchain(['console', dir, '-e', 'call HelloWorld latest get', '-e', 'getBlockNumber']);
    expect(get.stdout).toContain('Return values:(Hello, World!)');
    expect(get.stdout.trim().split('\n').at(-1)).toBe(String(before));
    const set = await twinchain(['console', dir, '-e', 'call HelloWorld latest set "hi"', '-e', 'getBlockNumber', '-e', 'call HelloWorld latest get']);
    expect(set.stderr).toBe('');
    expect(set.stdout).toMatch(/^transaction hash: 0x[0-9a-f]{64}\n-{93}\ntransaction status: 0x0\n/);
    expect(set.stdout).toContain(`\n${before + 1}\n`);
    expect(set.stdout).toContain('Return values:(hi)');

    const script = 'call HelloWorld latest set "from stdin"\ngetBlockNumber\ncall HelloWorld latest get\n';
    const piped = await sh('bash', ['-c', `printf '%s' "$SCRIPT" | "${process.execPath}" bin/twinchain.js console "${dir}"`], { env: { ...process.env, SCRIPT: script }, timeoutMs: 60_000 });
    expect(piped.stderr).toBe('');
    expect(piped.code, said(piped)).toBe(0);
    expect(piped.stdout).toContain(`\n${before + 2}\n`);
    expect(piped.stdout).toContain('Return values:(from stdin)');
  }, 120_000);

  it('twinchain conform passes against node0\'s real port', async () => {
    const result = await twinchain(['conform', nodes[0]!.rpcUrl], { timeoutMs: 120_000 });
    expect(result.stdout).toMatch(/\d+ passed, 0 failed/);
    expect(result.code, said(result)).toBe(0);
  }, 130_000);

  // kill -9 under load, freezes, two of four down, failing disks: test/real/faults.test.ts

  it('each node logs FISCO\'s heartbeat line, connected count=3 (every 10 s, so after the tests above)', async () => {
    await waitFor('"connected count=3" in every node\'s log', () => nodes.every((n) => /\[P2P\]\[Service\] heartBeat,connected count=3/.test(nodeLog(n))), 30_000, 200);
  }, 40_000);

  it('stop_all.sh leaves no process behind; after start_all.sh the heights are kept', async () => {
    const heights = await Promise.all(nodes.map((n) => blockNumber(n.rpcUrl)));
    const stopStarted = Date.now();
    const stopped = await sh('bash', [path.join(ipDir, 'stop_all.sh')], { timeoutMs: 60_000 });
    // SIGTERM: each node stops cleanly within 5 s (stop.sh would send SIGKILL after 10 s)
    expect(Date.now() - stopStarted).toBeLessThan(5_000);
    for (const i of [0, 1, 2, 3]) expect(stopped.stdout).toContain(` stop node${i} success.`);
    expect(runningPids(out)).toEqual([]);
    for (const n of nodes) expect(readFileSync(path.join(n.dir, 'nohup.out'), 'utf8')).toMatch(/Twinchain program exit normally\./);
    const again = await sh('bash', [path.join(ipDir, 'start_all.sh')], { timeoutMs: 120_000 });
    expect(again.code, said(again)).toBe(0);
    const after = await Promise.all(nodes.map((n) => blockNumber(n.rpcUrl)));
    for (const [i, h] of after.entries()) expect(h).toBeGreaterThanOrEqual(heights[i]!);
    const top = Math.min(...heights);
    // build-chain's groups keep FISCO's storage state: stateRoot = dbHash, per block
    const header = await rpc<{ stateRoot: string; dbHash: string }>(nodes[0]!.rpcUrl, 'getBlockByNumber', [1, '0x1', false]);
    expect(header.dbHash).toBe(header.stateRoot);
    expect(header.dbHash).not.toBe(`0x${'0'.repeat(64)}`);
    const reference = await blockHashes(nodes[0]!, top);
    for (const n of nodes.slice(1)) expect(await blockHashes(n, top)).toEqual(reference);
    await sh('bash', [path.join(ipDir, 'stop_all.sh')], { timeoutMs: 60_000 });
    expect(runningPids(out)).toEqual([]);
  }, 200_000);
});
