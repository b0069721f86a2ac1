import { toHex, toHexNoPrefix } from '../codec/index.js';
import { MAX_BLOCK_TIME_DIFF_MS, type CommitMessage, type PbftMessage, type PrepareMessage, type Proposal, type SignMessage } from '../consensus/index.js';
import type { NodeId } from '../runtime/index.js';

import { BYZANTINE_KINDS, HEADER_VARIANTS, type BadBlockVariant, type ByzantineKind } from './byzantine-kinds.js';
import type { MutationName } from './message-mutation.js';

export { BYZANTINE_KINDS, type ByzantineKind };

/**
 * A byzantine PBFT sealer, for simulations and fault tests. The node's PBFT state machine stays
 * the honest one; the behaviour acts on what goes on the wire, signed with the node's own key,
 * so honest peers receive it through the normal network and must tolerate it:
 *
 * - `silent`: sends no PBFT message at all (no prepare, sign, commit or view change). The node
 *   stays up, keeps syncing and keeps its ledger.
 * - `equivocate`: as leader, sends its proposal to some peers and a conflicting one (same height
 *   and view, timestamp + 1 ms, and the last transaction left out when there are several) to the
 *   others, each prepare correctly signed. Its own votes follow its own proposal. With the
 *   default split (the first ⌊m/2⌋ of the m connected sealers in index order get the node's own
 *   proposal, the rest the conflicting one) neither proposal can gather n − f signatures, so the
 *   group must change view past this leader.
 * - `double-sign`: votes for every block it sees at the current height: each Sign or Commit a
 *   peer sends for a (view, block hash) this node has not voted for is answered by this node's own
 *   Sign and Commit for it, and its own Sign comes with an immediate Commit (no prepared
 *   certificate, no lock respected). As leader it also forges a conflicting proposal and sends
 *   both prepares to every peer, in opposite orders to the two halves of the split, so honest
 *   nodes split between the two blocks and it votes for both.
 */
export interface ByzantineBehaviour {
  readonly kind: ByzantineKind;
  /**
   * equivocate and double-sign as leader: the peers that get the conflicting proposal (first);
   * the other connected sealers get this node's own. Default: the later half (see above).
   */
  readonly conflictPeers?: readonly NodeId[];
  /** bad-block and forge-sync: which bad contents (see byzantine-kinds.ts). */
  readonly variant?: string;
  /** mutate: the mutations it may make (see message-mutation.ts). */
  readonly mutations?: readonly MutationName[];
  /** mutate: the share of its messages it mutates (default DEFAULT_MUTATION_RATE). */
  readonly rate?: number;
}

/** What a byzantine sealer did so far (wire actions only). */
export interface ByzantineStats {
  /** Messages not sent (silent). */
  withheld: number;
  /** Conflicting prepares sent (equivocate, double-sign). */
  conflictingProposals: number;
  /** Sign + Commit pairs sent outside the honest protocol (double-sign, lock-breaker). */
  extraVotes: number;
  /** bad-block: proposals with bad contents, and votes sent for an altered hash. */
  badProposals?: number;
  alteredVotes?: number;
  /** lock-breaker: proposals sent in place of a block others committed to. */
  lockBreaks?: number;
}

/** What the adversary needs from its driver. */
export interface AdversaryPort {
  selfIndex(): number;
  /** Height in consensus (head + 1). */
  nextHeight(): number;
  /** Connected sealers other than this node, in sealer-index order. */
  peers(): NodeId[];
  /** The message signed and encoded for the wire (cached per message object). */
  encode(message: PbftMessage): Uint8Array;
  signBlock(blockHash: Uint8Array): Uint8Array;
  /**
   * bad-block with a root variant: the hash of this node's own executed proposal `blockHash`
   * with the state root (or receipts root) altered in its header; undefined when `blockHash` is
   * not the block this node proposed and executed.
   */
  alteredHash?(blockHash: Uint8Array, field: 'stateRoot' | 'receiptsRoot'): Uint8Array | undefined;
  /** bad-block with the stale-timestamp variant: the timestamp of this node's head block. */
  headTimestamp?(): number;
  send(to: NodeId, bytes: Uint8Array): void;
  trace(kind: string, fields: Record<string, unknown>): void;
}

