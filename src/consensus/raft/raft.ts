import { bytesEqual, toHex, toHexNoPrefix } from '../../codec/index.js';
import type { Proposal } from '../proposal.js';
import type { Heartbeat, HeartbeatResponse, IndexedSignature, RaftMessage, VoteFlag, VoteRequest, VoteResponse } from './raft-messages.js';

/** FISCO: heartbeat interval = min_elect_time / 4. */
export const HEARTBEAT_RATIO = 4;
/** FISCO clears its first-vote memory after this many heartbeats sent or received. */
export const FIRST_VOTE_CLEAR_HEARTBEATS = 2 * HEARTBEAT_RATIO;
/** A proposal's timestamp may be at most this far ahead of the local clock. */
export const RAFT_MAX_BLOCK_TIME_DIFF_MS = 10 * 60 * 1000;

export interface RaftConfig {
  /** Sealer node ids (64 bytes each), in index order (ascending). */
  readonly sealers: readonly Uint8Array[];
  /** This node's index among the sealers, or -1 (observer, removed, or not a member). */
  readonly selfIndex: number;
  readonly minElectMs: number;
  readonly maxElectMs: number;
  /** tx_count_limit: proposals with more transactions are refused. */
  readonly txCountLimit: number;
}

/** The latest committed block. */
export interface RaftHead {
  readonly height: number;
  readonly hash: Uint8Array;
  readonly timestamp: number;
  /** The block's signature list: heartbeats carry it so that followers holding the block can commit it. */
  readonly signatures: readonly IndexedSignature[];
}

/** The one uncommitted block a node holds: its "log" is the committed chain plus this entry. */
export interface RaftEntry {
  readonly height: number;
  /** The term of the leader that (re)proposed it; a new leader re-stamps an entry it inherits. */
  readonly term: number;
  /** The executed block's hash. */
  readonly blockHash: Uint8Array;
  readonly proposal: Proposal;
}

/** What Raft must keep across a crash. Written (durably when `sync`) before the messages of the same output go out. */
export interface RaftHardState {
  readonly term: number;
  /** The highest term in which this node cast a vote (for itself as candidate, or for another). */
  readonly votedTerm: number;
  /** Node id of the candidate it voted for in votedTerm. */
  readonly votedFor: Uint8Array | null;
  /** Term of the last block entry this node accepted (the up-to-date check compares it first). */
  readonly lastEntryTerm: number;
  readonly pending: RaftEntry | null;
}

export const INITIAL_HARD_STATE: RaftHardState = { term: 0, votedTerm: 0, votedFor: null, lastEntryTerm: 0, pending: null };

export type RaftRole = 'follower' | 'candidate' | 'leader';

export interface RaftCommit {
  readonly height: number;
  readonly blockHash: Uint8Array;
  /** n − f or more block signatures by sealer index, ascending. */
  readonly signatures: IndexedSignature[];
  readonly proposal: Proposal;
  /** Whether this node's own acknowledgements decided it (leader), or a leader's certificate (follower). */
  readonly by: 'leader' | 'certificate';
}

export interface RaftEvent {
  readonly kind: string;
  readonly fields: Record<string, unknown>;
}

/** What the caller must do after an input; nothing here has happened yet. Do it in this order. */
export interface RaftOutput {
  /** 1. Persist this state; with `sync`, durably, before sending anything below. */
  persist?: { state: RaftHardState; sync: boolean };
  /** 2. Messages: 'all' for every other sealer, or a sealer index. */
  readonly send: Array<{ to: number | 'all'; message: RaftMessage }>;
  /** 3. Arm the one timer at this absolute time and call tick then; undefined keeps the current one. */
  timerAt?: number;
  /** 4. Execute this proposal on the committed head and report with onExecuted / onExecutionFailed. */
  execute?: { height: number; proposal: Proposal };
  /** 5. Commit the block (executing it first if the executor no longer holds it) and report with onCommitted. */
  commit?: RaftCommit;
  readonly events: RaftEvent[];
}

const emptyOutput = (): RaftOutput => ({ send: [], events: [] });

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

interface Campaign {
  readonly term: number;
  /** The term before this run of campaigns: a campaign that fails returns to it. */
  readonly preTerm: number;
  readonly granted: Set<number>;
  readonly answers: Map<number, VoteFlag>;
}

interface Leadership {
  readonly since: number;
  seq: number;
  nextHeartbeatAt: number;
  /** When each follower last answered a heartbeat of this term. */
  readonly heardAt: Map<number, number>;
  /** Each follower's committed head as it last reported it. */
  readonly heads: Map<number, { height: number; hash: Uint8Array }>;
  /** Acknowledgements of the pending entry (this node's own included), by sealer index. */
  acks: Map<number, Uint8Array>;
}

