import { LaterTimers } from './later-timers.js';
import { bigintToBytes, bytesEqual, fromHex, parseRlpUint, rlpDecode, rlpEncode, rlpListOfEncoded, toHex, type RlpValue } from '../codec/index.js';
import {
  decodePbftMessage,
  encodePbftMessage,
  encodeProposal,
  Pbft,
  pbftMessageTag,
  proposalFromRlp,
  type CommitDecision,
  type PbftConfig,
  type PbftHead,
  type PbftLock,
  type PbftMessage,
  type PbftOutput,
  type Proposal,
} from '../consensus/index.js';
import { blockHash } from '../chain/index.js';
import type { StoredBlock } from '../ledger/index.js';
import type { NodeId, TimerHandle } from '../runtime/index.js';
import type { ConsensusDriver } from './consensus-driver.js';
import type { Group } from './group.js';
import { logLines } from './log-lines.js';
import { draftOf, sealedHash } from './proposal-header.js';
import type { PbftCacheEntry, PbftConsensusStatus } from './node-api.js';
import { protocolIdOf, type ModuleName } from './p2p-frame.js';
import { PbftAdversary, type AdversaryPort, type ByzantineBehaviour, type ByzantineStats } from './pbft-adversary.js';
import { PbftMutator } from './pbft-mutator.js';
import { badBlockTransactions, isContentVariant } from './bad-block.js';
import { PBFT_BYZANTINE_KINDS } from './byzantine-kinds.js';

/** FISCO's min_block_generation_time: a leader with transactions seals no sooner after the last block. */
export const MIN_BLOCK_INTERVAL_MS = 500;
/** FISCO's m_emptyBlockGenTime: a leader with nothing to seal hands over after this long. */
export const EMPTY_BLOCK_TIMEOUT_MS = 1000;
/** How often a sealer re-sends its latest messages of the round (see Pbft.resend). */
export const RESEND_INTERVAL_MS = 1000;

/** Where a PBFT sealer keeps the block it is locked on (FISCO's PBFT backup database). */
export const PBFT_LOCK_KEY = new TextEncoder().encode('c/pbft/lock');
const LOCK_KEY = PBFT_LOCK_KEY;
const ZERO_HASH = new Uint8Array(32);
const EMPTY_CACHE: PbftCacheEntry = { blockHash: toHex(ZERO_HASH), height: -1, idx: 65535, view: 0 };

/** Wires the PBFT state machine to a group: wire codec, execution, commits, lock storage, sealing, timers. */
export class PbftDriver implements ConsensusDriver {
  readonly kind = 'pbft' as const;
  private pbft!: Pbft;
  private headTimestamp = 0;
  private lastCommitAt = 0;
  private sealing: { height: number; view: number; since: number } | undefined;
  private viewTimer: TimerHandle | undefined;
  private sealTimer: TimerHandle | undefined;
  private resendTimer: TimerHandle | undefined;
  private stopped = false;
  /** Envelope signatures of messages already processed: re-sent copies are dropped before verification. */
  private readonly seen = new Set<string>();
  /** Our own messages as encoded (and signed) when first sent: a re-send reuses the bytes. */
  private readonly encoded = new WeakMap<object, Uint8Array>();
  /** Set only while this sealer is byzantine (see ByzantineBehaviour); the honest path never looks further. */
  private adversary: PbftAdversary | PbftMutator | undefined;
  /** Timers a mutating sealer set (messages it sends again later), cancelled when it stops. */
  private readonly laterTimers: LaterTimers;
  readonly byzantineStats: ByzantineStats = { withheld: 0, conflictingProposals: 0, extraVotes: 0 };

  /**
   * `createPbft` replaces the state machine: for checker meta-tests, which need a deliberately
   * broken protocol (say, a quorum of f + 1) to prove the safety checks catch it.
   */
  constructor(
    private readonly group: Group,
    private readonly options: { readonly createPbft?: (...args: ConstructorParameters<typeof Pbft>) => Pbft } = {},
  ) {
    this.laterTimers = new LaterTimers(this.env.clock);
    if (group.options.byzantine && PBFT_BYZANTINE_KINDS.includes(group.options.byzantine.kind)) this.adversary = this.makeAdversary(group.options.byzantine);
  }

  /** Makes this sealer byzantine from now on, or honest again (undefined). Its state machine stays honest throughout. */
  setBehaviour(behaviour: ByzantineBehaviour | undefined): void {
    if (behaviour && !PBFT_BYZANTINE_KINDS.includes(behaviour.kind)) behaviour = undefined; // a sync behaviour: the Group runs it
    this.adversary = behaviour ? this.makeAdversary(behaviour) : undefined;
    this.traceBehaviour();
  }

