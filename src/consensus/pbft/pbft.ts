import { bytesEqual, toHex, toHexNoPrefix } from '../../codec/index.js';
import { sameProposal, type Proposal } from '../proposal.js';
import type { CommitMessage, PbftMessage, PrepareMessage, SignMessage, ViewChangeMessage } from './pbft-messages.js';

/** FISCO caps the view-timeout growth at 1.5^20. */
export const MAX_CHANGE_CYCLE = 20;
/** A proposal's timestamp may be at most this far from the local clock (FISCO's checkBlockTimeStamp). */
export const MAX_BLOCK_TIME_DIFF_MS = 10 * 60 * 1000;

export interface PbftConfig {
  /** Sealer node ids (64 bytes each), in index order (ascending). */
  readonly sealers: readonly Uint8Array[];
  /** This node's index among the sealers, or -1 (observer, removed, or not a member). */
  readonly selfIndex: number;
  /** consensus_timeout in ms: the first view timeout; each further one is 1.5× longer. */
  readonly viewTimeoutMs: number;
  /** tx_count_limit: proposals with more transactions are refused. */
  readonly txCountLimit: number;
}

/** The latest committed block, which the next proposal must extend. */
export interface PbftHead {
  readonly height: number;
  readonly hash: Uint8Array;
  readonly timestamp: number;
}

/** A prepared block this node sent a Commit for: persisted, and the only block it will vote for at that height. */
export interface PbftLock {
  readonly height: number;
  readonly view: number;
  readonly blockHash: Uint8Array;
  readonly proposal: Proposal;
}

export interface CommitDecision {
  readonly height: number;
  readonly view: number;
  readonly blockHash: Uint8Array;
  /** Block signatures from the Commit messages (n − f or more), by sealer index. */
  readonly signatures: Array<{ index: number; signature: Uint8Array }>;
}

export interface PbftEvent {
  readonly kind: string;
  readonly fields: Record<string, unknown>;
}

/** What the caller must do after an input; nothing here has happened yet. */
export interface PbftOutput {
  /** Messages for all other sealers. */
  readonly broadcast: PbftMessage[];
  /** Execute this proposal and report back with onExecuted. */
  execute?: { height: number; view: number; proposal: Proposal };
  /** Commit the executed block of (height, view) with these signatures. */
  commit?: CommitDecision;
  /** Persist (durably, before sending the broadcast) or clear (null) the lock. */
  persistLock?: PbftLock | null;
  /** This node leads (height, view): hand over a proposal (propose) or give up (emptyBlock). */
  wantProposal?: { height: number; view: number };
  /** Absolute time at which to call onTimeout; undefined means keep the current timer. */
  viewTimerAt?: number;
  readonly events: PbftEvent[];
}

function emptyOutput(): PbftOutput {
  return { broadcast: [], events: [] };
}

type Votes = Map<string, Map<number, Uint8Array>>;

const voteKey = (view: number, hash: Uint8Array) => `${view}:${toHexNoPrefix(hash)}`;

/**
 * FISCO BCOS 2.x PBFT for one group, as a deterministic state machine: it never touches a clock,
 * timer, socket or randomness; it takes inputs and returns what to do.
 *
 * Leader of the next block: (view + height) % n. Prepare → Sign (the executed block hash) →
 * Commit, with quorum n − f, f = ⌊(n − 1) / 3⌋. A node that sends a Commit is locked on that
 * block for the height (the lock is persisted, as FISCO backs up its committed prepare) and
 * re-proposes it when it leads, so a block that could have been committed is never replaced.
 */
export class Pbft {
  private config: PbftConfig;
  private head: PbftHead;
  private view = 0;
  private toView = 0;
  private changeCycle = 0;
  private leaderFailed = false;
  private viewDeadline: number;
  private lock: PbftLock | undefined;
  private proposedViews = new Set<number>();
  private proposals = new Map<number, { proposal: Proposal; from: number }>();
  private executed: { view: number; hash: Uint8Array } | undefined;
  private requestedExecution: number | undefined;
  private signs: Votes = new Map();
  private commits: Votes = new Map();
  private sentSign = new Set<number>();
  private sentCommit = new Set<number>();
  private decided = false;
  private viewChanges = new Map<number, Set<number>>();
  /** Highest view each sealer asked for at this height (for fast view change). */
  private wantedView = new Map<number, number>();
  private futurePrepares = new Map<number, PrepareMessage[]>();
  /** This node's latest messages of the current height, re-sent by resend() until the height is decided. */
  private outbox = new Map<PbftMessage['type'], PbftMessage>();
  /** What this node executed at this height, by view: proposals it can vouch for. */
  private executedByView = new Map<number, { hash: Uint8Array; proposal: Proposal }>();
  /**
   * By view (lower ones too), the block hash each sealer sent its first Commit of the view for.
   * One per sender: a byzantine sealer committing to many hashes cannot crowd out the others.
   */
  private committedByView = new Map<number, Map<number, string>>();

