// A synced block needs the signatures of n − f sealers (Raft: a majority) of the list in force at
// its height: a real block one signature short is refused, in groups whose sizes tell the formulas
// apart (n − ⌊(n − 1)/3⌋ against n − ⌊(n + 1)/3⌋ at 6 sealers, PBFT's 5 against Raft's 4 at 7).
// (Raft's followers get their blocks by the leader's replication before they ask a sync peer, so
// this is a PBFT test.)
import { describe, expect, it } from 'vitest';
import type { ConsensusType } from '../chain/index.js';
import { record } from './byzantine.test-helper.js';
import { cluster } from './sim-cluster.js';

const lan = { latency: { kind: 'uniform' as const, minMs: 2, maxMs: 10 } };

describe('forge-sync one-signature-short: real blocks one valid signature short of the quorum', () => {
  const cases: Array<[ConsensusType, number, number]> = [
    ['pbft', 6, 5],
    ['pbft', 7, 5],
  ];
  it.each(cases)('%s, %i sealers: refused as "%i needed"; a node catching up gets the blocks from honest peers', async (consensus, sealers, needed) => {
    const names = Array.from({ length: sealers }, (_, i) => `node${i}`);
    const lagging = names[sealers - 1]!;
    const honest = names.slice(1);
    const w = record(honest);
    const c = cluster({ seed: `sync-quorum-${consensus}-${sealers}`, consensus, sealers, network: lan, byzantine: { node0: { behaviour: 'forge-sync', variant: 'one-signature-short' } }, onNodeEvent: w.onNodeEvent });
    c.startHelloWorldLoad(10, 14_000);
    c.sim.at(2_000, () => c.sim.crash(lagging));
    c.sim.at(7_000, () => c.sim.restart(lagging));
    await c.sim.run({ until: 14_000 });

    expect(w.of('byzantine-action', ['node0'], 'forged-blocks').filter((e) => Number(e.fields.count) > 0).length).toBeGreaterThan(0);
    // (a forged block goes to whichever node asks: the one that was down, or one a block behind)
    const rejected = w.of('sync-block-rejected', honest);
    expect(rejected.length).toBeGreaterThan(0);
    for (const e of rejected) {
      expect(e.fields.peer).toBe(c.chain.idOf('node0'));
      expect(e.fields.reason).toBe(`${needed - 1} valid sealer signatures, ${needed} needed`);
    }
    expect(w.monitor.conflicts).toEqual([]);
    await c.checkAgreement(honest);
    expect(w.of('block-committed', [lagging]).filter((e) => e.fields.via === 'sync').length).toBeGreaterThan(0);
  });
});
