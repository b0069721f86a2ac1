import { describe, expect, it } from 'vitest';
import type { BlockDraft } from '../exec/index.js';
import type { Transaction } from '../chain/index.js';
import type { Group } from '../node/index.js';
import { lan } from './byzantine.test-helper.js';
import { crashWhen } from './crash-when.test-helper.js';
import { leaderOf, raftCluster, raftOf } from './raft-cluster.test-helper.js';
import { cluster, type Cluster } from './sim-cluster.js';

// The consensus drivers' failure paths: a node whose executor throws, whose re-execution of an
// agreed block gives another block, or whose pool no longer has a block's transactions. Each is
// forced on one node by wrapping its chain's executor or its transaction lookup for one height;
// what the node reports (the event and its reason) and that the group goes on are checked.

type Execute = Group['chain']['execute'];
type Lookup = Group['proposalTransactions'];

/**
 * Wraps a node's chain.execute and proposalTransactions: `script` gets each call's number (per
 * height, from 1) and decides what happens for that height's calls (undefined: the real call).
 */
function sabotage(
  g: Group,
  height: number,
  script: {
    execute?: (call: number, draft: BlockDraft, txs: readonly Transaction[], real: Execute) => ReturnType<Execute> | undefined;
    lookup?: (call: number) => string | undefined;
  },
) {
  const calls = { execute: 0, lookup: 0 };
  const realExecute: Execute = g.chain.execute.bind(g.chain);
  const realLookup: Lookup = g.proposalTransactions.bind(g);
  g.chain.execute = (draft, txs) => {
    if (draft.number !== height) return realExecute(draft, txs);
    return script.execute?.(++calls.execute, draft, txs, realExecute) ?? realExecute(draft, txs);
  };
  g.proposalTransactions = async (raws, number) => {
    if (number !== height) return realLookup(raws, number);
    return script.lookup?.(++calls.lookup) ?? realLookup(raws, number);
  };
  return calls;
}

/** A Raft group with a leader, a follower to sabotage, and the events each node reports. */
async function raftGroup(seed: string) {
  const events: Array<{ node: string; kind: string; fields: Readonly<Record<string, unknown>> }> = [];
  const { c } = raftCluster({ seed, onNodeEvent: (node, kind, fields) => void events.push({ node, kind, fields }) });
  await c.sim.run({ until: 3_000 });
  const leader = leaderOf(c)!;
  const follower = c.names.find((n) => n !== leader)!;
  return { c, leader, follower, events, next: c.group(leader)!.blockNumber() + 1 };
}

async function submitOne(c: Cluster, to: string): Promise<void> {
  const g = c.group(to)!;
  const tx = c.client.build({ to: new Uint8Array(20).fill(0x42), data: new Uint8Array(0), blockLimit: BigInt(g.blockNumber() + 500) });
  expect((await c.submit(to, tx.raw))?.accepted).toBe(true);
}

const failing = (message: string) => () => Promise.reject(new Error(message));

describe('Raft driver: failure paths', () => {
  it("a follower whose executor throws rejects the proposal with the error's words, and commits the agreed block later by executing it again", async () => {
    const { c, leader, follower, events, next } = await raftGroup('raft-execute-throws');
    const calls = sabotage(c.group(follower)!, next, { execute: (call) => (call === 1 ? failing('disk on fire')() : undefined) });
    c.sim.at(3_000, () => submitOne(c, leader));
    await c.sim.run({ until: 6_000 });
    expect(events.filter((e) => e.node === follower && e.kind === 'raft-proposal-rejected')).toEqual([{ node: follower, kind: 'raft-proposal-rejected', fields: { group: 1, height: next, reason: 'disk on fire' } }]);
    expect(calls.execute).toBe(2);
    const hashes = await Promise.all(c.names.map(async (n) => (await c.group(n)!.blockByNumber(next))?.hash));
    expect(new Set(hashes.map((h) => h && Buffer.from(h).toString('hex'))).size).toBe(1);
    expect(hashes[0]).toBeDefined();
  });

  it('a follower restarted between accepting a block and its commit executes the agreed block again; it refuses the commit, saying why, when its pool no longer gives the transactions, or re-execution fails or gives another block', async () => {
    const refusals: Record<string, unknown> = {};
    for (const [name, script] of [
      ['gone', { lookup: (call: number) => (call === 1 ? 'transaction 0xab is gone' : undefined) }],
      ['throws', { execute: (call: number) => (call === 1 ? failing('disk on fire')() : undefined) }],
      ['differs', { execute: (call: number, draft: BlockDraft, txs: readonly Transaction[], real: Execute) => (call === 1 ? real({ ...draft, timestamp: draft.timestamp + 1 }, txs) : undefined) }],
    ] as const) {
      const { c, leader, follower, events, next } = await raftGroup(`raft-commit-refused-${name}`);
      // the follower's executor holds the block until the crash; after the restart only its Raft state does
      const crash = crashWhen(c, (n) => (n === follower && raftOf(c, n)?.pending?.height === next ? true : undefined), 3_000);
      c.sim.at(3_000, () => submitOne(c, leader));
      await c.sim.run({ until: 4_000 });
      expect(crash.found()?.name, name).toBe(follower);
      c.sim.restart(follower);
      await c.sim.run({ until: c.sim.now + 1 });
      sabotage(c.group(follower)!, next, script);
      await c.sim.run({ until: 5_000 });
      const failed = events.filter((e) => e.node === follower && e.kind === 'raft-commit-failed');
      refusals[name] = failed.map((e) => [e.fields.height === next ? 'next' : e.fields.height, e.fields.reason]);
      // a refusing node is not left behind for good: it gets the block from its peers
      await c.sim.run({ until: 15_000 });
      expect((await c.group(follower)!.blockByNumber(next))?.hash, name).toEqual((await c.group(leader)!.blockByNumber(next))!.hash);
    }
    expect(refusals).toEqual({
      gone: [['next', 'the agreed block no longer validates: transaction 0xab is gone']],
      throws: [['next', 're-execution failed: disk on fire']],
      differs: [['next', expect.stringMatching(/^re-execution gives 0x[0-9a-f]{64}$/)]],
    });
  });
});

describe('PBFT driver: failure paths', () => {
  it("a replica whose executor throws rejects the proposal with the error's words, and the group goes on", async () => {
    const events: Array<{ node: string; kind: string; fields: Readonly<Record<string, unknown>> }> = [];
    const c = cluster({ seed: 'pbft-execute-throws', network: lan, onNodeEvent: (node, kind, fields) => void events.push({ node, kind, fields }) });
    await c.sim.run({ until: 2_000 });
    const next = c.group('node0')!.blockNumber() + 1;
    const calls = sabotage(c.group('node2')!, next, { execute: (call) => (call === 1 ? failing('disk on fire')() : undefined) });
    c.sim.at(2_000, () => submitOne(c, 'node0'));
    await c.sim.run({ until: 8_000 });
    expect(events.filter((e) => e.node === 'node2' && e.kind === 'pbft-proposal-rejected').map((e) => e.fields)).toEqual([expect.objectContaining({ height: next, reason: 'disk on fire' })]);
    expect(calls.execute).toBeGreaterThan(1);
    const hashes = await Promise.all(c.names.map(async (n) => (await c.group(n)!.blockByNumber(next))?.hash));
    expect(hashes.every((h) => h !== undefined && Buffer.from(h).equals(Buffer.from(hashes[0]!)))).toBe(true);
  });
});
