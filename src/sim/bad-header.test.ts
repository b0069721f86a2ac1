import { describe, expect, it } from 'vitest';
import { blockHash, type Block } from '../chain/index.js';
import { bytesEqual, fromHex } from '../codec/index.js';
import { decodePbftMessage, MAX_BLOCK_TIME_DIFF_MS, type PrepareMessage } from '../consensus/index.js';
import { decodeFrame, type PbftDriver } from '../node/index.js';
import { chainOf, lan, minHeight, record, sealerIndex } from './byzantine.test-helper.js';
import { InvariantMonitor, type ProtocolViolation } from './invariants/invariant-monitor.js';
import { cluster, type Cluster } from './sim-cluster.js';

const HONEST3 = ['node0', 'node1', 'node2'];

/** node3's Prepares as node0 received them, decoded. */
function preparesFromNode3(c: Cluster): PrepareMessage[] {
  const prepares: PrepareMessage[] = [];
  c.sim.network.observe({
    delivered(from, to, payload) {
      if (from !== 'node3' || to !== 'node0') return;
      const frame = decodeFrame(payload);
      if ('error' in frame || frame.module !== 'pbft') return;
      const group = c.group('node0')!;
      const sealers = group.sealers();
      const m = decodePbftMessage(frame.payload, group.options.signer, (d) => group.suite.hash(d), (i) => (sealers[i] ? fromHex(sealers[i]!) : undefined));
      if (m.type === 'prepare') prepares.push(m);
    },
  });
  return prepares;
}

/** What each variant puts in the Prepare's proposal, checked against the honest chain, and the refusal it meets. */
const CASES: Array<[string, (p: PrepareMessage, parent: Block, c: Cluster) => boolean, RegExp]> = [
  ['wrong-parent', (p, parent, c) => !bytesEqual(p.proposal.parentHash, blockHash(parent.header, c.suite)), /^parent 0x[0-9a-f]{8}… is not the head/],
  ['wrong-number', (p) => p.proposal.number === p.height + 1, /^number \d+, expected \d+$/],
  ['stale-timestamp', (p, parent) => p.proposal.timestamp === parent.header.timestamp, /^timestamp \d+ is not after the parent's \d+$/],
  ['future-timestamp', (p, parent) => p.proposal.timestamp - parent.header.timestamp > MAX_BLOCK_TIME_DIFF_MS, /^timestamp \d+ is too far from local time \d+$/],
  [
    'swapped-sealer-list',
    (p, parent) => bytesEqual(p.proposal.sealerList[0]!, parent.header.sealerList[1]!) && bytesEqual(p.proposal.sealerList[1]!, parent.header.sealerList[0]!),
    /^sealer list differs from the consensus list$/,
  ],
  ['sealer-out-of-range', (p) => p.proposal.sealer === 4, /^sealer index 4 is out of range$/],
  ['empty-block', (p) => p.proposal.transactions.length === 0, /^empty block$/],
];

describe('bad-block with a header variant: a PBFT leader whose Prepares carry a flawed header (4 nodes, f = 1)', () => {
  it.each(CASES)('%s: the Prepare on the wire carries the flaw, every honest replica refuses it for that flaw, and the honest chain goes on', async (variant, flawed, reason) => {
    const w = record(HONEST3);
    const violations: ProtocolViolation[] = [];
    const listeners: Array<(node: string, kind: string, fields: Readonly<Record<string, unknown>>, atMs: number) => void> = [w.onNodeEvent];
    const c = cluster({ seed: `byz-header-${variant}`, network: lan, byzantine: { node3: { behaviour: 'bad-block', variant, fromMs: 3_000 } }, onNodeEvent: (...a) => listeners.forEach((l) => l(...a)) });
    const monitor = new InvariantMonitor({ chain: c.chain, isHonest: (n) => n !== 'node3', report: (v) => violations.push(v) });
    listeners.push(monitor.onNodeEvent);
    const prepares = preparesFromNode3(c);
    c.startHelloWorldLoad(10, 20_000);
    await c.sim.run({ until: 20_000 });

    const bad = w.of('byzantine-action', ['node3'], 'bad-header');
    expect(bad.length).toBeGreaterThanOrEqual(2);
    expect(bad.every((e) => e.fields.variant === variant && e.fields.type === 'prepare')).toBe(true);
    expect((c.group('node3')!.consensus as PbftDriver).byzantineStats.badProposals).toBe(bad.length);
    // on the wire: node3's Prepares of those rounds carry the flaw
    const chain = await chainOf(c.group('node0')!);
    const sent = prepares.filter((p) => bad.some((b) => b.fields.height === p.height && b.fields.view === p.view));
    expect(sent.length).toBeGreaterThanOrEqual(bad.length);
    // (chain[i] is block i + 1: a Prepare for height h builds on chain[h - 2])
    expect(sent.every((p) => p.height >= 2)).toBe(true);
    for (const p of sent) expect(flawed(p, chain[p.height - 2]!, c), `${variant} at height ${p.height}, view ${p.view}`).toBe(true);
    // each honest replica refused them, naming the check the variant aims at
    const byz = sealerIndex(c, 'node3');
    for (const name of HONEST3) {
      const refused = w.of('pbft-prepare-refused', [name]).filter((e) => e.fields.from === byz && bad.some((b) => b.fields.height === e.fields.height && b.fields.view === e.fields.view));
      expect(refused.length, name).toBeGreaterThan(0);
      for (const e of refused) expect(String(e.fields.reason), name).toMatch(reason);
    }
    // no flawed block committed: the group changed view past node3, and the honest chain agrees
    expect(w.of('pbft-viewchange-sent', HONEST3).length).toBeGreaterThan(0);
    await monitor.audit([1], c.sim.now);
    expect(violations).toEqual([]);
    expect(w.monitor.conflicts).toEqual([]);
    await c.checkAgreement(HONEST3);
    expect(minHeight(c, HONEST3)).toBeGreaterThanOrEqual(10);
  });
});