/**
 * FISCO BCOS 2.x Raft for one group, as a deterministic state machine: it never touches a clock,
 * timer, socket or randomness source of its own; it takes inputs and returns what to do.
 *
 * Like FISCO, the replicated "log" is the committed chain plus at most one uncommitted block.
 * The leader seals a block, executes it and ships it with its heartbeats; a follower whose head
 * is the block's parent executes it, checks the hash, stores it durably and acknowledges it with
 * a signature of the hash. With n − f acknowledgements (f = ⌊(n − 1) / 2⌋) in its own term the
 * leader commits it with those signatures as the block's signature list; its next heartbeat
 * carries that list, and followers holding the same block commit it too (others get it by
 * block sync). A new leader re-stamps the uncommitted block it inherits with its own term and
 * commits it the same way, never by counting older acknowledgements (Raft's figure 8).
 *
 * Safety rests on Raft's rules, kept durable before any message that depends on them: one vote
 * per term (votedTerm, votedFor), and a vote only for a candidate whose log is at least as up to
 * date: (term of its last accepted entry, its length) compared lexicographically.
 *
 * FISCO's liveness tweaks are kept where they are safe: the first vote request after following a
 * stable leader is refused (FIRST_VOTE; here the candidate retries at once), a failed campaign
 * returns to its previous term (so an isolated node does not inflate terms and disrupt the
 * group when it comes back; its own vote in the abandoned term still blocks any other vote in
 * it), election times back off after failures, and a leader that hears from fewer than n − f
 * within min_elect_time campaigns again. Added: a follower that heard its leader within
 * min_elect_time / 2 refuses votes (REJECT), so a node rejoining after a partition cannot
 * depose a working leader.
 */
export class Raft {
  private config: RaftConfig;
  private head: RaftHead;
  private hard: Mutable<RaftHardState>;
  private persistNeeded: 'none' | 'lazy' | 'sync' = 'none';
  private role: RaftRole = 'follower';
  private leader = -1;
  private lastLeaderTerm = 0;
  private lastLeaderContact = Number.NEGATIVE_INFINITY;
  private lastSeq = 0;
  /** The highest term seen in vote requests and answers (in memory only). */
  private seenTerm = 0;
  private electMin: number;
  private electMax: number;
  private electionDeadline = 0;
  private firstVote: number | undefined;
  private heartbeatCount = 0;
  private campaign: Campaign | undefined;
  private lead: Leadership | undefined;
  /** The leader's own proposal, being executed. */
  private sealing: Proposal | undefined;
  /** A commit was handed to the caller and not reported back yet. */
  private committing = false;
  /** A follower's copy of the leader's proposal, being executed. */
  private executing: { height: number; term: number; blockHash: Uint8Array; proposal: Proposal } | undefined;
  private reportedTimer: number | undefined;
  /** The latest committed head a leader showed us, with its signature list. */
  private certificate: { height: number; blockHash: Uint8Array; signatures: readonly IndexedSignature[] } | undefined;
  private signed: { hash: string; signature: Uint8Array } | undefined;
  private out: RaftOutput = emptyOutput();

  /**
   * `signBlock` signs a block hash with this node's key (acknowledgements); `random` is uniform
   * in [0, 1) from the node's seeded stream (election timeouts).
   */
  constructor(
    config: RaftConfig,
    head: RaftHead,
    hardState: RaftHardState,
    now: number,
    private readonly signBlock: (blockHash: Uint8Array) => Uint8Array,
    private readonly random: () => number,
  ) {
    this.config = config;
    this.head = head;
    const pending = hardState.pending && hardState.pending.height === head.height + 1 ? hardState.pending : null;
    this.hard = { ...hardState, pending };
    this.electMin = config.minElectMs;
    this.electMax = config.maxElectMs;
    this.resetElectionTimer(now);
  }

  // --- queries -------------------------------------------------------------------------

  get n(): number {
    return this.config.sealers.length;
  }

  get f(): number {
    return Math.floor((this.n - 1) / 2);
  }

  /** Votes and acknowledgements needed: n − f. */
  get quorum(): number {
    return this.n - this.f;
  }

  get isSealer(): boolean {
    return this.config.selfIndex >= 0 && this.config.selfIndex < this.n;
  }

  private get self(): number {
    return this.config.selfIndex;
  }

  private get heartbeatInterval(): number {
    return Math.max(1, Math.floor(this.config.minElectMs / HEARTBEAT_RATIO));
  }

