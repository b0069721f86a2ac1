import type { Transaction } from '../chain/index.js';
import { bigintToFixedBytes, toHex, toHexNoPrefix, toQuantity, type InterfaceVariant } from '../codec/index.js';
import type { StoredBlock, TransactionRecord } from '../ledger/index.js';
import type {
  ClientVersion,
  ConsensusStatus,
  PbftCacheEntry,
  PeerInfo,
  PendingTransaction,
  SyncStatus,
} from '../node/index.js';

/*
 * JSON shapes of SPEC.md's resources, per interface variant. The earlier variant sends exactly
 * SPEC's fields (what a 2.0.0-rc1 node sends); the later one adds the extra fields FISCO 2.x
 * nodes send (dbHash, receiptsRoot, signatureList, blockLimit, chainId, signature, root ...),
 * which SPEC allows.
 */

const ZERO_ADDRESS = `0x${'0'.repeat(40)}`;
const ZERO_HASH = `0x${'0'.repeat(64)}`;
/** FISCO's MAXIDX: the index a node without one (observer, no leader) reports. */
const NO_INDEX = 65535;

type Json = Record<string, unknown>;

/** getClientVersion: FISCO's "FISCO-BCOS Version" key (SDKs look for it); Chain Id and Supported Version in the later variant. */
export function formatClientVersion(version: ClientVersion, variant: InterfaceVariant): Json {
  const out: Json = {
    'Build Time': version.buildTime,
    'Build Type': version.buildType,
    'FISCO-BCOS Version': version.productVersion,
    'Git Branch': version.gitBranch,
    'Git Commit Hash': version.gitCommitHash,
  };
  if (variant === 'later') {
    out['Chain Id'] = String(version.chainId);
    out['Supported Version'] = version.supportedVersion;
  }
  return out;
}

interface TxLocation {
  readonly blockHash: Uint8Array;
  readonly blockNumber: number;
  readonly index: number;
}

/** Transaction object. Creation `to`: null in the earlier variant, the zero address in the later one (SPEC's table). */
export function formatTransaction(tx: Transaction, sender: Uint8Array, at: TxLocation, variant: InterfaceVariant): Json {
  const { body } = tx;
  const out: Json = {
    blockHash: toHex(at.blockHash),
    blockNumber: toQuantity(at.blockNumber),
    from: toHex(sender),
    gas: toQuantity(body.gas),
    gasPrice: toQuantity(body.gasPrice),
    hash: toHex(tx.hash),
    input: toHex(body.data),
    nonce: toQuantity(body.nonce),
    to: body.to ? toHex(body.to) : variant === 'earlier' ? null : ZERO_ADDRESS,
    transactionIndex: toQuantity(at.index),
    value: toQuantity(body.value),
  };
  if (variant === 'later') Object.assign(out, transactionExtras(tx));
  return out;
}

/** What FISCO 2.11 adds to transaction objects. */
function transactionExtras(tx: Transaction): Json {
  const { body, signature } = tx;
  const r = toHex(bigintToFixedBytes(signature.r, 32));
  const s = toHex(bigintToFixedBytes(signature.s, 32));
  const out: Json = { blockLimit: toQuantity(body.blockLimit) };
  if (body.chainId !== undefined) out.chainId = toQuantity(body.chainId);
  if (body.groupId !== undefined) out.groupId = toQuantity(body.groupId);
  if (body.extraData !== undefined) out.extraData = toHex(body.extraData);
  out.signature =
    signature.kind === 'ecdsa'
      ? { r, s, v: toQuantity(signature.v), signature: `${r}${s.slice(2)}${signature.v.toString(16).padStart(2, '0')}` }
      : { r, s, v: toHex(signature.publicKey), signature: `${r}${s.slice(2)}${toHexNoPrefix(signature.publicKey)}` };
  return out;
}

