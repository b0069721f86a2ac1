import { toHex } from '../codec/index.js';
import type { Heartbeat, Proposal, RaftMessage, VoteResponse } from '../consensus/index.js';
import { conflictingProposal, type ByzantineBehaviour } from './pbft-adversary.js';

/** What the Raft adversary needs from its driver. */
export interface RaftAdversaryPort {
  selfIndex(): number;
  sealerCount(): number;
  /** The message signed and encoded for the wire. */
  encode(message: RaftMessage): Uint8Array;
  /** Sends to the sealer at this index. */
  send(to: number, bytes: Uint8Array): void;
  /** Executes a proposal on the current head and returns its block hash (undefined if it does not execute). */
  execute(proposal: Proposal): Promise<Uint8Array | undefined>;
  trace(kind: string, fields: Record<string, unknown>): void;
}

/** How many of its granted votes a double-voter keeps for replay. */
const KEPT_VOTES = 4;

/**
 * A byzantine Raft sealer (simulations and fault tests). Its state machine stays honest; the
 * behaviour acts on what it sends, signed with its own key:
 *
 * - `double-vote`: every vote request it would refuse because it already voted in that term
 *   (`discard`) or as the first request after a stable leader (`firstVote`) is answered `granted`,
 *   so it grants every candidate that asks in a term; and each vote request it receives is also
 *   answered with replays of granted VoteResps it sent earlier (the exact signed bytes: a VoteResp
 *   names the term, not the candidate, so a vote granted to A in term t counts for B in term t).
 * - `conflicting-leader`: as leader, the heartbeats that carry its uncommitted block go to the
 *   first half of its followers (by sealer index) as they are, and to the others with a
 *   conflicting block at the same height (conflictingProposal: a later timestamp), with that
 *   block's real hash, executed here, so the followers that get it execute and acknowledge it.
 */
export class RaftAdversary {
  private readonly granted: Array<{ to: number; term: number; bytes: Uint8Array }> = [];
  /** conflicting-leader: the conflicting block for the pending one, by the pending block's hash. */
  private conflict: { of: string; height: number; proposal: Proposal; hash: Uint8Array | undefined; traced: boolean } | undefined;
  readonly stats = { secondVotes: 0, replayedVotes: 0, conflictingEntries: 0 };

  constructor(
    readonly behaviour: ByzantineBehaviour,
    private readonly port: RaftAdversaryPort,
  ) {}

  /** Before the messages of one output go out: conflicting-leader executes its conflicting block. */
  async prepare(send: ReadonlyArray<{ message: RaftMessage }>): Promise<void> {
    if (this.behaviour.kind !== 'conflicting-leader') return;
    for (const { message } of send) {
      const p = message.type === 'heartbeat' ? message.pending : undefined;
      if (!p?.proposal || p.proposal.sealer !== this.port.selfIndex()) continue;
      const of = toHex(p.blockHash);
      if (this.conflict?.of === of) return;
      const proposal = conflictingProposal(p.proposal);
      this.conflict = { of, height: p.height, proposal, hash: await this.port.execute(proposal), traced: false };
      return;
    }
  }

  /** Sends one of this node's messages in place of the honest send; false to let the driver send it as is. */
  send(to: number | 'all', message: RaftMessage): boolean {
    if (this.behaviour.kind === 'double-vote' && message.type === 'voteResp' && to !== 'all') return this.sendVote(to, message);
    if (this.behaviour.kind === 'conflicting-leader' && message.type === 'heartbeat' && message.pending?.proposal) return this.sendConflicting(to, message);
    return false;
  }

  /** A message from a peer (double-vote replays its old votes to every candidate that asks). */
  observe(message: RaftMessage, _bytes?: Uint8Array): void {
    if (this.behaviour.kind !== 'double-vote' || message.type !== 'voteReq') return;
    const replays = this.granted.filter((g) => g.to !== message.idx || g.term !== message.term);
    for (const g of replays) this.port.send(message.idx, g.bytes);
    if (replays.length > 0) {
      this.stats.replayedVotes += replays.length;
      this.port.trace('byzantine-action', { behaviour: 'double-vote', action: 'replay-votes', to: message.idx, term: message.term, votes: replays.map((g) => `${g.term}→${g.to}`) });
    }
  }

  private sendVote(to: number, message: VoteResponse): boolean {
    let vote = message;
    if (message.flag === 'discard' || message.flag === 'firstVote') {
      vote = { ...message, flag: 'granted' };
      this.stats.secondVotes++;
      this.port.trace('byzantine-action', { behaviour: 'double-vote', action: 'second-vote', to, term: message.candidateTerm, instead: message.flag });
    }
    const bytes = this.port.encode(vote);
    this.port.send(to, bytes);
    if (vote.flag === 'granted') {
      this.granted.push({ to, term: vote.candidateTerm, bytes });
      if (this.granted.length > KEPT_VOTES) this.granted.shift();
    }
    return true;
  }

  private sendConflicting(to: number | 'all', message: Heartbeat): boolean {
    const c = this.conflict;
    const p = message.pending!;
    if (!c || c.of !== toHex(p.blockHash) || !c.hash) return false;
    const self = this.port.selfIndex();
    const followers = Array.from({ length: this.port.sealerCount() }, (_, i) => i).filter((i) => i !== self);
    const others = new Set(followers.slice(Math.floor(followers.length / 2)));
    const forged = this.port.encode({ ...message, pending: { height: p.height, blockHash: c.hash, proposal: c.proposal } });
    const own = this.port.encode(message);
    for (const i of to === 'all' ? followers : [to]) this.port.send(i, others.has(i) ? forged : own);
    this.stats.conflictingEntries++;
    if (c.traced) return true;
    c.traced = true;
    this.port.trace('byzantine-action', {
      behaviour: 'conflicting-leader',
      action: 'conflicting-entries',
      height: p.height,
      term: message.term,
      own: toHex(p.blockHash),
      conflicting: toHex(c.hash),
      conflictFollowers: [...others],
    });
    return true;
  }
}
