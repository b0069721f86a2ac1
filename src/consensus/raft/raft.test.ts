import { describe, expect, it } from 'vitest';
import { expectRefusal } from '../../codec/refusal.test-helper.js';
import { rlpDecode, rlpEncode, toHex, type RlpValue } from '../../codec/index.js';
import { keccak256 } from '../../crypto/index.js';
import { MessageDecodeError, type Proposal } from '../proposal.js';
import { blockHashOf, GENESIS, ids, RaftNet, signerOf, T0, validSignature, voteReq } from './raft-harness.test-helper.js';
import type { RaftMessage, VoteFlag, VoteRequest } from './raft-messages.js';
import { decodeRaftMessage, encodeRaftMessage } from './raft-wire.js';
import { INITIAL_HARD_STATE, Raft, type RaftConfig, type RaftHardState, type RaftHead, type RaftOutput } from './raft.js';

const config = (selfIndex: number, n = 4): RaftConfig => ({ sealers: ids.slice(0, n), selfIndex, minElectMs: 1000, maxElectMs: 2000, txCountLimit: 2 });
const fixed = (r: number) => () => r;
const node = (selfIndex: number, hard: RaftHardState = INITIAL_HARD_STATE, n = 4, head = GENESIS) => new Raft(config(selfIndex, n), head, hard, T0, signerOf(selfIndex), fixed(0.5));
const proposalOn = (head: RaftHead, sealer: number, txs = 1, n = 4): Proposal => ({
  number: head.height + 1,
  parentHash: head.hash,
  timestamp: T0,
  sealer,
  sealerList: ids.slice(0, n),
  transactions: Array.from({ length: txs }, (_, k) => Uint8Array.of(sealer, k)),
});
const answerOf = (out: RaftOutput): VoteFlag | undefined => {
  const m = out.send[0]?.message;
  return m?.type === 'voteResp' ? m.flag : undefined;
};
/** A voter whose first-vote memory is already spent (it granted or refused once before). */
function primed(selfIndex: number, hard: RaftHardState = INITIAL_HARD_STATE) {
  const v = node(selfIndex, hard);
  expect(answerOf(v.onMessage(voteReq(3, hard.votedTerm + 1, 99, 99), T0))).toBe('firstVote');
  return v;
}

