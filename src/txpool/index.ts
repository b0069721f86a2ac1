export { TxPool, BLOCK_LIMIT_RANGE, NONCE_WINDOW, DEFAULT_POOL_LIMIT, DEFAULT_POOL_MEMORY_LIMIT, type PoolChainView, type TxPoolOptions, type PooledTransaction } from './tx-pool.js';
export { TxRejectedError } from './tx-rejection.js';
