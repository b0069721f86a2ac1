import {
  type BlockHeader,
  decodeTransaction,
  recoverSender,
  TX_STATUS,
  type BlockCodecOptions,
  type GroupGenesis,
  type ProtocolVersion,
  type Transaction,
} from '../chain/index.js';
import { toHex, toHexNoPrefix } from '../codec/index.js';
import type { ConsensusSigner } from '../consensus/index.js';
import type { CryptoSuite, KeyPair } from '../crypto/index.js';
import { DEFAULT_TX_COUNT_LIMIT, type ExecutionMemo } from '../exec/index.js';
import { GroupChain, type StoredBlock, type TransactionRecord } from '../ledger/index.js';
import type { Env, NodeId, TimerHandle } from '../runtime/index.js';
import { StorageFailure, type KvStore } from '../storage/index.js';
import { decodeSyncMessage, encodeSyncMessage } from '../sync/index.js';
import { BLOCK_LIMIT_RANGE, NONCE_WINDOW, TxPool, TxRejectedError } from '../txpool/index.js';
import type { ConsensusDriver } from './consensus-driver.js';
import { logLines } from './log-lines.js';
import type { GroupApi, Membership, PendingTransaction, SubmitResult, SyncStatus } from './node-api.js';
import { encodeFrame, protocolIdOf, type ModuleName } from './p2p-frame.js';
import type { ByzantineBehaviour } from './pbft-adversary.js';
import { SYNC_BYZANTINE_KINDS } from './byzantine-kinds.js';
import { GroupSync } from './group-sync.js';
import { SyncAdversary } from './sync-adversary.js';
import { WorkQueue } from './work-queue.js';

/** Consensus parameters in force for a block, read from the chain's system tables. */
export interface HeightConfig {
  readonly number: number;
  readonly sealers: string[];
  readonly observers: string[];
  readonly txCountLimit: number;
  readonly consensusTimeoutMs: number;
}

export interface GroupOptions {
  readonly env: Env;
  readonly store: KvStore;
  readonly genesis: GroupGenesis;
  readonly suite: CryptoSuite;
  readonly version: ProtocolVersion;
  readonly chainId: bigint;
  readonly key: KeyPair;
  readonly signer: ConsensusSigner;
  /** Builds this group's consensus once the chain is open. */
  readonly consensus: (group: Group) => ConsensusDriver;
  readonly poolLimit?: number;
  /** `[tx_pool] memory_limit` in bytes of pooled transactions (default 512 MB). */
  readonly poolMemoryLimit?: number;
  /** Simulation only: share block execution results between nodes (see ExecutionMemo). */
  readonly executionMemo?: ExecutionMemo;
  /** Simulation and fault tests only: the consensus engine starts byzantine (see ByzantineBehaviour). */
  readonly byzantine?: ByzantineBehaviour;
}

/** A node outside the group's lists that keeps sending is logged at most once per this interval. */
const STRANGER_LOG_INTERVAL_MS = 60_000;

/** How often the sync machine ticks (status and timeouts). */
const SYNC_TICK_MS = 200;
/**
 * Pooled transactions not committed this long after they were last sent to the peers go out
 * again (FISCO sends each once, over TCP; here a single lost message, or a submission to a node
 * cut off from the Raft leader, would otherwise strand a transaction for good).
 */
export const TX_REGOSSIP_MS = 3000;
const TX_REGOSSIP_BATCH = 500;

/**
 * One group on one node: its chain (ledger, state, executor), transaction pool, consensus and
 * block sync, wired to the node's Env. Every handler runs through one work queue.
 */
/** Most client transactions gossiped in one message. */
const GOSSIP_BATCH_MAX = 200;