  /** Committed height plus one if an uncommitted block is held. */
  private get lastHeight(): number {
    return this.head.height + (this.hard.pending ? 1 : 0);
  }

  status() {
    const p = this.hard.pending;
    return {
      role: this.role,
      term: this.hard.term,
      votedTerm: this.hard.votedTerm,
      lastEntryTerm: this.hard.lastEntryTerm,
      leader: this.leader,
      lastLeaderTerm: this.lastLeaderTerm,
      height: this.head.height,
      headHash: this.head.hash,
      pending: p ? { height: p.height, term: p.term, blockHash: p.blockHash, txs: p.proposal.transactions.length } : undefined,
      acks: this.lead?.acks.size ?? 0,
      electionDeadline: this.electionDeadline,
      electRange: [this.electMin, this.electMax] as const,
    };
  }

  /** The hard state as it stands (what the last persist output said, plus unreported changes). */
  hardState(): RaftHardState {
    return { ...this.hard };
  }

  /** As leader: the height of the block it may seal now (no block in flight, n − f at its head), else undefined. */
  canSeal(): { height: number } | undefined {
    if (this.role !== 'leader' || !this.lead || this.hard.pending || this.sealing || this.committing) return undefined;
    let level = 1;
    for (const [idx, h] of this.lead.heads) if (idx !== this.self && h.height === this.head.height && bytesEqual(h.hash, this.head.hash)) level++;
    if (level < this.quorum) return undefined;
    return { height: this.head.height + 1 };
  }

  // --- inputs --------------------------------------------------------------------------

  /** Arm the election timer. */
  start(now: number): RaftOutput {
    return this.run(() => {
      this.resetElectionTimer(now);
      this.reportedTimer = undefined;
    });
  }

  /** The timer fired (or any time: it acts only on deadlines that passed). */
  tick(now: number): RaftOutput {
    this.reportedTimer = undefined; // the caller's timer fired: always say when the next one is due
    return this.run(() => {
      if (!this.isSealer) return;
      if (this.role === 'leader') return this.leaderTick(now);
      if (now < this.electionDeadline) return;
      if (this.role === 'candidate') this.candidateTimeout(now);
      else this.startCampaign(now, 'election timeout');
    });
  }

  /** A message from another sealer, already authenticated (the wire layer checked its signatures). */
  onMessage(message: RaftMessage, now: number): RaftOutput {
    return this.run(() => {
      if (!this.isSealer || message.idx === this.self || message.idx >= this.n) return;
      switch (message.type) {
        case 'voteReq':
          return this.onVoteRequest(message, now);
        case 'voteResp':
          return this.onVoteResponse(message, now);
        case 'heartbeat':
          return this.onHeartbeat(message, now);
        case 'heartbeatResp':
          return this.onHeartbeatResponse(message, now);
      }
    });
  }

  /** As leader: execute and then replicate this proposal (it must extend the head, see canSeal). */
  propose(proposal: Proposal, now: number): RaftOutput {
    return this.run(() => {
      const slot = this.canSeal();
      if (!slot || proposal.number !== slot.height) {
        this.event('raft-proposal-ignored', { height: proposal.number, reason: slot ? `expected height ${slot.height}` : 'not ready to seal' });
        return;
      }
      const problem = this.proposalProblem(proposal, now);
      if (problem) {
        this.event('raft-proposal-ignored', { height: proposal.number, reason: problem });
        return;
      }
      this.sealing = proposal;
      this.out.execute = { height: proposal.number, proposal };
    });
  }

  /** The proposal for `height` executed to `blockHash`. */
  onExecuted(height: number, blockHash: Uint8Array, now: number): RaftOutput {
    return this.run(() => {
      if (this.sealing && this.sealing.number === height) {
        const proposal = this.sealing;
        this.sealing = undefined;
        if (this.role !== 'leader' || !this.lead || height !== this.head.height + 1 || this.hard.pending) return;
        this.setPending({ height, term: this.hard.term, blockHash, proposal });
        this.lead.acks = new Map([[this.self, this.sign(blockHash)]]);
        this.event('raft-sealed', { height, term: this.hard.term, hash: toHex(blockHash), txs: proposal.transactions.length });
        this.sendHeartbeats(now);
        this.checkCommit();
        return;
      }
      const e = this.executing;
      if (!e || e.height !== height) return;
      this.executing = undefined;
      if (!bytesEqual(blockHash, e.blockHash)) {
        this.event('raft-execution-mismatch', { height, term: e.term, leaderHash: toHex(e.blockHash), localHash: toHex(blockHash) });
        return;
      }
      // only the leader of the current term may hand us an entry (a vote since may have moved us on)
      if (this.role !== 'follower' || e.term !== this.hard.term || height !== this.head.height + 1) {
        this.event('raft-entry-stale', { height, term: e.term, currentTerm: this.hard.term });
        return;
      }
      const replaced = this.hard.pending;
      if (replaced && !bytesEqual(replaced.blockHash, blockHash)) {
        this.event('raft-pending-dropped', { height, term: replaced.term, hash: toHex(replaced.blockHash), reason: `the leader of term ${e.term} replicates another block` });
      }
      this.setPending({ height, term: e.term, blockHash, proposal: e.proposal });
      this.event('raft-accepted', { height, term: e.term, hash: toHex(blockHash) });
      this.commitFromCertificate(); // the leader may have committed it while we executed
      if (this.committing) return;
      if (this.leader >= 0) this.send(this.leader, this.heartbeatResponse(this.lastSeq, this.ackOf(height, blockHash)));
    });
  }

