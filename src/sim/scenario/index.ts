export { loadScenario, loadScenarioFile, parseScenario, ScenarioError, durationMs, nodeNames } from './scenario-loader.js';
export type { Scenario, ScenarioInput, TimelineEntry, Workload, ReplayWorkload, ByzantineEntry } from './scenario-schema.js';
export { runScenario, replayCommand, type ScenarioResult, type RunScenarioOptions, type RunProgress, type ExpectationResult, type NodeResult } from './scenario-runner.js';
export { formatSummary, progressLine } from './run-summary.js';
export { reportData, summaryJson, writeRunOutputs } from './run-outputs.js';
export { drawSwarm, faultBudget, type SwarmDraw } from './swarm.js';
export { resolveGroups, honestNodes, simChainOptions } from './scenario-chain.js';
export type { Violation, InvariantName } from './safety-monitor.js';
export { shellOption, shellWord } from './shell-words.js';
