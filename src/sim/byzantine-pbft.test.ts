import { describe, expect, it } from 'vitest';
import { toHex } from '../codec/index.js';
import { chainOf, lan, minHeight, sealerIndex, splitRounds, statsOf, watch, watchExecuted } from './byzantine.test-helper.js';
import { cluster } from './sim-cluster.js';

const HONEST3 = ['node0', 'node1', 'node2'];

describe('byzantine PBFT sealers (simulated, 4 nodes, f = 1)', () => {
  it('an equivocating leader: honest nodes split between its two proposals, never commit different blocks, and change view past it', async () => {
    const w = watch(HONEST3);
    const c = cluster({ seed: 'byz-equivocate', network: lan, byzantine: { node3: { behaviour: 'equivocate' } }, onNodeEvent: w.onNodeEvent });
    const executed = watchExecuted(c, HONEST3);
    c.startHelloWorldLoad(10, 30_000);
    await c.sim.run({ until: 30_000 });

    // the attack happened on the wire: conflicting prepares sent, and honest nodes executed both
    const equivocations = w.select('byzantine-action', ['node3'], 'equivocate');
    expect(equivocations.length).toBeGreaterThanOrEqual(3);
    expect(statsOf(c, 'node3').conflictingProposals).toBe(equivocations.length);
    expect(splitRounds(executed).length).toBeGreaterThanOrEqual(3);
    // safety, checked on every commit, and at the end
    expect(w.monitor.commits).toBeGreaterThan(30);
    expect(w.monitor.conflicts).toEqual([]);
    await c.checkAgreement();
    // liveness: the honest nodes time out on the bad leader's rounds and commit under the next one
    expect(minHeight(c, HONEST3)).toBeGreaterThanOrEqual(15);
    expect(w.select('pbft-viewchange-sent', HONEST3, 'timeout').length).toBeGreaterThanOrEqual(3 * 3);
    const byzantine = sealerIndex(c, 'node3');
    const sealers = (await chainOf(c.group('node0')!)).map((b) => b.header.sealer);
    expect(sealers).not.toContain(byzantine); // none of its split proposals gathered a quorum
    expect(new Set(sealers).size).toBe(3);
  });

  it('a double-signer: honest nodes see both its proposals and count its votes for both, yet commit one chain and keep going', async () => {
    const w = watch(HONEST3);
    const c = cluster({ seed: 'byz-double-sign', network: lan, byzantine: { node3: { behaviour: 'double-sign' } }, onNodeEvent: w.onNodeEvent });
    const executed = watchExecuted(c, HONEST3);
    c.startHelloWorldLoad(10, 30_000);
    await c.sim.run({ until: 30_000 });

    const proposals = w.select('byzantine-action', ['node3'], 'double-propose');
    expect(proposals.length).toBeGreaterThanOrEqual(3);
    expect(w.select('byzantine-action', ['node3'], 'echo-vote').length).toBeGreaterThanOrEqual(3);
    expect(statsOf(c, 'node3').extraVotes).toBeGreaterThan(proposals.length);
    // every honest node received both prepares of a round (and noticed), and they split between them
    for (const name of HONEST3) expect(w.select('pbft-equivocation', [name]).length, name).toBeGreaterThan(0);
    expect(splitRounds(executed).length).toBeGreaterThanOrEqual(3);
    // the conflicting block (timestamp + 1), which node3's own state machine never executed, was
    // committed with node3's signature: its echoed votes counted toward the quorum
    const byzantine = sealerIndex(c, 'node3');
    const blocks = await chainOf(c.group('node0')!);
    const forged = blocks.filter((b) => proposals.some((p) => p.fields.height === b.header.number && p.fields.timestamp === b.header.timestamp - 1));
    expect(forged.length).toBeGreaterThan(0);
    for (const b of forged) expect(b.signatureList.map((s) => s.index)).toContain(byzantine);

    expect(w.monitor.conflicts).toEqual([]);
    await c.checkAgreement(HONEST3);
    expect(minHeight(c, HONEST3)).toBeGreaterThanOrEqual(30);
  });

  it('a silent sealer: it proposes and votes nothing, the other three (a quorum) keep committing, and it keeps its ledger by sync', async () => {
    const w = watch(HONEST3);
    const c = cluster({ seed: 'byz-silent', network: lan, byzantine: { node3: { behaviour: 'silent' } }, onNodeEvent: w.onNodeEvent });
    c.startHelloWorldLoad(10, 30_000);
    await c.sim.run({ until: 30_000 });

    const stats = statsOf(c, 'node3');
    expect(stats.withheld).toBeGreaterThan(20);
    expect(w.select('byzantine-action', ['node3'], 'withhold').length).toBeGreaterThan(0);
    const byzantine = sealerIndex(c, 'node3');
    const blocks = await chainOf(c.group('node0')!);
    expect(blocks.map((b) => b.header.sealer)).not.toContain(byzantine);
    // commits carry n − f = 3 signatures, never node3's
    for (const b of blocks) expect(b.signatureList.map((s) => s.index)).not.toContain(byzantine);
    expect(w.monitor.conflicts).toEqual([]);
    expect(minHeight(c, HONEST3)).toBeGreaterThanOrEqual(15);
    expect(c.group('node3')!.blockNumber()).toBeGreaterThanOrEqual(minHeight(c, HONEST3) - 1);
    await c.checkAgreement();
  });
});

