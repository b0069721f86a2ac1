import { describe, expect, it } from 'vitest';
import { cluster } from './sim-cluster.js';
import { expectSteadyLoadCommitted } from './steady-load.test-helper.js';

describe('4-node PBFT group (simulated)', () => {
  it('commits blocks under a steady HelloWorld load; every node ends with identical blocks, roots and receipts', async () => {
    await expectSteadyLoadCommitted(cluster({ seed: 'steady', network: { latency: { kind: 'uniform', minMs: 2, maxMs: 20 } } }));
  });

  it('two transactions sharing a nonce in different pools: one commits, the other is dropped everywhere and never stalls consensus', async () => {
    let rejected = 0;
    const c = cluster({
      seed: 'dup-nonce',
      network: { latency: { kind: 'uniform', minMs: 2, maxMs: 20 } },
      onNodeEvent: (_node, kind) => void (kind === 'pbft-proposal-rejected' && rejected++),
    });
    const a = c.client.build({ to: new Uint8Array(20).fill(1), blockLimit: 500n, nonce: 42n });
    const b = c.client.build({ to: new Uint8Array(20).fill(1), blockLimit: 501n, nonce: 42n });
    c.sim.at(500, async () => {
      expect((await c.submit('node0', a.raw))?.accepted).toBe(true);
      for (const n of ['node1', 'node2', 'node3']) expect((await c.submit(n, b.raw))?.accepted).toBe(true);
    });
    c.startHelloWorldLoad(5, 20_000, 2000);
    await c.sim.run({ until: 22_000 });
    const g = c.group('node0')!;
    expect(g.blockNumber()).toBeGreaterThan(30); // without eviction: a handful of blocks and dozens of view changes
    expect(rejected).toBeLessThanOrEqual(3);
    const included = [await g.transaction(a.hash), await g.transaction(b.hash)].filter((t) => t !== undefined);
    expect(included).toHaveLength(1);
    for (const n of c.names) expect(c.group(n)!.pendingCount()).toBe(0);
    await c.checkAgreement();
  });

  it('a stuck transaction is re-gossiped by one holder per round, not by every node that pools it', async () => {
    const regossips = new Map<string, number>();
    const c = cluster({
      seed: 'regossip-once',
      network: { latency: { kind: 'uniform', minMs: 2, maxMs: 20 } },
      onNodeEvent: (node, kind) => void (kind === 'tx-regossiped' && regossips.set(node, (regossips.get(node) ?? 0) + 1)),
    });
    // two of four sealers down: no quorum, so whatever is pooled stays pending on the two others
    c.sim.at(100, () => {
      c.sim.crash('node2');
      c.sim.crash('node3');
    });
    const tx = c.client.build({ to: new Uint8Array(20).fill(1), blockLimit: 900n });
    c.sim.at(500, async () => expect((await c.submit('node0', tx.raw))?.accepted).toBe(true));
    await c.sim.run({ until: 30_500 });
    expect(c.group('node1')!.pendingCount()).toBe(1);
    const rounds = Math.floor(30_000 / 3_000); // TX_REGOSSIP_MS
    const total = [...regossips.values()].reduce((a, b) => a + b, 0);
    // each round's re-send resets the other holder's timer; before, both holders re-sent every round
    expect(total).toBeGreaterThanOrEqual(rounds - 2);
    expect(total).toBeLessThanOrEqual(rounds + 1);
  });

  it('commits with the SM suite too (SM2 consensus signatures, SM3 hashes)', async () => {
    const c = cluster({ seed: 'steady-sm', suite: 'sm' });
    c.startHelloWorldLoad(5, 8_000);
    await c.sim.run({ until: 10_000 });
    expect(Math.min(...c.heights())).toBeGreaterThan(3);
    await c.checkAgreement();
    expect(await c.missing('node1')).toEqual([]);
  });
});
