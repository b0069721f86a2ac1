/**
 * `npm run mutation`: the test phase (StrykerJS), the swarm phase for what the tests did not
 * kill, then the report (reports/mutation/mutation-report.md and .json) and a short summary; and
 * the triage tool (`--survivors`) and the replay of a swarm kill (`--replay`).
 * docs/mutation.md is the user's guide.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { classifySwarm } from './classify.js';
import { matchesGlobs } from './file-globs.js';
import { buildReport, fateOf, fateWords, isSurvivor, renderMarkdown, reportedMutant, summaryLines, timingWords, type MutationReport, type ReportedMutant, type Timing } from './mutation-report.js';
import { MUTATE, scenariosFor, swarmShares, type SwarmBudget } from './mutation-targets.js';
import { runChild, stopEverything } from './runner.js';
import { readStrykerReport, runTestPhase, statePaths, unrunTestFiles } from './stryker-phase.js';
import type { StrykerReport } from './stryker-report.js';
import { parseTriageEntries, renderTriageFile, type TriageEntry } from './survivors-file.js';
import { CARRY_FILE, currentState, loadState, mutantCount, plural, readCarriedState, stateFolderHasResults } from './state-carry.js';
import { SwarmCache, swarmKey, testbedHash, type SwarmCacheEntry } from './swarm-cache.js';
import { generatedMutants, runSwarmPhase, runSwarmShare, toPlantable, UNKILLED, type GeneratedMutant } from './swarm-phase.js';
import { mutantCopy } from './workspace.js';
import { writeAtomically } from './write-atomically.js';

export const DEFAULT_OUT = path.join('reports', 'mutation');
export const TRIAGE_FILE = path.join('docs', 'mutation-survivors.md');

export interface MutationRunOptions {
  readonly root: string;
  /** Output folder relative to the root. */
  readonly out: string;
  /** Restrict the run to these files or globs (each inside MUTATE); default all of MUTATE. */
  readonly files?: readonly string[];
  readonly jobs: number;
  readonly budget: SwarmBudget;
  /**
   * Which phases run: both, or only one (the other's results are read from its state), or none:
   * the report of the state as it stands (a run may still be going; its journal is read, not changed).
   */
  readonly phases: 'all' | 'tests' | 'swarm' | 'none';
  /** The carry file a run with an empty state folder starts from (default CARRY_FILE, if it exists). */
  readonly stateFile?: string;
  /** Re-test every mutant in the test phase. */
  readonly force?: boolean;
  /** Accept swarm results produced on another testbed. */
  readonly stale?: boolean;
  readonly onLine: (line: string) => void;
}

/** The commit the working tree is on (with `+dirty` when it has changes), or `unknown`. */
export function currentCommit(root: string): string {
  try {
    const sha = execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no', '--', 'src', 'scripts', 'scenarios', 'package.json', 'package-lock.json'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    return dirty === '' ? sha : `${sha}+dirty`;
  } catch {
    return 'unknown';
  }
}

/** A problem with the options, said in words. */
export class MutationOptionError extends Error {
  override readonly name = 'MutationOptionError';
}

/** The `mutate` globs of a run restricted to `files` (each must lie inside MUTATE). */
export function mutateFor(files: readonly string[] | undefined): readonly string[] {
  if (files === undefined || files.length === 0) return MUTATE;
  for (const f of files) {
    if (!f.includes('*') && !matchesGlobs(f, MUTATE)) throw new MutationOptionError(`${f} is not among the files the mutation run covers (${MUTATE.filter((g) => !g.startsWith('!')).join(', ')}, without tests)`);
  }
  return [...files, ...MUTATE.filter((g) => g.startsWith('!'))];
}

export function reportPaths(root: string, out: string) {
  return { json: path.resolve(root, out, 'mutation-report.json'), md: path.resolve(root, out, 'mutation-report.md') };
}

interface Baseline {
  readonly testbed: string;
  readonly seeds: Readonly<Record<string, number>>;
}

/**
 * The unmutated code must pass the seeds every mutant runs, or every mutant would look killed:
 * runs them once per testbed (and remembers that it did).
 */
