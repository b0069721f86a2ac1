export { Ledger, LedgerError, type StoredBlock, type TransactionRecord, type Totals } from './ledger.js';
export { LEDGER_KEYS } from './ledger-keys.js';
export { GroupChain, openGroupState, type GroupChainOptions } from './group-chain.js';
