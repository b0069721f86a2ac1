import seedrandom from 'seedrandom';
import { bytesEqual, concatBytes, toHex } from '../../codec/index.js';
import { keccak256 } from '../../crypto/index.js';
import { encodeProposal, type Proposal } from '../proposal.js';
import type { IndexedSignature, RaftMessage, VoteRequest } from './raft-messages.js';
import { INITIAL_HARD_STATE, Raft, type RaftConfig, type RaftHardState, type RaftHead, type RaftOutput } from './raft.js';

export const T0 = 1_000_000;
export const ids = Array.from({ length: 9 }, (_, i) => new Uint8Array(64).fill(i + 1));
/** Height 0 with an all-zero hash: the head the unit tests' nodes start from. */
export const GENESIS: RaftHead = { height: 0, hash: new Uint8Array(32), timestamp: 0, signatures: [] };

/** A vote request of sealer `from` campaigning in `term`, on GENESIS, with the given log. */
export const voteReq = (from: number, term: number, lastHeight = 0, lastEntryTerm = 0): VoteRequest => ({
  type: 'voteReq',
  term,
  idx: from,
  height: 0,
  blockHash: GENESIS.hash,
  lastHeight,
  lastEntryTerm,
  lastLeaderTerm: 0,
});

/** Stand-in for execution: deterministic in the proposal (which names its parent). */
export function blockHashOf(p: Proposal): Uint8Array {
  return keccak256(encodeProposal(p));
}

/** Stand-in for a node key: the signature of sealer i over h is i ‖ h. */
export const signerOf = (i: number) => (h: Uint8Array) => concatBytes(Uint8Array.of(i), h);
export const validSignature = (s: IndexedSignature, hash: Uint8Array) => s.signature[0] === s.index && bytesEqual(s.signature.subarray(1), hash);

export interface CommittedBlock {
  readonly height: number;
  readonly hash: Uint8Array;
  readonly proposal: Proposal;
  readonly signatures: readonly IndexedSignature[];
  readonly via: 'leader' | 'certificate' | 'sync';
}

export class SafetyViolation extends Error {
  override readonly name = 'SafetyViolation';
}

export interface NetOptions {
  readonly loss?: number;
  readonly duplicate?: number;
  readonly minDelay?: number;
  readonly maxDelay?: number;
  /** Transactions per proposal (0: leaders never seal). */
  readonly txs?: number;
  /** How often a lagging node copies the next block from a reachable peer (block sync stand-in). */
  readonly syncEveryMs?: number;
  readonly minElectMs?: number;
  readonly maxElectMs?: number;
  /** A broken world for the checkers' own test: restarts forget the persisted Raft state (not the chain). */
  readonly amnesia?: boolean;
}

interface Queued {
  at: number;
  seq: number;
  run: () => void;
  /** Counts as a delivered message for the continuous checks. */
  delivery?: boolean;
}

/**
 * A tiny deterministic world for Raft state machines: a message queue with delay, loss,
 * duplication and partitions; crashes that lose everything but what was persisted; execution that
 * takes time; a block sync stand-in. Every safety invariant is checked after every event.
 */
export class RaftNet {
  readonly nodes: Array<Raft | undefined>;
  readonly chains: CommittedBlock[][];
  readonly durable: RaftHardState[];
  /** Writes persisted without sync since the last synced one (lost on crash). */
  private readonly unsynced: Array<RaftHardState | undefined>;
  readonly incarnation: number[];
  readonly events: Array<{ at: number; node: number; kind: string; fields: Record<string, unknown> }> = [];
  /** term → leader index, for "at most one leader per term". */
  readonly leaders = new Map<number, number>();
  /** height → hash of every block any node committed. */
  readonly committed = new Map<number, string>();
  /** "term:height" → hash of every entry any node accepted. */
  readonly entries = new Map<string, string>();
  readonly cut = new Set<string>();
  delivered = 0;
  now = T0;
  private queue: Queued[] = [];
  private seq = 0;
  private readonly timers: Array<number | undefined>;
  private readonly sealScheduled: boolean[];
  private readonly checkedUpTo: number[];
  private proposals = 0;
  // the 64-bit digest as two 32-bit halves (the same value as a BigInt, without a BigInt per character)
  private digestHi = 0;
  private digestLo = 0;
  /** Leaders seal while this is true. */
  sealingEnabled = true;
  /** Called after every event (on top of the built-in checks). */
  onEvent?: () => void;

