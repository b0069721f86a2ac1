import { describe, expect, it } from 'vitest';
import type { Proposal } from '../proposal.js';
import { blockHashOf, GENESIS, ids, signerOf, T0, voteReq } from './raft-harness.test-helper.js';
import type { Heartbeat, HeartbeatResponse, IndexedSignature, VoteFlag, VoteResponse } from './raft-messages.js';
import { INITIAL_HARD_STATE, Raft, RAFT_MAX_BLOCK_TIME_DIFF_MS, type RaftConfig, type RaftEntry, type RaftHardState, type RaftHead, type RaftOutput } from './raft.js';

// The edges of the Raft state machine, one input at a time: boundaries, message orders and
// answers a cluster run rarely produces. Kept apart from raft.test.ts (see docs/mutation.md).

const HEAD1: RaftHead = { height: 1, hash: new Uint8Array(32).fill(1), timestamp: 1, signatures: [] };
const configOf = (selfIndex: number, n = 4, sealers = ids.slice(0, n)): RaftConfig => ({ sealers, selfIndex, minElectMs: 1000, maxElectMs: 2000, txCountLimit: 10 });
/** With random() = 0.5 the first election deadline is T0 + 1500. */
const DEADLINE = T0 + 1500;

interface Make {
  readonly n?: number;
  readonly hard?: RaftHardState;
  readonly head?: RaftHead;
  readonly sign?: (h: Uint8Array) => Uint8Array;
}
const make = (self: number, { n = 4, hard = INITIAL_HARD_STATE, head = GENESIS, sign = signerOf(self) }: Make = {}) =>
  new Raft(configOf(self, n), head, hard, T0, sign, () => 0.5);

const proposalOn = (head: RaftHead, sealer = 0, n = 4, timestamp = T0): Proposal => ({
  number: head.height + 1,
  parentHash: head.hash,
  timestamp,
  sealer,
  sealerList: ids.slice(0, n),
  transactions: [Uint8Array.of(sealer, 7)],
});
const answer = (from: number, candidateTerm: number, flag: VoteFlag, term = candidateTerm): VoteResponse => ({
  type: 'voteResp',
  term,
  idx: from,
  height: 0,
  blockHash: GENESIS.hash,
  candidateTerm,
  flag,
  lastLeaderTerm: 0,
});
const heartbeat = (from: number, term: number, more: Partial<Heartbeat> = {}): Heartbeat => ({
  type: 'heartbeat',
  term,
  idx: from,
  height: 0,
  blockHash: GENESIS.hash,
  seq: 1,
  headSignatures: [],
  ...more,
});
const response = (from: number, term: number, more: Partial<HeartbeatResponse> = {}): HeartbeatResponse => ({
  type: 'heartbeatResp',
  term,
  idx: from,
  height: 0,
  blockHash: GENESIS.hash,
  seq: 1,
  ...more,
});
const flagOf = (out: RaftOutput): VoteFlag | undefined => {
  const m = out.send[0]?.message;
  return m?.type === 'voteResp' ? m.flag : undefined;
};
const kinds = (out: RaftOutput) => out.events.map((e) => e.kind);
const sig = (index: number, hash: Uint8Array): IndexedSignature => ({ index, signature: signerOf(index)(hash) });
const ackBy = (from: number, height: number, hash: Uint8Array) => ({ height, blockHash: hash, signature: signerOf(from)(hash) });

/** Sealer 0 of `n` wins term 1 at DEADLINE with the grants of 1 and 2 (3 of 4). */
function leader(n = 4, head = GENESIS, hard = INITIAL_HARD_STATE) {
  const r = make(0, { n, head, hard });
  r.tick(DEADLINE);
  const term = r.status().term;
  for (let j = 1; r.status().role !== 'leader'; j++) r.onMessage(answer(j, term, 'granted'), DEADLINE);
  return { r, term };
}
/** A leader of 4 on genesis whose followers reported its head, with block 1 sealed and executed. */
function sealing(reporters = [1, 2, 3]) {
  const { r, term } = leader();
  for (const j of reporters) r.onMessage(response(j, term), DEADLINE);
  const p = proposalOn(GENESIS);
  const hash = blockHashOf(p);
  r.propose(p, DEADLINE);
  const sealed = r.onExecuted(1, hash, DEADLINE);
  return { r, term, p, hash, sealed };
}
/** Sealer 1 following leader 0 in `term`, holding block 1 (executed and accepted) at `now`. */
function holding(term = 1, now = T0 + 100) {
  const r = make(1);
  const p = proposalOn(GENESIS);
  const hash = blockHashOf(p);
  r.onMessage(heartbeat(0, term, { pending: { height: 1, blockHash: hash, proposal: p } }), now);
  const accepted = r.onExecuted(1, hash, now);
  return { r, p, hash, accepted };
}