  /** The proposal for `height` is invalid or failed to execute: do not acknowledge it. */
  onExecutionFailed(height: number, reason: string): RaftOutput {
    return this.run(() => {
      if (this.sealing?.number === height) this.sealing = undefined;
      if (this.executing?.height === height) this.executing = undefined;
      this.event('raft-proposal-rejected', { height, reason });
    });
  }

  /** A commit handed out was not carried out (a certificate whose signatures did not verify). */
  onCommitFailed(height: number, reason: string): RaftOutput {
    return this.run(() => {
      if (height === this.head.height + 1) this.committing = false;
      this.event('raft-commit-failed', { height, reason });
    });
  }

  /**
   * A block was committed (by this node's consensus or by sync). `config` is the one in force
   * for the next block (membership changes take effect here).
   */
  onCommitted(head: RaftHead, config: RaftConfig, now: number): RaftOutput {
    return this.run(() => {
      if (head.height <= this.head.height) return;
      const changed = config.selfIndex !== this.config.selfIndex || config.sealers.length !== this.n || config.sealers.some((id, i) => !bytesEqual(id, this.config.sealers[i]!));
      const wasSealer = this.isSealer;
      this.head = head;
      this.config = config;
      this.committing = false;
      if (this.executing && this.executing.height <= head.height) this.executing = undefined;
      if (this.sealing && this.sealing.number <= head.height) this.sealing = undefined;
      const p = this.hard.pending;
      if (p && p.height <= head.height) {
        if (p.height === head.height && !bytesEqual(p.blockHash, head.hash)) {
          this.event('raft-pending-dropped', { height: p.height, term: p.term, hash: toHex(p.blockHash), reason: `block ${toHex(head.hash)} was committed at that height` });
        }
        this.hard.pending = null;
        this.markDirty('lazy');
      }
      if (this.lead) this.lead.acks = new Map();
      if (changed) {
        this.event('raft-config', { from: head.height + 1, sealers: this.n, selfIndex: this.self });
        if (!this.isSealer) {
          this.role = 'follower';
          this.leader = -1;
          this.campaign = undefined;
          this.lead = undefined;
          this.sealing = undefined;
          return;
        }
        if (!wasSealer) this.resetElectionTimer(now);
        // indices may have shifted: what we knew by index is void
        if (this.lead) {
          this.leader = this.self;
          this.lead.heardAt.clear();
          this.lead.heads.clear();
          this.lead = { ...this.lead, since: now };
        } else this.leader = -1;
        if (this.campaign) this.giveUp(now, 'the sealer set changed');
      }
      if (this.role === 'leader') this.sendHeartbeats(now);
      else if (this.role === 'follower' && this.leader >= 0) this.send(this.leader, this.heartbeatResponse(this.lastSeq));
    });
  }

  // --- elections -----------------------------------------------------------------------

  private startCampaign(now: number, reason: string): void {
    const preTerm = this.campaign?.preTerm ?? this.hard.term;
    // above every term seen in vote traffic, so as not to collide with votes already cast
    const term = Math.max(this.hard.term, this.hard.votedTerm, this.seenTerm) + 1;
    this.hard.term = term;
    this.hard.votedTerm = term;
    this.hard.votedFor = this.config.sealers[this.self]!;
    this.markDirty('sync');
    this.role = 'candidate';
    this.leader = -1;
    this.lead = undefined;
    this.sealing = undefined;
    this.firstVote = this.self;
    this.campaign = { term, preTerm, granted: new Set([this.self]), answers: new Map() };
    this.resetElectionTimer(now);
    this.event('raft-campaign', { term, reason, lastHeight: this.lastHeight, lastEntryTerm: this.hard.lastEntryTerm });
    this.send('all', {
      type: 'voteReq',
      term,
      idx: this.self,
      height: this.head.height,
      blockHash: this.head.hash,
      lastHeight: this.lastHeight,
      lastEntryTerm: this.hard.lastEntryTerm,
      lastLeaderTerm: this.lastLeaderTerm,
    });
    if (this.campaign.granted.size >= this.quorum) this.becomeLeader(now);
  }

