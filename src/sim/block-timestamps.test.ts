// A leader seals a block later than its parent even when its clock is behind the parent's
// timestamp (a clock skewed back, or a parent sealed by a node whose clock ran ahead): Twinchain's
// sealers take max(now, parent + 1). FISCO's sealer takes its clock alone; nothing checks the order
// on receipt, so this is Twinchain's own policy, and block timestamps never go back.
import { describe, expect, it } from 'vitest';
import { cluster } from './sim-cluster.js';

const lan = { latency: { kind: 'uniform' as const, minMs: 2, maxMs: 10 } };

/** Every block from `first` on is later than its parent. */
async function expectIncreasing(c: ReturnType<typeof cluster>, first: number): Promise<void> {
  const g = c.group('node0')!;
  const top = g.blockNumber();
  expect(top).toBeGreaterThan(first + 5);
  let parent = (await g.blockByNumber(first - 1))!.block.header.timestamp;
  for (let n = first; n <= top; n++) {
    const stamp = (await g.blockByNumber(n))!.block.header.timestamp;
    expect(stamp, `block ${n}`).toBeGreaterThan(parent);
    parent = stamp;
  }
}

describe('block timestamps', () => {
  it('PBFT: one sealer\'s clock 1.5 s behind the others\': the blocks it leads are still later than their parents', async () => {
    const c = cluster({ seed: 'timestamps-pbft', sealers: 3, network: lan });
    c.sim.setClockSkew('node1', { offsetMs: -1_500 });
    c.startHelloWorldLoad(10, 8_000);
    await c.sim.run({ until: 8_000 });
    // (the leader of a height rotates, so node1 sealed some of them)
    const sealers = new Set<number>();
    for (let n = 1; n <= c.group('node0')!.blockNumber(); n++) sealers.add((await c.group('node0')!.blockByNumber(n))!.block.header.sealer);
    expect(sealers.size).toBe(3);
    await expectIncreasing(c, 1);
  });

  it('Raft: every clock set 20 s back at once: the leader goes on sealing blocks later than their parents', async () => {
    const c = cluster({ seed: 'timestamps-raft', consensus: 'raft', sealers: 3, network: lan });
    c.startHelloWorldLoad(10, 8_000);
    await c.sim.run({ until: 2_000 });
    const first = c.group('node0')!.blockNumber() + 1;
    for (const name of c.names) c.sim.setClockSkew(name, { offsetMs: -20_000 });
    await c.sim.run({ until: 8_000 });
    await expectIncreasing(c, first);
  });
});
