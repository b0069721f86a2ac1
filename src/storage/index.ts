export { StorageError, StorageFailure, type StorageOperation, type KvOperation, type KvRange, type KvStore, type KvStoreFactory } from './kv-store.js';
export { MemoryStore, MemoryStoreFactory } from './memory-store.js';
export { LevelStore, LevelStoreFactory } from './level-store.js';
export { CachedStore } from './cached-store.js';
export { FailStopStore } from './fail-stop-store.js';
export { FaultyStore, FaultyStoreFactory, type StoreCall, type StoreFault } from './faulty-store.js';