describe('Raft elections', () => {
  it('4 sealers: the first request is refused as a first vote, the candidate retries at once and wins; timeouts lie in [min, max]', () => {
    const net = new RaftNet(4, 'elect', { txs: 0, minDelay: 2, maxDelay: 20 });
    net.run(T0 + 5_000);
    const campaigns = net.events.filter((e) => e.kind === 'raft-campaign');
    expect(campaigns[0]!.fields.reason).toBe('election timeout');
    expect(campaigns[0]!.at - T0).toBeGreaterThanOrEqual(1000);
    expect(campaigns[0]!.at - T0).toBeLessThanOrEqual(2000);
    expect(campaigns[1]!.fields.reason).toBe('first votes');
    const leader = net.events.find((e) => e.kind === 'raft-leader')!;
    expect(leader.node).toBe(campaigns[0]!.node);
    expect(leader.fields.term).toBe(2);
    expect(net.leaders.size).toBe(1); // no further elections while the leader is alive
    for (let i = 0; i < 4; i++) {
      const s = net.nodes[i]!.status();
      expect(s.term).toBe(2);
      expect(s.leader).toBe(leader.node);
      if (i !== leader.node) expect(s.electionDeadline - net.now).toBeLessThanOrEqual(2000);
      // a follower holds no acknowledgements: status() says 0, not nothing (getConsensusStatus shows it)
      if (i !== leader.node) expect(s.acks).toBe(0);
    }
  });

  it('draws each election timeout from the seeded stream, uniformly over [min_elect_time, max_elect_time]', () => {
    const at = (r: number) => new Raft(config(1), GENESIS, INITIAL_HARD_STATE, T0, signerOf(1), fixed(r)).status().electionDeadline - T0;
    expect(at(0)).toBe(1000);
    expect(at(0.5)).toBe(1500);
    expect(at(0.9999)).toBe(2000);
  });

  it.each<[string, () => { voter: Raft; request: VoteRequest; now?: number }, VoteFlag]>([
    ['a request of an older term', () => ({ voter: node(1, { ...INITIAL_HARD_STATE, term: 5 }), request: voteReq(0, 4) }), 'reject'],
    ['a term it already voted in, for another', () => ({ voter: primed(1, { ...INITIAL_HARD_STATE, term: 5, votedTerm: 5, votedFor: ids[2]! }), request: voteReq(0, 5) }), 'discard'],
    ['its own campaign term', () => ({ voter: primed(1, { ...INITIAL_HARD_STATE, term: 3, votedTerm: 6, votedFor: ids[1]! }), request: voteReq(0, 6) }), 'discard'],
    ['a candidate whose last entry is of an older term', () => ({ voter: primed(1, { ...INITIAL_HARD_STATE, lastEntryTerm: 3 }), request: voteReq(0, 9, 5, 2) }), 'lastTermError'],
    ['a candidate with a shorter log of the same entry term', () => ({ voter: primed(1, { ...INITIAL_HARD_STATE, lastEntryTerm: 3, pending: null }), request: voteReq(0, 9, 0, 3) }), 'granted'],
    ['the first request after a restart (anti-jitter)', () => ({ voter: node(1), request: voteReq(0, 1) }), 'firstVote'],
    ['the second request, up to date, of a new term', () => ({ voter: primed(1), request: voteReq(0, 2) }), 'granted'],
  ])('a voter answers %s with the FISCO code', (_what, make, flag) => {
    const { voter, request, now } = make();
    expect(answerOf(voter.onMessage(request, now ?? T0))).toBe(flag);
  });

  it('refuses a candidate with fewer blocks (OUTDATED), and the leader refuses every candidate (LEADER_REJECT)', () => {
    const head: RaftHead = { height: 3, hash: new Uint8Array(32).fill(3), timestamp: 5, signatures: [] };
    const voter = new Raft(config(1), head, { ...INITIAL_HARD_STATE, lastEntryTerm: 2 }, T0, signerOf(1), fixed(0.5));
    expect(answerOf(voter.onMessage(voteReq(2, 1, 99, 99), T0))).toBe('firstVote');
    expect(answerOf(voter.onMessage(voteReq(0, 9, 2, 2), T0))).toBe('outdated');
    expect(answerOf(voter.onMessage(voteReq(0, 9, 3, 2), T0))).toBe('granted');
    const net = new RaftNet(3, 'leader-reject', { txs: 0 });
    net.run(T0 + 4_000);
    const leader = net.nodes[net.leaderOf()!]!;
    expect(answerOf(leader.onMessage(voteReq((net.leaderOf()! + 1) % 3, 99, 99, 99), net.now))).toBe('leaderReject');
  });

  it('a follower that heard its leader within min_elect_time / 2 rejects candidates (a rejoining node cannot depose a working leader)', () => {
    const net = new RaftNet(3, 'lease', { txs: 0 });
    net.run(T0 + 4_000);
    const leader = net.leaderOf()!;
    const follower = net.nodes[(leader + 1) % 3]!;
    const candidate = (leader + 2) % 3;
    const out = follower.onMessage(voteReq(candidate, 50, 99, 99), net.now);
    expect(answerOf(out)).toBe('reject');
    expect(out.persist).toBeUndefined(); // a refusal changes nothing durable, not even the term
    expect(follower.status().term).toBeLessThan(50);
  });

  it('persists the vote with a synced write in the same output as the grant, and a restarted node does not vote twice in a term', () => {
    const voter = primed(1);
    const out = voter.onMessage(voteReq(0, 7), T0);
    expect(answerOf(out)).toBe('granted');
    expect(out.persist).toMatchObject({ sync: true, state: { term: 7, votedTerm: 7, votedFor: ids[0] } });
    const restarted = node(1, out.persist!.state);
    restarted.onMessage(voteReq(3, 1, 99, 99), T0); // spend the first vote
    expect(answerOf(restarted.onMessage(voteReq(2, 7), T0))).toBe('discard');
    expect(answerOf(restarted.onMessage(voteReq(0, 7), T0))).toBe('granted'); // the same candidate asking again
  });

  it('a campaign that fails returns to the term before it; its own vote still blocks any other vote in the abandoned term', () => {
    const c = node(2, { ...INITIAL_HARD_STATE, term: 4, votedTerm: 4 });
    const out = c.tick(T0 + 5_000);
    expect(out.send[0]!.message).toMatchObject({ type: 'voteReq', term: 5 });
    expect(out.persist).toMatchObject({ sync: true, state: { term: 5, votedTerm: 5, votedFor: ids[2] } });
    const failed = c.tick(T0 + 10_000); // nobody answered
    expect(failed.events.map((e) => e.kind)).toContain('raft-campaign-failed');
    expect(c.status()).toMatchObject({ role: 'follower', term: 4, votedTerm: 5 });
    expect(c.status().electRange).toEqual([1250, 2250]); // FISCO's back-off
    c.onMessage(voteReq(3, 1, 99, 99), T0 + 10_000); // spend the first vote
    expect(answerOf(c.onMessage(voteReq(0, 5), T0 + 10_000))).toBe('discard');
    expect(answerOf(c.onMessage(voteReq(0, 6), T0 + 10_000))).toBe('granted');
  });

  it('a crashed leader is replaced within max_elect_time plus a heartbeat, and commits resume (10 seeds)', () => {
    for (let seed = 0; seed < 10; seed++) {
      const net = new RaftNet(4 + (seed % 2), `crash-${seed}`, { minDelay: 2, maxDelay: 20 });
      net.run(T0 + 5_000);
      const old = net.leaderOf()!;
      const oldTerm = net.nodes[old]!.status().term;
      const height = Math.max(...net.heights());
      const crashAt = net.now;
      net.crash(old);
      net.run(T0 + 10_000);
      const next = net.events.find((e) => e.kind === 'raft-leader' && (e.fields.term as number) > oldTerm)!;
      expect(next, `seed ${seed}`).toBeDefined();
      expect(next.at - crashAt, `seed ${seed}`).toBeLessThanOrEqual(2000 + 250);
      expect(Math.min(...net.heights().filter((_, i) => i !== old))).toBeGreaterThan(height + 3);
    }
  });
});

