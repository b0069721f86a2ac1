import { describe, expect, it } from 'vitest';
import { chainOf, lan, minHeight, splitRounds, statsOf, watch, watchExecuted } from './byzantine.test-helper.js';
import { cluster } from './sim-cluster.js';

const HONEST3 = ['node0', 'node1', 'node2'];

describe('Twins (simulated): two honest processes sharing one identity', () => {
  it('4 sealers, node3 twinned (5 processes, 4 identities): both twins heard, then a Twins partition, then healed: safety among honest nodes and progress', async () => {
    const w = watch(HONEST3);
    const c = cluster({ seed: 'twins-one', network: lan, twins: [['node3', 'node3b']], onNodeEvent: w.onNodeEvent });
    const executed = watchExecuted(c, HONEST3);
    expect(c.names).toEqual(['node0', 'node1', 'node2', 'node3', 'node3b']);
    expect(c.chain.idOf('node3b')).toBe(c.chain.idOf('node3'));
    c.startHelloWorldLoad(10, 30_000);
    await c.sim.run({ until: 10_000 });
    const h1 = minHeight(c, HONEST3);
    // both twins lead the same rounds with their own proposals: honest nodes receive two prepares
    // for one (height, view) from identity node3, and act on different ones
    expect(h1).toBeGreaterThanOrEqual(8);
    const seenTwice = w.select('pbft-equivocation', HONEST3).length;
    expect(seenTwice).toBeGreaterThan(0);
    expect(c.sim.network.linkStats('node3b', 'node0').delivered).toBeGreaterThan(0);
    expect(c.sim.network.linkStats('node0', 'node3b').delivered).toBeGreaterThan(0);

    // the Twins paper's move: each twin with its own part of the group
    const split = c.sim.network.partition([
      ['node0', 'node1', 'node3'],
      ['node2', 'node3b'],
    ]);
    await c.sim.run({ until: 20_000 });
    expect(c.group('node0')!.blockNumber()).toBeGreaterThan(h1 + 3); // three identities: a quorum
    // node0 still sends to identity node3 (node3 is reachable); the copy for node3b is cut
    const toTwin = c.sim.network.linkStats('node0', 'node3b');
    expect(toTwin.dropped.partition).toBeGreaterThan(0);
    c.sim.network.heal(split);
    await c.sim.run({ until: 32_000 });

    expect(w.monitor.conflicts).toEqual([]);
    expect(w.monitor.commits).toBeGreaterThan(40);
    await c.checkAgreement(HONEST3);
    const heights = HONEST3.map((n) => c.group(n)!.blockNumber());
    expect(Math.max(...heights) - Math.min(...heights)).toBeLessThanOrEqual(1); // node2 caught up
    expect(Math.min(...heights)).toBeGreaterThan(c.group('node0')!.blockNumber() - 2);
    expect(w.select('pbft-equivocation', HONEST3).length + splitRounds(executed).length).toBeGreaterThan(seenTwice);
  });
});

describe('attacks beyond f succeed (the behaviours are real)', () => {
  it('two colluding double-signers in 4 nodes (f + 1): the two honest nodes commit different blocks at one height', async () => {
    const w = watch(['node0', 'node1']);
    // both send their conflicting proposal first to node1 and their own first to node0, and vote for both
    const attack = { behaviour: 'double-sign' as const, conflictPeers: ['node1'] };
    const c = cluster({ seed: 'byz-collude', network: lan, byzantine: { node2: attack, node3: attack }, onNodeEvent: w.onNodeEvent });
    c.startHelloWorldLoad(10, 10_000);
    await c.sim.run({ until: 10_000 });
    expect(w.monitor.conflicts.length).toBeGreaterThan(0);
    const [conflict] = w.monitor.conflicts;
    expect(new Set([conflict!.first.node, conflict!.second.node])).toEqual(new Set(['node0', 'node1']));
    await expect(c.checkAgreement(['node0', 'node1'])).rejects.toThrow(/block hash differs/);
    expect(statsOf(c, 'node2').extraVotes + statsOf(c, 'node3').extraVotes).toBeGreaterThan(0);
  });

  it('two twinned identities in 4 nodes under a Twins partition: each side has three identities and commits its own chain', async () => {
    const w = watch(['node0', 'node1']);
    const c = cluster({ seed: 'twins-two', network: lan, twins: ['node2', 'node3'], onNodeEvent: w.onNodeEvent });
    c.sim.network.partition([
      ['node0', 'node2', 'node3'],
      ['node1', 'node2-twin', 'node3-twin'],
    ]);
    c.startHelloWorldLoad(10, 8_000);
    await c.sim.run({ until: 8_000 });
    const [a, b] = await Promise.all([chainOf(c.group('node0')!), chainOf(c.group('node1')!)]);
    expect(Math.min(a.length, b.length)).toBeGreaterThanOrEqual(3);
    expect(w.monitor.conflicts.length).toBeGreaterThanOrEqual(3);
    expect(w.monitor.conflicts[0]!.height).toBe(1);
  });

  it('two silent sealers in 4 nodes: no quorum is left and commits stop, without divergence', async () => {
    const w = watch(HONEST3);
    const c = cluster({ seed: 'byz-two-silent', network: lan, byzantine: { node2: { behaviour: 'silent', fromMs: 5_000 }, node3: { behaviour: 'silent', fromMs: 5_000 } }, onNodeEvent: w.onNodeEvent });
    c.startHelloWorldLoad(10, 20_000);
    await c.sim.run({ until: 7_000 });
    const stalled = Math.max(...c.heights());
    expect(stalled).toBeGreaterThanOrEqual(3);
    await c.sim.run({ until: 20_000 });
    expect(Math.max(...c.heights())).toBe(stalled);
    expect(w.monitor.conflicts).toEqual([]);
    expect(statsOf(c, 'node2').withheld).toBeGreaterThan(0);
    // honest again, they let the group move on
    c.sim.at(20_000, () => {
      c.chain.setBehaviour('node2', undefined);
      c.chain.setBehaviour('node3', undefined);
    });
    await c.sim.run({ until: 35_000 });
    expect(minHeight(c, c.names)).toBeGreaterThan(stalled);
    await c.checkAgreement();
  });
});
