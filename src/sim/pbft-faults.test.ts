import { describe, expect, it } from 'vitest';
import { cluster } from './sim-cluster.js';

const lan = { latency: { kind: 'uniform' as const, minMs: 2, maxMs: 20 } };

describe('PBFT under faults (simulated)', () => {
  it('leader crash → view change → commits resume within twice the view timeout', async () => {
    const c = cluster({ seed: 'leader-crash', network: lan });
    c.startHelloWorldLoad(10, 30_000);
    await c.sim.run({ until: 8_000 });
    // the leader of the next block: (view + height) % n over the sealers in index order
    const status = c.group('node0')!.consensusStatus();
    if (status.kind !== 'pbft') throw new Error('expected PBFT');
    const leaderId = status.sealers[(status.currentView + status.highestblockNumber) % status.nodeNum]!;
    const leader = c.names[c.ids.indexOf(leaderId)]!;
    const crashAt = c.sim.now;
    c.sim.crash(leader);
    const heightAtCrash = Math.max(...c.heights());
    await c.sim.run({ until: crashAt + 6_000 });
    const resumed = c.commits.find((e) => e.at > crashAt && e.height > heightAtCrash);
    expect(resumed, 'a block after the crash').toBeDefined();
    expect(resumed!.at - crashAt).toBeLessThanOrEqual(2 * 3000);
    await c.checkAgreement();
  });

  it.each([
    [4, 1],
    [7, 2],
  ])('%i sealers with %i crashed keep committing; one more crash stops commits without divergence; restarts catch up by sync', async (n, f) => {
    const c = cluster({ seed: `crash-${n}`, sealers: n, network: lan });
    c.startHelloWorldLoad(10, 60_000);
    await c.sim.run({ until: 5_000 });
    for (let i = 0; i < f; i++) c.sim.crash(c.names[i]!);
    const h1 = Math.max(...c.heights());
    await c.sim.run({ until: 15_000 });
    const h2 = Math.max(...c.heights());
    expect(h2).toBeGreaterThan(h1 + 3); // f down: still committing
    c.sim.crash(c.names[f]!); // f + 1 down
    await c.sim.run({ until: 18_000 }); // let in-flight rounds settle
    const h3 = Math.max(...c.heights());
    await c.sim.run({ until: 35_000 });
    expect(Math.max(...c.heights())).toBe(h3); // nothing commits
    await c.checkAgreement(); // and nothing diverges
    for (let i = 0; i <= f; i++) c.sim.restart(c.names[i]!);
    await c.sim.run({ until: 70_000 });
    const heights = c.heights();
    expect(Math.min(...heights)).toBeGreaterThan(h3); // progress resumed, restarted nodes caught up
    expect(Math.max(...heights) - Math.min(...heights)).toBeLessThanOrEqual(1);
    await c.checkAgreement();
    const synced = c.live().reduce((sum, l) => sum + l.group.counters.blocksBySync, 0);
    expect(synced).toBeGreaterThan(0);
  });

  it('a partition leaving no side with a quorum stops commits; after healing all converge on one chain', async () => {
    const c = cluster({ seed: 'split', network: lan });
    c.startHelloWorldLoad(10, 40_000);
    await c.sim.run({ until: 5_000 });
    const split = c.sim.network.partition([
      ['node0', 'node1'],
      ['node2', 'node3'],
    ]);
    await c.sim.run({ until: 7_000 });
    const frozen = Math.max(...c.heights());
    const across = () => c.sim.network.linkStats('node0', 'node2').delivered + c.sim.network.linkStats('node3', 'node1').delivered;
    const before = across();
    await c.sim.run({ until: 20_000 });
    expect(Math.max(...c.heights())).toBe(frozen);
    expect(across()).toBe(before); // nothing crossed the partition
    const views = c.live().map((l) => (l.group.consensusStatus() as { toView: number }).toView);
    expect(Math.min(...views)).toBeGreaterThan(0); // both sides kept trying view changes
    c.sim.network.heal(split);
    await c.sim.run({ until: 45_000 });
    const heights = c.heights();
    expect(Math.min(...heights)).toBeGreaterThan(frozen);
    expect(new Set(heights).size).toBe(1);
    await c.checkAgreement();
    expect(await c.missing('node3')).toEqual([]);
  });

  it('getSyncStatus lists only connected peers: a crashed one leaves the list and comes back after its restart', async () => {
    const c = cluster({ seed: 'sync-peers', network: lan });
    c.startHelloWorldLoad(5, 20_000);
    await c.sim.run({ until: 3_000 });
    const peersOf = (node: string) => c.group(node)!.syncStatus().peers.map((p) => p.nodeId).sort();
    const others = [c.ids[1]!, c.ids[2]!, c.ids[3]!].sort();
    expect(peersOf('node0')).toEqual(others);
    c.sim.crash('node3');
    await c.sim.run({ until: 4_000 });
    expect(peersOf('node0')).toEqual([c.ids[1]!, c.ids[2]!].sort());
    expect(c.group('node0')!.syncStatus().knownHighestNumber).toBe(c.group('node0')!.blockNumber());
    c.sim.restart('node3');
    await c.sim.run({ until: 12_000 });
    expect(peersOf('node0')).toEqual(others);
  });

  it('the same seed twice gives the identical trace digest', async () => {
    const run = async () => {
      const c = cluster({ seed: 'determinism', network: { ...lan, lossRate: 0.02 } });
      c.startHelloWorldLoad(10, 8_000);
      c.sim.at(4_000, () => c.sim.crash('node1'));
      c.sim.at(6_000, () => c.sim.restart('node1'));
      return c.sim.run({ until: 10_000 });
    };
    const a = await run();
    const b = await run();
    expect(a.digest).toBe(b.digest);
    expect(a.events).toBe(b.events);
  });
});