export class Group implements GroupApi {
  readonly groupId: number;
  readonly consensusType: GroupGenesis['consensusType'];
  readonly nodeId: string;
  readonly queue = new WorkQueue();
  consensus!: ConsensusDriver;
  /** Block sync: status, downloads, checks (group-sync.ts). */
  syncing!: GroupSync;
  pool!: TxPool;
  next!: HeightConfig;
  genesisHash!: Uint8Array;
  private syncTimer: TimerHandle | undefined;
  private regossipTimer: TimerHandle | undefined;
  private stopped = false;
  /** The storage failure that stopped this group, if one did. */
  private failure: StorageFailure | undefined;
  /** Messages dropped because their sender is in neither list, per sender, for the rate-limited log line. */
  private readonly strangers = new Map<NodeId, { loggedAt: number; dropped: number; modules: Set<ModuleName> }>();
  /** Client transactions admitted and not yet gossiped, and submissions queued behind them. */
  private gossipBatch: Uint8Array[] = [];
  private submitsQueued = 0;
  private readonly codec: BlockCodecOptions;
  /** What the group did and refused, for tests and diagnostics: blocks by consensus and by sync, bad and non-member messages. */
  readonly counters = { blocksByConsensus: 0, blocksBySync: 0, badMessages: 0, nonMemberMessages: 0 };

  private constructor(
    readonly options: GroupOptions,
    readonly chain: GroupChain,
  ) {
    this.groupId = options.genesis.groupId;
    this.consensusType = options.genesis.consensusType;
    this.nodeId = toHexNoPrefix(options.key.publicKey);
    this.codec = { suite: options.suite, generation: options.version.txGeneration, receiptsWithRemainGas: options.version.receiptHasRemainGas };
    // what the executor computed, for invariant monitors (a probe: nothing in the trace)
    chain.onExecuted = (number, hash, block) =>
      this.env.trace.probe('block-executed', {
        group: this.groupId,
        number,
        hash: toHex(hash),
        parentHash: toHex(block.header.parentHash),
        timestamp: block.header.timestamp,
        sealer: block.header.sealer,
        txs: block.transactions.length,
      });
  }

  static async open(options: GroupOptions): Promise<Group> {
    const chain = await GroupChain.open({
      store: options.store,
      suite: options.suite,
      version: options.version,
      genesis: options.genesis,
      ...(options.executionMemo ? { memo: options.executionMemo } : {}),
    });
    const group = new Group(options, chain);
    await group.init();
    return group;
  }

  private async init(): Promise<void> {
    const { env } = this.options;
    this.genesisHash = (await this.chain.ledger.blockByNumber(0))!.hash;
    this.pool = new TxPool(
      {
        suite: this.suite,
        generation: this.version.txGeneration,
        chainId: this.options.chainId,
        groupId: BigInt(this.groupId),
        limit: this.options.poolLimit,
        memoryLimit: this.options.poolMemoryLimit,
        ...(this.options.executionMemo ? { decode: (raw, options) => this.options.executionMemo!.transactions.decode(raw, options) } : {}),
      },
      { height: () => this.chain.height, hasTransaction: (h) => this.chain.ledger.hasTransaction(h) },
    );
    for (let n = Math.max(1, this.chain.height - NONCE_WINDOW + 1); n <= this.chain.height; n++) {
      this.pool.rememberNonces(n, (await this.chain.ledger.blockByNumber(n))!.block.transactions);
    }
    this.next = await this.configFor(this.chain.height + 1);
    this.syncing = new GroupSync(this, this.codec, env.clock.now());
    if (this.options.byzantine && SYNC_BYZANTINE_KINDS.includes(this.options.byzantine.kind)) this.syncing.adversary = new SyncAdversary(this.options.byzantine, this);
    this.consensus = this.options.consensus(this);
    await this.consensus.start(env.clock.now());
    this.scheduleSyncTick();
    this.scheduleRegossip();
  }

  get env(): Env {
    return this.options.env;
  }

  get suite(): CryptoSuite {
    return this.options.suite;
  }

  get version(): ProtocolVersion {
    return this.options.version;
  }

  get store(): KvStore {
    return this.options.store;
  }

  /**
   * Byzantine behaviour from now on, or honest again (undefined): sync behaviours run here, the
   * others in the consensus driver. Simulation and fault tests only.
   */
  setBehaviour(behaviour: ByzantineBehaviour | undefined): void {
    const sync = behaviour !== undefined && SYNC_BYZANTINE_KINDS.includes(behaviour.kind);
    if (sync) this.trace('byzantine-behaviour', { behaviour: behaviour.kind, variant: behaviour.variant });
    else if (this.syncing.adversary) this.trace('byzantine-behaviour', { behaviour: 'honest' });
    this.syncing.adversary = sync ? new SyncAdversary(behaviour, this) : undefined;
    this.consensus.setBehaviour?.(sync ? undefined : behaviour);
  }