describe('Raft: execution reports and commits', () => {
  it("a follower keeps executing its block when a report for another height comes in; the right report is accepted and acknowledged", () => {
    const r = make(1);
    const p = proposalOn(GENESIS);
    const hash = blockHashOf(p);
    expect(r.onMessage(heartbeat(0, 1, { pending: { height: 1, blockHash: hash, proposal: p } }), T0).execute?.height).toBe(1);
    const stray = r.onExecuted(5, hash, T0);
    expect(stray.events).toEqual([]);
    const out = r.onExecuted(1, hash, T0);
    expect(kinds(out)).toContain('raft-accepted');
    expect(out.send).toEqual([{ to: 0, message: expect.objectContaining({ type: 'heartbeatResp', ack: expect.objectContaining({ height: 1 }) }) }]);
  });

  it('a head that does not move the chain changes nothing: no message, no event, no persist', () => {
    const r = make(1);
    r.onMessage(heartbeat(0, 1), T0);
    expect(r.onCommitted(GENESIS, configOf(1), T0 + 10)).toEqual({ send: [], events: [] });
  });

  it('a block committed above the pending one (sync jumped two) drops it quietly; another block at its height drops it with a reason', () => {
    const above = holding();
    const head2: RaftHead = { height: 2, hash: new Uint8Array(32).fill(2), timestamp: 2, signatures: [] };
    const out = above.r.onCommitted(head2, configOf(1), T0 + 200);
    expect(kinds(out)).not.toContain('raft-pending-dropped');
    expect(above.r.status().pending).toBeUndefined();
    expect(out.persist).toMatchObject({ sync: false, state: { pending: null } });
    const other = holding();
    expect(kinds(other.r.onCommitted(HEAD1, configOf(1), T0 + 200))).toContain('raft-pending-dropped');
  });

  it("a leader's acknowledgements are cleared when its block commits (getConsensusStatus shows 0)", () => {
    const { r, term, hash } = sealing();
    r.onMessage(response(1, term, { ack: ackBy(1, 1, hash) }), DEADLINE + 10);
    r.onMessage(response(2, term, { ack: ackBy(2, 1, hash) }), DEADLINE + 10);
    expect(r.status().acks).toBe(3);
    r.onCommitted({ height: 1, hash, timestamp: T0, signatures: [] }, configOf(0), DEADLINE + 20);
    expect(r.status().acks).toBe(0);
  });

  it('a sealer replaced at the same index is a membership change: the follower forgets its leader, keeps its election deadline and says so', () => {
    const r = make(1);
    r.onMessage(heartbeat(0, 1), T0 + 100); // deadline T0 + 1600
    const replaced = configOf(1, 4, [ids[0]!, ids[1]!, ids[2]!, ids[8]!]);
    const out = r.onCommitted(HEAD1, replaced, T0 + 200);
    expect(out.events).toContainEqual({ kind: 'raft-config', fields: { from: 2, sealers: 4, selfIndex: 1 } });
    expect(r.status()).toMatchObject({ leader: -1, electionDeadline: T0 + 1600 });
    expect(out.send).toEqual([]);
  });

  it('the commit signatures come sorted by sealer index, whatever order the acknowledgements arrived in; a late one commits nothing twice', () => {
    const { r, term, hash } = sealing();
    r.onMessage(response(2, term, { ack: ackBy(2, 1, hash) }), DEADLINE + 10);
    const out = r.onMessage(response(1, term, { ack: ackBy(1, 1, hash) }), DEADLINE + 10);
    expect(out.commit?.signatures.map((s) => s.index)).toEqual([0, 1, 2]);
    const late = r.onMessage(response(3, term, { ack: ackBy(3, 1, hash) }), DEADLINE + 20);
    expect(late.commit).toBeUndefined();
    expect(kinds(late)).not.toContain('raft-commit');
  });

  it("a follower commits by the leader's certificate only with n − f signers, and hands the signatures over sorted by index", () => {
    const few = holding();
    const head = { height: 1, blockHash: few.hash };
    expect(few.r.onMessage(heartbeat(0, 1, { ...head, headSignatures: [sig(2, few.hash), sig(0, few.hash)] }), T0 + 200).commit).toBeUndefined();
    const enough = holding();
    const out = enough.r.onMessage(heartbeat(0, 1, { ...head, headSignatures: [sig(2, enough.hash), sig(0, enough.hash), sig(1, enough.hash)] }), T0 + 200);
    expect(out.commit).toMatchObject({ height: 1, by: 'certificate' });
    expect(out.commit!.signatures.map((s) => s.index)).toEqual([0, 1, 2]);
  });

  it('a block another leader shows at our head height, but not our head, is not acknowledged', () => {
    const r = make(1, { head: HEAD1 });
    const other = new Uint8Array(32).fill(9);
    const out = r.onMessage(heartbeat(0, 1, { height: 1, blockHash: HEAD1.hash, pending: { height: 1, blockHash: other } }), T0);
    expect(out.send[0]!.message).not.toHaveProperty('ack');
    const own = make(1, { head: HEAD1 }).onMessage(heartbeat(0, 1, { height: 1, blockHash: HEAD1.hash, pending: { height: 1, blockHash: HEAD1.hash } }), T0);
    expect(own.send[0]!.message).toMatchObject({ ack: { height: 1, blockHash: HEAD1.hash } });
  });

  it('a repeated heartbeat of the same term for the held block is acknowledged without a new write; the key signs each block once', () => {
    let signed = 0;
    const r = make(1, { sign: (h) => (signed++, signerOf(1)(h)) });
    const p = proposalOn(GENESIS);
    const hash = blockHashOf(p);
    r.onMessage(heartbeat(0, 1, { pending: { height: 1, blockHash: hash, proposal: p } }), T0);
    r.onExecuted(1, hash, T0);
    for (let seq = 2; seq <= 4; seq++) {
      const out = r.onMessage(heartbeat(0, 1, { seq, pending: { height: 1, blockHash: hash } }), T0 + seq);
      expect(out.persist).toBeUndefined();
      expect(out.send[0]!.message).toMatchObject({ seq, ack: { height: 1 } });
    }
    expect(signed).toBe(1);
  });

  it('a block exactly RAFT_MAX_BLOCK_TIME_DIFF_MS ahead of local time is sealed; a millisecond more is refused', () => {
    const at = (ahead: number) => {
      const { r, term } = leader();
      for (const j of [1, 2]) r.onMessage(response(j, term), DEADLINE);
      return r.propose(proposalOn(GENESIS, 0, 4, DEADLINE + ahead), DEADLINE);
    };
    expect(at(RAFT_MAX_BLOCK_TIME_DIFF_MS).execute?.height).toBe(1);
    expect(at(RAFT_MAX_BLOCK_TIME_DIFF_MS + 1).events[0]!.fields.reason).toContain('too far ahead');
  });
});