  get behaviour(): ByzantineBehaviour | undefined {
    return this.adversary?.behaviour;
  }

  private makeAdversary(behaviour: ByzantineBehaviour): PbftAdversary | PbftMutator {
    const sealers = () => this.group.next.sealers;
    const port = this.adversaryPort();
    if (behaviour.kind === 'mutate') {
      return new PbftMutator(behaviour, {
        ...port,
        view: () => this.pbft.viewState().view,
        sealerCount: () => sealers().length,
        leaderOf: (view) => this.pbft.leaderOf(view),
        draftProposal: () => {
          const height = this.group.chain.height + 1;
          const txs = this.group.pool.select(this.group.next.txCountLimit, height);
          return txs.length === 0 ? undefined : this.proposalOf(height, this.env.clock.now(), txs.map((p) => p.transaction.raw));
        },
        random: this.env.random.stream(`mutate/${this.group.groupId}`),
        later: this.laterTimers.later,
      });
    }
    return new PbftAdversary(behaviour, port, this.byzantineStats);
  }

  private adversaryPort(): AdversaryPort {
    const sealers = () => this.group.next.sealers;
    return {
      selfIndex: () => sealers().indexOf(this.group.nodeId),
      nextHeight: () => this.group.chain.height + 1,
      peers: () => {
        const list = sealers();
        return this.group.connectedPeers(true).sort((a, b) => list.indexOf(a) - list.indexOf(b));
      },
      encode: (message) => this.encode(message),
      signBlock: (hash) => this.group.options.signer.sign(hash),
      alteredHash: (hash, field) => {
        const pending = this.group.chain.executor.pending;
        const header = pending?.block.header;
        if (!pending || !header || !bytesEqual(pending.hash, hash) || header.sealer !== sealers().indexOf(this.group.nodeId)) return undefined;
        const root = Uint8Array.from(header[field]);
        root[0]! ^= 0xff;
        return blockHash({ ...header, [field]: root }, this.group.suite);
      },
      headTimestamp: () => this.headTimestamp,
      send: (to, bytes) => this.group.send(to, 'pbft', bytes),
      trace: (kind, fields) => this.group.trace(kind, fields),
    };
  }

  private traceBehaviour(): void {
    const b = this.adversary?.behaviour;
    this.group.trace('byzantine-behaviour', { behaviour: b?.kind ?? 'honest', ...(b?.conflictPeers ? { conflictPeers: b.conflictPeers.length } : {}) });
  }

  private get env() {
    return this.group.env;
  }

  private hash(data: Uint8Array): Uint8Array {
    return this.group.suite.hash(data);
  }

  async start(now: number): Promise<void> {
    const head = await this.group.chain.ledger.blockByNumber(this.group.chain.height);
    this.headTimestamp = head!.block.header.timestamp;
    this.lastCommitAt = now;
    if (this.adversary) this.traceBehaviour();
    const lock = await this.loadLock();
    const args: ConstructorParameters<typeof Pbft> = [this.config(), this.head(), now, (h) => this.group.options.signer.sign(h), lock];
    this.pbft = this.options.createPbft ? this.options.createPbft(...args) : new Pbft(...args);
    await this.apply(this.pbft.start(now), now);
    this.scheduleResend();
  }

  stop(): void {
    this.stopped = true;
    for (const t of [this.viewTimer, this.sealTimer, this.resendTimer]) if (t) this.env.clock.cancelTimer(t);
    this.laterTimers.cancelAll();
  }

  private config(): PbftConfig {
    const next = this.group.next;
    if (this.configOf?.next !== next) {
      this.configOf = {
        next,
        config: {
          sealers: next.sealers.map((id) => fromHex(id)),
          selfIndex: next.sealers.indexOf(this.group.nodeId),
          viewTimeoutMs: next.consensusTimeoutMs,
          txCountLimit: next.txCountLimit,
        },
      };
    }
    return this.configOf.config;
  }

  /** config() of the current height config (group.next is replaced, never changed, when a block commits). */
  private configOf: { readonly next: object; readonly config: PbftConfig } | undefined;

  private head(): PbftHead {
    return { height: this.group.chain.height, hash: this.group.chain.headHash, timestamp: this.headTimestamp };
  }

  // --- inputs --------------------------------------------------------------------------

