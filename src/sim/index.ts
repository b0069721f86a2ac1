export { cluster, type Cluster, type ClusterOptions } from './sim-cluster.js';
