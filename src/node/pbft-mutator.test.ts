import { describe, expect, it } from 'vitest';
import type { PbftMessage, Proposal } from '../consensus/index.js';
import { SeededRng } from '../runtime/index.js';
import { MUTATIONS_FOR, type MutationName } from './message-mutation.js';
import { PbftMutator } from './pbft-mutator.js';

const hash = (n: number) => new Uint8Array(32).fill(n);
const proposal = (timestamp = 1000, sealer = 2): Proposal => ({ number: 5, parentHash: hash(4), timestamp, sealer, sealerList: [hash(10), hash(11), hash(12), hash(13)], transactions: [new Uint8Array([1]), new Uint8Array([2])] });

/** A mutating sealer (index 1 of 4, at height 5, view 2) on a fake port that records what goes out. */
function harness(mutations: readonly MutationName[], rate = 1) {
  const messages: PbftMessage[] = [];
  const sent: Array<{ to: string; message: PbftMessage }> = [];
  const later: Array<() => void> = [];
  const traced: Array<Record<string, unknown>> = [];
  const mutator = new PbftMutator(
    { kind: 'mutate', mutations, rate },
    {
      selfIndex: () => 1,
      nextHeight: () => 5,
      peers: () => ['n0', 'n2', 'n3'],
      // the "bytes" are an index into `messages`: what was encoded is what was sent
      encode: (m) => new Uint8Array([messages.push(m) - 1]),
      signBlock: (h) => Uint8Array.from([9, ...h.subarray(0, 4)]),
      send: (to, bytes) => sent.push({ to, message: messages[bytes[0]!]! }),
      trace: (_kind, fields) => traced.push(fields),
      view: () => 2,
      sealerCount: () => 4,
      leaderOf: (view) => (view + 4) % 4,
      draftProposal: () => proposal(1500, 1),
      random: new SeededRng('pbft-mutator-test'),
      later: (_ms, action) => later.push(action),
    },
  );
  return { mutator, sent, later, traced };
}

const sign = (view = 2, h = hash(7)): PbftMessage => ({ type: 'sign', height: 5, view, idx: 1, blockHash: h, blockSignature: hash(1) });

