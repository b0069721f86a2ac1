import { describe, expect, it } from 'vitest';
import type { Proposal } from '../proposal.js';
import { GENESIS, ids, signerOf, T0, voteReq } from './raft-harness.test-helper.js';
import type { Heartbeat, HeartbeatResponse, VoteFlag, VoteResponse } from './raft-messages.js';
import { INITIAL_HARD_STATE, Raft, type RaftConfig, type RaftOutput } from './raft.js';

// FISCO's figures in the Raft state machine, pinned as numbers (raft-edges.test.ts checks the
// edges through the constants themselves). A file of its own: see docs/mutation.md, "Editing a
// selected test file".

const config = (selfIndex: number): RaftConfig => ({ sealers: ids.slice(0, 4), selfIndex, minElectMs: 1000, maxElectMs: 2000, txCountLimit: 10 });
/** With random() = 0.5 the first election deadline is T0 + 1500. */
const DEADLINE = T0 + 1500;
const make = (self: number) => new Raft(config(self), GENESIS, INITIAL_HARD_STATE, T0, signerOf(self), () => 0.5);
const answer = (from: number, term: number, flag: VoteFlag): VoteResponse => ({ type: 'voteResp', term, idx: from, height: 0, blockHash: GENESIS.hash, candidateTerm: term, flag, lastLeaderTerm: 0 });
const heartbeat = (from: number, term: number): Heartbeat => ({ type: 'heartbeat', term, idx: from, height: 0, blockHash: GENESIS.hash, seq: 1, headSignatures: [] });
const response = (from: number, term: number): HeartbeatResponse => ({ type: 'heartbeatResp', term, idx: from, height: 0, blockHash: GENESIS.hash, seq: 1 });
const flagOf = (out: RaftOutput): VoteFlag | undefined => {
  const m = out.send[0]?.message;
  return m?.type === 'voteResp' ? m.flag : undefined;
};

describe('Raft: FISCO\'s figures', () => {
  it('a proposal may be at most 10 minutes ahead of local time (a block 9 min 59 s ahead is sealed, 10 min 1 s is refused)', () => {
    const at = (ahead: number) => {
      const r = make(0);
      r.tick(DEADLINE);
      const term = r.status().term;
      for (let j = 1; r.status().role !== 'leader'; j++) r.onMessage(answer(j, term, 'granted'), DEADLINE);
      for (const j of [1, 2]) r.onMessage(response(j, term), DEADLINE);
      const p: Proposal = { number: 1, parentHash: GENESIS.hash, timestamp: DEADLINE + ahead, sealer: 0, sealerList: ids.slice(0, 4), transactions: [Uint8Array.of(0, 7)] };
      return r.propose(p, DEADLINE);
    };
    expect(at(599_000).execute?.height).toBe(1);
    expect(at(601_000).events[0]!.fields.reason).toContain('too far ahead');
  });

  it('the first-vote memory lasts 2 × 4 heartbeats from the leader, as FISCO\'s clearFirstVoteCache: after 7 the next candidate is granted, after 8 it meets a first vote again', () => {
    const after = (heartbeats: number) => {
      const r = make(1);
      expect(flagOf(r.onMessage(voteReq(2, 5), T0))).toBe('firstVote');
      for (let i = 1; i <= heartbeats; i++) r.onMessage(heartbeat(0, 5), T0 + 10 * i);
      return flagOf(r.onMessage(voteReq(3, 6), T0 + 10 * heartbeats + 600));
    };
    expect(after(7)).toBe('granted');
    expect(after(8)).toBe('firstVote');
  });
});
