export { loadScenario, loadScenarioFile, parseScenario, ScenarioError, durationMs, nodeNames } from './scenario-loader.js';
export type { Scenario, ScenarioInput, TimelineEntry, Workload, ReplayWorkload, ByzantineEntry } from './scenario-schema.js';
export { runScenario, replayCommand, type ScenarioResult, type RunScenarioOptions, type RunProgress, type ExpectationResult, type NodeResult } from './scenario-runner.js';
export { formatSummary, progressLine } from './run-summary.js';
export { reportData, summaryJson, writeRunOutputs } from './run-outputs.js';
export { drawSwarm, faultBudget, type SwarmDraw } from './swarm.js';
export { MAX_SHARDS, shardFileName, shardName, shardOf, shardSeed, shardSeedCount, SHARD_FILE, WHOLE, type ShardSpec } from './swarm-shard.js';
export {
  mergeShardResults,
  MergeRefusal,
  parseShardResultLine,
  SHARD_FORMAT,
  SHARD_LINE_MARK,
  shardResultLine,
  ShardResultError,
  seedsPerMinute,
  swarmJsonText,
  SWARM_TIMING_KEYS,
  type FirstFailure,
  type MergedScan,
  type ScanPlan,
  type ShardInput,
  type ShardResult,
  type ShardStop,
  type SwarmExpectation,
  type SwarmRun,
  type SwarmScenarioId,
  type SwarmSummary,
  type SwarmVerdict,
  type SwarmViolation,
  type TwinchainBuild,
} from './swarm-result.js';
export type { FaultInterval } from './timeline.js';
export { resolveGroups, honestNodes, simChainOptions } from './scenario-chain.js';
export type { Violation, InvariantName } from './safety-monitor.js';
export { shellOption, shellWord } from './shell-words.js';