  async onMessage(_from: NodeId, module: ModuleName, payload: Uint8Array, now: number): Promise<void> {
    if (module !== 'pbft') return;
    const tag = pbftMessageTag(payload, this.group.options.signer);
    if (this.seen.has(tag)) return;
    const sealers = this.config().sealers;
    let message;
    try {
      message = this.decode(payload, (idx) => sealers[idx]);
    } catch (e) {
      this.group.counters.badMessages++;
      this.group.trace('bad-message', { module: 'pbft', error: (e as Error).message });
      return;
    }
    this.seen.add(tag);
    if (this.seen.size > 8192) this.seen.delete(this.seen.values().next().value!);
    await this.apply(this.pbft.onMessage(message, now), now);
    this.adversary?.observe(message, payload);
  }

  /**
   * decodePbftMessage, shared in a simulation: every receiver of a broadcast gets the same frame,
   * so one receiver's decode (and its signature checks) serves the others whose sealer list has
   * the same node at the sender's index. Pure-result sharing, like the ExecutionMemo.
   */
  private decode(payload: Uint8Array, nodeIdOf: (idx: number) => Uint8Array | undefined): PbftMessage {
    const signer = this.group.options.signer;
    const memo = this.group.options.executionMemo;
    if (!memo) return decodePbftMessage(payload, signer, (d) => this.hash(d), nodeIdOf);
    let byBuffer = sharedDecodes.get(memo);
    if (!byBuffer) sharedDecodes.set(memo, (byBuffer = new WeakMap()));
    const known = byBuffer.get(payload.buffer);
    if (known && known.offset === payload.byteOffset && known.length === payload.length && known.scheme === signer.scheme) {
      const id = nodeIdOf(known.message.idx);
      if (id && bytesEqual(id, known.nodeId)) return known.message;
    }
    const message = decodePbftMessage(payload, signer, (d) => this.hash(d), nodeIdOf);
    byBuffer.set(payload.buffer, { offset: payload.byteOffset, length: payload.length, scheme: signer.scheme, nodeId: nodeIdOf(message.idx)!, message });
    return message;
  }

  async onBlockCommitted(stored: StoredBlock, _via: 'consensus' | 'sync', now: number): Promise<void> {
    this.headTimestamp = stored.block.header.timestamp;
    this.lastCommitAt = now;
    this.sealing = undefined;
    if (this.sealTimer) this.env.clock.cancelTimer(this.sealTimer);
    await this.apply(this.pbft.onCommitted(this.head(), this.config(), now), now);
    if (this.adversary instanceof PbftMutator) this.adversary.onRound(this.group.chain.height + 1, this.pbft.viewState().view);
  }

  async onPoolChanged(now: number): Promise<void> {
    await this.trySeal(now);
  }

  // --- outputs -------------------------------------------------------------------------

  private async apply(out: PbftOutput, now: number): Promise<void> {
    if (this.stopped) return;
    for (const e of out.events) {
      this.group.trace(e.kind, e.fields);
      if (e.kind === 'pbft-view' && this.adversary instanceof PbftMutator) this.adversary.onRound(this.group.chain.height + 1, Number(e.fields['to']));
      if (e.kind === 'pbft-viewchange-sent' && e.fields.reason === 'timeout') {
        const s = this.pbft.status();
        this.group.log('warning', logLines.viewChangeWarning(this.group.groupId, s.view, s.toView, s.height, s.headHash, this.config().selfIndex, this.group.nodeId));
      }
    }
    if (out.persistLock !== undefined) await this.storeLock(out.persistLock);
    for (const message of out.broadcast) {
      if (this.adversary !== undefined) this.adversary.send(message);
      else this.group.broadcast('pbft', this.encode(message), true);
    }
    if (out.viewTimerAt !== undefined) this.armViewTimer(out.viewTimerAt, now);
    if (out.execute) await this.execute(out.execute.height, out.execute.view, out.execute.proposal, now);
    if (out.commit) await this.commit(out.commit, now);
    if (out.wantProposal) {
      this.sealing = { ...out.wantProposal, since: now };
      await this.trySeal(now);
    }
  }

  private encode(message: PbftMessage): Uint8Array {
    let bytes = this.encoded.get(message);
    if (!bytes) {
      bytes = encodePbftMessage(message, this.group.options.signer, (d) => this.hash(d));
      this.encoded.set(message, bytes);
    }
    return bytes;
  }

  private async execute(height: number, view: number, proposal: Proposal, now: number): Promise<void> {
    const txs = await this.group.proposalTransactions(proposal.transactions, height);
    if (typeof txs === 'string') return this.apply(this.pbft.onExecutionFailed(height, view, txs), now);
    let hash: Uint8Array;
    try {
      hash = (await this.group.chain.execute(draftOf(proposal), txs)).hash;
    } catch (e) {
      return this.apply(this.pbft.onExecutionFailed(height, view, (e as Error).message), now);
    }
    await this.apply(this.pbft.onExecuted(height, view, hash, now), now);
  }