describe('Raft: votes at the edges', () => {
  it('a vote request of term 0 (no campaign has it) is discarded by a fresh node', () => {
    expect(flagOf(make(1).onMessage(voteReq(0, 0), T0))).toBe('discard');
  });

  it('the lease: a follower refuses candidates until exactly min_elect_time / 2 after it heard its leader (sealer 0 too)', () => {
    const at = (after: number) => {
      const r = make(1);
      r.onMessage(heartbeat(0, 1), T0 + 100);
      return flagOf(r.onMessage(voteReq(2, 5), T0 + 100 + after));
    };
    expect(at(499)).toBe('reject');
    expect(at(500)).toBe('firstVote');
  });

  it('a follower that lost track of its leader (the sealer set changed) does not hold the lease for it', () => {
    const r = make(1);
    r.onMessage(heartbeat(0, 1), T0 + 100);
    r.onCommitted(HEAD1, configOf(1, 4, [ids[0]!, ids[1]!, ids[2]!, ids[8]!]), T0 + 150);
    expect(flagOf(r.onMessage(voteReq(2, 5, 1), T0 + 200))).toBe('firstVote');
  });

  it('a candidate whose last entry is of a newer term is up to date even with a shorter log', () => {
    const p = proposalOn(GENESIS);
    const pending: RaftEntry = { height: 1, term: 2, blockHash: blockHashOf(p), proposal: p };
    const r = make(1, { hard: { ...INITIAL_HARD_STATE, term: 2, lastEntryTerm: 2, pending } });
    expect(flagOf(r.onMessage(voteReq(3, 3, 99, 99), T0))).toBe('firstVote');
    expect(flagOf(r.onMessage(voteReq(0, 9, 0, 3), T0))).toBe('granted');
  });

  it('a candidate that grants a vote of a later term becomes a follower', () => {
    const r = make(1);
    r.tick(DEADLINE);
    expect(r.status().role).toBe('candidate');
    expect(flagOf(r.onMessage(voteReq(0, 5), DEADLINE + 1))).toBe('granted');
    expect(r.status()).toMatchObject({ role: 'follower', term: 5, leader: -1 });
  });

  it('a node campaigns above every term it saw in vote answers, even answers to nobody it asked', () => {
    const r = make(1);
    r.onMessage(answer(2, 3, 'reject', 8), T0);
    const out = r.tick(DEADLINE);
    expect(out.send[0]!.message).toMatchObject({ type: 'voteReq', term: 9 });
  });
});