  /** `signBlock` signs a block hash with this node's key (for Sign and Commit votes). */
  constructor(
    config: PbftConfig,
    head: PbftHead,
    now: number,
    private readonly signBlock: (blockHash: Uint8Array) => Uint8Array,
    lock?: PbftLock,
  ) {
    this.config = config;
    this.head = head;
    this.viewDeadline = now + this.timeout();
    if (lock && lock.height === head.height + 1) this.lock = lock;
  }

  // --- queries -------------------------------------------------------------------------

  get n(): number {
    return this.config.sealers.length;
  }

  get f(): number {
    return Math.floor((this.n - 1) / 3);
  }

  get quorum(): number {
    return this.n - this.f;
  }

  get isSealer(): boolean {
    return this.config.selfIndex >= 0 && this.config.selfIndex < this.n;
  }

  /** Leader index of the next block in `view`. */
  leaderOf(view: number): number {
    return (view + this.head.height) % this.n;
  }

  /** The current view and whether its leader is given up on: what a sealer checks before proposing (cheaper than status()). */
  viewState(): { readonly view: number; readonly leaderFailed: boolean } {
    return { view: this.view, leaderFailed: this.leaderFailed };
  }

  status() {
    return {
      view: this.view,
      toView: this.toView,
      leaderFailed: this.leaderFailed,
      changeCycle: this.changeCycle,
      height: this.head.height,
      headHash: this.head.hash,
      lock: this.lock,
      leader: this.n > 0 ? this.leaderOf(this.view) : -1,
      proposal: this.proposals.get(this.view),
      executed: this.executed,
      signCount: this.countAll(this.signs),
      commitCount: this.countAll(this.commits),
      viewChangeCount: [...this.viewChanges.values()].reduce((n, s) => n + s.size, 0),
      futureCount: [...this.futurePrepares.values()].reduce((n, l) => n + l.length, 0),
      futurePrepare: [...this.futurePrepares.values()].flat()[0],
      viewDeadline: this.viewDeadline,
    };
  }

  // --- inputs --------------------------------------------------------------------------

  /** Start (or restart) consensus: arm the timer and, if this node leads, ask for a proposal. */
  start(now: number): PbftOutput {
    const out = emptyOutput();
    if (!this.isSealer) return out;
    this.viewDeadline = now + this.timeout();
    out.viewTimerAt = this.viewDeadline;
    this.leadIfLeader(out);
    return out;
  }

  /**
   * Re-send this node's latest prepare, sign, commit and view change for the current height.
   * Lost messages otherwise strand nodes on different views until the next (longer) timeout;
   * receivers ignore what they already have. Call it periodically (about once a second).
   */
  resend(): PbftOutput {
    const out = emptyOutput();
    if (!this.isSealer || this.decided) return out;
    for (const message of this.outbox.values()) {
      // a view change for the current view is re-sent too: it lets nodes that missed the switch catch up
      if (message.type === 'viewchange' ? message.view >= this.view : message.view === this.view) out.broadcast.push(message);
    }
    return out;
  }

  /** A message from another sealer, already authenticated (the wire layer checked its signatures). */
  onMessage(message: PbftMessage, now: number): PbftOutput {
    const out = emptyOutput();
    if (!this.isSealer || message.idx === this.config.selfIndex || message.idx >= this.n) return out;
    switch (message.type) {
      case 'prepare':
        this.onPrepare(message, now, out);
        break;
      case 'sign':
      case 'commit':
        this.onVote(message, now, out);
        break;
      case 'viewchange':
        this.onViewChange(message, now, out);
        break;
    }
    return out;
  }

