import { RaftDriver } from '../node/index.js';
import { RaftSafetyMonitor } from './raft-safety.js';
import { cluster, type Cluster, type ClusterOptions } from './sim-cluster.js';

export const lan = { latency: { kind: 'uniform' as const, minMs: 2, maxMs: 20 } };

/** A Raft cluster whose safety is checked after every simulation event. */
export function raftCluster(options: ClusterOptions = {}) {
  const c = cluster({ consensus: 'raft', network: lan, ...options });
  const monitor = new RaftSafetyMonitor(c.sim, c.names);
  c.sim.afterEvent(() => monitor.check());
  return { c, monitor };
}

/** The Raft state machine's view on a node (undefined while the node is down). */
export function raftOf(c: Cluster, name: string) {
  const consensus = c.group(name)?.consensus;
  return consensus instanceof RaftDriver ? consensus.inspect() : undefined;
}

/** The node that leads the highest term among the live ones. */
export function leaderOf(c: Cluster): string | undefined {
  let best: { name: string; term: number } | undefined;
  for (const name of c.names) {
    const s = raftOf(c, name);
    if (s?.role === 'leader' && (!best || s.term > best.term)) best = { name, term: s.term };
  }
  return best?.name;
}