describe('Raft replication', () => {
  it('a block commits on n − f acknowledgements, with their signatures as its signature list; followers commit by the certificate', () => {
    const net = new RaftNet(4, 'replicate', { minDelay: 2, maxDelay: 20 });
    net.run(T0 + 8_000);
    const leader = net.leaderOf()!;
    const chain = net.chains[leader]!;
    expect(chain.length).toBeGreaterThan(20);
    for (const block of chain) {
      expect(new Set(block.signatures.map((s) => s.index)).size).toBeGreaterThanOrEqual(3);
      for (const s of block.signatures) expect(validSignature(s, block.hash)).toBe(true);
      expect(block.proposal.transactions.length).toBeGreaterThan(0);
    }
    const followers = net.chains.filter((_, i) => i !== leader).flat();
    expect(followers.filter((b) => b.via === 'certificate').length).toBeGreaterThan(followers.length / 2);
    expect(new Set(net.heights()).size).toBeLessThanOrEqual(2);
  });

  it('a leader never ships an empty block nor one above tx_count_limit; followers refuse them too', () => {
    const leader = node(0, INITIAL_HARD_STATE, 1);
    leader.tick(T0 + 3_000); // a single sealer elects itself
    expect(leader.canSeal()).toEqual({ height: 1 });
    const empty = leader.propose(proposalOn(GENESIS, 0, 0, 1), T0 + 3_000);
    expect(empty.execute).toBeUndefined();
    expect(empty.events[0]).toMatchObject({ kind: 'raft-proposal-ignored', fields: { reason: 'empty block' } });
    expect(leader.propose(proposalOn(GENESIS, 0, 3, 1), T0 + 3_000).events[0]!.fields.reason).toContain('tx_count_limit');
    expect(leader.propose(proposalOn(GENESIS, 0, 2, 1), T0 + 3_000).execute?.height).toBe(1);
    const follower = node(1, INITIAL_HARD_STATE, 3);
    const big = proposalOn(GENESIS, 0, 3, 3);
    const out = follower.onMessage({ type: 'heartbeat', term: 1, idx: 0, height: 0, blockHash: GENESIS.hash, seq: 1, headSignatures: [], pending: { height: 1, blockHash: blockHashOf(big), proposal: big } }, T0);
    expect(out.execute).toBeUndefined();
    expect(out.events.find((e) => e.kind === 'raft-block-refused')!.fields.reason).toContain('tx_count_limit');
    // a block from the far future is refused; an old one (inherited after a long outage) is not
    const at = (timestamp: number) => {
      const b = { ...proposalOn(GENESIS, 0, 1, 3), timestamp };
      return node(1, INITIAL_HARD_STATE, 3).onMessage({ type: 'heartbeat', term: 1, idx: 0, height: 0, blockHash: GENESIS.hash, seq: 1, headSignatures: [], pending: { height: 1, blockHash: blockHashOf(b), proposal: b } }, T0);
    };
    expect(at(T0 + 3_600_000).events.find((e) => e.kind === 'raft-block-refused')!.fields.reason).toContain('too far ahead');
    expect(at(1).execute?.height).toBe(1);
  });

  it('a follower executes the block, checks the hash, persists it (synced) and only then acknowledges', () => {
    const follower = node(1, INITIAL_HARD_STATE, 3);
    const p = proposalOn(GENESIS, 0, 1, 3);
    const hb: RaftMessage = { type: 'heartbeat', term: 3, idx: 0, height: 0, blockHash: GENESIS.hash, seq: 1, headSignatures: [], pending: { height: 1, blockHash: blockHashOf(p), proposal: p } };
    const first = follower.onMessage(hb, T0);
    expect(first.execute?.height).toBe(1);
    expect(first.send[0]!.message).toMatchObject({ type: 'heartbeatResp', term: 3 });
    expect(first.send[0]!.message).not.toHaveProperty('ack');
    const wrong = follower.onExecuted(1, keccak256(Uint8Array.of(1)), T0 + 5);
    expect(wrong.events).toEqual([
      expect.objectContaining({ kind: 'raft-execution-mismatch', fields: { height: 1, term: 3, leaderHash: toHex(blockHashOf(p)), localHash: toHex(keccak256(Uint8Array.of(1))) } }),
    ]);
    expect(wrong.send).toEqual([]);
    follower.onMessage(hb, T0 + 10);
    const done = follower.onExecuted(1, blockHashOf(p), T0 + 15);
    expect(done.persist).toMatchObject({ sync: true, state: { lastEntryTerm: 3, pending: { height: 1, term: 3 } } });
    expect(done.send[0]!.message).toMatchObject({ type: 'heartbeatResp', ack: { height: 1, blockHash: blockHashOf(p) } });
  });

  it('a new leader re-stamps the uncommitted block it inherits with its own term and commits it by acknowledgements of that term', () => {
    const net = new RaftNet(3, 'restamp', { txs: 0, minDelay: 2, maxDelay: 10 });
    net.run(T0 + 4_000);
    for (let i = 0; i < 3; i++) net.crash(i);
    const p = proposalOn(GENESIS, 0, 1, 3);
    const term = Math.max(...net.durable.map((d) => d.term));
    net.durable[0] = { ...net.durable[0]!, term, lastEntryTerm: term, pending: { height: 1, term, blockHash: blockHashOf(p), proposal: p } };
    net.partition([[1], [2]]); // 1 and 2 cannot elect each other: node 0, the only one holding the block, must lead
    for (let i = 0; i < 3; i++) net.restart(i);
    net.run(net.now + 6_000);
    const reproposed = net.events.find((e) => e.kind === 'raft-reproposed')!;
    expect(reproposed).toMatchObject({ node: 0, fields: { height: 1, fromTerm: term } });
    expect(reproposed.fields.term as number).toBeGreaterThan(term);
    expect(net.chains.map((c) => c[0] && toHex(c[0].hash))).toEqual([toHex(blockHashOf(p)), toHex(blockHashOf(p)), toHex(blockHashOf(p))]);
    const commit = net.events.find((e) => e.kind === 'raft-commit')!;
    expect(commit.fields.term).toBe(reproposed.fields.term);
  });

  it('a leader cut off in a minority keeps its block uncommitted; the majority elects and commits; after healing the old block is dropped and all converge', () => {
    const net = new RaftNet(5, 'minority', { minDelay: 2, maxDelay: 20 });
    net.run(T0 + 5_000);
    const old = net.leaderOf()!;
    const minority = [old, (old + 1) % 5];
    const majority = [0, 1, 2, 3, 4].filter((i) => !minority.includes(i));
    // cut just as the leader ships a new block: nobody in the majority gets it
    net.sealingEnabled = false;
    net.run(net.now + 600);
    net.partition([minority, majority]);
    net.sealingEnabled = true;
    const frozen = net.chains[old]!.length;
    net.run(net.now + 8_000);
    expect(net.chains[old]!.length).toBe(frozen); // the minority cannot commit
    const stranded = net.nodes[old]!.status().pending;
    expect(stranded?.height).toBe(frozen + 1);
    expect(Math.min(...majority.map((i) => net.chains[i]!.length))).toBeGreaterThan(frozen + 5); // the majority can
    net.heal();
    net.run(net.now + 5_000);
    const dropped = net.events.filter((e) => e.kind === 'raft-pending-dropped' && e.node === old);
    expect(dropped.map((e) => e.fields.hash)).toContain(toHex(stranded!.blockHash));
    expect(net.chains.every((c) => c.every((b) => toHex(b.hash) !== toHex(stranded!.blockHash)))).toBe(true);
    const heights = net.heights();
    expect(Math.max(...heights) - Math.min(...heights)).toBeLessThanOrEqual(1);
    expect(net.leaders.size).toBeGreaterThan(1);
  });

  it('a stale leader learns the newer term from a heartbeat answer and steps down', () => {
    const stale = node(0, { ...INITIAL_HARD_STATE, term: 2 }, 3);
    const follower = node(1, { ...INITIAL_HARD_STATE, term: 6 }, 3);
    const answer = follower.onMessage({ type: 'heartbeat', term: 2, idx: 0, height: 0, blockHash: GENESIS.hash, seq: 9, headSignatures: [] }, T0);
    const reply = answer.send[0]!.message;
    expect(reply).toMatchObject({ type: 'heartbeatResp', term: 6 });
    stale.onMessage(reply, T0);
    expect(stale.status()).toMatchObject({ role: 'follower', term: 6 });
  });

  it('a leader that hears from fewer than n − f within min_elect_time campaigns again', () => {
    const net = new RaftNet(3, 'isolated-leader', { txs: 0 });
    net.run(T0 + 4_000);
    const leader = net.leaderOf()!;
    net.partition([[leader], [0, 1, 2].filter((i) => i !== leader)]);
    net.run(net.now + 1_300);
    expect(net.events.some((e) => e.kind === 'raft-leader-isolated' && e.node === leader)).toBe(true);
    expect(net.nodes[leader]!.status().role).not.toBe('leader');
  });

  it('takes no message carrying its own index or an index past the sealers', () => {
    for (const idx of [2, 4, 5]) {
      const n = node(2);
      n.start(T0);
      expect(n.onMessage(voteReq(idx, 3), T0 + 1), `index ${idx}`).toEqual({ send: [], events: [] });
      expect(n.status()).toMatchObject({ term: 0, role: 'follower' });
    }
    const n = node(2);
    n.start(T0);
    expect(n.onMessage(voteReq(3, 3), T0 + 1).send).toHaveLength(1); // a real peer's is answered
  });

  it('a tick before the election deadline only says when the timer is due; at the deadline the node campaigns', () => {
    const n = node(1);
    n.start(T0);
    const deadline = n.status().electionDeadline;
    expect(n.tick(deadline - 1)).toEqual({ send: [], events: [], timerAt: deadline });
    expect(n.status().role).toBe('follower');
    expect(n.tick(deadline).send.map((s) => s.message.type)).toContain('voteReq');
    expect(n.status().role).toBe('candidate');
  });

  it('heartbeats go out every min_elect_time / 4', () => {
    const n = node(0, INITIAL_HARD_STATE, 1);
    const first = n.tick(T0 + 3_000); // a single sealer elects itself at once
    expect(n.status().role).toBe('leader');
    expect(first.timerAt).toBe(T0 + 3_000 + 250);
  });
});