  /**
   * The proposal of (height, view) executed to `blockHash`. A node locked on another block does
   * not sign it and asks at once for the next view (rather than waiting out a timeout that may
   * have grown long): with f + 1 such nodes the group moves on, towards a leader that re-proposes
   * the locked block.
   */
  onExecuted(height: number, view: number, blockHash: Uint8Array, now: number): PbftOutput {
    const out = emptyOutput();
    if (height !== this.head.height + 1 || view !== this.view || this.requestedExecution !== view) return out;
    this.requestedExecution = undefined;
    this.executed = { view, hash: blockHash };
    const proposal = this.proposals.get(view)?.proposal;
    if (proposal) this.executedByView.set(view, { hash: blockHash, proposal });
    if (this.lock && !bytesEqual(this.lock.blockHash, blockHash)) {
      out.events.push({ kind: 'pbft-locked', fields: { height, view, locked: toHex(this.lock.blockHash), proposed: toHex(blockHash) } });
      if (this.toView <= this.view) this.requestViewChange(this.view + 1, now, out, 'locked-elsewhere');
    } else if (!this.sentSign.has(view)) {
      this.sentSign.add(view);
      this.send(out, this.vote('sign', view, blockHash));
    }
    this.checkQuorum(view, blockHash, out);
    return out;
  }

  /** The proposal of (height, view) is invalid (bad transactions, or it failed to execute): do not vote for it. */
  onExecutionFailed(height: number, view: number, reason: string): PbftOutput {
    const out = emptyOutput();
    if (height === this.head.height + 1 && this.requestedExecution === view) this.requestedExecution = undefined;
    out.events.push({ kind: 'pbft-proposal-rejected', fields: { height, view, reason } });
    return out;
  }

  /** The view timer fired. */
  onTimeout(now: number): PbftOutput {
    const out = emptyOutput();
    if (!this.isSealer) return out;
    if (now < this.viewDeadline) {
      out.viewTimerAt = this.viewDeadline;
      return out;
    }
    this.changeCycle = Math.min(this.changeCycle + 1, MAX_CHANGE_CYCLE);
    this.requestViewChange(Math.max(this.toView, this.view) + 1, now, out, 'timeout');
    return out;
  }

  /** As leader of (height, view): broadcast this proposal. */
  propose(proposal: Proposal, now: number): PbftOutput {
    const out = emptyOutput();
    const view = this.view;
    if (!this.isSealer || this.leaderOf(view) !== this.config.selfIndex || this.proposedViews.has(view) || this.leaderFailed) return out;
    if (proposal.number !== this.head.height + 1) return out;
    this.proposedViews.add(view);
    const message: PrepareMessage = { type: 'prepare', height: proposal.number, view, idx: this.config.selfIndex, proposal };
    this.send(out, message);
    this.proposals.set(view, { proposal, from: this.config.selfIndex });
    this.requestExecution(view, out);
    out.events.push({ kind: 'pbft-proposed', fields: { height: proposal.number, view, txs: proposal.transactions.length, at: now } });
    return out;
  }

  /** As leader with nothing to seal: hand leadership on (FISCO never commits empty blocks). */
  emptyBlock(now: number): PbftOutput {
    const out = emptyOutput();
    if (!this.isSealer || this.leaderOf(this.view) !== this.config.selfIndex || this.proposedViews.has(this.view) || this.leaderFailed) return out;
    this.changeCycle = 0;
    this.requestViewChange(this.view + 1, now, out, 'empty-block');
    return out;
  }

  /**
   * A block was committed (by this consensus or by sync). Everything restarts for the next
   * height at view 0; the sealer set may have changed with the block.
   */
  onCommitted(head: PbftHead, config: PbftConfig, now: number): PbftOutput {
    const out = emptyOutput();
    if (head.height <= this.head.height) return out;
    const hadLock = this.lock !== undefined;
    this.head = head;
    this.config = config;
    this.view = 0;
    this.toView = 0;
    this.changeCycle = 0;
    this.leaderFailed = false;
    this.resetRound();
    this.viewChanges.clear();
    this.wantedView.clear();
    if (hadLock) {
      this.lock = undefined;
      out.persistLock = null;
    }
    this.viewDeadline = now + this.timeout();
    if (!this.isSealer) return out;
    out.viewTimerAt = this.viewDeadline;
    for (const height of [...this.futurePrepares.keys()]) {
      if (height <= head.height) this.futurePrepares.delete(height);
    }
    const ready = this.futurePrepares.get(head.height + 1) ?? [];
    this.futurePrepares.delete(head.height + 1);
    this.leadIfLeader(out);
    for (const message of ready) this.onPrepare(message, now, out);
    return out;
  }

