export { catalogue, QUICK, type Mutant, type MutantPatch } from './catalogue.js';
export { classifySwarm, combine, median, type Detection, type ScenarioVerdict, type SwarmJson, type SwarmJsonRun } from './classify.js';
export { anchorProblems, applyMutant, mutantCopy, MutantPatchError, patchProblem, removeAllCopies, repoRoot, COPIED, COPIED_FILES } from './workspace.js';
export { runMutant, replayCommand, stopEverything, type MutantReport, type MutantRunOptions, type MutantShrink } from './runner.js';