describe('PbftMutator: each mutation puts on the wire what it claims', () => {
  it('view±1 and height±1 change that field only', () => {
    for (const [m, field, delta] of [['view+1', 'view', 1], ['view-1', 'view', -1], ['height+1', 'height', 1], ['height-1', 'height', -1]] as const) {
      const { mutator, sent, traced } = harness([m]);
      mutator.send(sign());
      expect(sent.map((s) => s.to)).toEqual(['n0', 'n2', 'n3']);
      const out = sent[0]!.message;
      expect(out[field]).toBe(sign()[field] + delta);
      expect({ ...out, [field]: 0 }).toEqual({ ...sign(), [field]: 0 });
      expect(traced[0]).toMatchObject({ behaviour: 'mutate', action: m, type: 'sign' });
    }
  });

  it("other-index claims another sealer's index; other-sealer puts another sealer in the proposal", () => {
    const a = harness(['other-index']);
    a.mutator.send(sign());
    expect(a.sent[0]!.message.idx).not.toBe(1);
    const b = harness(['other-sealer']);
    b.mutator.send({ type: 'prepare', height: 5, view: 1, idx: 1, proposal: proposal(1000, 1) });
    const out = b.sent[0]!.message;
    expect(out.type === 'prepare' && out.proposal.sealer).not.toBe(1);
    expect(out.idx).toBe(1);
  });

  it('other-hash: a hash seen for another round, re-signed with the node key', () => {
    const { mutator, sent } = harness(['other-hash']);
    mutator.observe({ type: 'commit', height: 4, view: 0, idx: 2, blockHash: hash(3), blockSignature: hash(1) });
    mutator.send(sign(2, hash(7)));
    const out = sent[0]!.message as Extract<PbftMessage, { type: 'sign' }>;
    expect(out.blockHash).toEqual(hash(3));
    expect(out.blockSignature).toEqual(Uint8Array.from([9, 3, 3, 3, 3]));
  });

  it('duplicate sends now and again later; replay sends an earlier message again', () => {
    const d = harness(['duplicate']);
    d.mutator.send(sign());
    expect(d.sent).toHaveLength(3);
    d.later.forEach((run) => run());
    expect(d.sent).toHaveLength(6);
    expect(d.sent[3]!.message).toBe(d.sent[0]!.message);

    const r = harness(['replay']);
    const old = sign(1, hash(6));
    r.mutator.send(old); // nothing earlier yet: sent as it is
    r.mutator.send(sign(2, hash(7)));
    expect(r.sent.map((s) => s.message.view)).toEqual([1, 1, 1, 2, 2, 2, 1, 1, 1]);
  });

  it('partial sends to some peers only', () => {
    const { mutator, sent } = harness(['partial']);
    mutator.send(sign());
    expect(sent.length).toBeGreaterThan(0);
    expect(sent.length).toBeLessThan(3);
  });

  it('second-vote: a Sign and a Commit for another block in the same view, beside the honest Sign', () => {
    const { mutator, sent } = harness(['second-vote']);
    mutator.observe({ type: 'sign', height: 4, view: 0, idx: 0, blockHash: hash(3), blockSignature: hash(1) });
    mutator.send(sign(2, hash(7)));
    const mine = sent.filter((s) => s.to === 'n0').map((s) => s.message as Extract<PbftMessage, { type: 'sign' | 'commit' }>);
    expect(mine.map((m) => [m.type, m.view, m.blockHash[0]])).toEqual([
      ['sign', 2, 7],
      ['sign', 2, 3],
      ['commit', 2, 3],
    ]);
  });

  it('rogue-proposal: out of role, on a new round and on hearing the leader; future-proposal: for a later view it leads', () => {
    const { mutator, sent, traced, later } = harness(['rogue-proposal']);
    mutator.onRound(5, 2); // view 2 is led by 2 (leaderOf(2) = 6 % 4 = 2): node 1 proposes anyway, a little later
    expect(sent).toHaveLength(0);
    later.splice(0).forEach((run) => run());
    expect(sent[0]!.message).toMatchObject({ type: 'prepare', height: 5, view: 2, idx: 1 });
    mutator.observe({ type: 'prepare', height: 5, view: 2, idx: 2, proposal: proposal() });
    expect(sent.length).toBe(6);
    expect(sent[3]!.message.type === 'prepare' && sent[3]!.message.proposal.timestamp).toBe(1001);
    expect(traced.map((t) => t['action'])).toEqual(['rogue-proposal', 'rogue-proposal']);

    const f = harness(['future-proposal']);
    f.mutator.observe({ type: 'prepare', height: 5, view: 2, idx: 2, proposal: proposal() });
    // node 1 leads view 1 + 4k: the next after view 2 is view 5
    expect(f.sent[0]!.message).toMatchObject({ type: 'prepare', height: 5, view: 5, idx: 1 });
  });

  it('with a rate, only some messages are mutated, and never by a mutation that was not enabled', () => {
    const { mutator, sent, traced } = harness(['view+1'], 0.3);
    for (let i = 0; i < 200; i++) mutator.send(sign());
    const mutated = sent.filter((s) => s.message.view === 3).length / 3;
    expect(mutated).toBeGreaterThan(30);
    expect(mutated).toBeLessThan(90);
    expect(new Set(traced.map((t) => t['action']))).toEqual(new Set(['view+1']));
  });

  it('covers every PBFT mutation in these tests', () => {
    expect([...MUTATIONS_FOR.pbft].sort()).toEqual(
      ['view+1', 'view-1', 'height+1', 'height-1', 'other-index', 'other-sealer', 'other-hash', 'duplicate', 'replay', 'partial', 'second-vote', 'rogue-proposal', 'future-proposal'].sort(),
    );
  });
});