  constructor(
    readonly n: number,
    readonly seed: string,
    readonly options: NetOptions = {},
  ) {
    this.rng = seedrandom(`${seed}/net`);
    this.nodes = Array.from({ length: n }, () => undefined);
    this.chains = Array.from({ length: n }, () => []);
    this.durable = Array.from({ length: n }, () => INITIAL_HARD_STATE);
    this.unsynced = Array.from({ length: n }, () => undefined);
    this.incarnation = Array.from({ length: n }, () => 0);
    this.timers = Array.from({ length: n }, () => undefined);
    this.sealScheduled = Array.from({ length: n }, () => false);
    this.checkedUpTo = Array.from({ length: n }, () => 0);
    for (let i = 0; i < n; i++) this.boot(i);
    if ((options.syncEveryMs ?? 300) > 0) for (let i = 0; i < n; i++) this.schedule(100 + i, () => this.syncTick(i));
  }

  private readonly rng: () => number;

  config(i: number, n = this.n): RaftConfig {
    return { sealers: ids.slice(0, n), selfIndex: i < n ? i : -1, minElectMs: this.options.minElectMs ?? 1000, maxElectMs: this.options.maxElectMs ?? 2000, txCountLimit: 1000 };
  }

  head(i: number): RaftHead {
    const chain = this.chains[i]!;
    const last = chain[chain.length - 1];
    if (!last) return { height: 0, hash: new Uint8Array(32), timestamp: 0, signatures: [] };
    return { height: last.height, hash: last.hash, timestamp: last.proposal.timestamp, signatures: last.signatures };
  }

  isUp(i: number): boolean {
    return this.nodes[i] !== undefined;
  }

  // --- faults --------------------------------------------------------------------------

  crash(i: number): void {
    if (!this.nodes[i]) return;
    this.nodes[i] = undefined;
    this.unsynced[i] = undefined; // unsynced writes are lost
    this.incarnation[i]!++;
    this.timers[i] = undefined;
    this.sealScheduled[i] = false;
    this.record(i, 'crash', {});
  }

  restart(i: number): void {
    if (this.nodes[i]) return;
    this.incarnation[i]!++;
    this.boot(i);
    this.record(i, 'restart', {});
  }

  private boot(i: number): void {
    const rng = seedrandom(`${this.seed}/node${i}/${this.incarnation[i]}`);
    const hard = this.options.amnesia ? INITIAL_HARD_STATE : this.durable[i]!;
    const node = new Raft(this.config(i), this.head(i), hard, this.now, signerOf(i), () => rng());
    this.nodes[i] = node;
    this.handle(i, node.start(this.now));
  }

  /** Cut every link between the groups (nodes in no group keep their links). */
  partition(groups: number[][]): void {
    for (const a of groups) for (const b of groups) if (a !== b) for (const i of a) for (const j of b) this.cut.add(`${i}>${j}`);
    this.record(-1, 'partition', { groups });
  }

  heal(): void {
    this.cut.clear();
    this.record(-1, 'heal', {});
  }

  reachable(i: number, j: number): boolean {
    return !this.cut.has(`${i}>${j}`);
  }

  // --- the world -----------------------------------------------------------------------

  schedule(delay: number, run: () => void, delivery = false): void {
    this.queue.push({ at: this.now + delay, seq: this.seq++, run, delivery });
  }

  /** Run until virtual time `until` (absolute) or no events remain. */
  run(until: number): void {
    while (this.queue.length > 0) {
      let best = 0;
      for (let k = 1; k < this.queue.length; k++) {
        const q = this.queue[k]!;
        const b = this.queue[best]!;
        if (q.at < b.at || (q.at === b.at && q.seq < b.seq)) best = k;
      }
      const next = this.queue[best]!;
      if (next.at > until) break;
      this.queue[best] = this.queue[this.queue.length - 1]!;
      this.queue.pop();
      this.now = next.at;
      next.run();
      if (next.delivery) this.delivered++;
      this.check();
      this.onEvent?.();
    }
    this.now = Math.max(this.now, until);
  }

