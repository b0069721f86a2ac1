export { cluster, type Cluster, type ClusterOptions } from './sim-cluster.js';
export { SimChain, DEFAULT_EPOCH_MS, type SimChainOptions, type SimGroupSpec } from './sim-chain.js';
export { RaftSafetyMonitor, RaftSafetyViolation } from './raft-safety.js';