describe('Raft membership and roles', () => {
  it.each([-1, 4])('an observer (index %i: none, or past the 4 sealers) never votes, never campaigns and arms no timer', (selfIndex) => {
    const observer = node(selfIndex);
    expect(observer.isSealer).toBe(false);
    expect(observer.start(T0)).toEqual({ send: [], events: [] });
    expect(observer.onMessage(voteReq(0, 3), T0)).toEqual({ send: [], events: [] });
    expect(observer.tick(T0 + 60_000)).toEqual({ send: [], events: [] });
  });

  it('membership follows the config of the next block: an added sealer starts its election timer, a removed one stops', () => {
    const head1: RaftHead = { height: 1, hash: new Uint8Array(32).fill(1), timestamp: 1, signatures: [] };
    const joiner = new Raft(config(-1, 3), GENESIS, INITIAL_HARD_STATE, T0, signerOf(3), fixed(0));
    expect(joiner.tick(T0 + 5_000).send).toEqual([]);
    const joined = joiner.onCommitted(head1, config(3, 4), T0 + 5_000);
    expect(joined.timerAt).toBe(T0 + 6_000);
    expect(joiner.tick(T0 + 6_000).send[0]!.message).toMatchObject({ type: 'voteReq', idx: 3 });
    const single = node(0, INITIAL_HARD_STATE, 1);
    single.tick(T0 + 3_000);
    expect(single.status().role).toBe('leader');
    single.onCommitted(head1, { ...config(-1, 1), sealers: [ids[5]!] }, T0 + 3_100);
    expect(single.status()).toMatchObject({ role: 'follower', leader: -1 });
    expect(single.tick(T0 + 60_000).send).toEqual([]);
  });

  it('a leader whose index shifts with a membership change keeps reporting itself as the leader', () => {
    const head1: RaftHead = { height: 1, hash: new Uint8Array(32).fill(1), timestamp: 1, signatures: [] };
    const leader = node(0, INITIAL_HARD_STATE, 1);
    leader.tick(T0 + 3_000);
    expect(leader.status()).toMatchObject({ role: 'leader', leader: 0 });
    // a sealer added in front of it: it is index 1 from the next block on
    leader.onCommitted(head1, { ...config(1, 2), sealers: [ids[5]!, ids[0]!] }, T0 + 3_100);
    expect(leader.status()).toMatchObject({ role: 'leader', leader: 1 });
  });
});