  // --- message handling ----------------------------------------------------------------

  private onPrepare(message: PrepareMessage, now: number, out: PbftOutput): void {
    const next = this.head.height + 1;
    if (message.height < next) return;
    if (message.height > next) {
      if (message.height <= next + 8) {
        const list = this.futurePrepares.get(message.height) ?? [];
        if (list.length < 4) list.push(message);
        this.futurePrepares.set(message.height, list);
      }
      return;
    }
    if (message.view < this.view) return;
    if (message.idx !== this.leaderOf(message.view)) {
      out.events.push({ kind: 'pbft-prepare-refused', fields: { height: message.height, view: message.view, from: message.idx, reason: `not the leader (${this.leaderOf(message.view)})` } });
      return;
    }
    const known = this.proposals.get(message.view);
    if (known) {
      if (!sameProposal(known.proposal, message.proposal)) {
        out.events.push({ kind: 'pbft-equivocation', fields: { height: message.height, view: message.view, leader: message.idx } });
      }
      return;
    }
    const problem = this.proposalProblem(message.proposal, now);
    if (problem) {
      out.events.push({ kind: 'pbft-prepare-refused', fields: { height: message.height, view: message.view, from: message.idx, reason: problem } });
      return;
    }
    this.proposals.set(message.view, { proposal: message.proposal, from: message.idx });
    if (message.view === this.view) this.requestExecution(message.view, out);
    else this.maybeCatchUpView(message.view, now, out);
  }

  private proposalProblem(p: Proposal, now: number): string | null {
    if (p.number !== this.head.height + 1) return `number ${p.number}, expected ${this.head.height + 1}`;
    if (!bytesEqual(p.parentHash, this.head.hash)) return `parent ${toHex(p.parentHash).slice(0, 10)}… is not the head ${toHex(this.head.hash).slice(0, 10)}…`;
    if (p.timestamp <= this.head.timestamp) return `timestamp ${p.timestamp} is not after the parent's ${this.head.timestamp}`;
    if (Math.abs(p.timestamp - now) > MAX_BLOCK_TIME_DIFF_MS) return `timestamp ${p.timestamp} is too far from local time ${now}`;
    // Only the range: a locked block re-proposed in a later view keeps its first leader in the
    // header (its hash is what was signed); the Prepare's sender is the one checked against the leader.
    if (p.sealer >= this.n) return `sealer index ${p.sealer} is out of range`;
    if (p.sealerList.length !== this.n || p.sealerList.some((id, i) => !bytesEqual(id, this.config.sealers[i]!))) return 'sealer list differs from the consensus list';
    if (p.transactions.length === 0) return 'empty block';
    if (p.transactions.length > this.config.txCountLimit) return `${p.transactions.length} transactions exceed tx_count_limit ${this.config.txCountLimit}`;
    return null;
  }

  private onVote(message: SignMessage | CommitMessage, now: number, out: PbftOutput): void {
    if (message.height !== this.head.height + 1) return;
    if (message.type === 'commit') {
      let bySender = this.committedByView.get(message.view);
      if (!bySender) this.committedByView.set(message.view, (bySender = new Map()));
      if (!bySender.has(message.idx)) bySender.set(message.idx, toHexNoPrefix(message.blockHash));
    }
    if (message.view < this.view) return;
    const votes = message.type === 'sign' ? this.signs : this.commits;
    const k = voteKey(message.view, message.blockHash);
    let byIdx = votes.get(k);
    if (!byIdx) votes.set(k, (byIdx = new Map()));
    if (byIdx.has(message.idx)) return;
    byIdx.set(message.idx, message.blockSignature);
    if (message.view === this.view) this.checkQuorum(message.view, message.blockHash, out);
    else if (message.view > this.view && this.proposals.has(message.view)) this.maybeCatchUpView(message.view, now, out);
  }