/** Block object; `transactions` holds hashes, or full objects (plus signatureList) when asked. */
export function formatBlock(stored: StoredBlock, includeTransactions: boolean, variant: InterfaceVariant): Json {
  const { block, hash } = stored;
  const { header } = block;
  const number = header.number;
  const out: Json = {
    extraData: header.extraData.map((d) => toHex(d)),
    gasLimit: toQuantity(header.gasLimit),
    gasUsed: toQuantity(header.gasUsed),
    hash: toHex(hash),
    logsBloom: toHex(header.logsBloom),
    number: toQuantity(number),
    parentHash: toHex(header.parentHash),
    sealer: toQuantity(header.sealer),
    sealerList: header.sealerList.map((id) => toHexNoPrefix(id)),
    stateRoot: toHex(header.stateRoot),
    timestamp: toQuantity(header.timestamp),
    transactions: includeTransactions
      ? block.transactions.map((tx, index) => formatTransaction(tx, stored.senders[index]!, { blockHash: hash, blockNumber: number, index }, variant))
      : block.transactions.map((tx) => toHex(tx.hash)),
    transactionsRoot: toHex(header.transactionsRoot),
  };
  if (variant === 'later') {
    out.dbHash = toHex(header.dbHash);
    out.receiptsRoot = toHex(header.receiptsRoot);
    if (includeTransactions) {
      out.signatureList = block.signatureList.map((s) => ({ index: toQuantity(s.index), signature: toHex(s.signature) }));
    }
  }
  return out;
}

/**
 * Receipt object. The later variant adds `input` and reports the deployed contractAddress; the
 * earlier one always gives the zero address. `to` is null for a creation in both.
 */
export function formatReceipt(record: TransactionRecord, variant: InterfaceVariant): Json {
  const { transaction: tx, receipt } = record;
  const out: Json = {
    blockHash: toHex(record.blockHash),
    blockNumber: toQuantity(record.blockNumber),
    contractAddress: variant === 'later' ? toHex(receipt.contractAddress) : ZERO_ADDRESS,
    from: toHex(record.sender),
    gasUsed: toQuantity(receipt.gasUsed),
    logs: receipt.logs.map((log) => ({ address: toHex(log.address), topics: log.topics.map((t) => toHex(t)), data: toHex(log.data) })),
    logsBloom: toHex(receipt.logsBloom),
    output: toHex(receipt.output),
    status: toQuantity(receipt.status),
    to: tx.body.to ? toHex(tx.body.to) : null,
    transactionHash: toHex(tx.hash),
    transactionIndex: toQuantity(record.index),
  };
  if (variant === 'later') {
    out.input = toHex(tx.body.data);
    out.root = toHex(receipt.stateRoot);
    if (receipt.remainGas !== undefined) out.remainGas = toQuantity(receipt.remainGas);
  }
  return out;
}

/**
 * Pending transaction. The earlier variant also lists blockHash, blockNumber and contractAddress;
 * SPEC says all fields are strings, so a transaction not yet in a block shows the zero hash,
 * "0x0" and the zero address there. The later variant adds what FISCO 2.11 sends.
 */
export function formatPending(pending: PendingTransaction, variant: InterfaceVariant): Json {
  const { body, hash } = pending.transaction;
  const out: Json = {
    from: toHex(pending.sender),
    gas: toQuantity(body.gas),
    gasPrice: toQuantity(body.gasPrice),
    hash: toHex(hash),
    input: toHex(body.data),
    nonce: toQuantity(body.nonce),
    to: body.to ? toHex(body.to) : null,
    value: toQuantity(body.value),
  };
  if (variant === 'earlier') {
    out.blockHash = ZERO_HASH;
    out.blockNumber = '0x0';
    out.contractAddress = ZERO_ADDRESS;
  } else {
    // FISCO 2.11 Rpc::getPendingTransactions → parseTransactionIntoResponse(_onChain = false):
    // blockLimit, chainId, groupId (hex quantities), extraData (hex data), signature {r, s, v, signature}.
    Object.assign(out, transactionExtras(pending.transaction));
  }
  return out;
}

export function formatTotals(totals: { txSum: bigint; failedTxSum: bigint; blockNumber: number }, variant: InterfaceVariant): Json {
  const out: Json = { blockNumber: toQuantity(totals.blockNumber), txSum: toQuantity(totals.txSum) };
  if (variant === 'later') out.failedTxSum = toQuantity(totals.failedTxSum);
  return out;
}

function prefixed(hash: string): string {
  return hash.startsWith('0x') ? hash : `0x${hash}`;
}

function unprefixed(id: string): string {
  return id.startsWith('0x') ? id.slice(2) : id;
}

/**
 * getSyncStatus. SPEC's conventions say hashes are 0x-prefixed; FISCO ≥ 2.4 prints these
 * without 0x (its docs still show it). SPEC wins: every hash here carries 0x.
 */
