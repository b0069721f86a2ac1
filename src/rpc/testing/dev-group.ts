import {
  decodeTransaction,
  recoverSender,
  TX_STATUS,
  TxDecodeError,
  type ConsensusType,
  type ProtocolVersion,
  type Transaction,
  type TxStatusName,
} from '../../chain/index.js';
import { fromHex, toHex, toHexNoPrefix } from '../../codec/index.js';
import type { CryptoSuite, KeyPair } from '../../crypto/index.js';
import type { CallResult } from '../../exec/index.js';
import type { GroupChain, StoredBlock, TransactionRecord, Totals } from '../../ledger/index.js';
import {
  protocolIdOf,
  type ConsensusStatus,
  type GroupApi,
  type Membership,
  type PbftCacheEntry,
  type PendingTransaction,
  type SubmitResult,
  type SyncStatus,
  type TxRejection,
} from '../../node/index.js';

/** FISCO's c_blockLimit: a transaction's blockLimit must lie in (current, current + 1000]. */
const BLOCK_LIMIT_RANGE = 1000;
const EMPTY_CACHE: PbftCacheEntry = { blockHash: `0x${'0'.repeat(64)}`, height: -1, idx: 65535, view: 0 };

export interface DevGroupOptions {
  readonly chain: GroupChain;
  readonly consensusType: ConsensusType;
  readonly version: ProtocolVersion;
  readonly suite: CryptoSuite;
  /** The node's key: its public key is the node id, it signs the blocks it seals. */
  readonly key: KeyPair;
  readonly chainId: number;
  /** Most transactions the pool holds (TxPoolIsFull beyond). */
  readonly poolLimit: number;
  /** Block timestamps (ms). */
  readonly now: () => number;
}

function reject(name: TxStatusName, reason: string): SubmitResult {
  return { accepted: false, rejection: { status: TX_STATUS[name], name, reason } satisfies TxRejection };
}

/**
 * DEV/TEST DOUBLE of a group, behind the real GroupApi: a one-sealer group on a real GroupChain
 * (real signatures, real execution, real ledger) with a small transaction pool that admits in
 * FISCO's order and seals pending transactions into blocks when told. No consensus and no peers;
 * the simulated node replaces it.
 */
export class DevGroup implements GroupApi {
  readonly groupId: number;
  readonly consensusType: ConsensusType;
  readonly version: ProtocolVersion;
  readonly suite: CryptoSuite;
  private readonly nodeId: string;
  private readonly pool = new Map<string, PendingTransaction>();
  private readonly poolNonces = new Set<bigint>();
  /** Nonces of the last 1000 blocks, with the block that used them. */
  private readonly chainNonces = new Map<bigint, number>();
  private members: { sealers: string[]; observers: string[] } = { sealers: [], observers: [] };
  private sealing: Promise<unknown> = Promise.resolve();
  private genesisHash = '';

  private constructor(private readonly options: DevGroupOptions) {
    this.groupId = options.chain.genesis.groupId;
    this.consensusType = options.consensusType;
    this.version = options.version;
    this.suite = options.suite;
    this.nodeId = toHexNoPrefix(options.key.publicKey);
  }

  static async open(options: DevGroupOptions): Promise<DevGroup> {
    const group = new DevGroup(options);
    await group.refreshMembers();
    const genesis = await options.chain.ledger.blockByNumber(0);
    // as getSyncStatus data comes from FISCO ≥ 2.4: no 0x (the RPC layer adds it)
    group.genesisHash = genesis ? toHexNoPrefix(genesis.hash) : '';
    return group;
  }

  private get chain(): GroupChain {
    return this.options.chain;
  }

  private async refreshMembers(): Promise<void> {
    this.members = await this.chain.executor.consensusNodes(this.chain.height + 1);
  }

  membership(): Membership {
    if (this.members.sealers.includes(this.nodeId)) return 'sealer';
    return this.members.observers.includes(this.nodeId) ? 'observer' : 'none';
  }

  blockNumber(): number {
    return this.chain.height;
  }

  /** The one sealer never changes view. */
  pbftView(): bigint | undefined {
    return this.consensusType === 'raft' ? undefined : 0n;
  }

  sealers(): string[] {
    return [...this.members.sealers];
  }

  observers(): string[] {
    return [...this.members.observers];
  }

