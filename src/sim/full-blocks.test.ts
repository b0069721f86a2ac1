import { describe, expect, it } from 'vitest';
import { cluster } from './sim-cluster.js';

describe.each(['pbft', 'raft'] as const)('%s sealing', (consensus) => {
  it('seals a full block (tx_count_limit transactions) at once; only partial blocks wait for min_block_generation_time', async () => {
    const c = cluster({ seed: `full-${consensus}`, consensus, genesis: { txCountLimit: 4 }, network: { latency: { kind: 'uniform', minMs: 2, maxMs: 10 } } });
    c.startHelloWorldLoad(40, 10_000); // 10 blocks' worth of transactions a second: 5× what half-second blocks of 4 carry
    await c.sim.run({ until: 13_000 });
    const g = c.group('node0')!;
    expect(await c.missing('node0')).toEqual([]);
    expect(c.submitted.length).toBeGreaterThan(350);
    let full = 0;
    for (let n = 1; n <= g.blockNumber(); n++) {
      const txs = (await g.blockByNumber(n))!.block.transactions.length;
      expect(txs).toBeLessThanOrEqual(4);
      if (txs === 4) full++;
    }
    expect(full).toBeGreaterThan(50);
    await c.checkAgreement();
  });
});