  private alive(i: number, life: number): Raft | undefined {
    return this.incarnation[i] === life ? this.nodes[i] : undefined;
  }

  handle(i: number, out: RaftOutput): void {
    const node = this.nodes[i];
    if (!node) return;
    const life = this.incarnation[i]!;
    for (const e of out.events) {
      this.record(i, e.kind, e.fields);
      if (e.kind === 'raft-leader') this.onLeader(i, e.fields.term as number);
    }
    if (out.persist) {
      if (out.persist.sync) {
        this.durable[i] = out.persist.state;
        this.unsynced[i] = undefined;
      } else this.unsynced[i] = out.persist.state;
    }
    for (const { to, message } of out.send) {
      if (to === 'all') {
        for (let j = 0; j < this.n; j++) if (j !== i) this.transmit(i, j, message);
      }
      else this.transmit(i, to, message);
    }
    if (out.timerAt !== undefined) {
      const at = out.timerAt;
      this.timers[i] = at;
      this.queue.push({
        at: Math.max(at, this.now),
        seq: this.seq++,
        run: () => {
          const n = this.alive(i, life);
          if (n && this.timers[i] === at) this.handle(i, n.tick(this.now));
        },
      });
    }
    if (out.commit) this.commit(i, out.commit.height, out.commit.blockHash, out.commit.signatures, out.commit.proposal, out.commit.by);
    if (out.execute) {
      const { height, proposal } = out.execute;
      this.schedule(1 + Math.floor(this.rng() * 5), () => this.alive(i, life) && this.handle(i, this.nodes[i]!.onExecuted(height, blockHashOf(proposal), this.now)));
    }
    this.maybeSeal(i);
  }

  private transmit(from: number, to: number, message: RaftMessage): void {
    if (!this.reachable(from, to)) return;
    const copies = this.rng() < (this.options.duplicate ?? 0) ? 2 : 1;
    for (let k = 0; k < copies; k++) {
      if (this.rng() < (this.options.loss ?? 0)) continue;
      const min = this.options.minDelay ?? 1;
      const delay = min + Math.floor(this.rng() * ((this.options.maxDelay ?? 10) - min + 1));
      const life = this.incarnation[to]!;
      this.schedule(
        delay,
        () => {
          const node = this.alive(to, life);
          if (node && this.reachable(from, to)) this.handle(to, node.onMessage(message, this.now));
        },
        true,
      );
    }
  }

  private commit(i: number, height: number, hash: Uint8Array, signatures: readonly IndexedSignature[], proposal: Proposal, via: CommittedBlock['via']): void {
    const node = this.nodes[i]!;
    const head = this.head(i);
    if (height !== head.height + 1) throw new SafetyViolation(`node ${i} commits ${height} on head ${head.height}`);
    if (!bytesEqual(proposal.parentHash, head.hash)) throw new SafetyViolation(`node ${i} commits ${height} whose parent is not its head`);
    if (!bytesEqual(blockHashOf(proposal), hash)) throw new SafetyViolation(`node ${i} commits ${height} with a hash that is not its proposal's`);
    const quorum = this.n - Math.floor((this.n - 1) / 2);
    const valid = new Set(signatures.filter((s) => s.index < this.n && validSignature(s, hash)).map((s) => s.index));
    if (valid.size < quorum) {
      if (via === 'certificate') return this.handle(i, node.onCommitFailed(height, `${valid.size} valid signatures`));
      throw new SafetyViolation(`node ${i} commits ${height} with ${valid.size} valid signatures, ${quorum} needed`);
    }
    this.chains[i]!.push({ height, hash, proposal, signatures: [...signatures], via });
    this.record(i, 'committed', { height, hash: toHex(hash).slice(0, 10), via });
    this.handle(i, node.onCommitted(this.head(i), this.config(i), this.now));
  }