describe('byzantine PBFT sealers (simulated, 7 nodes, f = 2)', () => {
  it('an equivocator and a node going silent then double-signing, switched on a timeline: safety and liveness; honest again, the equivocator leads', async () => {
    const honest = ['node0', 'node2', 'node3', 'node5', 'node6'];
    const w = watch(honest);
    const c = cluster({
      seed: 'byz-seven',
      sealers: 7,
      network: lan,
      byzantine: {
        node1: { behaviour: 'equivocate', untilMs: 24_000 },
        node4: [
          { behaviour: 'silent', untilMs: 12_000 },
          { behaviour: 'double-sign', fromMs: 12_000 },
        ],
      },
      onNodeEvent: w.onNodeEvent,
    });
    const executed = watchExecuted(c, honest);
    c.startHelloWorldLoad(10, 36_000);
    const heightAt: number[] = [];
    for (const t of [12_000, 24_000]) c.sim.at(t - 1, () => void heightAt.push(minHeight(c, honest)));
    await c.sim.run({ until: 36_000 });

    expect(w.monitor.conflicts).toEqual([]);
    await c.checkAgreement(honest);
    // progress in each phase
    expect(heightAt[0]).toBeGreaterThanOrEqual(5);
    expect(heightAt[1]! - heightAt[0]!).toBeGreaterThanOrEqual(5);
    expect(minHeight(c, honest) - heightAt[1]!).toBeGreaterThanOrEqual(5);
    // the behaviours were switched when scheduled, and each acted
    const switches = w.select('byzantine-behaviour').map((e) => `${e.node}:${String(e.fields.behaviour)}@${Math.floor(e.atMs / 1000)}`);
    expect(switches).toEqual(['node1:equivocate@0', 'node4:silent@0', 'node4:double-sign@12', 'node1:honest@24']);
    expect(c.chain.behaviourOf('node1')).toBeUndefined();
    expect(c.chain.behaviourOf('node4')).toBe('double-sign');
    const acted = (node: string, action: string, from: number, to: number) =>
      w.select('byzantine-action', [node], action).filter((e) => e.atMs >= from && e.atMs < to).length;
    expect(acted('node4', 'withhold', 0, 12_000)).toBeGreaterThan(0);
    expect(acted('node4', 'withhold', 12_000, 36_000)).toBe(0);
    expect(acted('node4', 'echo-vote', 12_000, 36_000) + acted('node4', 'double-propose', 12_000, 36_000)).toBeGreaterThan(0);
    expect(acted('node1', 'equivocate', 0, 24_000)).toBeGreaterThan(0);
    expect(acted('node1', 'equivocate', 24_000, 36_000)).toBe(0);
    expect(splitRounds(executed).length).toBeGreaterThan(0);
    // equivocating beside a silent node, node1 got no block through (a 3 + 3 split leaves each side
    // short of n − f = 5); beside a double-signer voting for everything, its own side can reach 5;
    // honest again, it leads like anyone
    const node1 = sealerIndex(c, 'node1');
    const blocks = await chainOf(c.group('node0')!);
    const sealedBy1 = blocks.filter((b) => b.header.sealer === node1).map((b) => b.header.number);
    expect(sealedBy1.filter((n) => n <= heightAt[0]!)).toEqual([]);
    expect(sealedBy1.filter((n) => n > heightAt[1]! + 1).length).toBeGreaterThan(0);
  });
});

describe('byzantine determinism', () => {
  it('the same seed twice gives the identical trace digest with byzantine nodes and a twin', async () => {
    const run = async () => {
      const c = cluster({
        seed: 'byz-determinism',
        network: { ...lan, lossRate: 0.02 },
        twins: [['node3', 'node3b']],
        byzantine: { node1: [{ behaviour: 'double-sign', untilMs: 4_000 }, { behaviour: 'equivocate', fromMs: 4_000 }] },
      });
      c.startHelloWorldLoad(10, 8_000);
      c.sim.at(5_000, () => c.chain.setBehaviour('node2', 'silent'));
      const result = await c.sim.run({ until: 10_000 });
      return { ...result, heights: c.heights(), head: toHex(c.group('node0')!.chain.headHash) };
    };
    const a = await run();
    const b = await run();
    expect(a.heights[0]).toBeGreaterThan(2);
    expect(a.digest).toBe(b.digest);
    expect(a.events).toBe(b.events);
    expect(a.head).toBe(b.head);
  });
});
