import { describe, expect, it } from 'vitest';
import { toHex } from '../codec/index.js';
import { PBFT_LOCK_KEY } from '../node/index.js';
import { lan, minHeight } from './byzantine.test-helper.js';
import { CommitMonitor } from './commit-monitor.js';
import { cluster } from './sim-cluster.js';

const HONEST3 = ['node0', 'node1', 'node2'];

interface Ev {
  readonly node: string;
  readonly kind: string;
  readonly fields: Readonly<Record<string, unknown>>;
  readonly atMs: number;
}

function record(honest: readonly string[]) {
  const monitor = new CommitMonitor(honest);
  const events: Ev[] = [];
  return {
    monitor,
    events,
    onNodeEvent(node: string, kind: string, fields: Readonly<Record<string, unknown>>, atMs: number) {
      monitor.onNodeEvent(node, kind, fields, atMs);
      events.push({ node, kind, fields, atMs });
    },
    of(kind: string, nodes: readonly string[]): Ev[] {
      return events.filter((e) => e.kind === kind && nodes.includes(e.node));
    },
  };
}

describe('forge-sync other-body: real headers and signatures over a body that is not theirs', () => {
  it('a node catching up executes such a block, finds it is not the one its header names, refuses it and gets the real one from honest peers', async () => {
    const w = record(HONEST3);
    const c = cluster({ seed: 'byz-forge-other-body', network: lan, byzantine: { node3: { behaviour: 'forge-sync', variant: 'other-body' } }, onNodeEvent: w.onNodeEvent });
    c.startHelloWorldLoad(10, 30_000);
    c.sim.at(4_000, () => c.sim.crash('node2'));
    c.sim.at(12_000, () => c.sim.restart('node2'));
    await c.sim.run({ until: 30_000 });

    const forged = w.of('byzantine-action', ['node3']).filter((e) => e.fields.action === 'forged-blocks');
    expect(forged.length).toBeGreaterThan(0);
    expect(forged.every((e) => e.fields.variant === 'other-body')).toBe(true);
    const rejected = w.of('sync-block-rejected', HONEST3);
    expect(rejected.length).toBeGreaterThan(0);
    const byzId = c.chain.idOf('node3');
    for (const e of rejected) {
      expect(e.fields.peer).toBe(byzId);
      // the signatures were valid: only re-executing the body shows the forgery
      expect(String(e.fields.reason)).toMatch(/^block \d+ does not re-execute to the same result: .*transactionsRoot 0x/);
    }
    expect(w.monitor.conflicts).toEqual([]);
    await c.checkAgreement(HONEST3);
    expect(w.of('block-committed', ['node2']).filter((e) => e.fields.via === 'sync').length).toBeGreaterThan(0);
    expect(c.group('node2')!.blockNumber()).toBeGreaterThanOrEqual(minHeight(c, ['node0', 'node1']) - 1);
  });

  // The commit path for a block whose execution the node no longer holds: node2 leads height 10,
  // executes its proposal and sends its Commit (a persisted lock), but the others' Commits reach it
  // late (and the honest peers' sync blocks not at all for a while); meanwhile the forger answers
  // its sync request with block 10 under another body, whose
  // execution replaces and then discards node2's pending block. When the Commits arrive, node2
  // must commit the agreed block by executing its locked proposal again.
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