export function formatSyncStatus(status: SyncStatus, variant: InterfaceVariant): Json {
  const out: Json = {
    blockNumber: status.blockNumber,
    genesisHash: prefixed(status.genesisHash),
    isSyncing: status.isSyncing,
    latestHash: prefixed(status.latestHash),
    nodeId: unprefixed(status.nodeId),
    peers: status.peers.map((p) => ({
      blockNumber: p.blockNumber,
      genesisHash: prefixed(p.genesisHash),
      latestHash: prefixed(p.latestHash),
      nodeId: unprefixed(p.nodeId),
    })),
    protocolId: status.protocolId,
    txPoolSize: String(status.txPoolSize),
  };
  if (variant === 'later') {
    out.knownHighestNumber = status.knownHighestNumber;
    out.knownLatestHash = prefixed(status.knownLatestHash);
  }
  return out;
}

/** build_chain.sh's default agency name (its "Processing IP=... Agency=agency" line). */
export const DEFAULT_AGENCY = 'agency';

/**
 * getPeers: SPEC's `nodeId`, plus FISCO 2.x's `NodeID` spelling for SDKs that read that one.
 * The later variant adds FISCO 2.11's `Agency` and `Node` (Rpc::getPeers: the session's
 * nodeInfo.agencyName and nodeInfo.nodeName, taken from the peer's certificate).
 */
export function formatPeers(peers: readonly PeerInfo[], variant: InterfaceVariant = 'later'): Json[] {
  return peers.map((p) => {
    const out: Json = { IPAndPort: p.ipAndPort, nodeId: unprefixed(p.nodeId), NodeID: unprefixed(p.nodeId), Topic: [...p.topics] };
    if (variant === 'later') {
      out.Agency = p.agency ?? DEFAULT_AGENCY;
      out.Node = p.nodeName ?? '';
    }
    return out;
  });
}

function index(value: number): number {
  return value < 0 ? NO_INDEX : value;
}

function cache(name: string, entry: PbftCacheEntry): Json {
  return {
    [`${name}_blockHash`]: prefixed(entry.blockHash),
    [`${name}_height`]: entry.height,
    [`${name}_idx`]: String(entry.idx),
    [`${name}_view`]: String(entry.view),
  };
}

/**
 * getConsensusStatus: an array. Element 0 carries SPEC's fields; the node's own index goes out
 * under SPEC's key "node index" and, as extra, under FISCO's code key "node_index". A node
 * without an index (observer) reports 65535, FISCO's MAXIDX. PBFT adds one object per cache
 * and cache size, in SPEC's order; Raft has the one object with leaderId and leaderIdx.
 */
export function formatConsensusStatus(status: ConsensusStatus): Json[] {
  const base: Json = {
    accountType: status.accountType,
    allowFutureBlocks: status.allowFutureBlocks,
    cfgErr: status.cfgErr,
    consensusedBlockNumber: status.consensusedBlockNumber,
    groupId: status.groupId,
    highestblockHash: prefixed(status.highestblockHash),
    highestblockNumber: status.highestblockNumber,
    max_faulty_leader: status.maxFaultyLeader,
    'node index': index(status.nodeIndex),
    node_index: index(status.nodeIndex),
    nodeId: unprefixed(status.nodeId),
    nodeNum: status.nodeNum,
    omitEmptyBlock: status.omitEmptyBlock,
    protocolId: status.protocolId,
  };
  status.sealers.forEach((id, i) => {
    base[`sealer.${i}`] = unprefixed(id);
  });
  if (status.kind === 'raft') {
    return [{ ...base, leaderId: unprefixed(status.leaderId), leaderIdx: index(status.leaderIdx) }];
  }
  return [
    { ...base, connectedNodes: status.connectedNodes, currentView: status.currentView, leaderFailed: status.leaderFailed, toView: status.toView },
    cache('prepareCache', status.prepareCache),
    cache('rawPrepareCache', status.rawPrepareCache),
    cache('committedPrepareCache', status.committedPrepareCache),
    cache('futureCache', status.futureCache),
    { signCache_cachedSize: String(status.signCacheSize) },
    { commitCache_cachedSize: String(status.commitCacheSize) },
    { viewChangeCache_cachedSize: String(status.viewChangeCacheSize) },
  ];
}