async function checkBaseline(o: MutationRunOptions, mutants: readonly GeneratedMutant[], testbed: string): Promise<void> {
  const p = statePaths(o.out);
  const file = path.resolve(o.root, p.state, 'swarm-baseline.json');
  const need = new Map<string, number>();
  for (const m of mutants) for (const s of swarmShares(m.file, o.budget)) need.set(s.scenario, Math.max(need.get(s.scenario) ?? 0, s.seeds));
  const known = JSON.parse((await readFile(file, 'utf8').catch(() => 'null')) ?? 'null') as Baseline | null;
  const todo = [...need].filter(([s, n]) => !(known?.testbed === testbed && (known.seeds[s] ?? 0) >= n));
  if (todo.length === 0) return;
  const copy = await mutantCopy(undefined, o.root);
  const seeds: Record<string, number> = known?.testbed === testbed ? { ...known.seeds } : {};
  try {
    for (const [scenario, n] of todo) {
      o.onLine(`swarm: the unmutated code on ${scenario}, seeds 1 to ${n} (every mutant's seeds must pass without it)`);
      const outcome = await runSwarmShare(copy.dir, { scenario, seeds: n, timeMs: 30 * 60_000 }, path.resolve(o.root, p.swarmOut, 'baseline', scenario.replace(/\.ya?ml$/, '')));
      if (outcome.kind === 'no-json') throw new Error(`the unmutated code's swarm did not run: ${outcome.detail}`);
      const v = classifySwarm(outcome.json);
      if (v.detection !== 'survived') throw new Error(`the unmutated code fails ${scenario} seed ${v.seed} (${v.evidence.join(', ')}): a mutant's failing seed would mean nothing; fix that first`);
      if (v.seeds < n) throw new Error(`the unmutated code ran only ${v.seeds} of ${n} seeds of ${scenario}`);
      seeds[scenario] = n;
    }
  } finally {
    await copy.remove();
  }
  await writeAtomically(file, `${JSON.stringify({ testbed, seeds }, null, 2)}\n`);
}

