import { describe, expect, it } from 'vitest';
import { bigintToBytes, rlpEncode, toHex } from '../../codec/index.js';
import { RAFT_TYPES, VOTE_FLAGS } from '../../consensus/index.js';
import { decodeRaftState, encodeFrame, RAFT_STATE_KEY } from '../../node/index.js';
import { cluster } from '../sim-cluster.js';
import { InvariantMonitor, type ProtocolViolation } from './invariant-monitor.js';

const int = (n: number) => bigintToBytes(BigInt(n));
const SIG = new Uint8Array(65).fill(7);
const grant = (term: number, idx: number) =>
  encodeFrame(1, 'raft', rlpEncode([int(RAFT_TYPES.voteResp), int(term), int(idx), int(0), new Uint8Array(32), int(term), int(VOTE_FLAGS.granted), int(0), SIG]));

describe('raft-vote-durable', () => {
  it('a vote in the term on disk, but for another candidate than the disk names, is a vote the disk does not keep', async () => {
    const c = cluster({ consensus: 'raft', seed: 'vote-durable-candidate' });
    await c.sim.run({ until: 4000 });
    const found: ProtocolViolation[] = [];
    const monitor = new InvariantMonitor({ chain: c.chain, isHonest: () => true, report: (v) => found.push(v) });
    const state = decodeRaftState(c.chain.sim.node('node2').storage.openSync('group1').getSync(RAFT_STATE_KEY)!);
    expect(state.votedTerm).toBeGreaterThan(0);
    const onDisk = c.chain.nameOf(toHex(state.votedFor!).slice(2))!;
    const other = ['node0', 'node1', 'node3'].find((n) => n !== onDisk)!;
    monitor.onSent('node2', other, grant(state.votedTerm, 2), 1);
    c.chain.sim.crash('node2');
    expect(found.map((v) => v.invariant)).toEqual(['raft-vote-durable']);
    expect(found[0]!.detail).toBe(`node2 crashed with a vote for term ${state.votedTerm} (${onDisk}) on its disk, but it had voted in term ${state.votedTerm} for ${other} (1 ms)`);
  }, 60_000);
});
