export { scenarioYaml, type ScenarioYamlOptions } from './scenario-yaml.js';
export { splitScenario, assemble, isEvent, timelineGroups, type Plan, type ShrinkUnit } from './plan.js';
export { describeUnit, seconds } from './describe.js';
export { faultExcess, msText, truncated, withoutNode, withoutGroup } from './reductions.js';
export { runCandidate, candidateOutcome, errorOutcome, type CandidateJob, type CandidateOutcome, type CandidateViolation, type RunCandidateOptions } from './candidate.js';
export { CandidatePool, type CandidateRunner, type PoolStats } from './candidate-pool.js';
export { Shrinker, ShrinkError, targetOf, reproduces, firstViolation, otherwise, type ShrinkTarget, type ShrinkResult, type ShrinkProgress, type ShrinkPhase, type KeptEvent, type RunFacts } from './shrinker.js';