  private checkQuorum(view: number, hash: Uint8Array, out: PbftOutput): void {
    if (this.decided || view !== this.view || !this.executed || this.executed.view !== view || !bytesEqual(this.executed.hash, hash)) return;
    const k = voteKey(view, hash);
    const signCount = this.signs.get(k)?.size ?? 0;
    const commits = this.commits.get(k);
    const lockedElsewhere = this.lock && !bytesEqual(this.lock.blockHash, hash) && this.lock.view >= view;
    if (!this.sentCommit.has(view) && !lockedElsewhere && (signCount >= this.quorum || (commits?.size ?? 0) >= this.quorum)) {
      this.sentCommit.add(view);
      const proposal = this.proposals.get(view)!.proposal;
      this.lock = { height: this.head.height + 1, view, blockHash: hash, proposal };
      out.persistLock = this.lock;
      this.send(out, this.vote('commit', view, hash));
    }
    const finalCommits = this.commits.get(k);
    if (this.sentCommit.has(view) && finalCommits && finalCommits.size >= this.quorum) {
      this.decided = true;
      out.commit = {
        height: this.head.height + 1,
        view,
        blockHash: hash,
        signatures: [...finalCommits].sort(([a], [b]) => a - b).map(([index, signature]) => ({ index, signature })),
      };
    }
  }

  private onViewChange(message: ViewChangeMessage, now: number, out: PbftOutput): void {
    if (message.height !== this.head.height) return;
    if (!bytesEqual(message.blockHash, this.head.hash)) {
      out.events.push({ kind: 'pbft-viewchange-refused', fields: { from: message.idx, reason: 'different chain head' } });
      return;
    }
    if (message.view <= this.view) return;
    this.addViewChange(message.view, message.idx);
    this.wantedView.set(message.idx, Math.max(this.wantedView.get(message.idx) ?? 0, message.view));
    // The leader giving up its empty round: follow at once rather than waiting for the timeout.
    if (message.idx === this.leaderOf(this.view) && message.view === this.view + 1 && this.toView <= this.view) {
      this.requestViewChange(message.view, now, out, 'leader-handover');
    }
    // Fast view change: f + 1 nodes want a higher view than ours; like FISCO, go to the lowest of them.
    let wanting = 0;
    let lowest = Infinity;
    for (const v of this.wantedView.values()) {
      if (v > this.toView) {
        wanting++;
        lowest = Math.min(lowest, v);
      }
    }
    if (wanting >= this.f + 1) this.requestViewChange(lowest, now, out, 'fast');
    this.maybeSwitchView(now, out);
  }

  /** A prepare for a higher view, together with f + 1 votes in it, shows the group moved on without us. */
  private maybeCatchUpView(view: number, now: number, out: PbftOutput): void {
    let voters = 0;
    for (const [k, byIdx] of this.signs) if (k.startsWith(`${view}:`)) voters = Math.max(voters, byIdx.size);
    if (voters >= this.f + 1) this.switchView(view, now, out, 'catch-up');
  }

  // --- view changes --------------------------------------------------------------------

  private requestViewChange(toView: number, now: number, out: PbftOutput, reason: string): void {
    if (toView <= this.toView && this.toView > this.view) return;
    this.toView = Math.max(this.toView, toView);
    this.leaderFailed = true;
    this.addViewChange(this.toView, this.config.selfIndex);
    this.send(out, { type: 'viewchange', height: this.head.height, view: this.toView, idx: this.config.selfIndex, blockHash: this.head.hash });
    this.viewDeadline = now + this.timeout();
    out.viewTimerAt = this.viewDeadline;
    out.events.push({ kind: 'pbft-viewchange-sent', fields: { height: this.head.height, view: this.view, toView: this.toView, reason } });
    this.maybeSwitchView(now, out);
  }

  private addViewChange(view: number, idx: number): void {
    let voters = this.viewChanges.get(view);
    if (!voters) this.viewChanges.set(view, (voters = new Set()));
    voters.add(idx);
  }

  private maybeSwitchView(now: number, out: PbftOutput): void {
    let target = -1;
    for (const [view, voters] of this.viewChanges) if (view > this.view && voters.size >= this.quorum && view > target) target = view;
    if (target > this.view) this.switchView(target, now, out, 'quorum');
  }

