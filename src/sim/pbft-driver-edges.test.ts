import { describe, expect, it } from 'vitest';
import { PBFT_LOCK_KEY, protocolId } from '../node/index.js';
import { lan } from './byzantine.test-helper.js';
import { crashWhen } from './crash-when.test-helper.js';
import { cluster } from './sim-cluster.js';

// The PBFT driver between the state machine and the group: what reaches the disk before a
// Commit leaves, how blocks are stamped, what it refuses on the wire, what it reports.

const lockOf = (c: ReturnType<typeof cluster>, name: string) => {
  const status = c.group(name)?.consensusStatus() as { committedPrepareCache: { blockHash: string; height: number } } | undefined;
  return status?.committedPrepareCache;
};

describe('PBFT driver: the lock on disk', () => {
  it('a lock is on disk (a synced write) before the Commit leaves: a sealer crashed right after locking restarts locked on the same block', async () => {
    const c = cluster({ seed: 'pbft-lock-durable', network: lan });
    c.startHelloWorldLoad(10, 6_000);
    const crash = crashWhen(c, (name) => {
      const lock = lockOf(c, name);
      return lock && lock.height > 0 ? lock : undefined;
    }, 2_000);
    await c.sim.run({ until: 3_000 });
    const { name, found: lock } = await crash.restart();
    expect(lockOf(c, name)).toMatchObject({ blockHash: lock.blockHash, height: lock.height });
  });

  it('once its block commits the lock is deleted from the disk', async () => {
    const c = cluster({ seed: 'pbft-lock-cleared', network: lan });
    c.startHelloWorldLoad(10, 3_000);
    await c.sim.run({ until: 6_000 });
    expect(c.group('node0')!.blockNumber()).toBeGreaterThan(5);
    for (const name of c.names) expect(await c.group(name)!.store.get(PBFT_LOCK_KEY), name).toBeUndefined();
  });
});

describe('PBFT driver: blocks and the wire', () => {
  it('each block is stamped with the time it was sealed: a partial block at least min_block_generation_time after its parent', async () => {
    const c = cluster({ seed: 'pbft-stamps', network: lan });
    c.startHelloWorldLoad(10, 5_000);
    await c.sim.run({ until: 6_000 });
    const g = c.group('node1')!;
    expect(g.blockNumber()).toBeGreaterThan(5);
    for (let n = 2; n <= g.blockNumber(); n++) {
      const [parent, block] = await Promise.all([g.blockByNumber(n - 1), g.blockByNumber(n)]);
      expect(block!.block.header.timestamp - parent!.block.header.timestamp, `block ${n}`).toBeGreaterThanOrEqual(500);
    }
  });

  it('bytes that are no PBFT message are counted and traced; a Raft frame is not the PBFT driver’s to read', async () => {
    const bad: Array<{ node: string; fields: Readonly<Record<string, unknown>> }> = [];
    const c = cluster({ seed: 'pbft-garbage', network: lan, onNodeEvent: (node, kind, fields) => void (kind === 'bad-message' && bad.push({ node, fields })) });
    await c.sim.run({ until: 2_000 });
    const to = c.chain.idOf('node1');
    c.sim.at(2_000, () => c.group('node0')!.send(to, 'pbft', Uint8Array.of(0xc3, 0x01, 0x02)));
    c.sim.at(2_100, () => c.group('node0')!.send(to, 'raft', Uint8Array.of(0xc3, 0x01, 0x02)));
    await c.sim.run({ until: 2_500 });
    expect(bad).toEqual([{ node: 'node1', fields: { group: 1, module: 'pbft', error: expect.stringContaining('PBFT') } }]);
    expect(c.group('node1')!.counters.badMessages).toBe(1);
  });
});

describe('PBFT driver: getConsensusStatus', () => {
  it('sealer 0 and an observer: account type, config error, connected sealers (itself included), the next height, f, the protocol', async () => {
    const c = cluster({ seed: 'pbft-status', network: lan, observers: 1 });
    c.startHelloWorldLoad(5, 3_000);
    await c.sim.run({ until: 3_000 });
    const first = c.names.find((n) => c.group(n)!.sealers()[0] === c.chain.idOf(n))!;
    const g = c.group(first)!;
    expect(g.consensusStatus()).toMatchObject({
      accountType: 1,
      cfgErr: false,
      allowFutureBlocks: true,
      omitEmptyBlock: true,
      connectedNodes: 4,
      consensusedBlockNumber: g.blockNumber() + 1,
      maxFaultyLeader: 1,
      nodeIndex: 0,
      nodeNum: 4,
      protocolId: protocolId(1, 'pbft'),
    });
    expect(c.group('node4')!.consensusStatus()).toMatchObject({ accountType: 0, cfgErr: true, connectedNodes: 4, nodeIndex: -1 });
    // f = ⌊(n − 1) / 3⌋: 1 of 5 as of 4 (the two formulas that agree at 4 part at 5)
    const five = cluster({ seed: 'pbft-status-5', network: lan, sealers: 5 });
    await five.sim.run({ until: 500 });
    expect(five.group('node0')!.consensusStatus()).toMatchObject({ maxFaultyLeader: 1, nodeNum: 5 });
  });

  it('before any proposal every cache is the empty entry: zero hash, height -1, index 65535, view 0', async () => {
    const c = cluster({ seed: 'pbft-status-empty', network: lan });
    await c.sim.run({ until: 1 });
    const empty = { blockHash: `0x${'00'.repeat(32)}`, height: -1, idx: 65535, view: 0 };
    for (const name of c.names) {
      expect(c.group(name)!.consensusStatus(), name).toMatchObject({ prepareCache: empty, rawPrepareCache: empty, committedPrepareCache: empty, futureCache: empty });
    }
  });
});