/** Runs the phases and writes the report. */
export async function runMutation(o: MutationRunOptions): Promise<MutationReport> {
  const mutate = mutateFor(o.files);
  const p = statePaths(o.out);
  const timing: { -readonly [K in keyof Timing]: Timing[K] } = {};
  let report;
  const t0 = performance.now();
  const carry = o.stateFile ?? CARRY_FILE;
  // a state folder without results of its own starts from (or, for a report, reads) the carry file
  const fromCarry = !stateFolderHasResults(o.root, o.out) && existsSync(path.resolve(o.root, carry));
  if (o.phases !== 'none' && fromCarry) {
    const loaded = await loadState(o.root, o.out, carry);
    o.onLine(`state: starting from ${carry} (saved ${loaded.savedAt} on ${loaded.commit}): ${plural(mutantCount(loaded.incremental), 'test-phase result')}, ${plural(loaded.swarmCache.length, 'swarm result')}; what changed since is tested again`);
  }
  let carriedCache: readonly string[] | undefined;
  if (o.phases === 'none') {
    const state = fromCarry ? await readCarriedState(path.resolve(o.root, carry), carry) : await currentState(o.root, o.out, currentCommit(o.root), new Date());
    report = state.incremental ?? undefined;
    if (fromCarry) carriedCache = state.swarmCache;
    if (!report) throw new MutationOptionError(`no test-phase results in ${fromCarry ? carry : p.state}: run npm run mutation first`);
    o.onLine(`report of the state as it stands in ${fromCarry ? carry : p.state} (a run may still be going): ${mutantCount(report)} mutants tested so far`);
  } else if (o.phases === 'swarm') {
    report = await readStrykerReport(path.resolve(o.root, p.incremental));
    if (!report) throw new MutationOptionError(`no test-phase results in ${p.incremental}: run the test phase first (npm run mutation)`);
  } else {
    o.onLine(`tests: StrykerJS over ${o.files?.join(', ') ?? 'the consensus-critical code'}, ${o.jobs} test runner${o.jobs === 1 ? '' : 's'}`);
    report = await runTestPhase({ root: o.root, out: o.out, mutate, jobs: o.jobs, ...(o.force ? { force: true } : {}), onLine: o.onLine });
    timing.testPhaseMs = Math.round(performance.now() - t0);
  }
  const unrun = await unrunTestFiles(o.root, report);
  if (unrun.length > 0) o.onLine(`tests: WARNING: no test of ${unrun.length} selected test file${unrun.length === 1 ? '' : 's'} ran against the mutants, so what only they reach counts as not covered: ${unrun.join(', ')}`);
  const mutants = generatedMutants(report, (f) => matchesGlobs(f, mutate));
  if (mutants.length === 0) throw new MutationOptionError(`StrykerJS generated no mutants in ${o.files?.join(', ') ?? 'the selected files'}`);
  const unkilled = mutants.filter((m) => UNKILLED.includes(m.status));
  o.onLine(`tests: ${mutants.length} mutants; ${mutants.filter((m) => m.status === 'Killed').length} killed, ${mutants.filter((m) => m.status === 'Timeout').length} timed out, ${unkilled.length} not killed (${mutants.filter((m) => m.status === 'Survived').length} survived, ${mutants.filter((m) => m.status === 'NoCoverage').length} not covered, ${mutants.filter((m) => m.status === 'Ignored').length} static: left to the swarm phase)`);

  const testbed = await testbedHash(o.root);
  const commit = currentCommit(o.root);
  const cache = carriedCache ? SwarmCache.parse(path.resolve(o.root, p.swarmCache), carriedCache.join('\n')) : await SwarmCache.open(path.resolve(o.root, p.swarmCache));
  let swarm: { results: ReadonlyMap<string, SwarmCacheEntry>; errors: ReadonlyMap<string, string>; cached: number; ran: readonly string[] };
  if (o.phases === 'tests' || o.phases === 'none') {
    // what an earlier swarm phase found still shows
    const results = new Map<string, SwarmCacheEntry>();
    for (const m of unkilled) {
      const hit = cache.find(swarmKey(m.file, m.at, m.replacement, m.sourceHash), testbed, o.budget, o.stale);
      if (hit) results.set(m.id, hit);
    }
    swarm = { results, errors: new Map(), cached: results.size, ran: [] };
  } else {
    const t1 = performance.now();
    const onSignal = (signal: NodeJS.Signals) => {
      stopEverything();
      o.onLine(`mutation: ${signal}: swarm children stopped, temporary copies removed; the results so far are in ${p.swarmCache} (run again to resume)`);
      process.exit(130);
    };
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    const { MutantTypeChecker } = await import('./type-check.js');
    let checker: InstanceType<typeof MutantTypeChecker> | undefined;
    try {
      if (unkilled.length > 0) await checkBaseline(o, unkilled, testbed);
      swarm = await runSwarmPhase(unkilled, cache, {
        root: o.root,
        out: path.resolve(o.root, p.swarmOut),
        budget: o.budget,
        jobs: o.jobs,
        testbed,
        commit,
        ...(o.stale ? { stale: true } : {}),
        typeCheck: (file, text) => (checker ??= new MutantTypeChecker(o.root)).check(file, text),
        onLine: o.onLine,
      });
    } finally {
      checker?.dispose();
      process.removeListener('SIGINT', onSignal);
      process.removeListener('SIGTERM', onSignal);
    }
    timing.swarmPhaseMs = Math.round(performance.now() - t1);
    timing.swarmRuns = swarm.ran.length;
    timing.compileErrors = swarm.ran.filter((id) => swarm.results.get(id)?.verdict.kind === 'compile-error').length;
  }
  if (timing.testPhaseMs !== undefined) timing.testMutants = mutants.length;

  const triage = await readTriage(o.root);
  const reported = mutants.map((m) => reportedMutant(m, fateOf(m, swarm.results.get(m.id), swarm.errors.get(m.id)), triage.get(m.id)?.verdict));
  // a report of the state as it stands is the files' score only when nothing is missing or stale
  const incomplete = o.phases === 'none' ? await stateGaps(o.root, report, reported, mutate, unrun) : [];
  if (o.phases === 'none') o.onLine(incomplete.length === 0 ? 'report: the state is complete: every mutant has its final result, made on the mutated files and selected tests as they are' : `report: partial: ${incomplete.join('; ')}`);
  const result = buildReport(reported, { date: new Date().toISOString(), commit, budget: o.budget, timing, ...(o.phases === 'none' ? (incomplete.length > 0 ? { partial: incomplete } : { fromState: true }) : {}) });
  const paths = reportPaths(o.root, o.out);
  await writeAtomically(paths.json, `${JSON.stringify(result, null, 2)}\n`);
  await writeAtomically(paths.md, renderMarkdown(result));
  o.onLine('');
  for (const line of summaryLines(result)) o.onLine(line);
  if (timingWords(timing) !== '') o.onLine(`timing (wall): ${timingWords(timing)}`);
  o.onLine(`report: ${path.relative(o.root, paths.md)} and ${path.relative(o.root, paths.json)}; StrykerJS's own: ${p.html}`);
  return result;
}

