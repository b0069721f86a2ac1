import { blockHash, checkSignatureList, decodeTransaction, recoverSender, type Block } from '../../chain/index.js';
import { fromHex, toHex, toHexNoPrefix } from '../../codec/index.js';
import { MAX_BLOCK_TIME_DIFF_MS, RAFT_MAX_BLOCK_TIME_DIFF_MS } from '../../consensus/index.js';
import { decodeRaftState, MODULE, RAFT_STATE_KEY } from '../../node/index.js';
import { NONCE_WINDOW, BLOCK_LIMIT_RANGE } from '../../txpool/index.js';
import type { SimChain } from '../sim-chain.js';
import { proposalIdentity, readWireFact, type ProposalIdentity, type WireFact } from './wire-reader.js';

/** The protocol promises the monitor checks, each named in a violation. */
export const PROTOCOL_INVARIANTS = {
  'signature-quorum': 'every block an honest node commits or stores carries n − f valid signatures of the sealers in force at its height',
  'sealer-list': "a committed block's sealer list is the consensus list in force at its height",
  'applied-block': 'a node applies (by consensus or sync) only the block that follows its own head: number and parent check out',
  'sync-honest-peer': 'an honest node refuses no block an honest peer served it by sync (an honest peer serves only blocks it committed, and those check out)',
  'block-header':
    "a committed block has transactions, a sealer index inside its sealer list and a timestamp after its parent's; one an honest node commits by consensus is stamped at most the allowed difference ahead of that node's clock",
  'block-validity': 'every transaction of a committed block is valid for it: signature, chain and group id, block limit, not on chain before, no nonce reuse',
  'pbft-conflicting-quorums': 'no two different blocks at one height each gather n − f Commits',
  'pbft-lock':
    'a sealer that sent a Commit for a block never sends a Sign for another block at that height, nor a Commit unless for a block of a later view that n − f sealers signed to it (any view, after restarts too)',
  'pbft-sign-unexecuted': 'an honest Sign is only for a block hash that node executed',
  'pbft-commit-certificate': 'an honest node decides a block (commits it by consensus) only after n − f sealers sent Commits for it',
  'pbft-commit-justified': 'an honest Commit for a block in a view follows n − f Signs for it in that view (its own included), or n − f Commits, delivered to the node',
  'pbft-view-change': 'an honest sealer acts in view v > 0 of a height only after n − f view changes to v (its own included), or f + 1 Signs in v, reached it; and its view never goes back within a height (restarts aside)',
  'pbft-leader-proposal': "an honest Sign in a view is for a block the view's leader proposed to that node",
  'raft-one-leader': 'at most one leader per term over the whole run',
  'raft-double-vote': 'a node never grants two votes in one term (across restarts)',
  'raft-vote-durable': 'a vote a node sent (for itself as candidate, or granted) is on its disk when it crashes',
  'raft-leader-completeness': 'every leader holds every block committed before its term',
  'raft-ack-term': 'an honest follower acknowledges only a block that a heartbeat of its current term carried to it',
  'raft-vote-term': 'an honest node grants a vote only for a term at least as high as any term it answered a leader in or granted a vote in before (restarts included)',
} as const;
export type ProtocolInvariant = keyof typeof PROTOCOL_INVARIANTS;

export interface ProtocolViolation {
  readonly atMs: number;
  readonly invariant: ProtocolInvariant;
  readonly group: number;
  readonly height: number;
  readonly node: string;
  readonly detail: string;
  /** The facts behind it: nodes, view or term, hashes, the messages involved. */
  readonly evidence: Readonly<Record<string, unknown>>;
}

export interface InvariantMonitorOptions {
  readonly chain: SimChain;
  /** Nodes held to the protocol (not byzantine at any time, not twinned). */
  readonly isHonest: (node: string) => boolean;
  readonly report: (violation: ProtocolViolation) => void;
  /** The chain id transactions must carry (default 1). */
  readonly chainId?: bigint;
}

const short = (hash: string) => `${hash.slice(0, 10)}…`;

/** The facts of the last frame read: a broadcast hands the same frame to the network once per peer. */
class LastFact {
  private payload: Uint8Array | undefined;
  private fact: WireFact | undefined;

  read(payload: Uint8Array, onNew?: () => void): WireFact | undefined {
    if (payload !== this.payload) {
      this.payload = payload;
      this.fact = readWireFact(payload);
      onNew?.();
    }
    return this.fact;
  }
}

/**
 * Checks the protocols' own promises from outside the code that keeps them: it reads the virtual
 * network's traffic (what honest nodes send), the blocks nodes store and their commit and
 * execution reports (probes, which leave the trace as it was), never a consensus object's
 * fields. Wire facts are checked as they are sent, each block as a node stores it (by consensus
 * or sync), and every stored block once more, read back from storage, in `audit`.
 *
 * Everything runs synchronously inside the event that caused it: an asynchronous check between
 * events would shift the microtasks of work still settling and so change the run.
 */
