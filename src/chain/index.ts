export { TX_STATUS, txStatusName, type TxStatusName } from './status.js';
export {
  ProtocolVersion,
  DEFAULT_SUPPORTED_VERSION,
  type TxGeneration,
  type RootScheme,
  type ReturnCodeEncoding,
} from './protocol-version.js';
export { TableNames, type UserTablePrefix } from './table-names.js';
export { TxDecodeError, type TxDecodeStatus } from './transaction-error.js';
export {
  Transaction,
  adoptSender,
  decodeTransaction,
  decodeTransactionHex,
  encodeSignedTransaction,
  signedTransactionDigests,
  encodeUnsignedTransaction,
  recoverSender,
  signTransaction,
  transactionFromRlp,
  transactionToJson,
  TransactionCache,
  type TxBody,
  type TxCodecOptions,
} from './transaction.js';
export {
  TransactionBuilder,
  DEFAULT_GAS,
  DEFAULT_GAS_PRICE,
  type TxRequest,
  type TransactionBuilderOptions,
} from './transaction-builder.js';
export {
  BlockDecodeError,
  blockHash,
  blockHeaderFromRlp,
  decodeBlockHeader,
  encodeBlockHeader,
  type BlockHeader,
} from './block-header.js';
export {
  checkSignatureList,
  type SignatureVerifier,
  decodeBlock,
  decodeTxsParallel,
  encodeBlock,
  encodeSignatureList,
  encodeTxsParallel,
  type Block,
  type BlockCodecOptions,
  type BlockSignature,
  type SignatureListCheck,
} from './block.js';
export { computeReceiptsRoot, computeTransactionsRoot, receiptsRootOfEncodings } from './block-roots.js';
export { merkleRoot16, orderedTrieRoot } from './merkle-root.js';
export { decodeReceipt, encodeReceipt, receiptFromRlp, receiptItems, type LogEntry, type Receipt } from './receipt.js';
export { BLOOM_BYTES, bloomAdd, bloomBits, bloomMayContain, bloomOr, bloomSet, logsBloom } from './log-bloom.js';
export {
  GENESIS_DEFAULTS,
  GenesisError,
  genesisHeader,
  genesisMark,
  parseGenesisMark,
  sortedNodeIds,
  validateGenesis,
  type ConsensusType,
  type GroupGenesis,
  type GenesisMarkFields,
} from './genesis.js';
export { interfaceVariantOfClientVersion, productVersionOf } from './client-version.js';