  stop(): void {
    this.stopped = true;
    this.consensus?.stop();
    if (this.syncTimer) this.env.clock.cancelTimer(this.syncTimer);
    if (this.regossipTimer) this.env.clock.cancelTimer(this.regossipTimer);
  }

  /**
   * The group's store failed: the group stops at once (no timer, message or job of it runs on,
   * nothing more is sent), says so in an error line naming the database and the operation, and
   * keeps the failure for whoever asks why (the node refuses the group to JSON-RPC).
   */
  fail(failure: StorageFailure): void {
    if (this.failure) return;
    this.failure = failure;
    this.stop();
    this.env.log.write('error', this.env.clock.now(), logLines.storageFailure(this.groupId, failure.operation, failure.location, failure.message));
    this.trace('storage-failed', { operation: failure.operation, location: failure.location, error: failure.message });
  }

  // --- configuration -------------------------------------------------------------------

  async configFor(number: number): Promise<HeightConfig> {
    const { executor } = this.chain;
    const nodes = await executor.consensusNodes(number);
    const limit = Number((await executor.systemConfig('tx_count_limit', number)) ?? DEFAULT_TX_COUNT_LIMIT);
    const timeout = Number((await executor.systemConfig('consensus_timeout', number)) ?? 3);
    return { number, sealers: nodes.sealers, observers: nodes.observers, txCountLimit: limit, consensusTimeoutMs: timeout * 1000 };
  }

  membership(): Membership {
    if (this.next.sealers.includes(this.nodeId)) return 'sealer';
    if (this.next.observers.includes(this.nodeId)) return 'observer';
    return 'none';
  }

  /** Group members (sealers and observers) other than this node that we have a connection to. */
  connectedPeers(onlySealers = false): NodeId[] {
    const sets = this.members();
    const members = onlySealers ? sets.sealers : sets.all;
    return this.env.transport.connectedPeers().filter((p) => p !== this.nodeId && members.has(p));
  }

  /** Member sets of `next`, for connectedPeers and the inbound filter. */
  private memberSets: { config: HeightConfig; sealers: Set<string>; all: Set<string> } | undefined;

  private members(): { sealers: Set<string>; all: Set<string> } {
    let sets = this.memberSets;
    if (sets?.config !== this.next) {
      sets = { config: this.next, sealers: new Set(this.next.sealers), all: new Set([...this.next.sealers, ...this.next.observers]) };
      this.memberSets = sets;
    }
    return sets;
  }

  private dropFromStranger(from: NodeId, module: ModuleName): void {
    this.counters.nonMemberMessages++;
    const now = this.env.clock.now();
    let entry = this.strangers.get(from);
    if (entry === undefined) {
      // bounded: a flood of identities cannot grow it past this
      if (this.strangers.size >= 256) this.strangers.clear();
      entry = { loggedAt: -Infinity, dropped: 0, modules: new Set() };
      this.strangers.set(from, entry);
    }
    entry.dropped++;
    entry.modules.add(module);
    if (now - entry.loggedAt < STRANGER_LOG_INTERVAL_MS) return;
    this.log('warning', logLines.nonMemberDropped(this.groupId, from, [...entry.modules].join('|'), entry.dropped));
    this.trace('non-member-dropped', { from, modules: [...entry.modules].join('|'), dropped: entry.dropped });
    entry.loggedAt = now;
    entry.dropped = 0;
    entry.modules.clear();
  }

  send(to: NodeId, module: ModuleName, payload: Uint8Array): void {
    if (this.failure) return;
    if (to !== this.nodeId) this.env.transport.send(to, encodeFrame(this.groupId, module, payload));
  }

  broadcast(module: ModuleName, payload: Uint8Array, onlySealers = false): void {
    if (this.failure) return;
    const frame = encodeFrame(this.groupId, module, payload);
    for (const peer of this.connectedPeers(onlySealers)) this.env.transport.send(peer, frame);
  }

  trace(kind: string, fields: Record<string, unknown> = {}): void {
    this.env.trace.event(kind, { group: this.groupId, ...fields });
  }

  log(level: 'info' | 'warning' | 'debug', message: string): void {
    this.env.log.write(level, this.env.clock.now(), message);
  }

  // --- inbound -------------------------------------------------------------------------

