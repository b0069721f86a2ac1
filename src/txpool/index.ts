export { TxPool, BLOCK_LIMIT_RANGE, DEFAULT_POOL_LIMIT, type PoolChainView, type TxPoolOptions, type PooledTransaction } from './tx-pool.js';
export { TxRejectedError } from './tx-rejection.js';
