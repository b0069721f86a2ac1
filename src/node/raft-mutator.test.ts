import { describe, expect, it } from 'vitest';
import type { Heartbeat, Proposal, RaftMessage } from '../consensus/index.js';
import { SeededRng } from '../runtime/index.js';
import { MUTATIONS_FOR, type MutationName } from './message-mutation.js';
import { RaftMutator } from './raft-mutator.js';

const hash = (n: number) => new Uint8Array(32).fill(n);
const proposal = (timestamp = 1000): Proposal => ({ number: 8, parentHash: hash(7), timestamp, sealer: 0, sealerList: [hash(10), hash(11), hash(12), hash(13), hash(14)], transactions: [new Uint8Array([1])] });

/** A mutating Raft sealer (index 1 of 5) on a fake port that records what goes out. */
function harness(mutations: readonly MutationName[], rate = 1) {
  const messages: RaftMessage[] = [];
  const sent: Array<{ to: number; message: RaftMessage }> = [];
  const later: Array<() => void> = [];
  const state = { role: 'follower' as 'follower' | 'candidate' | 'leader', term: 6 };
  const mutator = new RaftMutator(
    { kind: 'mutate', mutations, rate },
    {
      selfIndex: () => 1,
      sealerCount: () => 5,
      encode: (m) => new Uint8Array([messages.push(m) - 1]),
      send: (to, bytes) => sent.push({ to, message: messages[bytes[0]!]! }),
      execute: async (p) => hash(p.timestamp % 200),
      trace: () => {},
      role: () => state.role,
      term: () => state.term,
      signBlock: (h) => Uint8Array.from([9, ...h.subarray(0, 4)]),
      random: new SeededRng('raft-mutator-test'),
      later: (_ms, action) => later.push(action),
    },
  );
  return { mutator, sent, later, state };
}

const heartbeat = (term = 6, pending = true): Heartbeat => ({
  type: 'heartbeat',
  term,
  idx: 1,
  height: 7,
  blockHash: hash(7),
  seq: 3,
  headSignatures: [],
  ...(pending ? { pending: { height: 8, blockHash: hash(8), proposal: proposal() } } : {}),
});
const resp = (ack?: { height: number; blockHash: Uint8Array; signature: Uint8Array }): RaftMessage => ({ type: 'heartbeatResp', term: 6, idx: 1, height: 7, blockHash: hash(7), seq: 3, ...(ack ? { ack } : {}) });
const vote = (flag: 'granted' | 'discard'): RaftMessage => ({ type: 'voteResp', term: 6, idx: 1, height: 7, blockHash: hash(7), candidateTerm: 6, flag, lastLeaderTerm: 5 });