export class InvariantMonitor {
  private readonly chain: SimChain;
  private readonly isHonest: (node: string) => boolean;
  private readonly report: (v: ProtocolViolation) => void;
  private readonly chainId: bigint;
  /** Sealer ids (hex, no prefix) in force at "group/height". */
  private readonly sealersAt = new Map<string, readonly string[]>();
  /** Blocks whose signature list and transactions were checked, by hash + signatures: the problem found, or ''. */
  private readonly checkedBlocks = new Map<string, string>();
  private readonly checkedTxs = new Map<string, string>();
  /** Per group: tx hash → height, nonce → height, of committed blocks. */
  private readonly txHeights = new Map<number, Map<string, number>>();
  private readonly nonceHeights = new Map<number, Map<string, number>>();
  /** Per node and group: the last block it stored (height, hash), to check the next one links to it. */
  private readonly heads = new Map<string, { height: number; hash: string }>();
  /** "node/group/height" → block hashes that node's executor computed, with the proposal each came from. */
  private readonly executed = new Map<string, Map<string, ProposalIdentity>>();
  /** "node/group/height" → view → proposals the view's leader sent to the node (or the node sent as leader). */
  private readonly leaderProposals = new Map<string, Map<number, Set<ProposalIdentity>>>();
  /** "node/group/height" → view → sealers whose view changes to it (at height − 1) reached the node, its own included. */
  private readonly viewChanges = new Map<string, Map<number, Set<string>>>();
  /** "node/group/height" → "term/hash" of the blocks heartbeats carried to the node. */
  private readonly shipped = new Map<string, Set<string>>();
  /** "node/group" → the highest term the node answered a heartbeat in, or granted a vote for. */
  private readonly termFloor = new Map<string, { term: number; why: string; atMs: number }>();
  /** "node/group/height" → the highest view the node acted in (sent a Prepare, Sign or Commit of) since it last booted. */
  private readonly actedView = new Map<string, number>();
  /** "node/group/height" → the hash of that node's first Commit at the height. */
  private readonly locks = new Map<string, { hash: string; view: number; atMs: number }>();
  /** "group/height" → hash → senders of Commits. */
  private readonly commitVotes = new Map<string, Map<string, Set<string>>>();
  private readonly quorumReached = new Map<string, { hash: string; atMs: number }>();
  /** "group/term" → leader (node name) and when it first sent a heartbeat in that term. */
  private readonly leaders = new Map<string, { node: string; atMs: number }>();
  /** "node/group/term" → candidate id granted the vote. */
  private readonly votes = new Map<string, { candidate: string; to: string; atMs: number }>();
  /** "node/group" → the highest-term vote the node sent (its own candidacy or a grant). */
  private readonly lastVote = new Map<string, { term: number; candidate: string; atMs: number }>();
  /** Per group: highest heartbeat term seen so far, and per height the estimate of its commit term. */
  private readonly highestTerm = new Map<number, number>();
  private readonly committed = new Map<string, { hash: string; term: number; node: string }>();
  /** "node/group/height" → "type/view/hash" → ids of the sealers whose Sign or Commit reached the node. */
  private readonly heard = new Map<string, Map<string, Set<string>>>();
  /** "group/hash" → timestamp of each distinct block checked (a child's timestamp must be later). */
  private readonly stamps = new Map<string, number>();
  /** node → the highest reading of its clock at its executions and stores (a clock set back keeps it). */
  private readonly clockHigh = new Map<string, number>();
  private readonly sentFacts = new LastFact();
  private readonly deliveredFacts = new LastFact();
  private readonly detach: Array<() => void> = [];
  /** Checks made, by kind, for the summary and for meta-tests that a check really ran. */
  readonly counts = { wireMessages: 0, blocksChecked: 0, signatureChecks: 0, transactionsChecked: 0 };

  constructor(options: InvariantMonitorOptions) {
    this.chain = options.chain;
    this.isHonest = options.isHonest;
    this.report = options.report;
    this.chainId = options.chainId ?? 1n;
    // the consensus list is ordered by node id, as the system table reads it
    for (const [id, genesis] of this.chain.genesis) this.sealersAt.set(`${id}/1`, [...genesis.sealers].sort());
    this.detach.push(this.chain.sim.onCrash((node) => this.onCrash(node)));
    this.detach.push(this.chain.sim.network.observe({ sent: (from, to, payload, atMs) => this.onSent(from, to, payload, atMs), delivered: (from, to, payload) => this.onDelivered(from, to, payload) }));
  }

  stop(): void {
    for (const d of this.detach.splice(0)) d();
  }

  private consensusOf(group: number): string | undefined {
    return this.chain.genesis.get(group)?.consensusType;
  }

  private sealers(group: number, height: number): readonly string[] | undefined {
    for (let h = height; h >= 1; h--) {
      const known = this.sealersAt.get(`${group}/${h}`);
      if (known) return known;
    }
    return undefined;
  }

  private quorum(group: number, height: number): number {
    const n = this.sealers(group, height)?.length ?? 0;
    return this.consensusOf(group) === 'raft' ? n - Math.floor((n - 1) / 2) : n - Math.floor((n - 1) / 3);
  }

  // --- node reports ----------------------------------------------------------------------

