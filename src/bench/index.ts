import type { BenchIo } from './bench-io.js';

export type { BenchIo } from './bench-io.js';

export interface Benchmark {
  readonly summary: string;
  /** What it measures and against which target, for `twinchain bench --help`. */
  readonly description: string;
  readonly load: () => Promise<{ run(io: BenchIo): Promise<void> }>;
}

/** Named benchmarks for `twinchain bench <name>`; loaded on demand. */
export const benchmarks: Readonly<Record<string, Benchmark>> = {
  crypto: {
    summary: 'signature recovery/verification and transaction decode+verify rates per suite',
    description:
      'signature recoveries/verifications per second and full transaction decode+verify per second, per crypto suite, on one core; ECDSA block signatures checked by recovery (FISCO\'s check) next to an r,s verify',
    load: () => import('./crypto-bench.js'),
  },
  exec: {
    summary: 'transactions per second through the block executor next to raw evm.runCall',
    description:
      'transactions per second through the block executor (blocks of 1,000 signed HelloWorld set calls, commit and state root per block) next to raw evm.runCall on the same calls',
    load: () => import('./exec-bench.js'),
  },
  sim: {
    summary: 'simulation kernel: events per second and virtual/wall time ratio of a null protocol at 4-256 nodes',
    description:
      'simulation kernel events per second and virtual/wall time ratio for a null protocol (all-to-all messages, one round per virtual second) at 4, 16, 64 and 256 nodes, plus 16 nodes with the full JSON trace written to a sink and to a file',
    load: () => import('./sim-bench.js'),
  },
  pbft: {
    summary: 'simulated PBFT groups of 4, 16 and 64 sealers: throughput under saturation and speed at 10 tx/s',
    description:
      'simulated PBFT groups of 4, 16 and 64 sealers: committed transactions per wall second under a saturating HelloWorld load, and the virtual/wall time ratio at 10 tx/s (real and simulated consensus signatures); where the time of the 4-sealer run goes, and the ceiling its secp256k1 operations and contract calls set when timed on their own',
    load: () => import('./pbft-bench.js'),
  },
  rpc: {
    summary: 'JSON-RPC over HTTP: requests/s and p50/p99 for getBlockNumber and call next to a bare node:http server',
    description:
      'JSON-RPC over HTTP with keep-alive at concurrency 1 and 32: requests/s and p50/p99 latency of getBlockNumber and call (HelloWorld.get, on the trie and on the storage state) next to a bare node:http server with a constant JSON body, and the ratio (targets: getBlockNumber at least 60% of the bare server, call at least 3,000 req/s at concurrency 32)',
    load: () => import('./rpc-bench.js'),
  },
  chain: {
    summary: 'a real 4-node chain (PBFT, then Raft) under saturating JSON-RPC load: committed tx/s and latency next to the machine\'s ceiling',
    description:
      'a real 4-node chain (build-chain, start_all.sh; PBFT, then Raft) under a saturating HelloWorld set load from a separate load process (signed before the clock starts): committed tx/s over 30 s, submit-to-commit p50/p99, and the ceiling measured in the same run, executor tx/s \u00d7 cores \u00f7 4 (target: 60% of it); about 4 minutes',
    load: () => import('./chain-bench.js'),
  },
  replay: {
    summary: 'replay blocks/s and tx/s on every fixtures/chains recording next to the executor\'s tx/s, and record blocks/s over HTTP from a local dev node',
    description:
      'replays every recording in fixtures/chains/ (blocks/s and tx/s) next to the executor\'s tx/s measured in the same run (exec bench workload, storage state; target: replay at least 90% of the executor), then records 300 blocks from a local dev node over HTTP (blocks/s; target: 200)',
    load: () => import('./replay-bench.js'),
  },
  swarm: {
    summary: 'swarm seeds/min as 1 shard in one process and as 2 shards in two processes at once (per-shard overhead), next to --jobs 2',
    description:
      'seeds/min of swarm on pbft-swarm.yaml as 1 shard in one process and as 2 shards in two processes at once (the ratio shows the per-shard overhead; near the core count is the goal), next to one process with --jobs 2; 5 interleaved rounds of 12 seeds, medians and spread; about 2 minutes',
    load: () => import('./swarm-bench.js'),
  },
  console: {
    summary: "`console -e 'call HelloWorld <address> get'` as a new process with its artifact cached, next to node's start, the console's imports and a compiling call (target: median ≤ 600 ms)",
    description:
      "`console -e 'call HelloWorld <address> get'` as a new process against a 1-sealer serve, the contract's artifact cached in the console folder, next to `node -e ''`, to importing the console's modules and to a call that compiles (target: median ≤ 600 ms)",
    load: () => import('./console-bench.js'),
  },
  faults: {
    summary: 'real 4-node PBFT and 3-node Raft chains under faults: kill -9, SIGSTOP, two of four down, failing disks, a non-member peer, p2p and JSON-RPC connection floods; catch-up times and the flood targets',
    description:
      'real 4-node PBFT and 3-node Raft chains (build-chain, real processes) under faults: kill -9, SIGSTOP, two of four down, failing disks, a non-member peer, p2p and JSON-RPC connection floods; catch-up times next to the flood targets',
    load: () => import('./faults-bench.js'),
  },
  cli: {
    summary: "start-up time of `twinchain --help` as a new process next to `node -e ''` (target: median ≤ 250 ms)",
    description:
      "start-up time of `twinchain --help` as a new process next to `node -e ''` in the same run (target: median ≤ 250 ms)",
    load: () => import('./cli-bench.js'),
  },
};
