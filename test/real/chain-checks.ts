import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { ChainClient } from './chain-client.js';
import { blockNumber, rpc, type ChainNode } from './real-chain.js';

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
