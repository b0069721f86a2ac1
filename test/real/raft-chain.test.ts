import { connect } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blockHashes, keepLoad, leaderOf, nodeIdOf } from './chain-checks.js';
import { ChainClient } from './chain-client.js';
import { blockNumber, chainNodes, freePortBlock, kill9, rpc, runningPids, sh, tempChainDir, twinchain, waitFor, type ChainNode } from './real-chain.js';

describe.sequential('a real 3-node Raft chain: kill -9 of a follower and of the leader under load', () => {
  let tmp: Awaited<ReturnType<typeof tempChainDir>>;
  let out: string;
  let nodes: ChainNode[];
  const client = new ChainClient();
  let contract: string;

  beforeAll(async () => {
    tmp = await tempChainDir('raft');
    out = path.join(tmp.dir, 'nodes');
    const base = await freePortBlock(9);
    const built = await twinchain(['build-chain', '-l', '127.0.0.1:3', '-p', `${base},${base + 3},${base + 6}`, '-o', out, '-c', 'raft']);
    expect(built.code).toBe(0);
    nodes = chainNodes(out);
    const started = await sh('bash', [path.join(out, '127.0.0.1', 'start_all.sh')], { timeoutMs: 120_000 });
    expect(started.code).toBe(0);
    await waitFor('every node to see two peers', async () => (await Promise.all(nodes.map((n) => rpc<unknown[]>(n.rpcUrl, 'getPeers', [1])))).every((p) => p.length === 2), 30_000);
    contract = await client.deploy(nodes[0]!.rpcUrl);
  }, 180_000);

  afterAll(() => tmp?.dispose());

  for (const role of ['a follower', 'the leader'] as const) {
    it(`kill -9 of ${role}: the other two keep committing; after start.sh it catches up with its earlier blocks unchanged`, async () => {
      const leaderId = await waitFor('a Raft leader', async () => (await leaderOf(nodes[0]!)) || undefined, 20_000);
      const victim = role === 'the leader' ? nodes.find((n) => nodeIdOf(n) === leaderId)! : nodes.find((n) => nodeIdOf(n) !== leaderId)!;
      expect(victim).toBeDefined();
      const others = nodes.filter((n) => n !== victim);
      const load = keepLoad(client, contract, others);
      try {
        const before = await blockNumber(victim.rpcUrl);
        const earlier = await blockHashes(victim, before);
        kill9(victim);
        const heightAtKill = Math.max(...(await Promise.all(others.map((n) => blockNumber(n.rpcUrl)))));
        await waitFor('the two others to commit 3 more blocks', async () => (await Promise.all(others.map((n) => blockNumber(n.rpcUrl)))).every((h) => h >= heightAtKill + 3), 40_000, 300);
        const restarted = await sh('bash', [path.join(victim.dir, 'start.sh')], { timeoutMs: 90_000 });
        expect(restarted.stdout).toMatch(/start successfully/);
        const target = await blockNumber(others[0]!.rpcUrl);
        await waitFor(`${victim.name} to catch up to ${target}`, async () => (await blockNumber(victim.rpcUrl)) >= target, 40_000, 300);
        expect((await blockHashes(victim, before)).slice(0, earlier.length)).toEqual(earlier);
        const now = await blockNumber(victim.rpcUrl);
        expect(await blockHashes(victim, now)).toEqual(await blockHashes(others[0]!, now));
      } finally {
        load.stop();
        await load.done;
      }
    }, 180_000);
  }

  it('a JSON-RPC client sending a byte a second is cut off within 10 s', async () => {
    const heldMs = await new Promise<number>((resolve) => {
      const started = Date.now();
      const url = new URL(nodes[0]!.rpcUrl);
      const text = 'POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 60\r\n\r\n{"jsonrpc":"2.0","id":1,"method":"getBlockNumber","params":[1]}';
      let i = 0;
      const socket = connect(Number(url.port), url.hostname);
      const timer = setInterval(() => (i < text.length && Date.now() - started < 30_000 ? socket.write(text[i++]!) : socket.destroy()), 1_000);
      socket.on('error', () => undefined);
      socket.on('close', () => {
        clearInterval(timer);
        resolve(Date.now() - started);
      });
      socket.resume();
    });
    expect(heldMs).toBeGreaterThanOrEqual(7_000);
    expect(heldMs).toBeLessThanOrEqual(10_000);
  }, 40_000);

  it('without -i the JSON-RPC port answers on 127.0.0.1 only', async () => {
    const port = new URL(nodes[0]!.rpcUrl).port;
    await expect(rpc(`http://127.0.0.3:${port}/`, 'getBlockNumber', [1])).rejects.toThrow();
    expect(await blockNumber(nodes[0]!.rpcUrl)).toBeGreaterThan(0);
    const stopped = await sh('bash', [path.join(out, '127.0.0.1', 'stop_all.sh')], { timeoutMs: 60_000 });
    expect(stopped.code).toBe(0);
    expect(runningPids(out)).toEqual([]);
  }, 90_000);
});