  consensusStatus(): ConsensusStatus {
    const { sealers } = this.members;
    const height = this.chain.height;
    const nodeIndex = sealers.indexOf(this.nodeId);
    const base = {
      accountType: nodeIndex >= 0 ? 1 : 0,
      allowFutureBlocks: true,
      cfgErr: nodeIndex < 0,
      consensusedBlockNumber: height + 1,
      groupId: this.groupId,
      highestblockHash: toHex(this.chain.headHash),
      highestblockNumber: height,
      maxFaultyLeader: Math.floor((sealers.length - 1) / (this.consensusType === 'raft' ? 2 : 3)),
      sealers: [...sealers],
      nodeIndex,
      nodeId: this.nodeId,
      nodeNum: sealers.length,
      omitEmptyBlock: true,
    };
    if (this.consensusType === 'raft') {
      return { ...base, kind: 'raft', protocolId: protocolIdOf(this.version, this.groupId, 'raft'), leaderId: nodeIndex >= 0 ? this.nodeId : '', leaderIdx: nodeIndex };
    }
    return {
      ...base,
      kind: 'pbft',
      protocolId: protocolIdOf(this.version, this.groupId, 'pbft'),
      connectedNodes: 0,
      currentView: 0,
      toView: 0,
      leaderFailed: false,
      prepareCache: EMPTY_CACHE,
      rawPrepareCache: EMPTY_CACHE,
      committedPrepareCache: EMPTY_CACHE,
      futureCache: EMPTY_CACHE,
      signCacheSize: 0,
      commitCacheSize: 0,
      viewChangeCacheSize: 0,
    };
  }

  syncStatus(): SyncStatus {
    const latest = toHexNoPrefix(this.chain.headHash);
    return {
      isSyncing: false,
      protocolId: protocolIdOf(this.version, this.groupId, 'sync'),
      genesisHash: this.genesisHash,
      nodeId: this.nodeId,
      blockNumber: this.chain.height,
      latestHash: latest,
      knownHighestNumber: this.chain.height,
      knownLatestHash: latest,
      txPoolSize: this.pool.size,
      peers: [],
    };
  }

  groupPeers(): string[] {
    return [...this.members.sealers, ...this.members.observers];
  }

  nodeIdList(): string[] {
    return [this.nodeId];
  }

  blockByNumber(number: number): Promise<StoredBlock | undefined> {
    return this.chain.ledger.blockByNumber(number);
  }

  blockByHash(hash: Uint8Array): Promise<StoredBlock | undefined> {
    return this.chain.ledger.blockByHash(hash);
  }

  transaction(hash: Uint8Array): Promise<TransactionRecord | undefined> {
    return this.chain.ledger.transaction(hash);
  }

  pendingTransactions(): PendingTransaction[] {
    return [...this.pool.values()];
  }

  pendingCount(): number {
    return this.pool.size;
  }

  code(address: Uint8Array): Promise<Uint8Array> {
    return this.chain.executor.code(address);
  }

  totals(): Totals & { readonly blockNumber: number } {
    return { ...this.chain.ledger.txTotals, blockNumber: this.chain.height };
  }

  systemConfig(key: string): Promise<string | undefined> {
    return this.chain.executor.systemConfig(key, this.chain.height + 1);
  }

  async call(request: { from: Uint8Array; to: Uint8Array; data: Uint8Array }): Promise<CallResult & { readonly blockNumber: number }> {
    const blockNumber = this.chain.height;
    const result = await this.chain.executor.call(request, blockNumber);
    return { ...result, blockNumber };
  }