/** How far past the allowed difference from local time a future-timestamp proposal is stamped. */
const FUTURE_MARGIN_MS = 5 * 60 * 1000;

/**
 * A bad-block header variant's proposal: `p` with one header rule broken (or its transactions
 * dropped), and what was done, for the trace. Every other field stays as the honest proposal had it.
 */
export function flawedProposal(p: Proposal, variant: BadBlockVariant, headTimestamp: () => number): { proposal: Proposal; detail: string } {
  switch (variant) {
    case 'wrong-parent': {
      const parentHash = Uint8Array.from(p.parentHash);
      parentHash[0]! ^= 0xff;
      return { proposal: { ...p, parentHash }, detail: `parent ${toHex(parentHash).slice(0, 12)}… in place of the head` };
    }
    case 'wrong-number':
      return { proposal: { ...p, number: p.number + 1 }, detail: `number ${p.number + 1} in a Prepare for height ${p.number}` };
    case 'stale-timestamp': {
      const timestamp = headTimestamp();
      return { proposal: { ...p, timestamp }, detail: `timestamp ${timestamp}, the parent's` };
    }
    case 'future-timestamp': {
      const timestamp = p.timestamp + MAX_BLOCK_TIME_DIFF_MS + FUTURE_MARGIN_MS;
      return { proposal: { ...p, timestamp }, detail: `timestamp ${timestamp}, ${(MAX_BLOCK_TIME_DIFF_MS + FUTURE_MARGIN_MS) / 60_000} min ahead` };
    }
    case 'swapped-sealer-list': {
      const sealerList = [...p.sealerList];
      if (sealerList.length >= 2) [sealerList[0], sealerList[1]] = [sealerList[1]!, sealerList[0]!];
      return { proposal: { ...p, sealerList }, detail: 'sealer list with its first two sealers swapped' };
    }
    case 'sealer-out-of-range':
      return { proposal: { ...p, sealer: p.sealerList.length }, detail: `sealer index ${p.sealerList.length} of ${p.sealerList.length} sealers` };
    case 'empty-block':
      return { proposal: { ...p, transactions: [] }, detail: `no transactions (of ${p.transactions.length})` };
    default:
      throw new Error(`bad-block variant ${variant} does not flaw a header`);
  }
}

/** The conflicting proposal an equivocating leader sends beside its own. */
export function conflictingProposal(p: Proposal): Proposal {
  return { ...p, timestamp: p.timestamp + 1, transactions: p.transactions.length > 1 ? p.transactions.slice(0, -1) : p.transactions };
}

/** Carries out one ByzantineBehaviour for a PbftDriver. */
export class PbftAdversary {
  /** Messages already reported in the trace (re-sends are not reported again). */
  private readonly reported = new WeakSet<PbftMessage>();
  private readonly conflicts = new WeakMap<PrepareMessage, Uint8Array>();
  /** double-sign: (view, hash) pairs voted for at `votedHeight`. */
  private voted = new Set<string>();
  private votedHeight = -1;
  /** lock-breaker: heights at which a Commit was seen or sent, and the views it broke a lock in ("height:view"). */
  private readonly committedAt = new Set<number>();
  private readonly broken = new Set<string>();
  /** bad-block with a header variant: the "height:view" pairs it sent a flawed Prepare in. */
  private readonly flawed = new Set<string>();

  constructor(
    readonly behaviour: ByzantineBehaviour,
    private readonly port: AdversaryPort,
    private readonly stats: ByzantineStats,
  ) {}

  /** Sends (or not) one of this node's own messages, in place of the honest broadcast. */
  send(message: PbftMessage): void {
    const first = !this.reported.has(message);
    this.reported.add(message);
    const kind = this.behaviour.kind;
    if (kind === 'silent') {
      this.stats.withheld++;
      if (first) this.action('withhold', message, {});
      return;
    }
    if (kind === 'bad-block') return this.sendBadBlock(message, first);
    if (kind === 'lock-breaker') return this.sendLockBreaker(message, first);
    if (message.type === 'prepare') return this.sendPrepare(message, first);
    this.broadcast(this.port.encode(message));
    if (kind === 'double-sign' && message.type !== 'viewchange') this.vote(message.view, message.blockHash, message.type);
  }

