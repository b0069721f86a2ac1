import { describe, expect, it } from 'vitest';
import { encodeFunctionCall } from '../abi/index.js';
import { bigintToBytes, fromHex, rlpEncode } from '../codec/index.js';
import { encodeRaftMessage, proposalItems, type Proposal } from '../consensus/index.js';
import { keccak256 } from '../crypto/index.js';
import { decodeRaftState } from '../node/index.js';
import { record } from './byzantine.test-helper.js';
import { crashWhen } from './crash-when.test-helper.js';
import { leaderOf, raftCluster, raftOf } from './raft-cluster.test-helper.js';

// The Raft driver between the state machine and the group: what reaches the disk before a
// message leaves, when the leader seals, what it refuses on the wire, what it reports.

const CONSENSUS = fromHex('0000000000000000000000000000000000001003');
const int = (n: number) => bigintToBytes(BigInt(n));

describe('Raft driver: durable state', () => {
  it('a vote is on disk (a synced write) before its answer leaves: a node crashed right after casting a vote (for a candidate or itself) remembers it', async () => {
    const { c } = raftCluster({ seed: 'raft-vote-durable' });
    const voted = (name: string) => {
      const s = raftOf(c, name);
      return s && s.role === 'follower' && s.votedTerm > 0 ? s.votedTerm : undefined;
    };
    const crash = crashWhen(c, voted);
    await c.sim.run({ until: 4_000 });
    const { name, found: votedTerm } = await crash.restart();
    expect(raftOf(c, name)!.votedTerm).toBe(votedTerm);
  });

  it('decodes the stored Raft state, and names the field of a stored state it cannot read', () => {
    const votedFor = new Uint8Array(64).fill(7);
    expect(decodeRaftState(rlpEncode([int(3), int(4), votedFor, int(2), []] as never))).toEqual({ term: 3, votedTerm: 4, votedFor, lastEntryTerm: 2, pending: null });
    expect(decodeRaftState(rlpEncode([int(0), int(0), new Uint8Array(0), int(0), []] as never)).votedFor).toBeNull();
    const proposal: Proposal = { number: 5, parentHash: new Uint8Array(32).fill(4), timestamp: 1000, sealer: 1, sealerList: [votedFor], transactions: [Uint8Array.of(1, 2)] };
    const blockHash = new Uint8Array(32).fill(9);
    const withPending = decodeRaftState(rlpEncode([int(3), int(4), votedFor, int(3), [int(5), int(3), blockHash, proposalItems(proposal)]] as never));
    expect(withPending.pending).toEqual({ height: 5, term: 3, blockHash, proposal });
    const zeroLed = Uint8Array.of(0, 1);
    const field = (items: unknown[]) => {
      try {
        decodeRaftState(rlpEncode(items as never));
      } catch (e) {
        return (e as { field?: string }).field;
      }
      return 'decoded';
    };
    expect(field([zeroLed, int(4), votedFor, int(2), []])).toBe('term');
    expect(field([int(3), zeroLed, votedFor, int(2), []])).toBe('votedTerm');
    expect(field([int(3), int(4), votedFor, zeroLed, []])).toBe('lastEntryTerm');
    expect(field([int(3), int(4), votedFor, int(3), [zeroLed, int(3), blockHash, proposalItems(proposal)]])).toBe('height');
    expect(field([int(3), int(4), votedFor, int(3), [int(5), zeroLed, blockHash, proposalItems(proposal)]])).toBe('term');
  });
});

