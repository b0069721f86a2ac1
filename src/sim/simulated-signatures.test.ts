import { describe, expect, it } from 'vitest';
import { cluster } from './sim-cluster.js';

describe.each(['pbft', 'raft'] as const)('%s with simulated consensus signatures', (consensus) => {
  it('commits, and a node restarted after missing blocks catches up by sync (block signature lists use the same scheme)', async () => {
    const c = cluster({ seed: `simsig-${consensus}`, consensus, simulatedSignatures: true, network: { latency: { kind: 'uniform', minMs: 2, maxMs: 20 } } });
    c.startHelloWorldLoad(10, 30_000);
    await c.sim.run({ until: 3_000 });
    const before = c.group('node3')!.blockNumber();
    c.sim.crash('node3');
    await c.sim.run({ until: 15_000 });
    const missed = c.group('node0')!.blockNumber() - before;
    expect(missed).toBeGreaterThan(3);
    c.sim.restart('node3');
    await c.sim.run({ until: 30_000 });
    const lagging = c.group('node3')!;
    expect(lagging.counters.blocksBySync).toBeGreaterThanOrEqual(missed);
    expect(new Set(c.heights()).size).toBe(1);
    await c.checkAgreement();
  });
});