  private candidateTimeout(now: number): void {
    const c = this.campaign!;
    // FISCO: when a majority answered (split votes), campaign again at once; otherwise back off
    if (c.answers.size + 1 >= this.quorum) this.startCampaign(now, 'split vote');
    else this.giveUp(now, `${c.answers.size + 1} of ${this.n} answered`);
  }

  /** End a campaign without winning: back to the term before it (see the class comment), longer election times. */
  private giveUp(now: number, reason: string, term?: number): void {
    const c = this.campaign!;
    this.campaign = undefined;
    this.role = 'follower';
    this.leader = -1;
    this.setTerm(Math.max(c.preTerm, term ?? 0), 'lazy');
    this.increaseElectTime();
    this.resetElectionTimer(now);
    this.event('raft-campaign-failed', { term: c.term, backTo: this.hard.term, reason });
  }

  private onVoteRequest(m: VoteRequest, now: number): void {
    this.seenTerm = Math.max(this.seenTerm, m.term);
    const candidateId = this.config.sealers[m.idx]!;
    const answer = (flag: VoteFlag) =>
      this.send(m.idx, {
        type: 'voteResp',
        term: this.hard.term,
        idx: this.self,
        height: this.head.height,
        blockHash: this.head.hash,
        candidateTerm: m.term,
        flag,
        lastLeaderTerm: this.lastLeaderTerm,
      });
    const votedForCandidate = this.hard.votedTerm === m.term && this.hard.votedFor !== null && bytesEqual(this.hard.votedFor, candidateId);
    if (m.term < this.hard.term) return answer('reject');
    if (this.role === 'leader') return answer('leaderReject');
    if (m.term <= this.hard.votedTerm) return answer(votedForCandidate ? 'granted' : 'discard');
    if (this.role === 'follower' && this.leader >= 0 && now - this.lastLeaderContact < this.config.minElectMs / 2) return answer('reject');
    if (m.lastEntryTerm < this.hard.lastEntryTerm) return answer('lastTermError');
    if (m.lastEntryTerm === this.hard.lastEntryTerm && m.lastHeight < this.lastHeight) return answer('outdated');
    if (this.firstVote === undefined) {
      this.firstVote = m.idx;
      this.heartbeatCount = 0;
      return answer('firstVote');
    }
    // grant: durable before the answer leaves (the caller persists first)
    this.campaign = undefined;
    this.role = 'follower';
    this.leader = -1;
    this.lead = undefined;
    this.sealing = undefined;
    this.hard.term = m.term;
    this.hard.votedTerm = m.term;
    this.hard.votedFor = candidateId;
    this.markDirty('sync');
    this.firstVote = m.idx;
    this.resetElectionTimer(now);
    this.event('raft-vote', { term: m.term, candidate: m.idx });
    answer('granted');
  }

  private onVoteResponse(m: VoteResponse, now: number): void {
    this.seenTerm = Math.max(this.seenTerm, m.term);
    const c = this.campaign;
    if (this.role !== 'candidate' || !c || m.candidateTerm !== c.term || c.answers.has(m.idx)) return;
    c.answers.set(m.idx, m.flag);
    const count = (flag: VoteFlag) => [...c.answers.values()].filter((f) => f === flag).length;
    // refusals that will not change within this term: once they make a majority impossible, back off
    // (a candidate that kept campaigning would keep taking votes an up-to-date candidate needs)
    const hopeless = count('reject') + count('leaderReject') + count('lastTermError') + count('outdated');
    if (m.flag !== 'granted' && m.flag !== 'leaderReject' && !(m.flag === 'reject' && m.term > c.term) && this.n - hopeless < this.quorum) {
      return this.giveUp(now, `${hopeless} of ${this.n} refused`);
    }
    switch (m.flag) {
      case 'granted':
        if (m.term !== c.term) return;
        c.granted.add(m.idx);
        if (c.granted.size >= this.quorum) this.becomeLeader(now);
        return;
      case 'leaderReject':
        if (m.term >= c.term) return this.follow(m.term, -1, now);
        return this.giveUp(now, `sealer ${m.idx} leads term ${m.term}`, m.term);
      case 'reject':
        if (m.term > c.term) return this.follow(m.term, -1, now);
        return;
      case 'firstVote':
        // FISCO waits for the next election timeout; retrying at once (the voters now remember
        // us) replaces a crashed leader within max_elect_time plus a heartbeat
        if (c.granted.size + count('firstVote') >= this.quorum) this.startCampaign(now, 'first votes');
        return;
      case 'lastTermError':
      case 'outdated':
      case 'discard':
        return;
    }
  }