  /** Give it every node event (SimulationOptions.onNodeEvent). */
  readonly onNodeEvent = (node: string, kind: string, fields: Readonly<Record<string, unknown>>, atMs: number): void => {
    if (!this.isHonest(node)) return;
    const group = Number(fields['group']);
    const number = Number(fields['number']);
    if (kind === 'block-executed' || kind === 'block-stored') this.readClock(node);
    if (kind === 'block-executed') {
      const key = `${node}/${group}/${number}`;
      let map = this.executed.get(key);
      if (!map) this.executed.set(key, (map = new Map()));
      map.set(String(fields['hash']), proposalIdentity(String(fields['parentHash']), Number(fields['timestamp']), Number(fields['sealer']), Number(fields['txs'])));
      return;
    }
    if (kind === 'block-stored') return this.onStored(node, group, fields['block'] as Block, String(fields['via']), atMs);
    if (kind === 'sync-block-rejected') return this.onSyncRefusal(node, group, fields, atMs);
    if (kind !== 'block-committed') return;
    // the node's config for the next height is set before it reports the commit
    const next = `${group}/${number + 1}`;
    if (!this.sealersAt.has(next)) {
      const config = this.chain.group(node, group)?.next;
      if (config && config.number === number + 1) this.sealersAt.set(next, [...config.sealers]);
    }
    for (const map of [this.executed, this.leaderProposals, this.viewChanges, this.shipped, this.actedView]) {
      for (const key of [...map.keys()]) if (key.startsWith(`${node}/${group}/`) && Number(key.slice(key.lastIndexOf('/') + 1)) <= number) map.delete(key);
    }
    this.locks.delete(`${node}/${group}/${number}`);
    for (const key of [...this.heard.keys()]) if (key.startsWith(`${node}/${group}/`) && Number(key.slice(key.lastIndexOf('/') + 1)) <= number) this.heard.delete(key);
    const height = `${group}/${number}`;
    const hash = String(fields['hash']);
    if (!this.committed.has(height)) this.committed.set(height, { hash, term: this.highestTerm.get(group) ?? 0, node });
    if (fields['via'] === 'consensus' && this.consensusOf(group) !== 'raft') {
      const senders = this.commitVotes.get(height)?.get(hash);
      const quorum = this.quorum(group, number);
      // a lone sealer's Commit goes to no peer, so the wire never shows it: its decision is its own quorum of one
      const sealers = this.sealers(group, number);
      const lone = sealers?.length === 1 && this.chain.nameOf(sealers[0]!) === node;
      if (!lone && (senders?.size ?? 0) < quorum) {
        const names = [...(senders ?? [])].map((id) => this.chain.nameOf(id) ?? id.slice(0, 8)).sort();
        this.violate({
          atMs,
          group,
          height: number,
          node,
          invariant: 'pbft-commit-certificate',
          detail: `${node} decided block ${number} (${short(hash)}) when ${names.length === 0 ? 'no sealer' : names.join(', ')} had sent a Commit for it; ${quorum} needed`,
          evidence: { hash, commitsFrom: names, quorum },
        });
      }
    }
  };

  /** A block a node just stored (before it reports the commit): its number and parent, then the block itself. */
  private onStored(node: string, group: number, block: Block, via: string, atMs: number): void {
    const height = block.header.number;
    const where = { atMs, group, height, node };
    const key = `${node}/${group}`;
    const head = this.heads.get(key);
    const parent = toHex(block.header.parentHash);
    if (head && head.height === height - 1 && head.hash !== parent) {
      this.violate({
        ...where,
        invariant: 'applied-block',
        detail: `${node} applied block ${height} (by ${via}) naming parent ${short(parent)}, but its own block ${height - 1} is ${short(head.hash)}`,
        evidence: { via, parent, head: head.hash },
      });
    } else if (head && height !== head.height + 1) {
      this.violate({ ...where, invariant: 'applied-block', detail: `${node} applied block ${height} (by ${via}) on its head ${head.height}`, evidence: { via, head } });
    }
    this.heads.set(key, { height, hash: toHex(blockHash(block.header, this.chain.suite)) });
    const allowed = this.consensusOf(group) === 'raft' ? RAFT_MAX_BLOCK_TIME_DIFF_MS : MAX_BLOCK_TIME_DIFF_MS;
    const ahead = block.header.timestamp - (this.clockHigh.get(node) ?? Infinity);
    // a second for the reading between the node's check and its store
    if (via === 'consensus' && ahead > allowed + 1000) {
      this.violate({
        ...where,
        invariant: 'block-header',
        detail: `${node} committed block ${height} by consensus stamped ${block.header.timestamp}, ${Math.round(ahead / 1000)} s ahead of its clock (${allowed / 60_000} min allowed)`,
        evidence: { timestamp: block.header.timestamp, clock: this.clockHigh.get(node), allowedMs: allowed },
      });
    }
    this.checkBlock(block, node, group, atMs, via);
  }

  private readClock(node: string): void {
    const now = this.chain.sim.node(node).clockNow;
    if (now > (this.clockHigh.get(node) ?? -Infinity)) this.clockHigh.set(node, now);
  }

