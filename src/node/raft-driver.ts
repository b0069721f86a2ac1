import { LaterTimers } from './later-timers.js';
import { GENESIS_DEFAULTS } from '../chain/index.js';
import { bigintToBytes, bytesEqual, fromHex, parseRlpUint, rlpDecode, rlpEncode, toHex, type RlpValue } from '../codec/index.js';
import {
  decodeRaftMessage,
  encodeRaftMessage,
  INITIAL_HARD_STATE,
  proposalFromRlp,
  proposalItems,
  Raft,
  type Proposal,
  type RaftCommit,
  type RaftConfig,
  type RaftHardState,
  type RaftHead,
  type RaftOutput,
} from '../consensus/index.js';
import { precompileAddress, PRECOMPILE_ADDRESSES } from '../exec/index.js';
import type { StoredBlock } from '../ledger/index.js';
import type { NodeId, TimerHandle } from '../runtime/index.js';
import type { ConsensusDriver } from './consensus-driver.js';
import type { Group } from './group.js';
import { logLines } from './log-lines.js';
import { draftOf, sealedHash } from './proposal-header.js';
import type { RaftConsensusStatus } from './node-api.js';
import { protocolIdOf, type ModuleName } from './p2p-frame.js';
import { MIN_BLOCK_INTERVAL_MS } from './pbft-driver.js';
import type { ByzantineBehaviour } from './pbft-adversary.js';
import { RAFT_BYZANTINE_KINDS } from './byzantine-kinds.js';
import { RaftAdversary, type RaftAdversaryPort } from './raft-adversary.js';
import { RaftMutator } from './raft-mutator.js';

/** FISCO's Raft sealer "seals" (and drops) an empty block about once a second on an idle leader; it logs the line each time. */
export const RAFT_EMPTY_SEAL_INTERVAL_MS = 1000;

/** Where a group's store keeps the durable Raft state (term, vote, last entry term, pending block). */
export const RAFT_STATE_KEY = new TextEncoder().encode('c/raft/state');
const STATE_KEY = RAFT_STATE_KEY;

/** The durable Raft state as stored under RAFT_STATE_KEY. */
export function decodeRaftState(bytes: Uint8Array): RaftHardState {
  const [term, votedTerm, votedFor, lastEntryTerm, pending] = rlpDecode(bytes, 'Raft state') as RlpValue[];
  const int = (v: RlpValue | undefined, what: string) => Number(parseRlpUint(v as Uint8Array, what));
  const p = pending as RlpValue[];
  return {
    term: int(term, 'term'),
    votedTerm: int(votedTerm, 'votedTerm'),
    votedFor: (votedFor as Uint8Array).length > 0 ? (votedFor as Uint8Array) : null,
    lastEntryTerm: int(lastEntryTerm, 'lastEntryTerm'),
    pending: p.length === 4 ? { height: int(p[0], 'height'), term: int(p[1], 'term'), blockHash: p[2] as Uint8Array, proposal: proposalFromRlp(p[3]!) } : null,
  };
}
/** The Consensus precompile: a block carries at most one call to it (one membership change per block). */
const CONSENSUS_PRECOMPILE = precompileAddress(PRECOMPILE_ADDRESSES.Consensus).bytes;

/**
 * Wires the Raft state machine to a group: wire codec and signatures, the durable Raft state,
 * execution and commits through the group's chain, sealing from the pool, the one timer.
 */
export class RaftDriver implements ConsensusDriver {
  readonly kind = 'raft' as const;
  private raft!: Raft;
  private headTimestamp = 0;
  private lastCommitAt = 0;
  private lastEmptySealAt = Number.NEGATIVE_INFINITY;
  private timer: { handle: TimerHandle; at: number } | undefined;
  private sealTimer: { handle: TimerHandle; at: number } | undefined;
  private stopped = false;
  /** Our own messages as encoded (and signed) once: a message object sent to several peers is signed once. */
  private readonly encoded = new WeakMap<object, Uint8Array>();

  /** Set only while this sealer is byzantine (see RaftAdversary, RaftMutator); the honest path never looks further. */
  private adversary: RaftAdversary | RaftMutator | undefined;
  /** Timers a mutating sealer set (messages it sends again later), cancelled when it stops. */
  private readonly laterTimers: LaterTimers;

  constructor(private readonly group: Group) {
    this.laterTimers = new LaterTimers(this.env.clock);
    const b = group.options.byzantine;
    if (b && RAFT_BYZANTINE_KINDS.includes(b.kind)) this.adversary = this.makeAdversary(b);
  }