  /** Whether `nodeId` is in this group's sealer or observer list for the next block. */
  isMember(nodeId: NodeId): boolean {
    return this.members().all.has(nodeId);
  }

  /**
   * A frame for this group from a peer. Consensus and sync messages (status, block requests and
   * blocks, transactions) are taken only from the nodes in the group's sealer and observer lists
   * (FISCO: the p2p service's group node list and SyncMsgEngine's "Drop unknown peer" checks); a
   * node outside them, one merely certified by the chain's CA (the SDK certificate, a node not yet
   * added), is dropped with a rate-limited warning. A node being added is heard from the block
   * that adds it.
   */
  onFrame(from: NodeId, module: ModuleName, payload: Uint8Array): Promise<void> | undefined {
    if (this.stopped) return undefined;
    if (!this.isMember(from)) {
      this.dropFromStranger(from, module);
      return undefined;
    }
    return this.queue.run(async () => {
      if (this.stopped) return;
      const now = this.env.clock.now();
      try {
        if (module === 'sync') return await this.onSyncMessage(from, payload, now);
        return await this.consensus.onMessage(from, module, payload, now);
      } catch (error) {
        // the failure stopped the group and was reported where it happened
        if (error instanceof StorageFailure && this.failure) return;
        throw error;
      }
    });
  }

  private async onSyncMessage(from: NodeId, payload: Uint8Array, now: number): Promise<void> {
    let message;
    try {
      message = decodeSyncMessage(payload);
    } catch (e) {
      this.counters.badMessages++;
      this.trace('bad-message', { from, module: 'sync', error: (e as Error).message });
      return;
    }
    if (message.type !== 'transactions') return this.syncing.onMessage(from, message, now);
    switch (message.type) {
      case 'transactions': {
        let admitted = 0;
        // pooled transactions this peer just sent: new ones, and ones we had (so all the nodes
        // holding a stuck transaction do not each re-gossip it to everyone on the next round)
        const heard: Uint8Array[] = [];
        for (const raw of message.transactions) {
          const result = await this.admit(raw);
          if (result.admitted) admitted++;
          if (result.pooled) heard.push(result.pooled);
        }
        this.pool.markGossiped(heard, now);
        if (admitted > 0) await this.consensus.onPoolChanged(now);
        return;
      }
    }
  }

  // --- transactions --------------------------------------------------------------------

  /** A gossiped transaction: whether it was new, and its hash if it is now pooled. */
  private async admit(raw: Uint8Array): Promise<{ admitted: boolean; pooled?: Uint8Array }> {
    // most gossip repeats what the pool holds: its hash (the hash of the payload) says so
    // without decoding the payload or making a rejection
    const hash = this.suite.hash(raw);
    if (this.pool.get(hash)) {
      return { admitted: false, pooled: hash };
    }
    try {
      const pooled = await this.pool.admitRaw(raw);
      return { admitted: true, pooled: pooled.transaction.hash };
    } catch (e) {
      if (!(e instanceof TxRejectedError)) throw e;
      return e.status === 'AlreadyKnown' && e.hash ? { admitted: false, pooled: e.hash } : { admitted: false };
    }
  }

  /** A client's transaction: admitted to the pool and gossiped to the group's peers. */
  submit(raw: Uint8Array): Promise<SubmitResult> {
    this.submitsQueued++;
    return this.queue.run(async () => {
      this.submitsQueued--;
      try {
        const pooled = await this.pool.admitRaw(raw);
        // A burst of submissions (a JSON-RPC batch) goes to the peers as one message once the
        // last of it is admitted; a lone submission, as every one in simulation, goes at once.
        this.gossipBatch.push(raw);
        if (this.submitsQueued === 0 || this.gossipBatch.length >= GOSSIP_BATCH_MAX) this.flushGossip();
        this.pool.markGossiped([pooled.transaction.hash], this.env.clock.now());
        this.trace('tx-submitted', { hash: toHex(pooled.transaction.hash) });
        await this.consensus.onPoolChanged(this.env.clock.now());
        return { accepted: true as const, hash: pooled.transaction.hash };
      } catch (e) {
        if (!(e instanceof TxRejectedError)) throw e;
        if (this.submitsQueued === 0) this.flushGossip();
        return { accepted: false as const, rejection: { status: e.code, name: e.status, reason: e.reason } };
      }
    });
  }