  /** Header rules of one distinct block: not empty, its sealer index in range, later than its parent. */
  private checkHeader(block: Block, hashHex: string, node: string, group: number, atMs: number, via: string): string {
    const { header } = block;
    this.stamps.set(`${group}/${hashHex}`, header.timestamp);
    const parentStamp = this.stamps.get(`${group}/${toHex(header.parentHash)}`);
    const problem =
      block.transactions.length === 0
        ? 'has no transactions'
        : header.sealer >= header.sealerList.length
          ? `names sealer index ${header.sealer} of ${header.sealerList.length} sealers`
          : parentStamp !== undefined && header.timestamp <= parentStamp
            ? `is stamped ${header.timestamp}, not after its parent's ${parentStamp}`
            : '';
    if (problem) {
      this.violate({
        atMs,
        group,
        height: header.number,
        node,
        invariant: 'block-header',
        detail: `${node} committed block ${header.number} (${short(hashHex)}, by ${via}), which ${problem}`,
        evidence: { hash: hashHex, timestamp: header.timestamp, parentTimestamp: parentStamp, sealer: header.sealer, sealers: header.sealerList.length, txs: block.transactions.length },
      });
    }
    return problem ? 'block-header' : '';
  }

  private onSyncRefusal(node: string, group: number, fields: Readonly<Record<string, unknown>>, atMs: number): void {
    const peer = this.chain.nameOf(String(fields['peer']));
    // a twin shares its original's id: which of the two served the block is not known
    if (peer === undefined || !this.isHonest(peer) || [...this.chain.twinOf.values()].includes(peer)) return;
    const height = Number(fields['number']);
    const reason = String(fields['reason']);
    this.violate({ atMs, group, height, node, invariant: 'sync-honest-peer', detail: `${node} refused block ${height} that honest ${peer} served it by sync: ${reason}`, evidence: { peer, reason } });
  }

  // --- the wire --------------------------------------------------------------------------

  /** A message a node handed to the network (the wire observer; hand-made traffic in meta-tests). */
  onSent(from: string, to: string, payload: Uint8Array, atMs: number): void {
    const module = payload[2];
    if (module !== MODULE.pbft && module !== MODULE.raft) return;
    const honest = this.isHonest(from);
    if (!honest && module !== MODULE.pbft) return;
    const fact = this.sentFacts.read(payload, () => this.counts.wireMessages++);
    if (!fact) return;
    if (!honest) {
      // byzantine Commits count towards quorums (two quorums at one height need honest nodes on both sides), nothing more
      if (fact.module === 'pbft' && fact.type === 'commit') this.countCommit(from, fact, atMs);
      return;
    }
    if (fact.module === 'pbft') {
      if (fact.type !== 'viewchange') this.checkView(from, fact, atMs);
      if (fact.type === 'sign' || fact.type === 'commit') this.onPbftVote(from, fact, atMs);
      // after the checks: a message does not justify itself
      this.notePbft(from, from, fact);
    } else if (fact.type === 'voteResp') this.onVoteResponse(from, to, fact, atMs);
    else if (fact.type === 'voteReq') this.onVoteRequest(from, fact, atMs);
    else if (fact.type === 'heartbeatResp') this.onHeartbeatResponse(from, fact, atMs);
    else this.onHeartbeat(from, fact, atMs);
  }

  /** What a PBFT message tells about `node` (its receiver, or its honest sender): leader proposals, view changes, votes. */
  private notePbft(node: string, sender: string, fact: Extract<WireFact, { module: 'pbft' }>): void {
    const { group } = fact;
    if (fact.type === 'viewchange') {
      const byView = this.slot(this.viewChanges, `${node}/${group}/${fact.height + 1}`);
      let senders = byView.get(fact.view);
      if (!senders) byView.set(fact.view, (senders = new Set()));
      senders.add(this.chain.idOf(sender));
      return;
    }
    if (fact.type === 'prepare') {
      const n = this.sealers(group, fact.height)?.length ?? 0;
      if (n === 0 || fact.idx !== (fact.view + fact.height - 1) % n) return;
      const byView = this.slot(this.leaderProposals, `${node}/${group}/${fact.height}`);
      let ids = byView.get(fact.view);
      if (!ids) byView.set(fact.view, (ids = new Set()));
      ids.add(fact.proposal);
      return;
    }
    const key = `${node}/${group}/${fact.height}`;
    let heard = this.heard.get(key);
    if (!heard) this.heard.set(key, (heard = new Map()));
    const slot = `${fact.type}/${fact.view}/${fact.hash}`;
    let senders = heard.get(slot);
    if (!senders) heard.set(slot, (senders = new Set()));
    senders.add(this.chain.idOf(sender));
  }

  private slot<V>(map: Map<string, Map<number, V>>, key: string): Map<number, V> {
    let inner = map.get(key);
    if (!inner) map.set(key, (inner = new Map()));
    return inner;
  }