  /** Makes this sealer byzantine from now on (a Raft behaviour), or honest again. Its state machine stays honest. */
  setBehaviour(behaviour: ByzantineBehaviour | undefined): void {
    const next = behaviour && RAFT_BYZANTINE_KINDS.includes(behaviour.kind) ? behaviour : undefined;
    if (!next && !this.adversary) return;
    this.adversary = next ? this.makeAdversary(next) : undefined;
    this.group.trace('byzantine-behaviour', { behaviour: next?.kind ?? 'honest' });
  }

  private makeAdversary(behaviour: ByzantineBehaviour): RaftAdversary | RaftMutator {
    const port = this.adversaryPort();
    if (behaviour.kind !== 'mutate') return new RaftAdversary(behaviour, port);
    return new RaftMutator(behaviour, {
      ...port,
      role: () => this.raft.status().role,
      term: () => this.raft.status().term,
      signBlock: (hash) => this.group.options.signer.sign(hash),
      random: this.env.random.stream(`mutate/${this.group.groupId}`),
      later: this.laterTimers.later,
    });
  }

  private adversaryPort(): RaftAdversaryPort {
    return {
      selfIndex: () => this.group.next.sealers.indexOf(this.group.nodeId),
      sealerCount: () => this.group.next.sealers.length,
      encode: (message) => this.encode(message),
      send: (to, bytes) => {
        const id = this.group.next.sealers[to];
        if (id) this.group.send(id, 'raft', bytes);
      },
      execute: async (proposal) => {
        const txs = await this.group.proposalTransactions(proposal.transactions, proposal.number);
        if (typeof txs === 'string' || proposal.number !== this.group.chain.height + 1) return undefined;
        try {
          return (await this.group.chain.execute(draftOf(proposal), txs)).hash;
        } catch {
          return undefined;
        }
      },
      trace: (kind, fields) => this.group.trace(kind, fields),
    };
  }

  private encode(message: object): Uint8Array {
    let bytes = this.encoded.get(message);
    if (!bytes) {
      bytes = encodeRaftMessage(message as Parameters<typeof encodeRaftMessage>[0], this.group.options.signer, (d) => this.hash(d));
      this.encoded.set(message, bytes);
    }
    return bytes;
  }

  private get env() {
    return this.group.env;
  }

  private hash(data: Uint8Array): Uint8Array {
    return this.group.suite.hash(data);
  }

  async start(now: number): Promise<void> {
    const head = (await this.group.chain.ledger.blockByNumber(this.group.chain.height))!;
    this.headTimestamp = head.block.header.timestamp;
    this.lastCommitAt = now;
    const random = this.env.random.stream('raft');
    this.raft = new Raft(this.config(), this.headOf(head), await this.loadState(), now, (h) => this.group.options.signer.sign(h), () => random.next());
    await this.apply(this.raft.start(now), now);
  }

  stop(): void {
    this.stopped = true;
    for (const t of [this.timer, this.sealTimer]) if (t) this.env.clock.cancelTimer(t.handle);
    this.laterTimers.cancelAll();
  }

  private config(): RaftConfig {
    const next = this.group.next;
    const genesis = this.group.options.genesis;
    const minElectMs = genesis.minElectTime ?? GENESIS_DEFAULTS.minElectTime;
    return {
      sealers: next.sealers.map((id) => fromHex(id)),
      selfIndex: next.sealers.indexOf(this.group.nodeId),
      minElectMs,
      maxElectMs: genesis.maxElectTime ?? Math.max(minElectMs, GENESIS_DEFAULTS.maxElectTime),
      txCountLimit: next.txCountLimit,
    };
  }

  private headOf(stored: StoredBlock): RaftHead {
    return {
      height: stored.block.header.number,
      hash: stored.hash,
      timestamp: stored.block.header.timestamp,
      signatures: stored.block.signatureList.map((s) => ({ index: s.index, signature: s.signature })),
    };
  }

  /** The state machine's view, for tests and invariant checks. */
  inspect() {
    return this.raft.status();
  }

  // --- inputs --------------------------------------------------------------------------

  async onMessage(from: NodeId, module: ModuleName, payload: Uint8Array, now: number): Promise<void> {
    if (module !== 'raft' || this.stopped || this.group.membership() !== 'sealer') return;
    const sealers = this.group.next.sealers;
    let message;
    try {
      message = decodeRaftMessage(payload, this.group.options.signer, (d) => this.hash(d), (idx) => (sealers[idx] ? fromHex(sealers[idx]!) : undefined));
      if (sealers[message.idx] !== from) throw new Error(`a ${message.type} claiming sealer ${message.idx} came from another node`);
    } catch (e) {
      this.group.counters.badMessages++;
      this.group.trace('bad-message', { from, module: 'raft', error: (e as Error).message });
      return;
    }
    await this.apply(this.raft.onMessage(message, now), now);
    this.adversary?.observe(message, payload);
  }