  /** Block sync stand-in: a node behind copies the next block from a reachable, live peer. */
  private syncTick(i: number): void {
    const node = this.nodes[i];
    if (node) {
      const mine = this.chains[i]!.length;
      for (let j = 0; j < this.n; j++) {
        if (j === i || !this.nodes[j] || !this.reachable(j, i) || this.chains[j]!.length <= mine) continue;
        // like FISCO's sync: a shard of up to 32 blocks from one peer
        for (const block of this.chains[j]!.slice(mine, mine + 32)) {
          if (this.nodes[i] !== node || block.height !== this.chains[i]!.length + 1) break;
          this.commit(i, block.height, block.hash, block.signatures, block.proposal, 'sync');
        }
        break;
      }
    }
    this.schedule(this.options.syncEveryMs ?? 300, () => this.syncTick(i));
  }

  private maybeSeal(i: number): void {
    const node = this.nodes[i];
    if (!node || this.sealScheduled[i] || !this.sealingEnabled || (this.options.txs ?? 1) === 0) return;
    const slot = node.canSeal();
    if (!slot) return;
    this.sealScheduled[i] = true;
    const life = this.incarnation[i]!;
    this.schedule(1 + Math.floor(this.rng() * 20), () => {
      this.sealScheduled[i] = false;
      const n = this.alive(i, life);
      if (!n || !n.canSeal() || !this.sealingEnabled) return;
      const head = this.head(i);
      const k = this.proposals++;
      const proposal: Proposal = {
        number: head.height + 1,
        parentHash: head.hash,
        timestamp: Math.max(this.now, head.timestamp + 1),
        sealer: i,
        sealerList: ids.slice(0, this.n),
        transactions: Array.from({ length: this.options.txs ?? 1 }, (_, t) => Uint8Array.of(i, t, k & 0xff, (k >> 8) & 0xff, (k >> 16) & 0xff)),
      };
      this.handle(i, n.propose(proposal, this.now));
    });
  }

  private record(node: number, kind: string, fields: Record<string, unknown>): void {
    this.events.push({ at: this.now, node, kind, fields });
    const text = `${this.now}|${node}|${kind}|${JSON.stringify(fields)}`;
    // h = (h * 1099511628211 + char) mod 2^64, with 1099511628211 = 2^40 + 0x1b3: every product
    // below stays under 2^53, so Numbers hold it exactly
    let hi = this.digestHi;
    let lo = this.digestLo;
    for (let k = 0; k < text.length; k++) {
      const low = lo * 0x1b3 + text.charCodeAt(k);
      const carry = Math.floor(low / 0x100000000);
      hi = (hi * 0x1b3 + carry + ((lo & 0xffffff) << 8)) >>> 0;
      lo = low >>> 0;
    }
    this.digestHi = hi;
    this.digestLo = lo;
  }

  /** A 64-bit digest of everything that happened, in order. */
  get digest(): string {
    return this.digestHi.toString(16).padStart(8, '0') + this.digestLo.toString(16).padStart(8, '0');
  }

  // --- invariants ----------------------------------------------------------------------

  private onLeader(i: number, term: number): void {
    const other = this.leaders.get(term);
    if (other !== undefined && other !== i) throw new SafetyViolation(`two leaders in term ${term}: ${other} and ${i}`);
    this.leaders.set(term, i);
    // leader completeness: every block committed anywhere is in the new leader's log
    const node = this.nodes[i]!;
    const s = node.status();
    for (const [height, hash] of this.committed) {
      const own = this.chains[i]![height - 1];
      if (own) {
        if (toHex(own.hash) !== hash) throw new SafetyViolation(`leader ${i} of term ${term} holds another block at ${height}`);
      } else if (!(s.pending && s.pending.height === height && toHex(s.pending.blockHash) === hash)) {
        throw new SafetyViolation(`leader ${i} of term ${term} lacks committed block ${height}`);
      }
    }
  }