  /** An honest prepare, Sign or Commit in view v > 0: the node must have had a reason to be in view v. */
  private checkView(from: string, fact: Extract<WireFact, { module: 'pbft' }>, atMs: number): void {
    const { group, height, view } = fact;
    const key = `${from}/${group}/${height}`;
    const before = this.actedView.get(key);
    if (before !== undefined && view < before) {
      this.violate({
        atMs,
        group,
        height,
        node: from,
        invariant: 'pbft-view-change',
        detail: `${from} sent a ${fact.type} in view ${view} at height ${height} after acting in view ${before} at that height`,
        evidence: { message: fact.type, view, earlierView: before },
      });
    }
    if (before === undefined || view > before) this.actedView.set(key, view);
    if (view === 0) return;
    const quorum = this.quorum(group, height);
    const n = this.sealers(group, height)?.length ?? 0;
    const f = Math.floor((n - 1) / 3);
    // its own view change counts whether or not it went out (cut off from every peer, a node sends nothing)
    const changes = new Set([...(this.viewChanges.get(`${from}/${group}/${height}`)?.get(view) ?? []), this.chain.idOf(from)]).size;
    if (changes >= quorum) return;
    let signs = 0;
    for (const [slot, senders] of this.heard.get(`${from}/${group}/${height}`) ?? []) if (slot.startsWith(`sign/${view}/`)) signs = Math.max(signs, senders.size);
    if (signs >= f + 1) return;
    this.violate({
      atMs,
      group,
      height,
      node: from,
      invariant: 'pbft-view-change',
      detail: `${from} sent a ${fact.type} in view ${view} at height ${height} when ${changes} view change(s) to view ${view} (${quorum} needed) and at most ${signs} Sign(s) in it (${f + 1} needed) had reached it`,
      evidence: { message: fact.type, view, viewChanges: changes, signs, quorum },
    });
  }

  private onPbftVote(from: string, vote: Extract<WireFact, { hash: string }>, atMs: number): void {
    const { group, height, view, hash } = vote;
    const key = `${from}/${group}/${height}`;
    const at = { atMs, group, height, node: from };
    if (vote.type === 'sign' && this.executed.get(key)?.has(hash)) {
      const proposal = this.executed.get(key)!.get(hash)!;
      const led = this.leaderProposals.get(key)?.get(view);
      if (!led?.has(proposal)) {
        this.violate({
          ...at,
          invariant: 'pbft-leader-proposal',
          detail: `${from} sent a Sign for ${short(hash)} at height ${height}, view ${view}, a block no Prepare of view ${view}'s leader proposed to it (${led ? `the leader proposed ${led.size} other block(s)` : 'the leader proposed nothing to it'})`,
          evidence: { message: 'sign', view, hash, proposal, leaderProposals: [...(led ?? [])] },
        });
      }
    }
    if (vote.type === 'commit') {
      // its own Sign counts if it executed the block, whether or not the Sign went out (cut off, a node sends nothing)
      const own = this.executed.get(key)?.has(hash) ? [this.chain.idOf(from)] : [];
      const votes = (type: string) => new Set([...(this.heard.get(key)?.get(`${type}/${view}/${hash}`) ?? []), ...(type === 'sign' ? own : [])]).size;
      const quorum = this.quorum(group, height);
      if (votes('sign') < quorum && votes('commit') < quorum) {
        this.violate({
          ...at,
          invariant: 'pbft-commit-justified',
          detail: `${from} sent a Commit for ${short(hash)} at height ${height}, view ${view}, when ${votes('sign')} Sign(s) and ${votes('commit')} Commit(s) for it had reached it (${quorum} needed)`,
          evidence: { message: 'commit', view, hash, signs: votes('sign'), commits: votes('commit'), quorum },
        });
      }
    }
    if (vote.type === 'sign' && !this.executed.get(key)?.has(hash)) {
      const executed = [...(this.executed.get(key)?.keys() ?? [])];
      this.violate({
        ...at,
        invariant: 'pbft-sign-unexecuted',
        detail: `${from} sent a Sign for ${short(hash)} at height ${height}, view ${view}, but its executor computed ${executed.length === 0 ? 'no block at that height' : executed.map(short).join(', ')}`,
        evidence: { message: 'sign', view, hash, executed },
      });
    }
    const lock = this.locks.get(key);
    // a lock moves only to a block of a later view that n − f sealers vouched for (Signs or
    // Commits delivered to this node): then the locked block cannot have been decided
    const justified = vote.type === 'commit' && lock !== undefined && view > lock.view && this.vouched(from, group, height, view, hash) >= this.quorum(group, height);
    if (lock && lock.hash !== hash && !justified) {
      this.violate({
        ...at,
        invariant: 'pbft-lock',
        detail: `${from} sent a Commit for ${short(lock.hash)} at height ${height} (view ${lock.view}, ${lock.atMs} ms), then a ${vote.type === 'sign' ? 'Sign' : 'Commit'} for ${short(hash)} in view ${view}`,
        evidence: { locked: lock, message: vote.type, view, hash },
      });
    }
    if (vote.type !== 'commit') return;
    if (!lock || (justified && lock.hash !== hash)) this.locks.set(key, { hash, view, atMs });
    this.countCommit(from, vote, atMs);
  }

  /** Distinct sealers whose Signs (or else Commits) for (height, view, hash) reached `node`. */
  private vouched(node: string, group: number, height: number, view: number, hash: string): number {
    const heard = this.heard.get(`${node}/${group}/${height}`);
    const votes = (type: string) => heard?.get(`${type}/${view}/${hash}`)?.size ?? 0;
    return Math.max(votes('sign'), votes('commit'));
  }