  async onBlockCommitted(stored: StoredBlock, _via: 'consensus' | 'sync', now: number): Promise<void> {
    const header = stored.block.header;
    this.headTimestamp = header.timestamp;
    this.lastCommitAt = now;
    // FISCO's RaftEngine reports every new block, however it arrived
    this.group.log('info', logLines.raftReport(this.group.groupId, header.number, header.sealer, stored.hash, stored.block.transactions.length, now));
    await this.apply(this.raft.onCommitted(this.headOf(stored), this.config(), now), now);
  }

  async onPoolChanged(now: number): Promise<void> {
    await this.trySeal(now);
  }

  // --- outputs -------------------------------------------------------------------------

  private async apply(out: RaftOutput, now: number): Promise<void> {
    if (this.stopped) return;
    for (const e of out.events) this.group.trace(e.kind, e.fields);
    // durable before any message that depends on it leaves this node
    if (out.persist) await this.storeState(out.persist.state, out.persist.sync);
    if (this.adversary) await this.adversary.prepare(out.send);
    for (const { to, message } of out.send) {
      if (this.adversary?.send(to, message)) continue;
      const bytes = this.encode(message);
      if (to === 'all') this.group.broadcast('raft', bytes, true);
      else {
        const id = this.group.next.sealers[to];
        if (id) this.group.send(id, 'raft', bytes);
      }
    }
    if (out.timerAt !== undefined) this.armTimer(out.timerAt, now);
    if (out.commit) await this.commit(out.commit, now);
    if (out.execute) await this.execute(out.execute.height, out.execute.proposal, now);
    await this.trySeal(now);
  }

  private async execute(height: number, proposal: Proposal, now: number): Promise<void> {
    if (this.stopped) return;
    if (height !== this.group.chain.height + 1) return this.apply(this.raft.onExecutionFailed(height, `the head moved to ${this.group.chain.height}`), now);
    const txs = await this.group.proposalTransactions(proposal.transactions, height);
    if (typeof txs === 'string') return this.apply(this.raft.onExecutionFailed(height, txs), now);
    let hash: Uint8Array;
    try {
      hash = (await this.group.chain.execute(draftOf(proposal), txs)).hash;
    } catch (e) {
      return this.apply(this.raft.onExecutionFailed(height, (e as Error).message), now);
    }
    await this.apply(this.raft.onExecuted(height, hash, now), now);
  }

  private async commit(decision: RaftCommit, now: number): Promise<void> {
    if (this.stopped) return;
    const { chain } = this.group;
    const refuse = (reason: string) => this.apply(this.raft.onCommitFailed(decision.height, reason), now);
    if (decision.height !== chain.height + 1) return refuse(`the head is ${chain.height}`);
    let signatures = decision.signatures;
    if (decision.by === 'certificate') {
      // the leader's word is not enough: the signature list must hold n − f valid signatures,
      // and only those are stored (a faulty leader's extra entries would travel on in sync)
      const sealers = this.group.next.sealers;
      const valid = new Map<number, Uint8Array>();
      for (const { index, signature } of decision.signatures) {
        const id = sealers[index];
        if (id && !valid.has(index) && this.group.options.signer.verify(decision.blockHash, signature, fromHex(id))) valid.set(index, signature);
      }
      const needed = sealers.length - Math.floor((sealers.length - 1) / 2);
      if (valid.size < needed) return refuse(`${valid.size} valid signatures in the leader's certificate, ${needed} needed`);
      signatures = [...valid].sort(([a], [b]) => a - b).map(([index, signature]) => ({ index, signature }));
    }
    const pending = chain.executor.pending;
    if (!pending || !bytesEqual(pending.hash, decision.blockHash)) {
      // the executor moved on (a restart, another proposal): execute the agreed block again
      const txs = await this.group.proposalTransactions(decision.proposal.transactions, decision.height);
      if (typeof txs === 'string') return refuse(`the agreed block no longer validates: ${txs}`);
      let executed;
      try {
        executed = await chain.execute(draftOf(decision.proposal), txs);
      } catch (e) {
        return refuse(`re-execution failed: ${(e as Error).message}`);
      }
      if (!bytesEqual(executed.hash, decision.blockHash)) return refuse(`re-execution gives ${toHex(executed.hash)}`);
    }
    const stored = await chain.commit(signatures);
    await this.group.afterCommit(stored, 'consensus');
  }

  // --- sealing -------------------------------------------------------------------------