  private flushGossip(): void {
    if (this.gossipBatch.length === 0) return;
    const transactions = this.gossipBatch;
    this.gossipBatch = [];
    this.broadcast('sync', encodeSyncMessage({ type: 'transactions', transactions }));
  }

  /**
   * Decode and check a proposal's transactions as a replica must before executing it: each
   * valid for this block, signed, not on chain, no nonce reuse. Transactions already in the pool
   * keep the sender verified at admission.
   */
  async proposalTransactions(raws: readonly Uint8Array[], number: number): Promise<Transaction[] | string> {
    const txs: Transaction[] = [];
    const seen = new Set<string>();
    const nonces = new Set<string>();
    for (let i = 0; i < raws.length; i++) {
      const raw = raws[i]!;
      // a transaction in our pool (pooled by the hash of these bytes) was decoded and verified at admission: take it as is
      const pooled = this.pool.get(this.suite.hash(raw));
      let tx: Transaction;
      if (pooled) tx = pooled.transaction;
      else {
        try {
          const options = { suite: this.suite, generation: this.version.txGeneration };
          tx = this.options.executionMemo ? this.options.executionMemo.transactions.decode(raw, options) : decodeTransaction(raw, options);
        } catch (e) {
          return `transaction ${i}: ${(e as Error).message}`;
        }
      }
      const id = toHexNoPrefix(tx.hash);
      if (seen.has(id)) return `transaction ${i} appears twice`;
      seen.add(id);
      if (!pooled) {
        try {
          recoverSender(tx, this.suite);
        } catch (e) {
          return `transaction ${i}: ${(e as Error).message}`;
        }
        if (await this.chain.ledger.hasTransaction(tx.hash)) return `transaction ${i} is already on chain`;
        // what pool admission checks for rc2 payloads (pooled ones passed it)
        if (this.version.txGeneration === 'rc2' && tx.body.chainId !== this.options.chainId) return `transaction ${i}: chainId ${tx.body.chainId} is not this chain's ${this.options.chainId}`;
        if (this.version.txGeneration === 'rc2' && tx.body.groupId !== BigInt(this.groupId)) return `transaction ${i}: groupId ${tx.body.groupId} is not this group's ${this.groupId}`;
      }
      const nonce = tx.body.nonce.toString(16);
      if (nonces.has(nonce)) return `transaction ${i} reuses a nonce within the block`;
      nonces.add(nonce);
      const usedAt = this.pool.nonceUsedOnChain(tx);
      if (usedAt !== undefined) return `transaction ${i}: nonce 0x${nonce} was used in block ${usedAt}`;
      const limit = tx.body.blockLimit;
      if (limit < BigInt(number) || limit > BigInt(number - 1 + BLOCK_LIMIT_RANGE)) return `transaction ${i}: blockLimit ${limit} does not admit block ${number}`;
      txs.push(tx);
    }
    return txs;
  }

  // --- commits -------------------------------------------------------------------------

  /** Everything that follows a new block, however it was agreed: pool, config, consensus, sync, logs. */
  async afterCommit(stored: StoredBlock, via: 'consensus' | 'sync', view?: number): Promise<void> {
    const { block, hash } = stored;
    const now = this.env.clock.now();
    const number = block.header.number;
    if (via === 'consensus') this.counters.blocksByConsensus++;
    else this.counters.blocksBySync++;
    this.pool.onBlockCommitted(number, block.transactions);
    const before = this.next;
    this.next = await this.configFor(number + 1);
    this.env.trace.probe('block-stored', { group: this.groupId, block, via });
    this.trace('block-committed', {
      number,
      hash: toHex(hash),
      parent: toHex(block.header.parentHash),
      stateRoot: toHex(block.header.stateRoot),
      receiptsRoot: toHex(block.header.receiptsRoot),
      txs: block.transactions.length,
      failed: block.receipts.filter((r) => r.status !== TX_STATUS.None).length,
      timestamp: block.header.timestamp,
      sealer: block.header.sealer,
      via,
      ...(view !== undefined ? { view } : {}),
    });
    if (before.sealers.join() !== this.next.sealers.join() || before.observers.join() !== this.next.observers.join()) {
      this.trace('membership-changed', { from: number + 1, sealers: this.next.sealers.length, observers: this.next.observers.length, me: this.membership() });
    }
    await this.consensus.onBlockCommitted(stored, via, now);
    await this.syncing.onHeadChanged(stored, now);
  }