  /**
   * A message a node received (the wire observer): what can justify what it does next (votes,
   * view changes and the leader's proposals in PBFT; the blocks Raft heartbeats carry).
   */
  onDelivered(from: string, to: string, payload: Uint8Array): void {
    if ((payload[2] !== MODULE.pbft && payload[2] !== MODULE.raft) || !this.isHonest(to)) return;
    const fact = this.deliveredFacts.read(payload);
    if (!fact) return;
    if (fact.module === 'pbft') return this.notePbft(to, from, fact);
    if (fact.type !== 'heartbeat' || !fact.pending) return;
    const key = `${to}/${fact.group}/${fact.pending.height}`;
    let set = this.shipped.get(key);
    if (!set) this.shipped.set(key, (set = new Set()));
    set.add(`${fact.term}/${fact.pending.hash}`);
  }

  /** An honest follower's answer to a heartbeat: an acknowledgement must be of a block a heartbeat of that term carried to it. */
  private onHeartbeatResponse(from: string, resp: Extract<WireFact, { type: 'heartbeatResp' }>, atMs: number): void {
    this.raiseTermFloor(from, resp.group, resp.term, 'answering a heartbeat in', atMs);
    const ack = resp.ack;
    if (!ack || this.shipped.get(`${from}/${resp.group}/${ack.height}`)?.has(`${resp.term}/${ack.hash}`)) return;
    const terms = [...(this.shipped.get(`${from}/${resp.group}/${ack.height}`) ?? [])].filter((t) => t.endsWith(`/${ack.hash}`)).map((t) => Number(t.slice(0, t.indexOf('/'))));
    this.violate({
      atMs,
      group: resp.group,
      height: ack.height,
      node: from,
      invariant: 'raft-ack-term',
      detail: `${from} acknowledged block ${ack.height} (${short(ack.hash)}) in term ${resp.term}, but ${terms.length === 0 ? 'no heartbeat carried that block to it' : `only heartbeats of term ${terms.join(', ')} carried it`}`,
      evidence: { term: resp.term, ack, carriedInTerms: terms },
    });
  }

  private countCommit(from: string, fact: Extract<WireFact, { hash: string }>, atMs: number): void {
    const slot = `${fact.group}/${fact.height}`;
    let byHash = this.commitVotes.get(slot);
    if (!byHash) this.commitVotes.set(slot, (byHash = new Map()));
    let senders = byHash.get(fact.hash);
    if (!senders) byHash.set(fact.hash, (senders = new Set()));
    senders.add(this.chain.idOf(from));
    this.checkQuorums(slot, fact.group, fact.height, atMs);
  }

  private checkQuorums(slot: string, group: number, height: number, atMs: number): void {
    const quorum = this.quorum(group, height);
    const byHash = this.commitVotes.get(slot)!;
    const full = [...byHash].filter(([, senders]) => senders.size >= quorum);
    if (full.length < 2 || this.quorumReached.has(slot)) return;
    this.quorumReached.set(slot, { hash: full[0]![0], atMs });
    this.violate({
      atMs,
      group,
      height,
      node: this.names(full[1]![1]).join(','),
      invariant: 'pbft-conflicting-quorums',
      detail: `at height ${height}, ${full.map(([hash, senders]) => `${short(hash)} has Commits from ${this.names(senders).join(', ')}`).join('; ')} (quorum ${quorum})`,
      evidence: { quorum, commits: Object.fromEntries(full.map(([hash, senders]) => [hash, this.names(senders)])) },
    });
  }

  private names(ids: Iterable<string>): string[] {
    return [...ids].map((id) => this.chain.nameOf(id) ?? id.slice(0, 8)).sort();
  }

  /** The highest-term vote a node sent so far, by group: what its disk must keep. */
  private noteVote(node: string, group: number, term: number, candidate: string, atMs: number): void {
    const key = `${node}/${group}`;
    const known = this.lastVote.get(key);
    if (!known || term > known.term) this.lastVote.set(key, { term, candidate, atMs });
  }

  /** A node crashed: every vote it sent must be on its disk (a vote forgotten can be cast again). */
  private onCrash(node: string): void {
    if (!this.isHonest(node)) return;
    // a restarted sealer starts again from view 0
    for (const key of [...this.actedView.keys()]) if (key.startsWith(`${node}/`)) this.actedView.delete(key);
    for (const [group, genesis] of this.chain.genesis) {
      if (genesis.consensusType !== 'raft') continue;
      const vote = this.lastVote.get(`${node}/${group}`);
      if (!vote) continue;
      const disk = this.chain.sim.node(node).storage;
      const bytes = disk.names.includes(`group${group}`) ? disk.openSync(`group${group}`).getSync(RAFT_STATE_KEY) : undefined;
      const kept = bytes ? decodeRaftState(bytes) : undefined;
      const keptFor = kept?.votedFor ? toHexNoPrefix(kept.votedFor) : undefined;
      if (kept && (kept.votedTerm > vote.term || (kept.votedTerm === vote.term && keptFor === vote.candidate))) continue;
      const atMs = this.chain.sim.now;
      this.violate({
        atMs,
        group,
        height: 0,
        node,
        invariant: 'raft-vote-durable',
        detail: `${node} crashed with ${kept ? `a vote for term ${kept.votedTerm}${keptFor ? ` (${this.chain.nameOf(keptFor) ?? keptFor.slice(0, 8)})` : ''}` : 'no Raft state'} on its disk, but it had voted in term ${vote.term} for ${this.chain.nameOf(vote.candidate) ?? vote.candidate.slice(0, 8)} (${vote.atMs} ms)`,
        evidence: { sent: vote, onDisk: kept ? { term: kept.term, votedTerm: kept.votedTerm, votedFor: keptFor ?? null } : null },
      });
    }
  }