  private switchView(view: number, now: number, out: PbftOutput, reason: string): void {
    const from = this.view;
    this.view = view;
    this.toView = Math.max(this.toView, view);
    this.leaderFailed = false;
    for (const v of [...this.viewChanges.keys()]) if (v <= view) this.viewChanges.delete(v);
    for (const [idx, v] of [...this.wantedView]) if (v <= view) this.wantedView.delete(idx);
    this.executed = undefined;
    this.requestedExecution = undefined;
    for (const v of [...this.proposals.keys()]) if (v < view) this.proposals.delete(v);
    this.viewDeadline = now + this.timeout();
    out.viewTimerAt = this.viewDeadline;
    out.events.push({ kind: 'pbft-view', fields: { height: this.head.height + 1, from, to: view, reason, leader: this.leaderOf(view) } });
    this.leadIfLeader(out);
    if (this.proposals.has(view)) this.requestExecution(view, out);
  }

  // --- helpers -------------------------------------------------------------------------

  private leadIfLeader(out: PbftOutput): void {
    if (!this.isSealer || this.leaderOf(this.view) !== this.config.selfIndex || this.proposedViews.has(this.view)) return;
    if (this.lock) {
      // re-propose the block this node is locked on (FISCO re-handles its committed prepare)
      this.proposedViews.add(this.view);
      const proposal = this.lock.proposal;
      this.send(out, { type: 'prepare', height: proposal.number, view: this.view, idx: this.config.selfIndex, proposal });
      this.proposals.set(this.view, { proposal, from: this.config.selfIndex });
      this.requestExecution(this.view, out);
      out.events.push({ kind: 'pbft-reproposed', fields: { height: proposal.number, view: this.view } });
      return;
    }
    const hint = this.lockHint();
    if (hint) {
      // another sealer committed (so may be locked on) a block this node executed: propose it
      // again rather than a new block the locked sealers would refuse
      this.proposedViews.add(this.view);
      this.send(out, { type: 'prepare', height: hint.proposal.number, view: this.view, idx: this.config.selfIndex, proposal: hint.proposal });
      this.proposals.set(this.view, { proposal: hint.proposal, from: this.config.selfIndex });
      this.requestExecution(this.view, out);
      out.events.push({ kind: 'pbft-reproposed', fields: { height: hint.proposal.number, view: this.view, fromView: hint.view } });
      return;
    }
    out.wantProposal = { height: this.head.height + 1, view: this.view };
  }

  /**
   * The block of the highest lower view that some sealer sent a Commit for and that this node
   * executed to that same hash: re-proposing it is always safe (it was a valid proposal), and it
   * is the block locked sealers wait for.
   */
  private lockHint(): { view: number; proposal: Proposal } | undefined {
    let best: { view: number; proposal: Proposal } | undefined;
    for (const [view, executed] of this.executedByView) {
      if (view >= this.view || (best && best.view > view)) continue;
      const hash = toHexNoPrefix(executed.hash);
      const bySender = this.committedByView.get(view);
      if (bySender && [...bySender.values()].includes(hash)) best = { view, proposal: executed.proposal };
    }
    return best;
  }

  private send(out: PbftOutput, message: PbftMessage): void {
    out.broadcast.push(message);
    this.outbox.set(message.type, message);
  }

  private requestExecution(view: number, out: PbftOutput): void {
    if (this.executed?.view === view || this.requestedExecution === view) return;
    this.requestedExecution = view;
    out.execute = { height: this.head.height + 1, view, proposal: this.proposals.get(view)!.proposal };
  }

  private vote(type: 'sign' | 'commit', view: number, hash: Uint8Array): SignMessage | CommitMessage {
    const votes = type === 'sign' ? this.signs : this.commits;
    const k = voteKey(view, hash);
    let byIdx = votes.get(k);
    if (!byIdx) votes.set(k, (byIdx = new Map()));
    const blockSignature = this.signBlock(hash);
    byIdx.set(this.config.selfIndex, blockSignature);
    return { type, height: this.head.height + 1, view, idx: this.config.selfIndex, blockHash: hash, blockSignature };
  }

  private resetRound(): void {
    this.proposedViews.clear();
    this.proposals.clear();
    this.executed = undefined;
    this.requestedExecution = undefined;
    this.signs.clear();
    this.commits.clear();
    this.sentSign.clear();
    this.sentCommit.clear();
    this.decided = false;
    this.outbox.clear();
    this.executedByView.clear();
    this.committedByView.clear();
  }

  private timeout(): number {
    return Math.round(this.config.viewTimeoutMs * 1.5 ** this.changeCycle);
  }

  private countAll(votes: Votes): number {
    let n = 0;
    for (const byIdx of votes.values()) n += byIdx.size;
    return n;
  }
}