  private async commit(decision: CommitDecision, now: number): Promise<void> {
    const { chain } = this.group;
    const pending = chain.executor.pending;
    if (!pending || toHex(pending.hash) !== toHex(decision.blockHash)) {
      // the executor moved on to another proposal since; the lock holds the one agreed
      const lock = this.pbft.status().lock;
      if (!lock || toHex(lock.blockHash) !== toHex(decision.blockHash)) throw new Error(`commit of ${toHex(decision.blockHash)}: the block is neither pending nor locked`);
      const txs = await this.group.proposalTransactions(lock.proposal.transactions, lock.height);
      if (typeof txs === 'string') throw new Error(`commit of a locked block that no longer validates: ${txs}`);
      await chain.execute(draftOf(lock.proposal), txs);
    }
    const stored = await chain.commit(decision.signatures);
    const header = stored.block.header;
    this.group.log('info', logLines.pbftReport(this.group.groupId, header.number, header.sealer, stored.hash, stored.block.transactions.length, this.config().selfIndex));
    await this.group.afterCommit(stored, 'consensus', decision.view);
    void now;
  }

  // --- sealing -------------------------------------------------------------------------

  private async trySeal(now: number): Promise<void> {
    const s = this.sealing;
    if (!s || this.stopped) return;
    const status = this.pbft.viewState();
    if (status.view !== s.view || this.group.chain.height + 1 !== s.height || status.leaderFailed) {
      this.sealing = undefined;
      return;
    }
    const config = this.group.next;
    const candidates = this.group.pool.select(config.txCountLimit, s.height);
    const earliest = this.lastCommitAt + MIN_BLOCK_INTERVAL_MS;
    const giveUpAt = s.since + EMPTY_BLOCK_TIMEOUT_MS;
    const bad = this.adversary?.behaviour;
    if (bad?.kind === 'bad-block' && now >= earliest && isContentVariant(bad.variant)) {
      // a byzantine leader: a well-formed, correctly signed proposal with bad contents
      this.sealing = undefined;
      const made = await badBlockTransactions(this.group, bad.variant, s.height, candidates.map((p) => p.transaction.raw));
      const proposal = this.proposalOf(s.height, now, made.transactions);
      this.byzantineStats.badProposals = (this.byzantineStats.badProposals ?? 0) + 1;
      this.group.trace('byzantine-action', { behaviour: 'bad-block', action: 'bad-proposal', variant: bad.variant, height: s.height, view: s.view, txs: made.transactions.length, bad: made.detail });
      await this.apply(this.pbft.propose(proposal, now), now);
      return;
    }
    // like FISCO's Sealer: a full block goes at once, a partial one after min_block_generation_time
    if (candidates.length > 0 && (now >= earliest || candidates.length >= config.txCountLimit)) {
      this.sealing = undefined;
      const proposal = this.proposalOf(s.height, now, candidates.map((p) => p.transaction.raw));
      this.group.log('info', logLines.sealing(this.group.groupId, s.height, candidates.length, proposal.sealer, sealedHash(proposal, this.group.suite)));
      await this.apply(this.pbft.propose(proposal, now), now);
      return;
    }
    if (candidates.length === 0 && now >= giveUpAt) {
      this.sealing = undefined;
      const empty = this.proposalOf(s.height, now, []);
      this.group.log('info', logLines.sealing(this.group.groupId, s.height, 0, empty.sealer, sealedHash(empty, this.group.suite)));
      await this.apply(this.pbft.emptyBlock(now), now);
      return;
    }
    const at = candidates.length > 0 ? earliest : giveUpAt;
    if (this.sealTimer) this.env.clock.cancelTimer(this.sealTimer);
    this.sealTimer = this.env.clock.setTimer(Math.max(0, at - now), () => this.group.queue.run(() => this.trySeal(this.env.clock.now())));
  }

  /** This sealer's proposal of `transactions` for `height`, on the current head. */
  private proposalOf(height: number, now: number, transactions: readonly Uint8Array[]): Proposal {
    return {
      number: height,
      parentHash: this.group.chain.headHash,
      timestamp: Math.max(now, this.headTimestamp + 1),
      sealer: this.config().selfIndex,
      sealerList: this.config().sealers,
      transactions,
    };
  }

  // --- timers --------------------------------------------------------------------------

