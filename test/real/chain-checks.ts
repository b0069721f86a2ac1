import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { ChainClient } from './chain-client.js';
import { expect } from 'vitest';
import { blockNumber, kill9, rpc, sh, waitFor, type ChainNode } from './real-chain.js';

/** Hashes of blocks 1..`top` as the node reports them. */
export async function blockHashes(node: ChainNode, top: number): Promise<string[]> {
  const hashes: string[] = [];
  for (let n = 1; n <= top; n++) hashes.push((await rpc<{ hash: string }>(node.rpcUrl, 'getBlockByNumber', [1, `0x${n.toString(16)}`, false])).hash);
  return hashes;
}

/** The node id: the SM2 key's on SM chains (gmnode.nodeid), else node.nodeid. */
export function nodeIdOf(node: ChainNode): string {
  const conf = path.join(node.dir, 'conf');
  const file = existsSync(path.join(conf, 'gmnode.nodeid')) ? 'gmnode.nodeid' : 'node.nodeid';
  return readFileSync(path.join(conf, file), 'utf8').trim();
}

/** The node id of the current leader: PBFT's (view + height) % n, or Raft's leaderId. */
export async function leaderOf(node: ChainNode): Promise<string> {
  const [status] = await rpc<Array<Record<string, unknown>>>(node.rpcUrl, 'getConsensusStatus', [1]);
  if (typeof status!['leaderId'] === 'string') return status!['leaderId'] as string;
  const view = Number(await rpc<string>(node.rpcUrl, 'getPbftView', [1]));
  const height = await blockNumber(node.rpcUrl);
  const n = Number(status!['nodeNum']);
  return status![`sealer.${(view + height) % n}`] as string;
}

/** Sends HelloWorld set transactions round-robin to `nodes` every 50 ms until stopped; errors (a node being killed) are counted, not thrown. */
export function keepLoad(client: ChainClient, contract: string, nodes: readonly ChainNode[]): { stop(): void; done: Promise<void>; sent(): number } {
  let running = true;
  let sent = 0;
  const done = (async () => {
    let i = 0;
    while (running) {
      const node = nodes[i++ % nodes.length]!;
      try {
        const limit = (await blockNumber(node.rpcUrl)) + 500;
        await client.send(node.rpcUrl, client.signedSet(contract, `load #${i}`, limit));
        sent++;
      } catch {
        // the node may be down for a moment
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  return {
    stop: () => {
      running = false;
    },
    done,
    sent: () => sent,
  };
}

/**
 * Under load, `kill -9` of the leader or of a follower: the others commit 3 more blocks; after
 * start.sh the node catches up, its blocks from before the kill unchanged and equal to the others'.
 */
export async function killAndRecover(client: ChainClient, contract: string, nodes: readonly ChainNode[], role: 'a follower' | 'the leader'): Promise<void> {
  const leaderId = await waitFor('a leader', async () => (await leaderOf(nodes[0]!)) || undefined, 20_000);
  const victim = nodes.find((n) => (nodeIdOf(n) === leaderId) === (role === 'the leader'));
  expect(victim).toBeDefined();
  const others = nodes.filter((n) => n !== victim);
  const load = keepLoad(client, contract, others);
  try {
    await waitFor('load to commit blocks', async () => (await blockNumber(victim!.rpcUrl)) >= 2, 10_000);
    const before = await blockNumber(victim!.rpcUrl);
    const earlier = await blockHashes(victim!, before);
    kill9(victim!);
    const heightAtKill = Math.max(...(await Promise.all(others.map((n) => blockNumber(n.rpcUrl)))));
    await waitFor(`the ${others.length} others to commit 3 more blocks`, async () => (await Promise.all(others.map((n) => blockNumber(n.rpcUrl)))).every((h) => h >= heightAtKill + 3), 40_000, 300);
    const restarted = await sh('bash', [path.join(victim!.dir, 'start.sh')], { timeoutMs: 90_000 });
    expect(restarted.stdout).toMatch(/start successfully/);
    const target = await blockNumber(others[0]!.rpcUrl);
    await waitFor(`${victim!.name} to catch up to ${target}`, async () => (await blockNumber(victim!.rpcUrl)) >= target, 40_000, 300);
    expect((await blockHashes(victim!, before)).slice(0, earlier.length)).toEqual(earlier);
    const now = await blockNumber(victim!.rpcUrl);
    expect(await blockHashes(victim!, now)).toEqual(await blockHashes(others[0]!, now));
  } finally {
    load.stop();
    await load.done;
  }
  expect(load.sent()).toBeGreaterThan(0);
}