/**
 * What keeps a report of a run's state from being the files' score: mutants without a final
 * result (not tested, or not swarm-tested on this testbed), mutated files or selected test files
 * whose text differs from the text the results were made on, and selected test files that none
 * of the results ran (`unrunTests`: added since, say). Empty: the state is complete.
 */
export async function stateGaps(root: string, report: StrykerReport, mutants: readonly ReportedMutant[], mutate: readonly string[], unrunTests: readonly string[] = []): Promise<string[]> {
  const gaps: string[] = [];
  const untested = mutants.filter((m) => m.fate.kind === 'not-swarmed' && m.fate.tests === 'Pending').length;
  const unswarmed = mutants.filter((m) => m.fate.kind === 'not-swarmed' && m.fate.tests !== 'Pending').length;
  if (untested > 0) gaps.push(`${plural(untested, 'mutant')} not tested yet`);
  if (unswarmed > 0) gaps.push(`${plural(unswarmed, 'mutant')} the tests did not kill not swarm-tested on this testbed`);
  const onDisk = (rel: string) => readFile(path.join(root, rel), 'utf8').catch(() => undefined);
  const changed: string[] = [];
  for (const [rel, f] of Object.entries(report.files)) if (matchesGlobs(rel, mutate) && (await onDisk(rel)) !== f.source) changed.push(rel);
  for (const [rel, f] of Object.entries(report.testFiles ?? {})) if (rel !== '' && f.source !== undefined && (await onDisk(rel)) !== f.source) changed.push(rel);
  if (changed.length > 0) gaps.push(`changed since their results: ${changed.slice(0, 5).join(', ')}${changed.length > 5 ? ` and ${changed.length - 5} more` : ''}`);
  if (unrunTests.length > 0) gaps.push(`selected test files no result was made with: ${unrunTests.slice(0, 5).join(', ')}${unrunTests.length > 5 ? ` and ${unrunTests.length - 5} more` : ''}`);
  return gaps;
}

/** Reads the last run's report. */
export async function readMutationReport(root: string, out: string): Promise<MutationReport> {
  const file = reportPaths(root, out).json;
  const text = await readFile(file, 'utf8').catch(() => undefined);
  if (text === undefined) throw new MutationOptionError(`no mutation report at ${path.relative(root, file)}: run npm run mutation first`);
  try {
    return JSON.parse(text) as MutationReport;
  } catch (e) {
    throw new MutationOptionError(`${path.relative(root, file)} is not a mutation report (${(e as Error).message}): run npm run mutation again to rewrite it`);
  }
}

async function readTriage(root: string): Promise<Map<string, TriageEntry>> {
  const file = path.join(root, TRIAGE_FILE);
  return existsSync(file) ? parseTriageEntries(await readFile(file, 'utf8'), TRIAGE_FILE) : new Map<string, TriageEntry>();
}