  /** Checked after every event. */
  check(): void {
    const leadersNow = new Map<number, number>();
    for (let i = 0; i < this.n; i++) {
      const node = this.nodes[i];
      const chain = this.chains[i]!;
      // committed blocks never change and agree everywhere
      for (let k = this.checkedUpTo[i]!; k < chain.length; k++) {
        const b = chain[k]!;
        const known = this.committed.get(b.height);
        const hash = toHex(b.hash);
        if (known && known !== hash) throw new SafetyViolation(`height ${b.height}: node ${i} committed ${hash.slice(0, 10)}, another node ${known.slice(0, 10)}`);
        this.committed.set(b.height, hash);
        const parent = k === 0 ? new Uint8Array(32) : chain[k - 1]!.hash;
        if (!bytesEqual(b.proposal.parentHash, parent)) throw new SafetyViolation(`node ${i}: block ${b.height} does not extend block ${b.height - 1}`);
      }
      this.checkedUpTo[i] = chain.length;
      if (!node) continue;
      const s = node.status();
      if (s.role === 'leader') {
        const other = leadersNow.get(s.term);
        if (other !== undefined) throw new SafetyViolation(`nodes ${other} and ${i} both lead term ${s.term}`);
        leadersNow.set(s.term, i);
      }
      // log matching: one entry per (term, height), and it extends the holder's head
      if (s.pending) {
        const key = `${s.pending.term}:${s.pending.height}`;
        const hash = toHex(s.pending.blockHash);
        const known = this.entries.get(key);
        if (known && known !== hash) throw new SafetyViolation(`two entries at height ${s.pending.height} in term ${s.pending.term}`);
        this.entries.set(key, hash);
        if (s.pending.height !== s.height + 1) throw new SafetyViolation(`node ${i} holds an entry at ${s.pending.height} on head ${s.height}`);
        if (s.pending.term > s.term) throw new SafetyViolation(`node ${i} holds an entry of term ${s.pending.term} in term ${s.term}`);
      }
    }
  }

  heights(): number[] {
    return this.chains.map((c) => c.length);
  }

  leaderOf(): number | undefined {
    let best: { i: number; term: number } | undefined;
    this.nodes.forEach((node, i) => {
      const s = node?.status();
      if (s?.role === 'leader' && (!best || s.term > best.term)) best = { i, term: s.term };
    });
    return best?.i;
  }
}

/**
 * One seeded run: random crashes and restarts (at most f nodes down at once), partitions and
 * heals, message loss, duplication and delay, while leaders seal; then everything heals and the
 * group must converge. RaftNet checks the safety invariants after every event and throws on the
 * first violation: at most one leader per term, committed blocks never change and agree, one
 * entry per (term, height), every new leader holds every committed block, n − f signatures.
 */
export function fuzz(seed: number) {
  const rng = seedrandom(`raft-fuzz-${seed}`);
  const n = [3, 4, 5][seed % 3]!;
  const f = Math.floor((n - 1) / 2);
  const net = new RaftNet(n, `fuzz-${seed}`, {
    loss: rng() * 0.1,
    duplicate: rng() * 0.05,
    maxDelay: 5 + Math.floor(rng() * 75),
  });
  const actions: string[] = [];
  let t = T0 + 2_000;
  while (t < T0 + 30_000) {
    t += 300 + Math.floor(rng() * 2_500);
    net.run(t);
    const up = [...Array(n).keys()].filter((i) => net.isUp(i));
    const down = [...Array(n).keys()].filter((i) => !net.isUp(i));
    const r = rng();
    if (r < 0.3 && down.length < f) {
      const victim = up[Math.floor(rng() * up.length)]!;
      net.crash(victim);
      actions.push(`${t - T0}:crash ${victim}`);
    } else if (r < 0.5 && down.length > 0) {
      const back = down[Math.floor(rng() * down.length)]!;
      net.restart(back);
      actions.push(`${t - T0}:restart ${back}`);
    } else if (r < 0.75) {
      const side = [...Array(n).keys()].filter(() => rng() < 0.5);
      const other = [...Array(n).keys()].filter((i) => !side.includes(i));
      if (side.length > 0 && other.length > 0) {
        net.heal();
        net.partition([side, other]);
        actions.push(`${t - T0}:split ${side.join('')}|${other.join('')}`);
      }
    } else {
      net.heal();
      actions.push(`${t - T0}:heal`);
    }
  }
  net.heal();
  for (let i = 0; i < n; i++) net.restart(i);
  const healedAt = Math.max(...net.heights());
  net.run(T0 + 40_000);
  net.sealingEnabled = false;
  net.run(T0 + 46_000);
  return { net, actions, healedAt };
}
