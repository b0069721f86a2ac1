// The consensus drivers' guards against what their state machines should never ask: a commit of a
// block the node does not hold, work decided against a head that has moved, a leader index past
// the sealer list. Honest runs never reach them, so each test hands the driver such an output (or
// status) itself, and checks that the driver refuses it, saying why.
import { describe, expect, it } from 'vitest';
import type { PbftLock, PbftOutput, Proposal, Raft, RaftOutput } from '../consensus/index.js';
import type { PbftDriver, RaftDriver } from '../node/index.js';
import { cluster } from './sim-cluster.js';

const lan = { latency: { kind: 'uniform' as const, minMs: 2, maxMs: 10 } };

/** A driver's private parts, as these tests reach for them. */
interface PbftInside {
  pbft: { status(): { lock: PbftLock | undefined } };
  apply(out: PbftOutput, now: number): Promise<void>;
}
interface RaftInside {
  raft: Raft;
  apply(out: RaftOutput, now: number): Promise<void>;
}

const unknownHash = new Uint8Array(32).fill(0x77);

/** A PBFT cluster run a little, then `act` inside one event on node0's driver; resolves with what the event threw. */
async function pbftEvent(seed: string, act: (inside: PbftInside, driver: PbftDriver, c: ReturnType<typeof cluster>) => Promise<void>): Promise<unknown> {
  const c = cluster({ seed, network: lan });
  c.startHelloWorldLoad(5, 3_000);
  await c.sim.run({ until: 2_000 });
  const driver = c.group('node0')!.consensus as PbftDriver;
  c.sim.at(2_000, () => act(driver as unknown as PbftInside, driver, c));
  return c.sim.run({ until: 2_001 }).then(
    () => undefined,
    (e: unknown) => e,
  );
}

describe('the PBFT driver', () => {
  it('refuses to commit a block it neither executed nor locked, naming it', async () => {
    const error = await pbftEvent('guard-pbft-unknown', (inside) => inside.apply({ broadcast: [], events: [], commit: { height: 99, view: 0, blockHash: unknownHash, signatures: [] } }, 0));
    expect(String(error)).toMatch(/commit of 0x7777\w*: the block is neither pending nor locked/);
  });

  it('refuses to commit its locked block when the lock\'s transactions no longer validate, saying which', async () => {
    const error = await pbftEvent('guard-pbft-lock', async (inside, _driver, c) => {
      const real = inside.pbft.status();
      const height = c.group('node0')!.blockNumber() + 1;
      const proposal = { number: height, parentHash: new Uint8Array(32), timestamp: 0, sealer: 0, sealerList: [], transactions: [Uint8Array.of(1, 2, 3)] } as unknown as Proposal;
      inside.pbft.status = () => ({ ...real, lock: { height, view: 0, blockHash: unknownHash, proposal } });
      await inside.apply({ broadcast: [], events: [], commit: { height, view: 0, blockHash: unknownHash, signatures: [] } }, 0);
    });
    expect(String(error)).toMatch(/commit of a locked block that no longer validates: transaction 0: /);
  });
});

describe('the Raft driver', () => {
  async function raftCluster(seed: string) {
    const events: Array<{ node: string; kind: string; fields: Readonly<Record<string, unknown>> }> = [];
    const c = cluster({ seed, consensus: 'raft', sealers: 3, network: lan, onNodeEvent: (node, kind, fields) => void events.push({ node, kind, fields }) });
    c.startHelloWorldLoad(5, 3_000);
    await c.sim.run({ until: 2_000 });
    const driver = c.group('node0')!.consensus as RaftDriver;
    return { c, events, driver, inside: driver as unknown as RaftInside };
  }

  it('refuses to execute or commit at a height other than the next, saying where the head is', async () => {
    const { c, events, inside } = await raftCluster('guard-raft-height');
    let head = -1;
    c.sim.at(2_000, async () => {
      head = c.group('node0')!.blockNumber();
      const proposal = { number: head + 5 } as unknown as Proposal;
      await inside.apply({ send: [], events: [], execute: { height: head + 5, proposal } }, 0);
      await inside.apply({ send: [], events: [], commit: { height: head + 5, blockHash: unknownHash, signatures: [], proposal, by: 'certificate' } }, 0);
    });
    await c.sim.run({ until: 2_001 });
    const of = (kind: string) => events.filter((e) => e.node === 'node0' && e.kind === kind && e.fields['height'] === head + 5).map((e) => e.fields['reason']);
    expect(of('raft-proposal-rejected')).toEqual([`the head moved to ${head}`]);
    expect(of('raft-commit-failed')).toEqual([`the head is ${head}`]);
  });

  it('names no leader when the state machine\'s leader index lies past the sealer list', async () => {
    const { c, driver, inside } = await raftCluster('guard-raft-leader');
    c.sim.at(2_000, () => {
      expect(driver.status().leaderId).toMatch(/^[0-9a-f]{128}$/);
      const real = inside.raft.status.bind(inside.raft);
      inside.raft.status = () => ({ ...real(), leader: 3 });
      expect(driver.status().leaderId).toBe('');
    });
    await c.sim.run({ until: 2_001 });
  });
});