  /**
   * FISCO's admission order: decode with signature check (the RPC does that), pool full,
   * already in the pool, already on chain, nonce used (last 1000 blocks or pool), blockLimit,
   * then chainId and groupId (rc2 payloads).
   */
  async submit(raw: Uint8Array): Promise<SubmitResult> {
    if (raw.length === 0) return reject('BadRLP', 'empty payload');
    let tx: Transaction;
    let sender: Uint8Array;
    try {
      tx = decodeTransaction(raw, { suite: this.suite, generation: this.version.txGeneration });
      sender = recoverSender(tx, this.suite);
    } catch (e) {
      if (!(e instanceof TxDecodeError)) throw e;
      return reject(e.status, e.message.slice(e.status.length + 2));
    }
    const { body } = tx;
    const hash = toHex(tx.hash);
    // The one await comes first, so the checks below and the pool insert happen at one instant.
    const onChain = await this.chain.ledger.hasTransaction(tx.hash);
    if (this.pool.size >= this.options.poolLimit) return reject('TxPoolIsFull', `the pool holds its limit of ${this.options.poolLimit} transactions`);
    if (this.pool.has(hash)) return reject('AlreadyKnown', `transaction ${hash} is already in the pool`);
    if (onChain) return reject('AlreadyInChain', `transaction ${hash} is already on chain`);
    const usedIn = this.chainNonces.get(body.nonce);
    if (usedIn !== undefined) return reject('NonceCheckFail', `nonce 0x${body.nonce.toString(16)} was already used in block ${usedIn}`);
    if (this.poolNonces.has(body.nonce)) return reject('NonceCheckFail', `nonce 0x${body.nonce.toString(16)} is already used by a pending transaction`);
    const current = BigInt(this.chain.height);
    if (!(body.blockLimit > current && body.blockLimit <= current + BigInt(BLOCK_LIMIT_RANGE))) {
      return reject('BlockLimitCheckFail', `blockLimit ${body.blockLimit} not in (${current}, ${current + BigInt(BLOCK_LIMIT_RANGE)}]`);
    }
    if (tx.generation === 'rc2') {
      if (body.chainId !== BigInt(this.options.chainId)) return reject('InvalidChainId', `chainId ${body.chainId}, but this chain is ${this.options.chainId}`);
      if (body.groupId !== BigInt(this.groupId)) return reject('InvalidGroupId', `groupId ${body.groupId}, but it was sent to group ${this.groupId}`);
    }
    this.pool.set(hash, { transaction: tx, sender });
    this.poolNonces.add(body.nonce);
    return { accepted: true, hash: tx.hash };
  }

  /**
   * Seal the pending transactions (up to tx_count_limit, arrival order) into the next block,
   * signed by this node, and commit it. Transactions whose blockLimit has passed are dropped.
   * Nothing to seal: no block (FISCO never commits empty blocks). Calls are serialised.
   */
  seal(): Promise<StoredBlock | undefined> {
    const run = this.sealing.then(() => this.sealNow());
    this.sealing = run.catch(() => undefined);
    return run;
  }

  private async sealNow(): Promise<StoredBlock | undefined> {
    const height = this.chain.height;
    for (const [hash, pending] of this.pool) {
      if (pending.transaction.body.blockLimit <= BigInt(height)) this.removeFromPool(hash, pending);
    }
    if (this.pool.size === 0) return undefined;
    const sealerIndex = this.members.sealers.indexOf(this.nodeId);
    if (sealerIndex < 0) throw new Error(`dev group ${this.groupId}: this node is not a sealer, it cannot seal`);
    const countLimit = Number((await this.chain.executor.systemConfig('tx_count_limit', height + 1)) ?? 1000);
    const chosen = [...this.pool.entries()].slice(0, countLimit);
    const parent = await this.chain.ledger.blockByNumber(height);
    const executed = await this.chain.execute(
      {
        number: height + 1,
        parentHash: this.chain.headHash,
        timestamp: Math.max(this.options.now(), parent?.block.header.timestamp ?? 0),
        sealer: sealerIndex,
        sealerList: this.members.sealers.map((id) => fromHex(id)),
      },
      chosen.map(([, p]) => p.transaction),
    );
    const signature = this.suite.signatureToBytes(this.suite.sign(executed.hash, this.options.key));
    const stored = await this.chain.commit([{ index: sealerIndex, signature }]);
    for (const [hash, pending] of chosen) {
      this.removeFromPool(hash, pending);
      this.chainNonces.set(pending.transaction.body.nonce, height + 1);
    }
    const oldest = height + 1 - BLOCK_LIMIT_RANGE;
    for (const [nonce, number] of this.chainNonces) if (number < oldest) this.chainNonces.delete(nonce);
    await this.refreshMembers();
    return stored;
  }

  private removeFromPool(hash: string, pending: PendingTransaction): void {
    this.pool.delete(hash);
    this.poolNonces.delete(pending.transaction.body.nonce);
  }
}