  private async trySeal(now: number): Promise<void> {
    if (this.stopped) return;
    const slot = this.raft.canSeal();
    if (!slot || slot.height !== this.group.chain.height + 1) return;
    const config = this.group.next;
    const candidates = [];
    let membershipChange = false;
    for (const pooled of this.group.pool.select(config.txCountLimit, slot.height)) {
      const to = pooled.transaction.body.to;
      if (to && bytesEqual(to, CONSENSUS_PRECOMPILE)) {
        if (membershipChange) continue;
        membershipChange = true;
      }
      candidates.push(pooled);
    }
    const self = this.config().selfIndex;
    const draft = (transactions: Uint8Array[]): Proposal => ({
      number: slot.height,
      parentHash: this.group.chain.headHash,
      timestamp: Math.max(now, this.headTimestamp + 1),
      sealer: self,
      sealerList: this.config().sealers,
      transactions,
    });
    const earliest = this.lastCommitAt + MIN_BLOCK_INTERVAL_MS;
    // like FISCO's Sealer: a full block goes at once, a partial one after min_block_generation_time
    if (candidates.length > 0 && (now >= earliest || candidates.length >= config.txCountLimit)) {
      const proposal = draft(candidates.map((p) => p.transaction.raw));
      this.group.log('info', logLines.raftSealing(this.group.groupId, slot.height, proposal.transactions.length, sealedHash(proposal, this.group.suite)));
      await this.apply(this.raft.propose(proposal, now), now);
      return;
    }
    if (candidates.length === 0 && now >= this.lastEmptySealAt + RAFT_EMPTY_SEAL_INTERVAL_MS) {
      // FISCO seals, logs and drops the empty block ("Empty block will not be committed")
      this.lastEmptySealAt = now;
      this.group.log('info', logLines.raftSealing(this.group.groupId, slot.height, 0, sealedHash(draft([]), this.group.suite)));
    }
    this.armSealTimer(candidates.length > 0 ? earliest : this.lastEmptySealAt + RAFT_EMPTY_SEAL_INTERVAL_MS, now);
  }

  // --- timers --------------------------------------------------------------------------

  private armTimer(at: number, now: number): void {
    if (this.timer?.at === at) return;
    if (this.timer) this.env.clock.cancelTimer(this.timer.handle);
    const handle = this.env.clock.setTimer(Math.max(0, at - now), () =>
      this.group.queue.run(async () => {
        if (this.timer?.handle !== handle) return;
        this.timer = undefined;
        const t = this.env.clock.now();
        await this.apply(this.raft.tick(t), t);
      }),
    );
    this.timer = { handle, at };
  }

  private armSealTimer(at: number, now: number): void {
    if (this.sealTimer?.at === at) return;
    if (this.sealTimer) this.env.clock.cancelTimer(this.sealTimer.handle);
    const handle = this.env.clock.setTimer(Math.max(0, at - now), () =>
      this.group.queue.run(async () => {
        if (this.sealTimer?.handle !== handle) return;
        this.sealTimer = undefined;
        await this.trySeal(this.env.clock.now());
      }),
    );
    this.sealTimer = { handle, at };
  }

  // --- durable state -------------------------------------------------------------------

  private async storeState(state: RaftHardState, sync: boolean): Promise<void> {
    const int = (n: number) => bigintToBytes(BigInt(n));
    const p = state.pending;
    const value = rlpEncode([
      int(state.term),
      int(state.votedTerm),
      state.votedFor ?? new Uint8Array(0),
      int(state.lastEntryTerm),
      p ? [int(p.height), int(p.term), p.blockHash, proposalItems(p.proposal)] : [],
    ] as never);
    await this.group.store.batch([{ type: 'put', key: STATE_KEY, value }], { sync });
  }

  private async loadState(): Promise<RaftHardState> {
    const bytes = await this.group.store.get(STATE_KEY);
    return bytes ? decodeRaftState(bytes) : INITIAL_HARD_STATE;
  }

  // --- status --------------------------------------------------------------------------

  pbftView(): undefined {
    return undefined;
  }

  status(): RaftConsensusStatus {
    const s = this.raft.status();
    const config = this.config();
    const n = config.sealers.length;
    const sealers = this.group.next.sealers;
    const leaderId = s.leader >= 0 ? (sealers[s.leader] ?? '') : '';
    return {
      kind: 'raft',
      accountType: config.selfIndex >= 0 ? 1 : 0,
      allowFutureBlocks: true,
      cfgErr: config.selfIndex < 0,
      consensusedBlockNumber: s.height + 1,
      groupId: this.group.groupId,
      highestblockHash: toHex(s.headHash),
      highestblockNumber: s.height,
      maxFaultyLeader: Math.floor((n - 1) / 2),
      sealers,
      nodeIndex: config.selfIndex,
      nodeId: this.group.nodeId,
      nodeNum: n,
      omitEmptyBlock: true,
      protocolId: protocolIdOf(this.group.version, this.group.groupId, 'raft'),
      leaderId,
      leaderIdx: leaderId ? s.leader : -1,
    };
  }
}

