import type { InterfaceVariant } from '../codec/index.js';
import type { FieldType } from './shape.js';

/* SPEC.md's resource tables, per interface variant. */

type Fields = Readonly<Record<string, FieldType>>;

export const BLOCK_FIELDS: Fields = {
  extraData: 'array',
  gasLimit: 'quantity',
  gasUsed: 'quantity',
  hash: 'hash',
  logsBloom: 'data',
  number: 'quantity',
  parentHash: 'hash',
  sealer: 'quantity',
  sealerList: 'nodeId[]',
  stateRoot: 'hash',
  timestamp: 'quantity',
  transactions: 'array',
  transactionsRoot: 'hash',
};

export const TRANSACTION_FIELDS: Fields = {
  blockHash: 'hash',
  blockNumber: 'quantity',
  from: 'address',
  gas: 'quantity',
  gasPrice: 'quantity',
  hash: 'hash',
  input: 'data',
  nonce: 'quantity',
  to: 'address|null',
  transactionIndex: 'quantity',
  value: 'quantity',
};

export function receiptFields(variant: InterfaceVariant): Fields {
  const base: Record<string, FieldType> = {
    blockHash: 'hash',
    blockNumber: 'quantity',
    contractAddress: 'address',
    from: 'address',
    gasUsed: 'quantity',
    logs: 'array',
    logsBloom: 'data',
    status: 'quantity',
    to: 'address|null',
    transactionHash: 'hash',
    transactionIndex: 'quantity',
  };
  return variant === 'later' ? { ...base, input: 'data' } : base;
}

/** Pending transaction: "all strings"; the earlier variant also lists blockHash, blockNumber and contractAddress. */
export function pendingFields(variant: InterfaceVariant): Fields {
  const base: Record<string, FieldType> = {
    from: 'address',
    gas: 'quantity',
    gasPrice: 'quantity',
    hash: 'hash',
    input: 'data',
    nonce: 'quantity',
    to: 'address|null',
    value: 'quantity',
  };
  return variant === 'earlier' ? { ...base, blockHash: 'string', blockNumber: 'string', contractAddress: 'string' } : base;
}
export const PENDING_EARLIER_ONLY = ['blockHash', 'blockNumber', 'contractAddress'];
/** What FISCO 2.11 adds to pending transactions (Rpc::parseTransactionIntoResponse); the earlier variant has none of them. */
export const PENDING_LATER_EXTRAS: Fields = { blockLimit: 'quantity', chainId: 'quantity', groupId: 'quantity', extraData: 'data', signature: 'object' };

export function totalsFields(variant: InterfaceVariant): Fields {
  return variant === 'later' ? { blockNumber: 'quantity', txSum: 'quantity', failedTxSum: 'quantity' } : { blockNumber: 'quantity', txSum: 'quantity' };
}

export function syncStatusFields(variant: InterfaceVariant): Fields {
  const base: Record<string, FieldType> = {
    blockNumber: 'uint',
    genesisHash: 'hash',
    isSyncing: 'bool',
    latestHash: 'hash',
    nodeId: 'nodeId',
    protocolId: 'uint',
    txPoolSize: 'decimalString',
    peers: 'array',
  };
  return variant === 'later' ? { ...base, knownHighestNumber: 'uint', knownLatestHash: 'hash' } : base;
}
export const SYNC_LATER_ONLY = ['knownHighestNumber', 'knownLatestHash'];

export const SYNC_PEER_FIELDS: Fields = { blockNumber: 'uint', genesisHash: 'hash', latestHash: 'hash', nodeId: 'nodeId' };

export const PEER_FIELDS: Fields = { IPAndPort: 'string', nodeId: 'nodeId', Topic: 'array' };

export function clientVersionFields(variant: InterfaceVariant): Fields {
  const base: Record<string, FieldType> = { 'Build Time': 'string', 'Build Type': 'string', 'Git Branch': 'string', 'Git Commit Hash': 'string' };
  return variant === 'later' ? { ...base, 'Chain Id': 'string', 'Supported Version': 'string' } : base;
}
export const CLIENT_VERSION_LATER_ONLY = ['Chain Id', 'Supported Version'];

const CONSENSUS_BASE: Fields = {
  accountType: 'uint',
  allowFutureBlocks: 'bool',
  cfgErr: 'bool',
  consensusedBlockNumber: 'uint',
  groupId: 'uint',
  highestblockHash: 'hash',
  highestblockNumber: 'uint',
  max_faulty_leader: 'uint',
  'node index': 'uint',
  nodeId: 'nodeId',
  nodeNum: 'uint',
  omitEmptyBlock: 'bool',
  protocolId: 'uint',
};

export const PBFT_STATUS_FIELDS: Fields = { ...CONSENSUS_BASE, connectedNodes: 'uint', currentView: 'uint', leaderFailed: 'bool', toView: 'uint' };
export const RAFT_STATUS_FIELDS: Fields = { ...CONSENSUS_BASE, leaderId: 'string', leaderIdx: 'uint' };

/** PBFT's later elements, in SPEC's order. */
export const PBFT_CACHE_ELEMENTS: ReadonlyArray<Fields> = [
  ...['prepareCache', 'rawPrepareCache', 'committedPrepareCache', 'futureCache'].map(
    (name): Fields => ({
      [`${name}_blockHash`]: 'string',
      [`${name}_height`]: 'int',
      [`${name}_idx`]: 'uint|decimalString',
      [`${name}_view`]: 'uint|decimalString',
    }),
  ),
  { signCache_cachedSize: 'uint|decimalString' },
  { commitCache_cachedSize: 'uint|decimalString' },
  { viewChangeCache_cachedSize: 'uint|decimalString' },
];