  /** An authenticated message from a peer (double-sign votes for whatever it votes for). */
  observe(message: PbftMessage, _bytes?: Uint8Array): void {
    if (this.behaviour.kind === 'lock-breaker') return this.observeForLockBreak(message);
    if (this.behaviour.kind === 'bad-block') return this.observeForBadHeader(message);
    if (this.behaviour.kind !== 'double-sign' || (message.type !== 'sign' && message.type !== 'commit')) return;
    if (message.height !== this.port.nextHeight()) return;
    this.vote(message.view, message.blockHash, message.idx);
  }

  /**
   * bad-block: with a content variant the proposal itself is sealed with bad contents by the
   * driver (see bad-block.ts). With a header variant its Prepare goes out with the proposal's
   * header flawed (flawedProposal), correctly signed, and it votes for whatever hash peers sign in
   * that view. With a root variant its Sign and Commit for its own block go out for the hash of
   * the header with that root altered, correctly signed.
   */
  private sendBadBlock(message: PbftMessage, first: boolean): void {
    const variant = this.behaviour.variant as BadBlockVariant | undefined;
    if (message.type === 'prepare' && variant !== undefined && HEADER_VARIANTS.includes(variant)) return this.sendBadHeader(message, variant);
    const field = variant === 'wrong-state-root' ? 'stateRoot' : variant === 'wrong-receipts-root' ? 'receiptsRoot' : undefined;
    if (!field || (message.type !== 'sign' && message.type !== 'commit')) return this.broadcast(this.port.encode(message));
    const altered = this.port.alteredHash?.(message.blockHash, field);
    if (!altered) return this.broadcast(this.port.encode(message));
    this.broadcast(this.port.encode({ ...message, blockHash: altered, blockSignature: this.port.signBlock(altered) }));
    if (first) {
      this.stats.alteredVotes = (this.stats.alteredVotes ?? 0) + 1;
      this.action('altered-root', message, { variant, blockHash: toHex(message.blockHash), alteredHash: toHex(altered) });
    }
  }

  private sendBadHeader(message: PrepareMessage, variant: BadBlockVariant): void {
    let bytes = this.conflicts.get(message);
    if (!bytes) {
      const headTimestamp = () => {
        if (!this.port.headTimestamp) throw new Error('bad-block stale-timestamp: the adversary port gives no head timestamp');
        return this.port.headTimestamp();
      };
      const { proposal, detail } = flawedProposal(message.proposal, variant, headTimestamp);
      bytes = this.port.encode({ ...message, proposal });
      this.conflicts.set(message, bytes);
      this.stats.badProposals = (this.stats.badProposals ?? 0) + 1;
      this.action('bad-header', message, { variant, bad: detail });
    }
    this.flawed.add(`${message.height}:${message.view}`);
    this.broadcast(bytes);
  }

  private observeForBadHeader(message: PbftMessage): void {
    const height = this.port.nextHeight();
    for (const key of this.flawed) if (Number(key.split(':')[0]) < height) this.flawed.delete(key);
    if (message.type === 'sign' && message.height === height && this.flawed.has(`${height}:${message.view}`)) this.vote(message.view, message.blockHash, message.idx);
  }

  /**
   * lock-breaker: a prepare at a height where a Commit was seen or sent (the honest state machine
   * re-proposes the locked block there) goes out as a different block (conflictingProposal: a
   * later timestamp, hence another hash); this node then votes for whatever peers sign in that view.
   */
  private sendLockBreaker(message: PbftMessage, first: boolean): void {
    if (message.type === 'commit') this.committedAt.add(message.height);
    if (message.type !== 'prepare' || !this.committedAt.has(message.height)) return this.broadcast(this.port.encode(message));
    let conflict = this.conflicts.get(message);
    if (!conflict) {
      conflict = this.port.encode({ ...message, proposal: conflictingProposal(message.proposal) });
      this.conflicts.set(message, conflict);
      this.stats.lockBreaks = (this.stats.lockBreaks ?? 0) + 1;
    }
    this.broken.add(`${message.height}:${message.view}`);
    this.broadcast(conflict);
    if (first) this.action('break-lock', message, { txs: message.proposal.transactions.length, timestamp: message.proposal.timestamp + 1 });
  }