  private becomeLeader(now: number): void {
    this.role = 'leader';
    this.leader = this.self;
    this.campaign = undefined;
    this.lastLeaderTerm = this.hard.term;
    this.firstVote = undefined;
    this.heartbeatCount = 0;
    this.recoverElectTime();
    this.executing = undefined;
    this.sealing = undefined;
    this.committing = false;
    this.lead = { since: now, seq: 0, nextHeartbeatAt: now, heardAt: new Map(), heads: new Map(), acks: new Map() };
    this.event('raft-leader', { term: this.hard.term, height: this.head.height, lastHeight: this.lastHeight });
    const p = this.hard.pending;
    if (p) {
      // an entry from an older term is committed only through this term's acknowledgements
      if (p.term !== this.hard.term) {
        this.setPending({ ...p, term: this.hard.term });
        this.event('raft-reproposed', { height: p.height, fromTerm: p.term, term: this.hard.term, hash: toHex(p.blockHash) });
      }
      this.lead.acks.set(this.self, this.sign(p.blockHash));
    }
    this.sendHeartbeats(now);
    this.checkCommit();
  }

  /** Follow the leader of `term` (index or -1 when unknown yet). */
  private follow(term: number, leader: number, now: number): void {
    if (this.role === 'leader') this.event('raft-step-down', { term: this.hard.term, newTerm: term });
    this.setTerm(Math.max(term, this.hard.term), 'sync');
    this.role = 'follower';
    this.campaign = undefined;
    this.lead = undefined;
    this.sealing = undefined;
    if (leader !== this.leader && leader >= 0) this.event('raft-follow', { term, leader });
    this.leader = leader;
    this.resetElectionTimer(now);
  }

  // --- replication ---------------------------------------------------------------------

  private leaderTick(now: number): void {
    const lead = this.lead!;
    if (this.n > 1 && now - lead.since >= this.config.minElectMs) {
      let heard = 1;
      for (const at of lead.heardAt.values()) if (now - at <= this.config.minElectMs) heard++;
      if (heard < this.quorum) {
        this.event('raft-leader-isolated', { term: this.hard.term, heard });
        return this.startCampaign(now, 'heartbeat timeout');
      }
    }
    if (now >= lead.nextHeartbeatAt) this.sendHeartbeats(now);
  }

  private sendHeartbeats(now: number): void {
    const lead = this.lead!;
    lead.seq++;
    lead.nextHeartbeatAt = now + this.heartbeatInterval;
    const base = this.heartbeat();
    const p = this.hard.pending;
    if (!p || this.n === 1) {
      if (this.n > 1) this.send('all', base);
      return;
    }
    const slim: Heartbeat = { ...base, pending: { height: p.height, blockHash: p.blockHash } };
    const full: Heartbeat = { ...base, pending: { height: p.height, blockHash: p.blockHash, proposal: p.proposal } };
    const needsBody = (j: number) => {
      if (lead.acks.has(j)) return false;
      const h = lead.heads.get(j);
      return h === undefined || h.height === this.head.height;
    };
    const others = this.config.sealers.map((_, j) => j).filter((j) => j !== this.self);
    const withBody = others.filter(needsBody);
    if (withBody.length === others.length) this.send('all', full);
    else if (withBody.length === 0) this.send('all', slim);
    else for (const j of others) this.send(j, withBody.includes(j) ? full : slim);
  }

  private onHeartbeat(m: Heartbeat, now: number): void {
    if (m.term < this.hard.term) {
      const c = this.campaign;
      if (this.role !== 'candidate' || !c || m.term < c.preTerm) {
        // a stale leader: tell it our term so that it steps down
        this.send(m.idx, this.heartbeatResponse(m.seq));
        return;
      }
      // the leader we gave up on is alive: drop our campaign (our only vote in it was our own)
      this.event('raft-campaign-failed', { term: c.term, backTo: m.term, reason: `sealer ${m.idx} still leads term ${m.term}` });
      this.campaign = undefined;
      this.setTerm(m.term, 'lazy');
    }
    if (m.term === this.hard.term && this.role === 'leader') {
      this.event('raft-two-leaders', { term: m.term, other: m.idx });
      return;
    }
    if (this.role !== 'follower' || m.term > this.hard.term || this.leader !== m.idx) this.follow(m.term, m.idx, now);
    this.lastLeaderTerm = m.term;
    this.lastLeaderContact = now;
    this.lastSeq = m.seq;
    this.recoverElectTime();
    this.resetElectionTimer(now);
    this.clearFirstVoteCache();
    this.certificate = { height: m.height, blockHash: m.blockHash, signatures: m.headSignatures };
    this.commitFromCertificate();
    const ack = m.pending ? this.onPendingBlock(m, now) : undefined;
    this.send(m.idx, this.heartbeatResponse(m.seq, ack));
  }