describe('Raft: when a campaign gives up', () => {
  const candidate = (hard = INITIAL_HARD_STATE) => {
    const r = make(0, { hard });
    r.tick(DEADLINE);
    return { r, term: r.status().term };
  };

  it('one refusal of its term leaves it campaigning; a second that makes n − f impossible ends the campaign, back to its old term (a lazy write)', () => {
    const { r, term } = candidate();
    expect(r.onMessage(answer(1, term, 'reject'), DEADLINE).events).toEqual([]);
    expect(r.status().role).toBe('candidate');
    const out = r.onMessage(answer(2, term, 'lastTermError'), DEADLINE);
    expect(out.events).toContainEqual({ kind: 'raft-campaign-failed', fields: { term, backTo: 0, reason: '2 of 4 refused' } });
    expect(out.persist).toMatchObject({ sync: false, state: { term: 0, votedTerm: term } });
  });

  it.each<[string, VoteFlag, VoteFlag]>([
    ['outdated, then a reject of its own term', 'outdated', 'reject'],
    ['two rejects of its own term', 'reject', 'reject'],
  ])('gives up on %s', (_what, first, second) => {
    const { r, term } = candidate();
    r.onMessage(answer(1, term, first), DEADLINE);
    expect(kinds(r.onMessage(answer(2, term, second), DEADLINE))).toContain('raft-campaign-failed');
    expect(r.status()).toMatchObject({ role: 'follower', term: 0 });
  });

  it('a refusal counts whatever term the voter claims: an outdated answer of a later term still ends a hopeless campaign', () => {
    const { r, term } = candidate();
    r.onMessage(answer(1, term, 'lastTermError'), DEADLINE);
    expect(kinds(r.onMessage(answer(2, term, 'outdated', term + 1), DEADLINE))).toContain('raft-campaign-failed');
  });

  it('a reject of a later term after a refusal: it follows that term (a synced write), it does not give up', () => {
    const { r, term } = candidate();
    r.onMessage(answer(1, term, 'outdated'), DEADLINE);
    const out = r.onMessage(answer(2, term, 'reject', 7), DEADLINE);
    expect(kinds(out)).not.toContain('raft-campaign-failed');
    expect(r.status()).toMatchObject({ role: 'follower', term: 7 });
    expect(out.persist).toMatchObject({ sync: true, state: { term: 7 } });
  });

  it('a leader of its own term answering after a refusal: it follows, keeping the term', () => {
    const { r, term } = candidate();
    r.onMessage(answer(1, term, 'outdated'), DEADLINE);
    const out = r.onMessage(answer(2, term, 'leaderReject'), DEADLINE);
    expect(kinds(out)).not.toContain('raft-campaign-failed');
    expect(r.status()).toMatchObject({ role: 'follower', term });
  });

  it('a leader of an older term (but not older than its old one) answering: it gives up to that term and names it', () => {
    const { r, term } = candidate({ ...INITIAL_HARD_STATE, term: 2, votedTerm: 4, votedFor: ids[0]! });
    expect(term).toBe(5);
    const out = r.onMessage(answer(1, 5, 'leaderReject', 3), DEADLINE);
    expect(out.events).toContainEqual({ kind: 'raft-campaign-failed', fields: { term: 5, backTo: 3, reason: 'sealer 1 leads term 3' } });
    expect(r.status()).toMatchObject({ role: 'follower', term: 3 });
  });

  it('a grant from a voter of another term is not counted', () => {
    const { r, term } = candidate();
    r.onMessage(answer(1, term, 'granted'), DEADLINE);
    r.onMessage(answer(2, term, 'granted', term + 1), DEADLINE);
    expect(r.status().role).toBe('candidate');
    r.onMessage(answer(3, term, 'granted'), DEADLINE);
    expect(r.status().role).toBe('leader');
  });

  it('election times back off by a quarter of their width per failed campaign, up to max + width / 2', () => {
    const r = make(0);
    let now = DEADLINE;
    const ranges: Array<readonly [number, number]> = [];
    for (let i = 0; i < 4; i++) {
      r.tick(now); // campaign
      now = r.status().electionDeadline;
      r.tick(now); // nobody answered: give up
      ranges.push(r.status().electRange);
      now = r.status().electionDeadline;
    }
    expect(ranges).toEqual([
      [1250, 2250],
      [1500, 2500],
      [1500, 2500],
      [1500, 2500],
    ]);
  });
});

