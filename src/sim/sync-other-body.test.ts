import { describe, expect, it } from 'vitest';
import { toHex } from '../codec/index.js';
import { PBFT_LOCK_KEY } from '../node/index.js';
import { lan, minHeight, record } from './byzantine.test-helper.js';
import { cluster } from './sim-cluster.js';

const HONEST3 = ['node0', 'node1', 'node2'];

// (that a node catching up refuses such blocks is a row of byzantine-adversaries.test.ts's forge-sync table)
describe('forge-sync other-body: real headers and signatures over a body that is not theirs', () => {
  // The commit path for a block whose execution the node no longer holds: node2 leads height 10,
  // executes its proposal and sends its Commit (a persisted lock), but the others' Commits reach it
  // late (and the honest peers' sync blocks not at all for a while); meanwhile the forger answers
  // its sync request with block 10 under another body, whose execution replaces and then discards
  // node2's pending block. When the Commits arrive, node2 must commit the agreed block by
  // executing its locked proposal again.
  it('a locked node whose pending block a refused sync block displaced commits the agreed block from its lock', async () => {
    const w = record(HONEST3);
    const atRejection: Array<{ number: number; pending: string | undefined; lock: Promise<Uint8Array | undefined> }> = [];
    const c = cluster({
      seed: 'byz-other-body-locked',
      network: lan,
      byzantine: { node3: { behaviour: 'forge-sync', variant: 'other-body' } },
      onNodeEvent: (node, kind, fields, atMs) => {
        w.onNodeEvent(node, kind, fields, atMs);
        if (node !== 'node2' || kind !== 'sync-block-rejected') return;
        const group = c.group('node2')!;
        const pending = group.chain.executor.pending;
        atRejection.push({ number: Number(fields.number), pending: pending && toHex(pending.hash), lock: group.store.get(PBFT_LOCK_KEY) });
      },
    });
    c.startHelloWorldLoad(10, 20_000);
    await c.sim.run({ until: 5_000 });
    c.sim.network.messageFault({ kinds: ['pbft.commit'], to: ['node2'], delayMs: 1500, durationMs: 3000 });
    // the honest peers' blocks do not reach node2 meanwhile: only the forger's do
    c.sim.network.messageFault({ kinds: ['sync.blocks'], from: ['node0', 'node1'], to: ['node2'], drop: true, durationMs: 3000 });
    await c.sim.run({ until: 12_000 });

    const first = atRejection[0]!;
    expect(first).toBeDefined();
    const committed = w.of('block-committed', ['node2']).find((e) => Number(e.fields.number) === first.number)!;
    const agreed = String(committed.fields.hash);
    // at the rejection node2 held no pending block, and was locked on the block it then committed
    expect(first.pending).toBeUndefined();
    const lock = await first.lock;
    expect(lock, 'a persisted lock at the rejection').toBeDefined();
    expect(toHex(lock!)).toContain(agreed.slice(2));
    expect(committed.fields.via).toBe('consensus');
    expect(committed.atMs).toBeGreaterThan(w.of('sync-block-rejected', ['node2'])[0]!.atMs);
    expect(w.monitor.conflicts).toEqual([]);
    await c.checkAgreement(HONEST3);
    expect(minHeight(c, HONEST3)).toBeGreaterThan(first.number + 3);
  });
});