  /** The leader's head is our uncommitted block, and it shows n − f signatures: commit it. */
  private commitFromCertificate(): void {
    const p = this.hard.pending;
    const c = this.certificate;
    if (!p || !c || this.committing || c.height !== p.height || !bytesEqual(c.blockHash, p.blockHash)) return;
    const signers = new Set(c.signatures.map((s) => s.index));
    if (signers.size < this.quorum) return;
    this.committing = true;
    const signatures = [...c.signatures].sort((a, b) => a.index - b.index);
    this.out.commit = { height: p.height, blockHash: p.blockHash, signatures, proposal: p.proposal, by: 'certificate' };
  }

  /** The uncommitted block of the leader's heartbeat: acknowledge it if we hold it, else start executing it. */
  private onPendingBlock(m: Heartbeat, now: number): HeartbeatResponse['ack'] {
    const block = m.pending!;
    if (block.height === this.head.height && bytesEqual(block.blockHash, this.head.hash)) return this.ackOf(block.height, block.blockHash);
    if (block.height !== this.head.height + 1) return undefined; // block sync brings us level first
    const mine = this.hard.pending;
    if (mine && bytesEqual(mine.blockHash, block.blockHash)) {
      if (mine.term !== m.term) this.setPending({ ...mine, term: m.term });
      return this.ackOf(block.height, block.blockHash);
    }
    if (!block.proposal) return undefined; // the leader sends the body to followers that have not acknowledged
    if (this.executing && this.executing.height === block.height && bytesEqual(this.executing.blockHash, block.blockHash)) {
      this.executing.term = m.term;
      return undefined;
    }
    const problem = this.proposalProblem(block.proposal, now);
    if (problem) {
      this.event('raft-block-refused', { height: block.height, term: m.term, from: m.idx, reason: problem });
      return undefined;
    }
    this.executing = { height: block.height, term: m.term, blockHash: block.blockHash, proposal: block.proposal };
    this.out.execute = { height: block.height, proposal: block.proposal };
    return undefined;
  }

  private onHeartbeatResponse(m: HeartbeatResponse, now: number): void {
    if (m.term > this.hard.term) return this.follow(m.term, -1, now);
    const lead = this.lead;
    if (this.role !== 'leader' || !lead || m.term !== this.hard.term) return;
    lead.heardAt.set(m.idx, now);
    const before = lead.heads.get(m.idx);
    lead.heads.set(m.idx, { height: m.height, hash: m.blockHash });
    const p = this.hard.pending;
    if (m.ack && p && m.ack.height === p.height && bytesEqual(m.ack.blockHash, p.blockHash) && !lead.acks.has(m.idx)) {
      lead.acks.set(m.idx, m.ack.signature);
      this.checkCommit();
    } else if (p && !m.ack && m.height === this.head.height && before?.height !== m.height && !lead.acks.has(m.idx)) {
      // it just reached our head: ship the block now rather than at the next heartbeat
      this.send(m.idx, { ...this.heartbeat(), pending: { height: p.height, blockHash: p.blockHash, proposal: p.proposal } });
    }
  }

  private checkCommit(): void {
    const p = this.hard.pending;
    if (this.role !== 'leader' || !this.lead || !p || this.committing) return;
    if (this.lead.acks.size < this.quorum) return;
    this.committing = true;
    const signatures = [...this.lead.acks].sort(([a], [b]) => a - b).map(([index, signature]) => ({ index, signature }));
    this.event('raft-commit', { height: p.height, term: this.hard.term, hash: toHex(p.blockHash), acks: signatures.length });
    this.out.commit = { height: p.height, blockHash: p.blockHash, signatures, proposal: p.proposal, by: 'leader' };
  }