  private onVoteRequest(from: string, request: Extract<WireFact, { type: 'voteReq' }>, atMs: number): void {
    this.noteVote(from, request.group, request.term, this.chain.idOf(from), atMs);
  }

  /** A term the node is at least in from now on (its term only goes back after a campaign of its own fails, never below these). */
  private raiseTermFloor(node: string, group: number, term: number, why: string, atMs: number): void {
    const key = `${node}/${group}`;
    const floor = this.termFloor.get(key);
    if (!floor || term > floor.term) this.termFloor.set(key, { term, why, atMs });
  }

  private onVoteResponse(from: string, to: string, vote: Extract<WireFact, { type: 'voteResp' }>, atMs: number): void {
    if (!vote.granted) return;
    const floor = this.termFloor.get(`${from}/${vote.group}`);
    if (floor && vote.candidateTerm < floor.term) {
      this.violate({
        atMs,
        group: vote.group,
        height: 0,
        node: from,
        invariant: 'raft-vote-term',
        detail: `${from} granted ${to} a vote in term ${vote.candidateTerm} after ${floor.why} term ${floor.term} (${floor.atMs} ms)`,
        evidence: { term: vote.candidateTerm, to, floor },
      });
    }
    this.raiseTermFloor(from, vote.group, vote.candidateTerm, 'granting a vote in', atMs);
    const candidate = this.chain.idOf(to);
    this.noteVote(from, vote.group, vote.candidateTerm, candidate, atMs);
    const key = `${from}/${vote.group}/${vote.candidateTerm}`;
    const earlier = this.votes.get(key);
    if (!earlier) {
      this.votes.set(key, { candidate, to, atMs });
      return;
    }
    if (earlier.candidate === candidate) return;
    this.violate({
      atMs,
      group: vote.group,
      height: 0,
      node: from,
      invariant: 'raft-double-vote',
      detail: `${from} granted its vote in term ${vote.candidateTerm} to ${earlier.to} (${earlier.atMs} ms) and to ${to}`,
      evidence: { term: vote.candidateTerm, first: earlier, second: { to, atMs } },
    });
  }

  private onHeartbeat(from: string, hb: Extract<WireFact, { type: 'heartbeat' }>, atMs: number): void {
    const { group, term } = hb;
    if (term > (this.highestTerm.get(group) ?? 0)) this.highestTerm.set(group, term);
    const key = `${group}/${term}`;
    const leader = this.leaders.get(key);
    if (leader) {
      if (leader.node !== from && this.chain.idOf(leader.node) !== this.chain.idOf(from)) {
        this.violate({
          atMs,
          group,
          height: hb.height,
          node: from,
          invariant: 'raft-one-leader',
          detail: `${leader.node} (from ${leader.atMs} ms) and ${from} both lead term ${term}`,
          evidence: { term, first: leader, second: { node: from, atMs } },
        });
        this.leaders.set(key, { node: from, atMs });
      }
      return;
    }
    this.leaders.set(key, { node: from, atMs });
    // the first heartbeat of a term: the leader's log must hold every block committed in an earlier term
    let highest: { height: number; hash: string; term: number } | undefined;
    for (const [slot, c] of this.committed) {
      const [g, h] = slot.split('/').map(Number) as [number, number];
      if (g === group && c.term < term && (!highest || h > highest.height)) highest = { height: h, hash: c.hash, term: c.term };
    }
    if (!highest || hb.height >= highest.height) return;
    if (hb.height === highest.height - 1 && hb.pending?.height === highest.height && hb.pending.hash === highest.hash) return;
    this.violate({
      atMs,
      group,
      height: highest.height,
      node: from,
      invariant: 'raft-leader-completeness',
      detail: `${from} leads term ${term} with committed height ${hb.height}${hb.pending ? ` and block ${hb.pending.height} (${short(hb.pending.hash)}) pending` : ''}, but block ${highest.height} (${short(highest.hash)}) was committed in term ${highest.term}`,
      evidence: { term, leaderHeight: hb.height, pending: hb.pending ?? null, committed: highest },
    });
  }

  // --- stored blocks ---------------------------------------------------------------------

