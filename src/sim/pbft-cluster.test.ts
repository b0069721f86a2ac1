import { describe, expect, it } from 'vitest';
import { cluster } from './sim-cluster.js';

describe('4-node PBFT group (simulated)', () => {
  it('commits blocks under a steady HelloWorld load; every node ends with identical blocks, roots and receipts', async () => {
    const c = cluster({ seed: 'steady', network: { latency: { kind: 'uniform', minMs: 2, maxMs: 20 } } });
    c.startHelloWorldLoad(10, 20_000);
    await c.sim.run({ until: 25_000 });
    const heights = c.heights();
    expect(Math.min(...heights)).toBeGreaterThan(10);
    expect(new Set(heights).size).toBe(1);
    await c.checkAgreement();
    expect(c.submitted.length).toBeGreaterThan(150);
    expect(await c.missing('node2')).toEqual([]);
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