  private proposalProblem(p: Proposal, now: number): string | null {
    if (p.number !== this.head.height + 1) return `number ${p.number}, expected ${this.head.height + 1}`;
    if (!bytesEqual(p.parentHash, this.head.hash)) return `parent ${toHex(p.parentHash).slice(0, 10)}… is not the head ${toHex(this.head.hash).slice(0, 10)}…`;
    if (p.timestamp <= this.head.timestamp) return `timestamp ${p.timestamp} is not after the parent's ${this.head.timestamp}`;
    // only the future is refused: an inherited block re-proposed after a long outage is old, and must still commit
    if (p.timestamp - now > RAFT_MAX_BLOCK_TIME_DIFF_MS) return `timestamp ${p.timestamp} is too far ahead of local time ${now}`;
    if (p.sealer >= this.n) return `sealer index ${p.sealer} is out of range`;
    if (p.sealerList.length !== this.n || p.sealerList.some((id, i) => !bytesEqual(id, this.config.sealers[i]!))) return 'sealer list differs from the consensus list';
    if (p.transactions.length === 0) return 'empty block';
    if (p.transactions.length > this.config.txCountLimit) return `${p.transactions.length} transactions exceed tx_count_limit ${this.config.txCountLimit}`;
    return null;
  }

  // --- helpers -------------------------------------------------------------------------

  private run(body: () => void): RaftOutput {
    this.out = emptyOutput();
    body();
    const out = this.out;
    if (this.persistNeeded !== 'none') {
      out.persist = { state: this.hardState(), sync: this.persistNeeded === 'sync' };
      this.persistNeeded = 'none';
    }
    const next = !this.isSealer ? undefined : this.role === 'leader' ? this.lead!.nextHeartbeatAt : this.electionDeadline;
    if (next !== undefined && next !== this.reportedTimer) {
      out.timerAt = next;
      this.reportedTimer = next;
    }
    return out;
  }

  private event(kind: string, fields: Record<string, unknown>): void {
    this.out.events.push({ kind, fields });
  }

  private send(to: number | 'all', message: RaftMessage): void {
    this.out.send.push({ to, message });
  }

  private markDirty(level: 'lazy' | 'sync'): void {
    if (level === 'sync' || this.persistNeeded === 'none') this.persistNeeded = level;
  }

  /** Raising the term must be durable; lowering it (a failed campaign) need not be. */
  private setTerm(term: number, level: 'lazy' | 'sync'): void {
    if (term === this.hard.term) return;
    this.markDirty(term > this.hard.term ? 'sync' : level);
    this.hard.term = term;
  }

  private setPending(entry: RaftEntry): void {
    this.hard.pending = entry;
    this.hard.lastEntryTerm = Math.max(this.hard.lastEntryTerm, entry.term);
    this.markDirty('sync');
  }

  private heartbeat(): Heartbeat {
    return {
      type: 'heartbeat',
      term: this.hard.term,
      idx: this.self,
      height: this.head.height,
      blockHash: this.head.hash,
      seq: this.lead!.seq,
      headSignatures: this.head.signatures,
    };
  }

  private heartbeatResponse(seq: number, ack?: HeartbeatResponse['ack']): HeartbeatResponse {
    return { type: 'heartbeatResp', term: this.hard.term, idx: this.self, height: this.head.height, blockHash: this.head.hash, seq, ...(ack ? { ack } : {}) };
  }

  private ackOf(height: number, blockHash: Uint8Array): HeartbeatResponse['ack'] {
    return { height, blockHash, signature: this.sign(blockHash) };
  }

  private sign(blockHash: Uint8Array): Uint8Array {
    const key = toHexNoPrefix(blockHash);
    if (this.signed?.hash !== key) this.signed = { hash: key, signature: this.signBlock(blockHash) };
    return this.signed.signature;
  }

  private resetElectionTimer(now: number): void {
    this.electionDeadline = now + this.electMin + Math.floor(this.random() * (this.electMax - this.electMin + 1));
  }

  /** FISCO's increaseElectTime: shift the range up by a quarter of its width, up to max + width / 2. */
  private increaseElectTime(): void {
    const width = this.config.maxElectMs - this.config.minElectMs;
    const step = Math.floor(width / 4);
    const boundary = this.config.maxElectMs + Math.floor(width / 2);
    if (this.electMax + step > boundary) this.electMax = boundary;
    else {
      this.electMax += step;
      this.electMin += step;
    }
  }

  private recoverElectTime(): void {
    this.electMin = this.config.minElectMs;
    this.electMax = this.config.maxElectMs;
  }

  private clearFirstVoteCache(): void {
    if (this.firstVote === undefined) return;
    if (++this.heartbeatCount >= FIRST_VOTE_CLEAR_HEARTBEATS) {
      this.heartbeatCount = 0;
      this.firstVote = undefined;
    }
  }
}
