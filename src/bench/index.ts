import type { BenchIo } from './bench-io.js';

export type { BenchIo } from './bench-io.js';

export interface Benchmark {
  readonly summary: string;
  readonly load: () => Promise<{ run(io: BenchIo): Promise<void> }>;
}

/** Named benchmarks for `twinchain bench <name>`; loaded on demand. */
export const benchmarks: Readonly<Record<string, Benchmark>> = {
  crypto: {
    summary: 'signature recovery/verification and transaction decode+verify rates per suite',
    load: () => import('./crypto-bench.js'),
  },
  exec: {
    summary: 'transactions per second through the block executor next to raw evm.runCall',
    load: () => import('./exec-bench.js'),
  },
  sim: {
    summary: 'simulation kernel: events per second and virtual/wall time ratio of a null protocol at 4-256 nodes',
    load: () => import('./sim-bench.js'),
  },
  pbft: {
    summary: 'simulated PBFT groups of 4, 16 and 64 sealers: throughput under saturation and speed at 10 tx/s',
    load: () => import('./pbft-bench.js'),
  },
  rpc: {
    summary: 'JSON-RPC over HTTP: requests/s and p50/p99 for getBlockNumber and call next to a bare node:http server',
    load: () => import('./rpc-bench.js'),
  },
  chain: {
    summary: 'a real 4-node chain (PBFT, then Raft) under saturating JSON-RPC load: committed tx/s and latency next to the machine\'s ceiling',
    load: () => import('./chain-bench.js'),
  },
  replay: {
    summary: 'replay blocks/s and tx/s on every fixtures/chains recording next to the executor\'s tx/s, and record blocks/s over HTTP from a local dev node',
    load: () => import('./replay-bench.js'),
  },
  swarm: {
    summary: 'swarm seeds/min as 1 shard in one process and as 2 shards in two processes at once (per-shard overhead), next to --jobs 2',
    load: () => import('./swarm-bench.js'),
  },
  console: {
    summary: "`console -e 'call HelloWorld <address> get'` as a new process with its artifact cached, next to node's start, the console's imports and a compiling call (target: median ≤ 600 ms)",
    load: () => import('./console-bench.js'),
  },
  faults: {
    summary: 'real 4-node PBFT and 3-node Raft chains under faults: kill -9, SIGSTOP, two of four down, failing disks, a non-member peer, p2p and JSON-RPC connection floods; catch-up times and the flood targets',
    load: () => import('./faults-bench.js'),
  },
  cli: {
    summary: "start-up time of `twinchain --help` as a new process next to `node -e ''` (target: median ≤ 250 ms)",
    load: () => import('./cli-bench.js'),
  },
};