describe('Raft wire codec', () => {
  const hash = (d: Uint8Array) => keccak256(d);
  const signerFor = (i: number) => ({
    scheme: 'test',
    signatureSize: 33,
    distinctPart: [0, 33] as const,
    sign: (d: Uint8Array) => signerOf(i)(d),
    verify: (d: Uint8Array, s: Uint8Array, id: Uint8Array) => s.length === 33 && s[0] === id[0]! - 1 && toHex(s.subarray(1)) === toHex(d),
  });
  const nodeIdOf = (idx: number) => ids[idx];
  const p = proposalOn(GENESIS, 0, 2);
  const messages: RaftMessage[] = [
    voteReq(2, 7, 4, 3),
    { type: 'voteResp', term: 7, idx: 1, height: 3, blockHash: new Uint8Array(32).fill(3), candidateTerm: 7, flag: 'firstVote', lastLeaderTerm: 5 },
    { type: 'heartbeat', term: 7, idx: 0, height: 0, blockHash: GENESIS.hash, seq: 12, headSignatures: [{ index: 1, signature: signerOf(1)(GENESIS.hash) }], pending: { height: 1, blockHash: blockHashOf(p), proposal: p } },
    { type: 'heartbeat', term: 7, idx: 0, height: 0, blockHash: GENESIS.hash, seq: 13, headSignatures: [], pending: { height: 1, blockHash: blockHashOf(p) } },
    { type: 'heartbeat', term: 7, idx: 0, height: 0, blockHash: GENESIS.hash, seq: 14, headSignatures: [] },
    { type: 'heartbeatResp', term: 7, idx: 3, height: 0, blockHash: GENESIS.hash, seq: 12, ack: { height: 1, blockHash: blockHashOf(p), signature: signerOf(3)(blockHashOf(p)) } },
    { type: 'heartbeatResp', term: 7, idx: 3, height: 0, blockHash: GENESIS.hash, seq: 12 },
  ];

  it.each(messages.map((m) => [`${m.type}${'pending' in m && m.pending ? (m.pending.proposal ? ' with block' : ' with block hash') : ''}`, m] as const))('round-trips a %s', (_name, message) => {
    const bytes = encodeRaftMessage(message, signerFor(message.idx), hash);
    expect(decodeRaftMessage(bytes, signerFor(9), hash, nodeIdOf)).toEqual(message);
  });

  /** A message's RLP items, edited, then signed again by sealer `by`: only the edit can be refused. */
  const resigned = (m: RaftMessage, edit: (items: RlpValue[]) => RlpValue[], by = m.idx): Uint8Array => {
    const fields = edit((rlpDecode(encodeRaftMessage(m, signerFor(m.idx), hash)) as RlpValue[]).slice(0, -1));
    return rlpEncode([...fields, signerFor(by).sign(hash(rlpEncode(fields)))]);
  };
  const at = (i: number, v: RlpValue) => (items: RlpValue[]) => items.map((x, k) => (k === i ? v : x));
  const within = (i: number, j: number, v: RlpValue) => (items: RlpValue[]) => items.map((x, k) => (k === i ? (x as RlpValue[]).map((y, l) => (l === j ? v : y)) : x));
  const [vreq, vresp, hbBlock, , hbPlain, hbrAck, hbr] = messages;
  it.each<[string, () => Uint8Array, string]>([
    ['bytes that are not RLP', () => Uint8Array.of(0xf8), 'Raft message'],
    ['a list of 7 items', () => rlpEncode(Array.from({ length: 7 }, () => Uint8Array.of(1))), 'a Raft message is a list of at least 8 items'],
    ['a list for its type', () => resigned(vreq!, at(0, [])), 'Raft type: expected bytes'],
    ['an unknown type', () => resigned(vreq!, at(0, Uint8Array.of(9))), 'Raft packet type 9 is unknown'],
    ['a vote request of 10 items', () => resigned(vreq!, (x) => [...x, new Uint8Array()]), 'Raft voteReq: expected 9 items, got 10'],
    ['a term wider than 7 bytes', () => resigned(vreq!, at(1, new Uint8Array(8).fill(1))), 'Raft term'],
    ['an index wider than 2 bytes', () => resigned(vreq!, at(2, Uint8Array.of(1, 0, 0))), 'Raft idx'],
    ['a height with a leading zero', () => resigned(vreq!, at(3, Uint8Array.of(0, 3))), 'Raft height'],
    ['a 31-byte block hash', () => resigned(vreq!, at(4, new Uint8Array(31))), 'Raft blockHash: expected 32 bytes'],
    ['an index of no sealer', () => resigned(vreq!, at(2, Uint8Array.of(20))), 'Raft voteReq from index 20, which is not a sealer'],
    ['a list for its signature', () => rlpEncode([...(rlpDecode(encodeRaftMessage(vreq!, signerFor(2), hash)) as RlpValue[]).slice(0, -1), []]), 'Raft signature: expected some bytes'],
    ['a signature by another sealer', () => resigned(vreq!, (x) => x, 1), "Raft voteReq claims sealer 2 but its signature is not that sealer's"],
    ['a vote request with a list for lastHeight', () => resigned(vreq!, at(5, [])), 'Raft lastHeight: expected bytes'],
    ['a vote request with a wide lastEntryTerm', () => resigned(vreq!, at(6, new Uint8Array(8).fill(1))), 'Raft lastEntryTerm'],
    ['a vote request with a wide lastLeaderTerm', () => resigned(vreq!, at(7, new Uint8Array(8).fill(1))), 'Raft lastLeaderTerm'],
    ['a vote answer with a list for its flag', () => resigned(vresp!, at(6, [])), 'Raft voteFlag: expected bytes'],
    ['a vote answer with a wide lastLeaderTerm', () => resigned(vresp!, at(7, new Uint8Array(8).fill(1))), 'Raft lastLeaderTerm'],
    ['a heartbeat with bytes for its pending block', () => resigned(hbPlain!, at(7, Uint8Array.of(1))), 'Raft pending: expected a list'],
    ['a heartbeat answer with a wide seq', () => resigned(hbr!, at(5, new Uint8Array(8).fill(1))), 'Raft seq'],
    ['an unknown vote flag', () => resigned(vresp!, at(6, Uint8Array.of(99))), 'Raft vote flag 99 is unknown'],
    ['a vote answer with a wide candidate term', () => resigned(vresp!, at(5, new Uint8Array(8).fill(1))), 'Raft candidateTerm'],
    ['a heartbeat with bytes for its head signatures', () => resigned(hbPlain!, at(6, Uint8Array.of(1))), 'Raft headSignatures: expected a list'],
    ['a heartbeat head signature of 3 items', () => resigned(messages[2]!, within(6, 0, [Uint8Array.of(1), Uint8Array.of(2), Uint8Array.of(3)])), 'Raft headSignatures[0]: expected [index, signature]'],
    ['a heartbeat head signature that is bytes', () => resigned(messages[2]!, within(6, 0, Uint8Array.of(1))), 'Raft headSignatures[0]: expected a list'],
    ['a head signature index wider than 2 bytes', () => resigned(messages[2]!, within(6, 0, [Uint8Array.of(1, 0, 0), Uint8Array.of(2)])), 'Raft headSignatures[0].index'],
    ['a head signature that is a list', () => resigned(messages[2]!, within(6, 0, [Uint8Array.of(1), []])), 'Raft headSignatures[0].signature: expected some bytes'],
    ['a heartbeat whose pending block has 1 item', () => resigned(hbBlock!, at(7, [Uint8Array.of(1)])), 'Raft heartbeat pending: expected 0, 2 or 3 items'],
    ['a heartbeat whose pending block has 4 items', () => resigned(hbBlock!, (x) => at(7, [...(x[7] as RlpValue[]), new Uint8Array()])(x)), 'Raft heartbeat pending: expected 0, 2 or 3 items'],
    ['a pending block hash of 31 bytes', () => resigned(hbBlock!, within(7, 1, new Uint8Array(31))), 'Raft pending.blockHash: expected 32 bytes'],
    ['a pending height with a leading zero', () => resigned(hbBlock!, within(7, 0, Uint8Array.of(0, 1))), 'Raft pending.height'],
    ['a heartbeat with a wide seq', () => resigned(hbPlain!, at(5, new Uint8Array(8).fill(1))), 'Raft seq'],
    ['an acknowledgement of 2 items', () => resigned(hbrAck!, (x) => at(6, (x[6] as RlpValue[]).slice(0, 2))(x)), 'Raft heartbeat ack: expected 0 or 3 items'],
    ['an acknowledgement that is bytes', () => resigned(hbr!, at(6, Uint8Array.of(1))), 'Raft ack: expected a list'],
    ['an acknowledged hash of 31 bytes', () => resigned(hbrAck!, within(6, 1, new Uint8Array(31))), 'Raft ack.blockHash: expected 32 bytes'],
    ['an acknowledged height with a leading zero', () => resigned(hbrAck!, within(6, 0, Uint8Array.of(0, 1))), 'Raft ack.height'],
    ['an acknowledgement signature that is a list', () => resigned(hbrAck!, within(6, 2, [])), 'Raft ack.signature: expected some bytes'],
  ])('refuses %s, saying what is wrong', (_what, make, message) => {
    expectRefusal(() => decodeRaftMessage(make(), signerFor(9), hash, nodeIdOf), MessageDecodeError, message);
  });

  it('rejects a message signed by another sealer than its index, an acknowledgement signed by another, and unknown codes', () => {
    const forged = encodeRaftMessage(messages[0]!, signerFor(1), hash);
    expect(() => decodeRaftMessage(forged, signerFor(9), hash, nodeIdOf)).toThrow(/signature is not that sealer's/);
    const badAck = { ...(messages[5] as Extract<RaftMessage, { type: 'heartbeatResp' }>), ack: { height: 1, blockHash: blockHashOf(p), signature: signerOf(2)(blockHashOf(p)) } };
    expect(() => decodeRaftMessage(encodeRaftMessage(badAck, signerFor(3), hash), signerFor(9), hash, nodeIdOf)).toThrow(/block signature is not that sealer's/);
    expect(() => decodeRaftMessage(encodeRaftMessage({ ...messages[0]!, idx: 8 }, signerFor(8), hash), signerFor(9), hash, (i) => (i < 4 ? ids[i] : undefined))).toThrow(/not a sealer/);
    expect(() => decodeRaftMessage(Uint8Array.of(0xc0), signerFor(9), hash, nodeIdOf)).toThrow(/at least 8 items/);
  });
});

describe('Raft reports from the driver', () => {
  const follower3 = () => node(1, INITIAL_HARD_STATE, 3);
  const beat = (term: number, p: Proposal, extra: Partial<Extract<RaftMessage, { type: 'heartbeat' }>> = {}): RaftMessage => ({
    type: 'heartbeat',
    term,
    idx: 0,
    height: 0,
    blockHash: GENESIS.hash,
    seq: 1,
    headSignatures: [],
    pending: { height: 1, blockHash: blockHashOf(p), proposal: p },
    ...extra,
  });
  const single = () => {
    const leader = node(0, INITIAL_HARD_STATE, 1);
    leader.tick(T0 + 3_000); // a single sealer elects itself
    return leader;
  };

  it('propose refuses what it may not seal now, saying why: not ready (a follower), another height than the next', () => {
    const follower = follower3();
    const out = follower.propose(proposalOn(GENESIS, 1, 1, 3), T0);
    expect(out.execute).toBeUndefined();
    expect(out.events).toEqual([expect.objectContaining({ kind: 'raft-proposal-ignored', fields: { height: 1, reason: 'not ready to seal' } })]);
    const leader = single();
    const ahead = { ...proposalOn(GENESIS, 0, 1, 1), number: 2 };
    const refused = leader.propose(ahead, T0 + 3_000);
    expect(refused.execute).toBeUndefined();
    expect(refused.events).toEqual([expect.objectContaining({ kind: 'raft-proposal-ignored', fields: { height: 2, reason: 'expected height 1' } })]);
  });

  it("a follower refuses a leader's block that is not the next on its head, naming the field", () => {
    const refusal = (p: Proposal) => {
      const out = follower3().onMessage(beat(1, p), T0);
      const reason = out.events.find((e) => e.kind === 'raft-block-refused')?.fields.reason;
      expect(out.execute === undefined).toBe(reason !== undefined); // refused, or executed
      return reason;
    };
    const base = proposalOn(GENESIS, 0, 1, 3);
    expect(refusal({ ...base, number: 2 })).toBe('number 2, expected 1');
    const otherParent = new Uint8Array(32).fill(0xab);
    expect(refusal({ ...base, parentHash: otherParent })).toBe(`parent ${toHex(otherParent).slice(0, 10)}… is not the head ${toHex(GENESIS.hash).slice(0, 10)}…`);
    expect(refusal({ ...base, timestamp: GENESIS.timestamp })).toBe(`timestamp ${GENESIS.timestamp} is not after the parent's ${GENESIS.timestamp}`);
    expect(refusal({ ...base, sealer: 3 })).toBe('sealer index 3 is out of range');
    expect(refusal({ ...base, sealerList: [ids[0]!, ids[2]!, ids[1]!] })).toBe('sealer list differs from the consensus list');
    expect(refusal({ ...base, sealerList: ids.slice(0, 4) })).toBe('sealer list differs from the consensus list');
    expect(refusal(base)).toBeUndefined();
  });

  it('onExecutionFailed forgets the block of that height (sealing or executing) and says why; a block of another height is kept', () => {
    const leader = single();
    const p = proposalOn(GENESIS, 0, 1, 1);
    expect(leader.propose(p, T0 + 3_000).execute?.height).toBe(1);
    expect(leader.onExecutionFailed(2, 'not this one').events).toEqual([expect.objectContaining({ kind: 'raft-proposal-rejected', fields: { height: 2, reason: 'not this one' } })]);
    expect(leader.canSeal()).toBeUndefined(); // still sealing height 1
    expect(leader.onExecutionFailed(1, 'gas limit').events).toEqual([expect.objectContaining({ kind: 'raft-proposal-rejected', fields: { height: 1, reason: 'gas limit' } })]);
    expect(leader.canSeal()).toEqual({ height: 1 }); // it may seal again
    expect(leader.onExecuted(1, blockHashOf(p), T0 + 3_010).events.map((e) => e.kind)).not.toContain('raft-sealed');

    const follower = follower3();
    const q = proposalOn(GENESIS, 0, 1, 3);
    expect(follower.onMessage(beat(1, q), T0).execute?.height).toBe(1);
    follower.onExecutionFailed(2, 'not this one');
    expect(follower.onExecuted(1, blockHashOf(q), T0 + 5).persist?.state.pending?.height).toBe(1);
    const again = follower3();
    again.onMessage(beat(1, q), T0);
    again.onExecutionFailed(1, 'bad transaction');
    const late = again.onExecuted(1, blockHashOf(q), T0 + 5);
    expect(late.persist).toBeUndefined();
    expect(late.send).toEqual([]);
  });

  it('a follower whose term moved on while it executed does not accept the old term’s block', () => {
    const follower = follower3();
    const p = proposalOn(GENESIS, 0, 1, 3);
    follower.onMessage(beat(1, p), T0);
    // a newer leader's heartbeat without a block: term 4 now
    follower.onMessage({ type: 'heartbeat', term: 4, idx: 2, height: 0, blockHash: GENESIS.hash, seq: 1, headSignatures: [] }, T0 + 2);
    const out = follower.onExecuted(1, blockHashOf(p), T0 + 5);
    expect(out.events).toEqual([expect.objectContaining({ kind: 'raft-entry-stale', fields: { height: 1, term: 1, currentTerm: 4 } })]);
    expect(out.persist).toBeUndefined();
    expect(out.send).toEqual([]);
    expect(follower.status().pending).toBeUndefined();
  });

  it('onCommitFailed releases the commit of the next height only, so a later certificate commits it again', () => {
    const p = proposalOn(GENESIS, 0, 1, 3);
    const hash = blockHashOf(p);
    const certificate = [0, 2].map((index) => ({ index, signature: signerOf(index)(hash) }));
    const withCertificate = beat(1, p, { height: 1, blockHash: hash, headSignatures: certificate, seq: 2 });
    const accepted = () => {
      const f = follower3();
      f.onMessage(beat(1, p), T0);
      f.onExecuted(1, hash, T0 + 5);
      expect(f.onMessage(withCertificate, T0 + 10).commit).toMatchObject({ height: 1, by: 'certificate' });
      expect(f.onMessage(withCertificate, T0 + 20).commit).toBeUndefined(); // one commit at a time
      return f;
    };
    const f = accepted();
    expect(f.onCommitFailed(1, '1 valid signatures').events).toEqual([expect.objectContaining({ kind: 'raft-commit-failed', fields: { height: 1, reason: '1 valid signatures' } })]);
    expect(f.onMessage(withCertificate, T0 + 30).commit).toMatchObject({ height: 1, by: 'certificate' });
    const g = accepted();
    expect(g.onCommitFailed(2, 'another height').events[0]).toMatchObject({ kind: 'raft-commit-failed', fields: { height: 2 } });
    expect(g.onMessage(withCertificate, T0 + 30).commit).toBeUndefined(); // height 1 is still being committed
  });

  it("a leader takes only the execution of the height it is sealing; another height's report changes nothing", () => {
    const leader = single();
    const p = proposalOn(GENESIS, 0, 1, 1);
    leader.propose(p, T0 + 3_000);
    expect(leader.onExecuted(2, blockHashOf(p), T0 + 3_005)).toEqual({ send: [], events: [] });
    expect(leader.canSeal()).toBeUndefined(); // still sealing height 1
    expect(leader.onExecuted(1, blockHashOf(p), T0 + 3_010).events.map((e) => e.kind)).toContain('raft-sealed');
  });

  it('a block committed (by sync) at the height a leader was sealing ends that sealing: it may seal the next', () => {
    const leader = single();
    const p = proposalOn(GENESIS, 0, 1, 1);
    leader.propose(p, T0 + 3_000);
    const head1: RaftHead = { height: 1, hash: new Uint8Array(32).fill(1), timestamp: 1, signatures: [] };
    leader.onCommitted(head1, config(0, 1), T0 + 3_005);
    expect(leader.canSeal()).toEqual({ height: 2 });
    expect(leader.onExecuted(1, blockHashOf(p), T0 + 3_010).events.map((e) => e.kind)).not.toContain('raft-sealed');
  });

  it('a candidate gives up its campaign when the sealer set changes, and says so', () => {
    const candidate = follower3();
    expect(candidate.tick(T0 + 2_000).events.map((e) => e.kind)).toContain('raft-campaign');
    expect(candidate.status().role).toBe('candidate');
    const head1: RaftHead = { height: 1, hash: new Uint8Array(32).fill(1), timestamp: 1, signatures: [] };
    const out = candidate.onCommitted(head1, config(1, 4), T0 + 2_010);
    expect(out.events.find((e) => e.kind === 'raft-campaign-failed')?.fields.reason).toBe('the sealer set changed');
    expect(candidate.status()).toMatchObject({ role: 'follower', leader: -1 });
  });

  it('a leader seals only when n − f sealers (itself included) report its head: stale or self-contradicting reports do not count', () => {
    const net = new RaftNet(4, 'stale-heads', { txs: 0, minDelay: 2, maxDelay: 10 });
    net.run(T0 + 5_000);
    const idx = net.leaderOf()!;
    const leader = net.nodes[idx]!;
    expect(leader.canSeal()).toEqual({ height: 1 }); // every follower reported genesis
    const term = leader.status().term;
    const head1: RaftHead = { height: 1, hash: new Uint8Array(32).fill(1), timestamp: 1, signatures: [] };
    leader.onCommitted(head1, config(idx, 4), net.now);
    expect(leader.canSeal()).toBeUndefined(); // the followers' reports are of height 0 now
    const others = [0, 1, 2, 3].filter((i) => i !== idx);
    const report = (from: number, height: number, blockHash: Uint8Array) =>
      leader.onMessage({ type: 'heartbeatResp', term, idx: from, height, blockHash, seq: 1 }, net.now);
    report(others[0]!, 0, head1.hash); // the head's hash with another height
    report(others[1]!, 1, GENESIS.hash); // the head's height with another hash
    expect(leader.canSeal()).toBeUndefined();
    report(others[2]!, 1, head1.hash);
    expect(leader.canSeal()).toBeUndefined(); // 2 of the 3 needed: the contradicting reports do not count
    report(others[1]!, 1, head1.hash);
    expect(leader.canSeal()).toEqual({ height: 2 });
  });
});