  private observeForLockBreak(message: PbftMessage): void {
    const height = this.port.nextHeight();
    for (const h of this.committedAt) if (h < height) this.committedAt.delete(h);
    if (message.height !== height) return;
    if (message.type === 'commit') this.committedAt.add(height);
    // votes for the block it proposed in place of the locked one, as soon as any peer signs it
    if (message.type === 'sign' && this.broken.has(`${height}:${message.view}`)) this.vote(message.view, message.blockHash, message.idx);
  }

  private sendPrepare(message: PrepareMessage, first: boolean): void {
    const own = this.port.encode(message);
    let conflict = this.conflicts.get(message);
    if (!conflict) {
      conflict = this.port.encode({ ...message, proposal: conflictingProposal(message.proposal) });
      this.conflicts.set(message, conflict);
      this.stats.conflictingProposals++;
    }
    const { ownPeers, conflictPeers } = this.split();
    if (this.behaviour.kind === 'equivocate') {
      for (const peer of ownPeers) this.port.send(peer, own);
      for (const peer of conflictPeers) this.port.send(peer, conflict);
    } else {
      for (const peer of ownPeers) {
        this.port.send(peer, own);
        this.port.send(peer, conflict);
      }
      for (const peer of conflictPeers) {
        this.port.send(peer, conflict);
        this.port.send(peer, own);
      }
    }
    if (first) {
      const p = message.proposal;
      this.action(this.behaviour.kind === 'equivocate' ? 'equivocate' : 'double-propose', message, {
        ownPeers: ownPeers.length,
        conflictPeers: conflictPeers.length,
        txs: p.transactions.length,
        conflictTxs: conflictingProposal(p).transactions.length,
        timestamp: p.timestamp,
      });
    }
  }

  /**
   * Sign and Commit for (current height, view, hash), once per pair: after this node's own vote
   * of type `reason` (already sent), or echoing the vote of peer `reason`.
   */
  private vote(view: number, blockHash: Uint8Array, reason: 'sign' | 'commit' | number): void {
    const height = this.port.nextHeight();
    if (height !== this.votedHeight) {
      this.voted = new Set();
      this.votedHeight = height;
    }
    const key = `${view}:${toHexNoPrefix(blockHash)}`;
    if (this.voted.has(key)) return;
    this.voted.add(key);
    const idx = this.port.selfIndex();
    const blockSignature = this.port.signBlock(blockHash);
    const own = typeof reason === 'string';
    if (reason !== 'sign') this.broadcast(this.port.encode({ type: 'sign', height, view, idx, blockHash, blockSignature } satisfies SignMessage));
    if (reason !== 'commit') this.broadcast(this.port.encode({ type: 'commit', height, view, idx, blockHash, blockSignature } satisfies CommitMessage));
    this.stats.extraVotes++;
    this.port.trace('byzantine-action', {
      behaviour: this.behaviour.kind,
      action: own ? `early-${reason === 'sign' ? 'commit' : 'sign'}` : 'echo-vote',
      height,
      view,
      blockHash: toHex(blockHash),
      ...(own ? {} : { echoOf: reason }),
    });
  }

  private split(): { ownPeers: NodeId[]; conflictPeers: NodeId[] } {
    const peers = this.port.peers();
    const chosen = this.behaviour.conflictPeers;
    if (chosen) {
      const set = new Set(chosen);
      return { ownPeers: peers.filter((p) => !set.has(p)), conflictPeers: peers.filter((p) => set.has(p)) };
    }
    const half = Math.floor(peers.length / 2);
    return { ownPeers: peers.slice(0, half), conflictPeers: peers.slice(half) };
  }

  private broadcast(bytes: Uint8Array): void {
    for (const peer of this.port.peers()) this.port.send(peer, bytes);
  }

  private action(action: string, message: PbftMessage, fields: Record<string, unknown>): void {
    this.port.trace('byzantine-action', { behaviour: this.behaviour.kind, action, type: message.type, height: message.height, view: message.view, ...fields });
  }
}
