import { matchesGlobs } from './file-globs.js';

/**
 * What `npm run mutation` mutates, which tests it runs against the mutants, and the swarm budget
 * each surviving mutant gets (docs/mutation.md explains the choices).
 */

/**
 * The consensus-critical code StrykerJS mutates (globs relative to the repository root). The
 * byzantine adversaries next to the drivers (src/node/*-adversary.ts, *-mutator.ts,
 * message-mutation.ts) are the testbed's attackers, not code under test: a weaker attacker still
 * gives correct runs, so their mutants would survive by construction (docs/mutation.md).
 */
export const MUTATE: readonly string[] = [
  'src/consensus/**/*.ts',
  'src/txpool/**/*.ts',
  'src/sync/**/*.ts',
  'src/node/group.ts',
  'src/node/group-sync.ts',
  'src/node/pbft-driver.ts',
  'src/node/raft-driver.ts',
  '!src/**/*.test.ts',
  '!src/**/*.test-helper.ts',
  // re-exports only
  '!src/**/index.ts',
];

/**
 * The tests run against the mutants, cheapest first (a mutant's run stops at its first failing
 * test, so the order is the run's speed): the unit tests of the mutated folders, the RPC tests
 * that go through the pool's admission, pinned swarm seeds, the conformance suite against
 * simulated nodes, then the in-process cluster, fault and byzantine tests
 * that drive PBFT and Raft groups, the pool and sync through the node (src/sim), slowest last.
 * Left out: the scenario library (every scenario file run twice: minutes for each mutant it
 * reaches, and the swarm phase runs that kind of scenario anyway), real processes, the browser,
 * the packed package, the README's examples and the CLI commands that start child processes.
 * With per-test coverage each mutant runs only the tests that reach it.
 */
export const TEST_FILES: readonly string[] = [
  'src/txpool/**/*.test.ts',
  'src/sync/**/*.test.ts',
  'src/node/message-kind.test.ts',
  'src/consensus/pbft/pbft-wire.test.ts',
  'src/consensus/raft/raft.test.ts',
  'src/consensus/pbft/pbft.test.ts',
  'src/consensus/**/*.test.ts',
  'src/sim/scenario/tx-client.test.ts',
  'src/sim/scenario/safety-monitor.test.ts',
  'src/sim/scenario/scenario-chain.test.ts',
  'src/rpc/in-process.test.ts',
  'src/sim/byzantine-options.test.ts',
  'src/sim/scenario/swarm-adversaries.test.ts',
  'src/rpc/methods.test.ts',
  'src/sim/invariants/**/*.test.ts',
  'src/node/**/*.test.ts',
  // a dozen whole swarm seeds with their trace digests pinned: about 1 s to the first seed a
  // behaviour change fails, 10 s for a mutant that changes nothing there
  'src/sim/scenario/swarm-pinned.test.ts',
  // the conformance suite against simulated nodes over loopback HTTP: what reaches the group's
  // and the drivers' RPC-facing code (sealers, peers, pending transactions, calls, sync status)
  'src/cli/dev-server-conformance.test.ts',
  'src/sim/pbft-membership.test.ts',
  'src/sim/raft-cluster.test.ts',
  'src/sim/raft-membership.test.ts',
  'src/sim/scenario/message-faults.test.ts',
  'src/sim/simulated-signatures.test.ts',
  'src/sim/byzantine-twins.test.ts',
  'src/sim/pbft-cluster.test.ts',
  'src/sim/full-blocks.test.ts',
  'src/sim/pbft-faults.test.ts',
  'src/sim/byzantine-pbft.test.ts',
  'src/sim/raft-faults.test.ts',
  'src/sim/byzantine-adversaries.test.ts',
  // cluster tests added later run last
  'src/sim/*.test.ts',
];

/** Where a test file comes in TEST_FILES' order (the first glob it matches), or -1. */
export function testFileRank(file: string): number {
  return TEST_FILES.findIndex((g) => matchesGlobs(file, [g]));
}

export const PBFT_SWARM = 'pbft-swarm.yaml';
export const RAFT_SWARM = 'raft-swarm.yaml';

/** The swarm budget of one surviving mutant: at most `seeds` seeds and `timeMs` of swarm time, whichever ends first. */
export interface SwarmBudget {
  readonly seeds: number;
  readonly timeMs: number;
}

/**
 * 20 seeds per mutant, and at most 180 s of swarm time (docs/mutation.md: what that catches and
 * what it costs). The seeds are the budget: on an idle 2-core machine they take about 25 s, so
 * the time only stops a mutant that slows the simulation down (or a machine that is very busy).
 */
export const DEFAULT_SWARM_BUDGET: SwarmBudget = { seeds: 20, timeMs: 180_000 };

/** One scenario's share of a mutant's budget. */
export interface ScenarioShare {
  readonly scenario: string;
  readonly seeds: number;
  readonly timeMs: number;
}

/** The swarm files that exercise a mutated file: its own consensus's, or both for code under both. */
export function scenariosFor(file: string): readonly string[] {
  const f = file.replace(/\\/g, '/');
  if (f.startsWith('src/consensus/pbft/') || f === 'src/node/pbft-driver.ts') return [PBFT_SWARM];
  if (f.startsWith('src/consensus/raft/') || f === 'src/node/raft-driver.ts') return [RAFT_SWARM];
  return [PBFT_SWARM, RAFT_SWARM];
}

/**
 * A mutant's budget split over the scenarios of its file: seeds and time in equal parts, the odd
 * seed to the first (PBFT); every scenario gets at least one seed.
 */
export function swarmShares(file: string, budget: SwarmBudget = DEFAULT_SWARM_BUDGET): readonly ScenarioShare[] {
  if (!Number.isInteger(budget.seeds) || budget.seeds < 1) throw new RangeError(`a swarm budget needs at least 1 seed (got ${budget.seeds})`);
  if (!(budget.timeMs > 0)) throw new RangeError(`a swarm budget needs some time (got ${budget.timeMs} ms)`);
  const scenarios = scenariosFor(file);
  const n = scenarios.length;
  return scenarios.map((scenario, i) => ({
    scenario,
    seeds: Math.max(1, Math.floor(budget.seeds / n) + (i < budget.seeds % n ? 1 : 0)),
    timeMs: Math.round(budget.timeMs / n),
  }));
}