describe('Raft driver: sealing', () => {
  it('a partial block waits min_block_generation_time after the last commit (its own timer), a full one goes at once, each stamped with the time it was sealed', async () => {
    const w = record([]);
    // what to send 10 ms after the leader commits block n
    const afterCommit = new Map<number, number>();
    let leader = '';
    const { c } = raftCluster({
      seed: 'raft-sealing-times',
      // heartbeats every 300 ms: the leader's own timer does not tick at commit + 500
      genesis: { txCountLimit: 3, minElectTime: 1200, maxElectTime: 2400 },
      onNodeEvent: (node, kind, fields, atMs) => {
        w.onNodeEvent(node, kind, fields, atMs);
        const count = afterCommit.get(Number(fields.number));
        if (kind === 'block-committed' && node === leader && count) c.sim.after(10, () => send(count));
      },
    });
    const send = async (n: number) => {
      for (let i = 0; i < n; i++) {
        const tx = c.client.build({ to: new Uint8Array(20).fill(0x42), data: new Uint8Array(0), blockLimit: BigInt(c.group(leader)!.blockNumber() + 500) });
        expect((await c.submit(leader, tx.raw))?.accepted).toBe(true);
      }
    };
    await c.sim.run({ until: 4_000 });
    leader = leaderOf(c)!;
    const committedAt = (n: number) => w.of('block-committed', [leader]).find((e) => e.fields.number === n)!.atMs;
    const sealedAt = (n: number) => w.of('raft-sealed', [leader]).find((e) => e.fields.height === n);
    afterCommit.set(1, 1); // a partial block: 500 ms after the commit
    afterCommit.set(2, 3); // tx_count_limit: at once
    c.sim.at(4_000, () => send(1)); // long after the last commit: at once
    await c.sim.run({ until: 6_000 });
    expect(sealedAt(1)!.atMs).toBe(4_000);
    // (the clock the driver reads is in whole milliseconds, the simulation's in microseconds)
    expect(sealedAt(2)!.fields.txs).toBe(1);
    expect(Math.abs(sealedAt(2)!.atMs - (committedAt(1) + 500))).toBeLessThan(1);
    expect(sealedAt(3)!.fields.txs).toBe(3);
    // as soon as n − f followers report the new head, not 500 ms after the commit
    expect(sealedAt(3)!.atMs - committedAt(2)).toBeLessThan(100);
    const header = async (n: number) => (await c.group(leader)!.blockByNumber(n))!.block.header;
    const stamped = (await header(2)).timestamp - (await header(1)).timestamp;
    expect(Math.abs(stamped - (sealedAt(2)!.atMs - sealedAt(1)!.atMs))).toBeLessThan(1);
  });

  it('a block carries at most one membership change: two in the pool go in two blocks', async () => {
    // the first transaction is sealed at once; the two changes wait in the pool while it commits
    const { c } = raftCluster({ seed: 'raft-one-change', spare: 2 });
    await c.sim.run({ until: 4_000 });
    const leader = leaderOf(c)!;
    const g = c.group(leader)!;
    const hashes: Uint8Array[] = [];
    c.sim.at(4_000, async () => {
      const first = c.client.build({ to: new Uint8Array(20).fill(0x42), data: new Uint8Array(0), blockLimit: BigInt(g.blockNumber() + 500) });
      expect((await c.submit(leader, first.raw))?.accepted).toBe(true);
      for (const id of [c.ids[4]!, c.ids[5]!]) {
        const tx = c.client.build({ to: CONSENSUS, data: encodeFunctionCall('addObserver(string)', [id], keccak256), blockLimit: BigInt(g.blockNumber() + 500) });
        expect((await c.submit(leader, tx.raw))?.accepted).toBe(true);
        hashes.push(tx.hash);
      }
    });
    await c.sim.run({ until: 8_000 });
    const at = await Promise.all(hashes.map(async (h) => (await g.transaction(h))!));
    expect(at.map((t) => t.receipt.status)).toEqual([0, 0]);
    expect(at[1]!.blockNumber).toBe(at[0]!.blockNumber + 1);
  });
});

describe('Raft driver: the wire and the status', () => {
  it("a Raft message relayed by another node than its signer, and bytes that are no Raft message, are counted, traced with the sender and dropped; a PBFT frame is ignored", async () => {
    const bad: Array<{ node: string; fields: Readonly<Record<string, unknown>> }> = [];
    const { c } = raftCluster({ seed: 'raft-relayed', onNodeEvent: (node, kind, fields) => void (kind === 'bad-message' && bad.push({ node, fields })) });
    await c.sim.run({ until: 3_000 });
    const g2 = c.group('node2')!;
    const signed = encodeRaftMessage({ type: 'heartbeatResp', term: 1, idx: 2, height: 0, blockHash: new Uint8Array(32), seq: 1 }, g2.options.signer, (d) => c.suite.hash(d));
    const to = c.chain.idOf('node1');
    c.sim.at(3_000, () => c.group('node0')!.send(to, 'raft', signed));
    c.sim.at(3_100, () => c.group('node0')!.send(to, 'raft', Uint8Array.of(0xc3, 0x01, 0x02)));
    // another consensus's module is not the Raft driver's to read: dropped without a word
    c.sim.at(3_200, () => c.group('node0')!.send(to, 'pbft', Uint8Array.of(0xc3, 0x01, 0x02)));
    await c.sim.run({ until: 3_500 });
    const from = c.chain.idOf('node0');
    expect(bad).toEqual([
      { node: 'node1', fields: { from, group: 1, module: 'raft', error: 'a heartbeatResp claiming sealer 2 came from another node' } },
      { node: 'node1', fields: expect.objectContaining({ from, module: 'raft' }) },
    ]);
    expect(c.group('node1')!.counters.badMessages).toBe(2);
  });

  it('getConsensusStatus of sealer 0: a sealer (accountType 1), no config error, future blocks allowed', async () => {
    const { c } = raftCluster({ seed: 'raft-status-0' });
    await c.sim.run({ until: 3_000 });
    const first = c.names.find((n) => c.group(n)!.sealers()[0] === c.chain.idOf(n))!;
    expect(c.group(first)!.consensusStatus()).toMatchObject({ accountType: 1, cfgErr: false, allowFutureBlocks: true, nodeIndex: 0 });
  });
});