  // --- sync ----------------------------------------------------------------------------

  private scheduleRegossip(): void {
    if (this.stopped) return;
    this.regossipTimer = this.env.clock.setTimer(TX_REGOSSIP_MS, () =>
      this.queue.run(async () => {
        if (this.stopped) return;
        const now = this.env.clock.now();
        const stale = this.pool.staleForGossip(now, TX_REGOSSIP_MS, TX_REGOSSIP_BATCH);
        if (stale.length > 0 && this.connectedPeers().length > 0) {
          this.broadcast('sync', encodeSyncMessage({ type: 'transactions', transactions: stale.map((p) => p.transaction.raw) }));
          this.pool.markGossiped(stale.map((p) => p.transaction.hash), now);
          this.trace('tx-regossiped', { count: stale.length });
        }
        this.scheduleRegossip();
      }),
    );
  }

  private scheduleSyncTick(): void {
    if (this.stopped) return;
    this.syncTimer = this.env.clock.setTimer(SYNC_TICK_MS, () =>
      this.queue.run(async () => {
        if (this.stopped) return;
        await this.syncing.tick(this.connectedPeers(), this.env.clock.now());
        this.scheduleSyncTick();
      }),
    );
  }

  // --- GroupApi ------------------------------------------------------------------------

  blockNumber(): number {
    return this.chain.height;
  }

  pbftView(): bigint | undefined {
    return this.consensus.pbftView();
  }

  sealers(): string[] {
    return [...this.next.sealers];
  }

  observers(): string[] {
    return [...this.next.observers];
  }

  consensusStatus() {
    return this.consensus.status();
  }

  syncStatus(): SyncStatus {
    const s = this.syncing.machine.status();
    return {
      isSyncing: s.isSyncing,
      protocolId: protocolIdOf(this.version, this.groupId, 'sync'),
      genesisHash: toHexNoPrefix(this.genesisHash),
      nodeId: this.nodeId,
      blockNumber: this.chain.height,
      latestHash: toHexNoPrefix(this.chain.headHash),
      knownHighestNumber: s.knownHighestNumber,
      knownLatestHash: toHexNoPrefix(s.knownLatestHash),
      txPoolSize: this.pool.size,
      peers: s.peers.map((p) => ({ nodeId: p.nodeId, genesisHash: toHexNoPrefix(this.genesisHash), blockNumber: p.blockNumber, latestHash: toHexNoPrefix(p.latestHash) })),
    };
  }

  groupPeers(): string[] {
    return [...this.next.sealers, ...this.next.observers];
  }

  nodeIdList(): string[] {
    return [this.nodeId, ...this.env.transport.connectedPeers().filter((p) => p !== this.nodeId)];
  }

  blockByNumber(number: number): Promise<StoredBlock | undefined> {
    return this.chain.ledger.blockByNumber(number);
  }

  /** A block's header and hash straight from storage (no cache, no transactions decoded). */
  storedHeader(number: number): Promise<{ header: BlockHeader; hash: Uint8Array } | undefined> {
    return this.chain.ledger.storedHeader(number);
  }

  blockByHash(hash: Uint8Array): Promise<StoredBlock | undefined> {
    return this.chain.ledger.blockByHash(hash);
  }

  transaction(hash: Uint8Array): Promise<TransactionRecord | undefined> {
    return this.chain.ledger.transaction(hash);
  }

  pendingTransactions(): PendingTransaction[] {
    return this.pool.pending().map((p) => ({ transaction: p.transaction, sender: p.sender }));
  }

  pendingCount(): number {
    return this.pool.size;
  }

  code(address: Uint8Array): Promise<Uint8Array> {
    return this.chain.executor.code(address);
  }

  totals() {
    return { ...this.chain.ledger.txTotals, blockNumber: this.chain.height };
  }

  async systemConfig(key: string): Promise<string | undefined> {
    return this.chain.executor.systemConfig(key, this.chain.height + 1);
  }

  async call(request: { from: Uint8Array; to: Uint8Array; data: Uint8Array }) {
    const number = this.chain.height;
    const result = await this.chain.executor.call(request, number);
    return { ...result, blockNumber: number };
  }
}

