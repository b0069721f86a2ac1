import { describe, expect, it } from 'vitest';
import { toHex } from '../codec/index.js';
import { decodeSyncMessage } from '../sync/index.js';
import { cluster } from './sim-cluster.js';
import { decodeFrame } from '../node/index.js';

const lan = { latency: { kind: 'uniform' as const, minMs: 2, maxMs: 10 } };

describe('a group checks the transactions of a proposal as a replica must, and says which one is wrong', () => {
  it('names the transaction that does not decode, appears twice, or reuses a nonce of the block; takes a valid list', async () => {
    const c = cluster({ seed: 'proposal-txs', network: lan });
    await c.sim.run({ until: 100 });
    const g = c.group('node0')!;
    const next = g.blockNumber() + 1;
    const tx = (nonce: bigint, data: number) => c.client.build({ blockLimit: BigInt(next + 10), data: Uint8Array.of(data), nonce });
    const a = tx(7n, 1);
    const b = tx(8n, 1);
    const sameNonce = tx(7n, 2); // another transaction with a's nonce

    const ok = await g.proposalTransactions([a.raw, b.raw], next);
    expect(Array.isArray(ok) && ok.map((t) => toHex(t.hash))).toEqual([toHex(a.hash), toHex(b.hash)]);
    expect(await g.proposalTransactions([a.raw, Uint8Array.of(0x01, 0x02, 0x03)], next)).toMatch(/^transaction 1: \S/);
    expect(await g.proposalTransactions([a.raw, b.raw, a.raw], next)).toBe('transaction 2 appears twice');
    expect(await g.proposalTransactions([b.raw, a.raw, sameNonce.raw], next)).toBe('transaction 2 reuses a nonce within the block');
    expect(await g.proposalTransactions([a.raw], next + 11)).toBe(`transaction 0: blockLimit ${next + 10} does not admit block ${next + 11}`);
  });
});

describe('a group gossips a burst of client submissions as few messages', () => {
  it('sends what was admitted together once the burst is in, at most 200 transactions a message; a lone submission goes at once', async () => {
    const c = cluster({ seed: 'gossip-batch', network: lan });
    const toNode1: number[] = [];
    c.sim.network.observe({
      delivered(from, to, payload) {
        if (from !== 'node0' || to !== 'node1') return;
        const frame = decodeFrame(payload);
        if ('error' in frame || frame.module !== 'sync') return;
        const m = decodeSyncMessage(frame.payload);
        if (m.type === 'transactions') toNode1.push(m.transactions.length);
      },
    });
    const results: Array<Promise<unknown>> = [];
    c.sim.at(100, () => {
      const g = c.group('node0')!;
      const limit = BigInt(g.blockNumber() + 500);
      // one JSON-RPC batch: every submission is queued before the first is admitted
      for (let i = 0; i < 205; i++) results.push(g.submit(c.client.build({ blockLimit: limit, data: Uint8Array.of(i & 0xff) }).raw));
    });
    c.sim.at(400, () => {
      const g = c.group('node0')!;
      results.push(g.submit(c.client.build({ blockLimit: BigInt(g.blockNumber() + 500), data: Uint8Array.of(1) }).raw));
    });
    await c.sim.run({ until: 600 });
    await Promise.all(results);
    expect(toNode1).toEqual([200, 5, 1]);
  });
});