describe('RaftMutator: each mutation puts on the wire what it claims', () => {
  it('term±1 and height±1 change that field (a vote answer keeps its term and candidate term together)', () => {
    for (const [m, field, delta] of [['term+1', 'term', 1], ['term-1', 'term', -1], ['height+1', 'height', 1], ['height-1', 'height', -1]] as const) {
      const { mutator, sent } = harness([m]);
      expect(mutator.send('all', heartbeat())).toBe(true);
      expect(sent).toHaveLength(4);
      expect(sent[0]!.message[field]).toBe(heartbeat()[field] + delta);
    }
    const v = harness(['term-1']);
    v.mutator.send(0, vote('granted'));
    expect(v.sent[0]!.message).toMatchObject({ term: 5, candidateTerm: 5 });
  });

  it('other-hash: a seen hash in place of the pending block, or of an acknowledged one (re-signed)', () => {
    const a = harness(['other-hash']);
    a.mutator.observe({ ...heartbeat(5), idx: 0, pending: { height: 6, blockHash: hash(4) } });
    a.mutator.send('all', heartbeat());
    const out = a.sent[0]!.message as Heartbeat;
    expect(out.pending!.blockHash).toEqual(hash(4));
    const b = harness(['other-hash']);
    b.mutator.observe({ ...heartbeat(5), idx: 0, pending: { height: 6, blockHash: hash(4) } });
    b.mutator.send(0, resp({ height: 8, blockHash: hash(8), signature: hash(1) }));
    const ack = (b.sent[0]!.message as Extract<RaftMessage, { type: 'heartbeatResp' }>).ack!;
    expect(ack.blockHash).toEqual(hash(4));
    expect(ack.signature).toEqual(Uint8Array.from([9, 4, 4, 4, 4]));
  });

  it('other-sealer changes the shipped proposal; other-index the envelope', () => {
    const a = harness(['other-sealer']);
    a.mutator.send('all', heartbeat());
    expect((a.sent[0]!.message as Heartbeat).pending!.proposal!.sealer).not.toBe(0);
    const b = harness(['other-index']);
    b.mutator.send(0, resp());
    expect(b.sent[0]!.message.idx).not.toBe(1);
  });

  it('duplicate, replay, misroute and partial', () => {
    const d = harness(['duplicate']);
    d.mutator.send(0, resp());
    d.later.forEach((run) => run());
    expect(d.sent.map((s) => s.to)).toEqual([0, 0]);

    const r = harness(['replay']);
    // nothing earlier to replay yet: the driver sends it as it is
    expect(r.mutator.send(0, { ...resp(), term: 5 })).toBe(false);
    expect(r.mutator.send(0, resp())).toBe(true);
    expect(r.sent.map((s) => s.message.term)).toEqual([6, 5]);

    const m = harness(['misroute']);
    expect(m.mutator.send(0, resp())).toBe(true);
    expect(m.sent).toHaveLength(1);
    expect(m.sent[0]!.to).not.toBe(0);
    expect(m.sent[0]!.to).not.toBe(1);
    // a granted vote is never misrouted (that is a second vote: another candidate would count it)
    expect(m.mutator.send(0, vote('granted'))).toBe(false);

    const p = harness(['partial']);
    p.mutator.send('all', heartbeat());
    expect(p.sent.length).toBeGreaterThan(0);
    expect(p.sent.length).toBeLessThan(4);
  });

  it('vote-withhold turns a grant into a refusal; second-vote turns a refusal into a grant', () => {
    const w = harness(['vote-withhold']);
    w.mutator.send(0, vote('granted'));
    expect(w.sent[0]!.message).toMatchObject({ type: 'voteResp', flag: 'discard' });
    const s = harness(['second-vote']);
    s.mutator.send(0, vote('discard'));
    expect(s.sent[0]!.message).toMatchObject({ type: 'voteResp', flag: 'granted' });
  });

  it('stale-leader: deposed, it goes on heartbeating in the term it led', async () => {
    const { mutator, sent, state } = harness(['stale-leader']);
    state.role = 'leader';
    mutator.send('all', heartbeat(6)); // sent as it is (stale-leader does not apply to the honest heartbeat)
    expect(sent).toHaveLength(0);
    state.role = 'follower';
    state.term = 8;
    await mutator.prepare([{ to: 2, message: resp() }]);
    expect(sent).toHaveLength(4);
    expect(sent[0]!.message).toMatchObject({ type: 'heartbeat', term: 6, idx: 1, seq: 4 });
  });

  it('rogue-proposal: a follower appends a conflicting block of its own in the current term', async () => {
    const { mutator, sent } = harness(['rogue-proposal']);
    mutator.observe({ ...heartbeat(6), idx: 0 });
    await mutator.prepare([{ to: 0, message: resp() }]);
    const out = sent[0]!.message as Heartbeat;
    expect(out).toMatchObject({ type: 'heartbeat', term: 6, idx: 1 });
    expect(out.pending!.proposal!.timestamp).toBe(1001);
    expect(out.pending!.blockHash).toEqual(hash(1001 % 200));
  });

  it("forged-certificate: the head's certificate keeps its signers' indexes, but only the node's own signature is real", () => {
    const { mutator, sent } = harness(['forged-certificate']);
    const sig = (i: number) => Uint8Array.of(100 + i);
    const certified: Heartbeat = { ...heartbeat(6, false), headSignatures: [0, 1, 3].map((index) => ({ index, signature: sig(index) })) };
    expect(mutator.send('all', certified)).toBe(true);
    expect(sent).toHaveLength(4);
    const own = Uint8Array.from([9, ...hash(7).subarray(0, 4)]);
    expect((sent[0]!.message as Heartbeat).headSignatures).toEqual([
      { index: 0, signature: own },
      { index: 1, signature: sig(1) },
      { index: 3, signature: own },
    ]);
    // nothing to forge without a certificate of two or more signers: the honest message goes (the caller sends it)
    for (const few of [[], [{ index: 1, signature: sig(1) }]]) {
      const h = harness(['forged-certificate']);
      expect(h.mutator.send('all', { ...heartbeat(6, false), headSignatures: few })).toBe(false);
      expect(h.sent).toEqual([]);
    }
  });

  it('covers every Raft mutation in these tests', () => {
    expect([...MUTATIONS_FOR.raft].sort()).toEqual(
      ['term+1', 'term-1', 'height+1', 'height-1', 'other-hash', 'other-sealer', 'other-index', 'duplicate', 'replay', 'misroute', 'partial', 'rogue-proposal', 'second-vote', 'vote-withhold', 'stale-leader', 'forged-certificate'].sort(),
    );
  });
});