describe('Raft: heartbeats at the edges', () => {
  it('a candidate answers a heartbeat older than the term it campaigned from with its term, and keeps campaigning', () => {
    const r = make(1, { hard: { ...INITIAL_HARD_STATE, term: 4, votedTerm: 4 } });
    r.tick(DEADLINE);
    const out = r.onMessage(heartbeat(2, 3), DEADLINE + 10);
    expect(out.send).toEqual([{ to: 2, message: expect.objectContaining({ type: 'heartbeatResp', term: 5 }) }]);
    expect(r.status()).toMatchObject({ role: 'candidate', term: 5 });
  });

  it('a candidate whose old leader is alive returns to it: the lowered term and the re-stamped block are written in one synced write', () => {
    const p = proposalOn(GENESIS);
    const hash = blockHashOf(p);
    const pending: RaftEntry = { height: 1, term: 3, blockHash: hash, proposal: p };
    const r = make(1, { hard: { term: 4, votedTerm: 4, votedFor: ids[0]!, lastEntryTerm: 3, pending } });
    r.tick(DEADLINE);
    expect(r.status()).toMatchObject({ role: 'candidate', term: 5 });
    const out = r.onMessage(heartbeat(0, 4, { pending: { height: 1, blockHash: hash } }), DEADLINE + 10);
    expect(r.status()).toMatchObject({ role: 'follower', term: 4, leader: 0 });
    expect(out.persist).toMatchObject({ sync: true, state: { term: 4, pending: { term: 4 } } });
    expect(out.send[0]!.message).toMatchObject({ ack: { height: 1 } });
  });

  it('a leader hearing another leader of its own term says so and stays; a later term makes it step down', () => {
    const { r, term } = leader();
    const same = r.onMessage(heartbeat(3, term), DEADLINE + 10);
    expect(same.events).toEqual([{ kind: 'raft-two-leaders', fields: { term, other: 3 } }]);
    expect(same.send).toEqual([]);
    expect(r.status().role).toBe('leader');
    const later = r.onMessage(heartbeat(3, term + 1), DEADLINE + 20);
    expect(kinds(later)).toContain('raft-step-down');
    expect(r.status()).toMatchObject({ role: 'follower', leader: 3, term: term + 1 });
  });

  it('the same leader in a later term: the term moves (a synced write) and it is not a new leader to follow', () => {
    const r = make(1);
    r.onMessage(heartbeat(0, 1), T0);
    const out = r.onMessage(heartbeat(0, 3), T0 + 10);
    expect(kinds(out)).not.toContain('raft-follow');
    expect(r.status()).toMatchObject({ term: 3, leader: 0 });
    expect(out.persist).toMatchObject({ sync: true, state: { term: 3 } });
  });

  it('a voter hearing the leader it voted for writes nothing: the term did not move', () => {
    const r = make(1);
    r.onMessage(voteReq(3, 1, 99, 99), T0); // the first vote
    expect(flagOf(r.onMessage(voteReq(0, 2), T0))).toBe('granted');
    const out = r.onMessage(heartbeat(0, 2), T0 + 10);
    expect(kinds(out)).toContain('raft-follow');
    expect(out.persist).toBeUndefined();
  });

  it('a heartbeat answer of an older term, or one reaching a non-leader, counts for nothing', () => {
    const { r, term, hash } = sealing();
    r.onMessage(response(1, term - 1, { ack: ackBy(1, 1, hash) }), DEADLINE + 10);
    expect(r.status().acks).toBe(1);
    const f = make(1);
    f.onMessage(heartbeat(0, 1), T0);
    expect(f.onMessage(response(2, 1), T0 + 10)).toEqual({ send: [], events: [] });
  });

  it('a leader times out exactly min_elect_time after it took office when too few answered, and not before', () => {
    const { r } = leader();
    expect(kinds(r.tick(DEADLINE + 999))).not.toContain('raft-leader-isolated');
    expect(kinds(r.tick(DEADLINE + 1000))).toContain('raft-leader-isolated');
  });

  it('a tick before the heartbeat is due sends nothing; heartbeats count up', () => {
    const r = make(0);
    r.tick(DEADLINE);
    r.onMessage(answer(1, 1, 'granted'), DEADLINE);
    const elected = r.onMessage(answer(2, 1, 'granted'), DEADLINE);
    expect(elected.send[0]!.message).toMatchObject({ type: 'heartbeat', seq: 1 });
    expect(r.tick(DEADLINE + 100).send).toEqual([]);
    expect(r.tick(DEADLINE + 250).send[0]!.message).toMatchObject({ type: 'heartbeat', seq: 2 });
  });

  it('a single sealer elects itself, seals and commits without sending a message', () => {
    const r = make(0, { n: 1 });
    const elected = r.tick(DEADLINE);
    expect(r.status().role).toBe('leader');
    expect(elected.send.filter((s) => s.message.type === 'heartbeat')).toEqual([]);
    const p = proposalOn(GENESIS, 0, 1);
    r.propose(p, DEADLINE);
    const out = r.onExecuted(1, blockHashOf(p), DEADLINE);
    expect(out.send).toEqual([]);
    expect(out.commit).toMatchObject({ height: 1, by: 'leader' });
    expect(r.tick(DEADLINE + 250).send).toEqual([]);
  });

  it('the block goes to every follower in one message; an acknowledged follower then gets only its hash', () => {
    const { r, term, hash, sealed } = sealing();
    expect(sealed.send).toHaveLength(1);
    expect(sealed.send[0]).toMatchObject({ to: 'all', message: { pending: { height: 1, proposal: expect.anything() } } });
    r.onMessage(response(1, term, { ack: ackBy(1, 1, hash) }), DEADLINE + 10);
    const next = r.tick(DEADLINE + 250);
    const to = (j: number) => next.send.find((s) => s.to === j)!.message as Heartbeat;
    expect(to(1).pending).toEqual({ height: 1, blockHash: hash });
    expect(to(2).pending?.proposal).toBeDefined();
    expect(to(3).pending?.proposal).toBeDefined();
  });

  it('while its commit is carried out, a leader whose followers acknowledged or lag sends one heartbeat without the body', () => {
    const { r, term } = leader(4, HEAD1);
    r.onMessage(response(1, term, { height: 1, blockHash: HEAD1.hash }), DEADLINE);
    r.onMessage(response(2, term, { height: 1, blockHash: HEAD1.hash }), DEADLINE);
    r.onMessage(response(3, term), DEADLINE); // still at genesis: block sync first
    const p = proposalOn(HEAD1);
    const hash = blockHashOf(p);
    r.propose(p, DEADLINE);
    const sealed = r.onExecuted(2, hash, DEADLINE);
    expect(sealed.send.map((s) => [s.to, (s.message as Heartbeat).pending?.proposal !== undefined])).toEqual([
      [1, true],
      [2, true],
      [3, false],
    ]);
    r.onMessage(response(1, term, { height: 1, blockHash: HEAD1.hash, ack: ackBy(1, 2, hash) }), DEADLINE + 10);
    expect(r.onMessage(response(2, term, { height: 1, blockHash: HEAD1.hash, ack: ackBy(2, 2, hash) }), DEADLINE + 10).commit?.height).toBe(2);
    const next = r.tick(DEADLINE + 250);
    expect(next.send).toEqual([{ to: 'all', message: expect.objectContaining({ type: 'heartbeat', pending: { height: 2, blockHash: hash } }) }]);
  });
});