  private armViewTimer(at: number, now: number): void {
    if (this.viewTimer) this.env.clock.cancelTimer(this.viewTimer);
    this.viewTimer = this.env.clock.setTimer(Math.max(0, at - now), () =>
      this.group.queue.run(async () => {
        const t = this.env.clock.now();
        await this.apply(this.pbft.onTimeout(t), t);
      }),
    );
  }

  private scheduleResend(): void {
    if (this.stopped) return;
    this.resendTimer = this.env.clock.setTimer(RESEND_INTERVAL_MS, () =>
      this.group.queue.run(async () => {
        const t = this.env.clock.now();
        await this.apply(this.pbft.resend(), t);
        this.scheduleResend();
      }),
    );
  }

  // --- lock storage --------------------------------------------------------------------

  private async storeLock(lock: PbftLock | null): Promise<void> {
    if (lock === null) {
      await this.group.store.batch([{ type: 'del', key: LOCK_KEY }]);
      return;
    }
    const value = rlpListOfEncoded([
      rlpEncode(bigintToBytes(BigInt(lock.height))),
      rlpEncode(bigintToBytes(BigInt(lock.view))),
      rlpEncode(lock.blockHash),
      encodeProposal(lock.proposal),
    ]);
    // durable before the Commit leaves this node: a restart must not forget what it voted for
    await this.group.store.batch([{ type: 'put', key: LOCK_KEY, value }], { sync: true });
  }

  private async loadLock(): Promise<PbftLock | undefined> {
    const bytes = await this.group.store.get(LOCK_KEY);
    if (!bytes) return undefined;
    const [height, view, hash, proposal] = rlpDecode(bytes, 'PBFT lock') as RlpValue[];
    const lock: PbftLock = {
      height: Number(parseRlpUint(height as Uint8Array, 'height')),
      view: Number(parseRlpUint(view as Uint8Array, 'view')),
      blockHash: hash as Uint8Array,
      proposal: proposalFromRlp(proposal!),
    };
    return lock.height === this.group.chain.height + 1 ? lock : undefined;
  }

  // --- status --------------------------------------------------------------------------

  pbftView(): bigint {
    return BigInt(this.pbft.status().view);
  }

  status(): PbftConsensusStatus {
    const s = this.pbft.status();
    const config = this.config();
    const n = config.sealers.length;
    const sealerSet = new Set(this.group.next.sealers);
    const connected = this.env.transport.connectedPeers().filter((p) => sealerSet.has(p)).length;
    const entry = (hash: Uint8Array | undefined, view: number, idx: number, height = s.height + 1): PbftCacheEntry =>
      hash ? { blockHash: toHex(hash), height, idx, view } : EMPTY_CACHE;
    const future = s.futurePrepare;
    return {
      kind: 'pbft',
      accountType: config.selfIndex >= 0 ? 1 : 0,
      allowFutureBlocks: true,
      cfgErr: config.selfIndex < 0,
      connectedNodes: connected + (config.selfIndex >= 0 ? 1 : 0),
      consensusedBlockNumber: s.height + 1,
      currentView: s.view,
      groupId: this.group.groupId,
      highestblockHash: toHex(s.headHash),
      highestblockNumber: s.height,
      leaderFailed: s.leaderFailed,
      maxFaultyLeader: Math.floor((n - 1) / 3),
      sealers: this.group.next.sealers,
      nodeIndex: config.selfIndex,
      nodeId: this.group.nodeId,
      nodeNum: n,
      omitEmptyBlock: true,
      protocolId: protocolIdOf(this.group.version, this.group.groupId, 'pbft'),
      toView: s.toView,
      prepareCache: s.executed ? entry(s.executed.hash, s.view, s.leader) : EMPTY_CACHE,
      rawPrepareCache: s.proposal ? entry(sealedHash(s.proposal.proposal, this.group.suite), s.view, s.proposal.from) : EMPTY_CACHE,
      committedPrepareCache: s.lock ? entry(s.lock.blockHash, s.lock.view, s.lock.proposal.sealer, s.lock.height) : EMPTY_CACHE,
      futureCache: future ? entry(sealedHash(future.proposal, this.group.suite), future.view, future.idx, future.height) : EMPTY_CACHE,
      signCacheSize: s.signCount,
      commitCacheSize: s.commitCount,
      viewChangeCacheSize: s.viewChangeCount,
    };
  }
}

/** Decoded PBFT messages by the buffer they arrived in, per simulation (see PbftDriver.decode). */
const sharedDecodes = new WeakMap<
  object,
  WeakMap<ArrayBufferLike, { offset: number; length: number; scheme: string; nodeId: Uint8Array; message: PbftMessage }>
>();

