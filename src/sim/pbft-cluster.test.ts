import { describe, expect, it } from 'vitest';
import { cluster } from './sim-cluster.js';
import { expectSteadyLoadCommitted } from './steady-load.test-helper.js';

describe('4-node PBFT group (simulated)', () => {
  it('commits blocks under a steady HelloWorld load; every node ends with identical blocks, roots and receipts', async () => {
    await expectSteadyLoadCommitted(cluster({ seed: 'steady', network: { latency: { kind: 'uniform', minMs: 2, maxMs: 20 } } }));
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
