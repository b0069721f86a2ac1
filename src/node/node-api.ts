import type { ConsensusType, ProtocolVersion, Transaction, TxStatusName } from '../chain/index.js';
import type { CryptoSuite } from '../crypto/index.js';
import type { CallResult } from '../exec/index.js';
import type { StoredBlock, TransactionRecord, Totals } from '../ledger/index.js';

/**
 * What the JSON-RPC layer (and the console, tools, tests) may ask of a node: one object per
 * node, one GroupApi per group it keeps. Values are plain data; formatting (hex quantities,
 * key names, interface variants) is the RPC layer's job. Simulated and real nodes implement the
 * same interface.
 */
export interface NodeApi {
  /** This node's id: 128 lower-case hex characters, no prefix. */
  readonly nodeId: string;
  clientVersion(): ClientVersion;
  /** Ids of the groups whose ledger this node keeps, ascending. */
  groupIds(): number[];
  /** The group, or undefined when this node keeps no ledger for it (RPC error -40001) or the group stopped. */
  group(groupId: number): GroupApi | undefined;
  /** Why a group this node kept has stopped (its storage failed), or undefined; JSON-RPC answers with it instead of data. */
  stoppedGroup?(groupId: number): string | undefined;
  /** Connected p2p peers. */
  peers(): PeerInfo[];
}

export interface ClientVersion {
  readonly buildTime: string;
  readonly buildType: string;
  /** Value of the "<product> Version" field, e.g. "2.11.0" (" gm" appended on SM chains, as FISCO does). */
  readonly productVersion: string;
  readonly gitBranch: string;
  readonly gitCommitHash: string;
  /** `[chain] id` (later interface variant only). */
  readonly chainId: number;
  /** `[compatibility] supported_version` (later variant only). */
  readonly supportedVersion: string;
}

export interface PeerInfo {
  readonly nodeId: string;
  /** `<ip>:<port>`. */
  readonly ipAndPort: string;
  readonly topics: readonly string[];
  /** The peer certificate's agency (FISCO getPeers `Agency`); build_chain.sh's default is "agency". */
  readonly agency?: string;
  /** The peer certificate's node name (FISCO getPeers `Node`), e.g. "node0". */
  readonly nodeName?: string;
}

/** This node's part in a group: 'none' when it keeps the ledger but was removed (RPC error -40009). */
export type Membership = 'sealer' | 'observer' | 'none';

export interface GroupApi {
  readonly groupId: number;
  readonly consensusType: ConsensusType;
  /** The node's supported_version: it picks the payload generation and the interface variant. */
  readonly version: ProtocolVersion;
  readonly suite: CryptoSuite;
  membership(): Membership;
  /** Latest committed block number. */
  blockNumber(): number;
  /** The PBFT view, or undefined on a Raft group (RPC error -40007). */
  pbftView(): bigint | undefined;
  /** Node ids in consensus index order. */
  sealers(): string[];
  observers(): string[];
  consensusStatus(): ConsensusStatus;
  syncStatus(): SyncStatus;
  /** Sealers and observers of the group. */
  groupPeers(): string[];
  /** This node and its connected peers. */
  nodeIdList(): string[];
  blockByNumber(number: number): Promise<StoredBlock | undefined>;
  blockByHash(hash: Uint8Array): Promise<StoredBlock | undefined>;
  transaction(hash: Uint8Array): Promise<TransactionRecord | undefined>;
  pendingTransactions(): PendingTransaction[];
  pendingCount(): number;
  /** Contract code at the latest block ("" for none). */
  code(address: Uint8Array): Promise<Uint8Array>;
  totals(): Totals & { readonly blockNumber: number };
  /** A system config value in force for the next block, or undefined for an unknown key (RPC -40008). */
  systemConfig(key: string): Promise<string | undefined>;
  /** Read-only call against the latest committed state; the ledger is untouched. */
  call(request: { from: Uint8Array; to: Uint8Array; data: Uint8Array }): Promise<CallResult & { readonly blockNumber: number }>;
  /** Admit a signed payload to the pool (and gossip it): its hash, or why it was refused. */
  submit(raw: Uint8Array): Promise<SubmitResult>;
}

export interface PendingTransaction {
  readonly transaction: Transaction;
  readonly sender: Uint8Array;
}

export type SubmitResult =
  | { readonly accepted: true; readonly hash: Uint8Array }
  | { readonly accepted: false; readonly rejection: TxRejection };

/** Why a transaction was refused: FISCO's status code and name, and a sentence for humans. */
export interface TxRejection {
  readonly status: number;
  readonly name: TxStatusName;
  /** E.g. "blockLimit 5 not in (10, 1010]". */
  readonly reason: string;
}

/** One PBFT cache as getConsensusStatus shows it: an empty cache is zero hash, height -1, idx 65535. */
export interface PbftCacheEntry {
  readonly blockHash: string;
  readonly height: number;
  readonly idx: number;
  readonly view: number;
}

interface ConsensusStatusBase {
  /** 1 for a sealer, 0 otherwise. */
  readonly accountType: number;
  readonly allowFutureBlocks: boolean;
  readonly cfgErr: boolean;
  /** Height of the block now in consensus (highest + 1). */
  readonly consensusedBlockNumber: number;
  readonly groupId: number;
  /** 0x-prefixed. */
  readonly highestblockHash: string;
  readonly highestblockNumber: number;
  /** f. */
  readonly maxFaultyLeader: number;
  /** Sealer node ids by index. */
  readonly sealers: readonly string[];
  /** This node's sealer index, or -1 when it is not a sealer. */
  readonly nodeIndex: number;
  readonly nodeId: string;
  readonly nodeNum: number;
  readonly omitEmptyBlock: boolean;
  readonly protocolId: number;
}

export interface PbftConsensusStatus extends ConsensusStatusBase {
  readonly kind: 'pbft';
  readonly connectedNodes: number;
  readonly currentView: number;
  readonly toView: number;
  readonly leaderFailed: boolean;
  readonly prepareCache: PbftCacheEntry;
  readonly rawPrepareCache: PbftCacheEntry;
  readonly committedPrepareCache: PbftCacheEntry;
  readonly futureCache: PbftCacheEntry;
  readonly signCacheSize: number;
  readonly commitCacheSize: number;
  readonly viewChangeCacheSize: number;
}

export interface RaftConsensusStatus extends ConsensusStatusBase {
  readonly kind: 'raft';
  /** Node id of the current leader ("" when none is known). */
  readonly leaderId: string;
  /** Its sealer index (-1 when none). */
  readonly leaderIdx: number;
}

export type ConsensusStatus = PbftConsensusStatus | RaftConsensusStatus;

export interface SyncPeer {
  readonly nodeId: string;
  /** Hashes as FISCO 2.4+ prints them in getSyncStatus: hex without 0x. */
  readonly genesisHash: string;
  readonly blockNumber: number;
  readonly latestHash: string;
}

export interface SyncStatus {
  readonly isSyncing: boolean;
  readonly protocolId: number;
  readonly genesisHash: string;
  readonly nodeId: string;
  readonly blockNumber: number;
  readonly latestHash: string;
  readonly knownHighestNumber: number;
  readonly knownLatestHash: string;
  readonly txPoolSize: number;
  readonly peers: readonly SyncPeer[];
}