function triageEntry(m: ReportedMutant, old: TriageEntry | undefined): TriageEntry {
  return {
    id: m.id,
    file: m.file,
    line: m.line,
    lines: [`### ${m.id}`],
    where: m.where,
    mutatorName: m.mutatorName,
    original: m.original,
    replacement: m.replacement,
    result: fateWords(m.fate),
    verdict: old?.verdict ?? { kind: 'open', text: '' },
  };
}

/**
 * Rewrites the triage file from the last report: every survivor (verdict kept, or `open`), every
 * killed mutant that carries a verdict, and the entries of files the report did not cover, as
 * they were. Returns what changed, in words.
 */
export async function regenerateTriageFile(root: string, out: string): Promise<string[]> {
  const report = await readMutationReport(root, out);
  const file = path.join(root, TRIAGE_FILE);
  const old = await readTriage(root);
  const covered = new Set(report.files.map((f) => f.file));
  const inReport = new Set(report.mutants.map((m) => m.id));
  const survivors = report.mutants.filter((m) => isSurvivor(m.fate)).map((m) => triageEntry(m, old.get(m.id)));
  const nowKilled = report.mutants.filter((m) => !isSurvivor(m.fate) && old.has(m.id)).map((m) => triageEntry(m, old.get(m.id)));
  // a partial report has not tested every mutant of its files yet: an entry it does not hold is kept, not dropped
  const kept = [...old.values()].filter((e) => !covered.has(e.file) || (report.partial !== undefined && !inReport.has(e.id)));
  const dropped = report.partial ? [] : [...old.values()].filter((e) => covered.has(e.file) && !inReport.has(e.id));
  await writeAtomically(file, renderTriageFile({ date: report.date, commit: report.commit, reportPath: path.join(out, 'mutation-report.json'), ...(report.partial ? { partial: true } : {}) }, survivors, nowKilled, kept));
  const newOnes = survivors.filter((s) => !old.has(s.id)).length;
  return [
    `${TRIAGE_FILE}: ${survivors.length} survivor${survivors.length === 1 ? '' : 's'} (${newOnes} new, open), ${nowKilled.length} triaged mutants now killed, ${kept.length} ${kept.length === 1 ? 'entry' : 'entries'} ${report.partial ? 'this partial report does not hold' : 'of files this report did not cover'} kept as they were`,
    ...dropped.map((e) => `dropped ${e.id} (${e.verdict.kind}): StrykerJS no longer generates it (its code changed)`),
  ];
}

/** Plants a mutant of the last report and replays one swarm seed on it, keeping the outputs. */
export async function replayMutant(o: { root: string; out: string; id: string; seed: number; scenario?: string; onLine: (line: string) => void }): Promise<number> {
  const report = await readMutationReport(o.root, o.out);
  const m = report.mutants.find((x) => x.id === o.id);
  if (!m) throw new MutationOptionError(`no mutant ${o.id} in the last report (${report.mutants.length} mutants of ${report.files.map((f) => f.file).join(', ')})`);
  const scenario = o.scenario ?? (m.fate.kind === 'killed-by-swarm' || (m.fate.kind === 'runtime-error' && m.fate.scenario) ? (m.fate as { scenario: string }).scenario : scenariosFor(m.file)[0]!);
  const plant = toPlantable({ ...m, at: m.at });
  const copy = await mutantCopy(plant, o.root);
  const dir = path.resolve(o.root, o.out, 'replay', plant.id);
  await mkdir(dir, { recursive: true });
  try {
    o.onLine(`${m.id}: ${m.file}:${m.where} ${m.mutatorName} ${JSON.stringify(m.original)} → ${JSON.stringify(m.replacement)} planted; swarm ${scenario} --seed ${o.seed}`);
    const child = await runChild([path.join(copy.dir, 'bin', 'twinchain.js'), 'swarm', path.join(copy.dir, 'scenarios', scenario), '--seed', String(o.seed), '--out', dir], path.join(dir, 'swarm.log'), 30 * 60_000);
    o.onLine((await readFile(path.join(dir, 'swarm.log'), 'utf8')).trimEnd());
    o.onLine(`outputs (report, trace) in ${path.relative(o.root, dir)}/seed-${o.seed}/`);
    return child.code ?? 1;
  } finally {
    await copy.remove();
  }
}
