export { WorldState, createFiscoCommon, STATE_KEY_PREFIX, type WorldStateOptions } from './world-state.js';
export { TwinStateManager, type CodeOverride, type StorageGuard } from './twin-state-manager.js';
export { BufferedTrieDb } from './trie-db.js';
export { computeDbHash, tableDump, isHashedField, type DbHashRule, type DbHashOptions, type DumpEntry, type TableChanges } from './db-hash.js';
export { BlockTables, TableStorage, SYS_TABLES, entriesKey, decodeWrites, type TableEntry, type TableInfo } from './storage-tables.js';
export { StorageStateManager, accountTableName, type StorageStateOptions } from './storage-state-manager.js';
export type { FiscoStateManager, GroupState } from './fisco-state-manager.js';
export { StorageWorldState, type StorageWorldStateOptions } from './storage-world-state.js';