  /** Signature quorum, sealer list and transaction validity of one stored block (each distinct block checked once). */
  private checkBlock(block: Block, node: string, group: number, atMs: number, via: string): void {
    const height = block.header.number;
    const hash = blockHash(block.header, this.chain.suite);
    const hashHex = toHex(hash);
    const key = `${group}/${hashHex}/${block.signatureList.map((s) => `${s.index}:${toHexNoPrefix(s.signature)}`).join(',')}`;
    let problem = this.checkedBlocks.get(key);
    const where = { atMs, group, height, node };
    if (problem === undefined) {
      this.counts.blocksChecked++;
      problem = this.checkHeader(block, hashHex, node, group, atMs, via);
      const sealers = this.sealers(group, height);
      if (sealers) {
        const listed = block.header.sealerList.map((id) => toHexNoPrefix(id));
        if (listed.length !== sealers.length || listed.some((id, i) => id !== sealers[i])) {
          problem = 'sealer-list';
          this.violate({
            ...where,
            invariant: 'sealer-list',
            detail: `${node} committed block ${height} (${short(hashHex)}, by ${via}) listing ${listed.length} sealers that are not the ${sealers.length} in force`,
            evidence: { hash: hashHex, listed, inForce: sealers },
          });
        }
        const quorum = this.quorum(group, height);
        const signer = this.chain.group(node, group)?.options.signer;
        this.counts.signatureChecks += block.signatureList.length;
        const check = checkSignatureList(hash, block.signatureList, sealers.map((id) => fromHex(id)), this.chain.suite, signer ? (d, sig, id) => signer.verify(d, sig, id) : undefined);
        if (check.valid.length < quorum) {
          problem = 'signature-quorum';
          this.violate({
            ...where,
            invariant: 'signature-quorum',
            detail: `${node} committed block ${height} (${short(hashHex)}, by ${via}) with ${check.valid.length} valid sealer signature(s) of ${block.signatureList.length}; ${quorum} needed`,
            evidence: { hash: hashHex, valid: check.valid, invalid: check.invalid, quorum, via },
          });
        }
      }
      this.checkedBlocks.set(key, problem);
    }
    this.checkTransactions(block, hashHex, node, group, atMs);
  }

  /** Transactions of each block hash checked once, in height order of first commit. */
  private checkTransactions(block: Block, hashHex: string, node: string, group: number, atMs: number): void {
    const height = block.header.number;
    const txKey = `${group}/${hashHex}`;
    if (this.checkedTxs.has(txKey)) return;
    let problem = '';
    const txs = this.txHeights.get(group) ?? new Map<string, number>();
    const nonces = this.nonceHeights.get(group) ?? new Map<string, number>();
    this.txHeights.set(group, txs);
    this.nonceHeights.set(group, nonces);
    const inBlock = new Set<string>();
    const generation = this.chain.version.txGeneration;
    block.transactions.forEach((stored, i) => {
      if (problem) return;
      this.counts.transactionsChecked++;
      const id = toHexNoPrefix(stored.hash);
      const nonce = stored.body.nonce.toString(16);
      let tx;
      try {
        tx = decodeTransaction(stored.raw, { suite: this.chain.suite, generation });
        recoverSender(tx, this.chain.suite);
      } catch (e) {
        problem = `transaction ${i} (${short(`0x${id}`)}): ${(e as Error).message}`;
        return;
      }
      const limit = tx.body.blockLimit;
      if (limit < BigInt(height) || limit > BigInt(height - 1 + BLOCK_LIMIT_RANGE)) problem = `transaction ${i}: blockLimit ${limit} does not admit block ${height}`;
      else if (tx.body.chainId !== undefined && tx.body.chainId !== this.chainId) problem = `transaction ${i}: chain id ${tx.body.chainId}, the chain's is ${this.chainId}`;
      else if (tx.body.groupId !== undefined && tx.body.groupId !== BigInt(group)) problem = `transaction ${i}: group id ${tx.body.groupId} in group ${group}`;
      else if (inBlock.has(id)) problem = `transaction ${i} appears twice in the block`;
      else if (txs.has(id) && txs.get(id)! < height) problem = `transaction ${i} (${short(`0x${id}`)}) was already committed in block ${txs.get(id)}`;
      else if (inBlock.has(`nonce:${nonce}`)) problem = `transaction ${i} reuses nonce 0x${nonce} within the block`;
      else {
        // FISCO's nonce check covers the last NONCE_WINDOW blocks (the smaller window a restarted pool keeps)
        const usedAt = nonces.get(nonce);
        if (usedAt !== undefined && usedAt < height && height - usedAt < NONCE_WINDOW) problem = `transaction ${i}: nonce 0x${nonce} was already used in block ${usedAt}`;
      }
      inBlock.add(id);
      inBlock.add(`nonce:${nonce}`);
    });
    this.checkedTxs.set(txKey, problem);
    if (problem) {
      this.violate({ atMs, group, height, node, invariant: 'block-validity', detail: `${node} committed block ${height} (${short(hashHex)}) with an invalid transaction: ${problem}`, evidence: { hash: hashHex, problem } });
      return;
    }
    for (const stored of block.transactions) {
      const id = toHexNoPrefix(stored.hash);
      if (!txs.has(id) || txs.get(id)! > height) txs.set(id, height);
      const nonce = stored.body.nonce.toString(16);
      if ((nonces.get(nonce) ?? -1) < height) nonces.set(nonce, height);
    }
  }

  /**
   * Re-checks every stored block of every up honest node (signatures, sealer list, transactions,
   * links) straight from storage; distinct blocks already checked cost a lookup.
   */
  async audit(groups: readonly number[], atMs: number): Promise<void> {
    for (const node of this.chain.sim.nodes().map((n) => n.name)) {
      if (!this.isHonest(node) || this.chain.sim.node(node).state !== 'up') continue;
      for (const groupId of groups) {
        const group = this.chain.group(node, groupId);
        if (!group) continue;
        for (let h = 1; h <= group.blockNumber(); h++) {
          const stored = await group.blockByNumber(h);
          if (stored) this.checkBlock(stored.block, node, groupId, atMs, 'stored');
        }
      }
    }
  }

  private violate(v: ProtocolViolation): void {
    this.report(v);
  }
}
