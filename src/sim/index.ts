export { cluster, type Cluster, type ClusterOptions } from './sim-cluster.js';
export { CommitMonitor, type CommitConflict } from './commit-monitor.js';
export { SimChain, DEFAULT_EPOCH_MS, type SimChainOptions, type SimGroupSpec, type ByzantineSpec, type ByzantineSetting } from './sim-chain.js';
export { RaftSafetyMonitor, RaftSafetyViolation } from './raft-safety.js';
export { startDevServer, type DevServer, type DevServerOptions, type CommittedBlock, type NodeAttachment } from './dev-server.js';
export * from './scenario/index.js';
export * from './shrink/index.js';
