/**
 * The swarm phase of `npm run mutation`: each mutant the tests did not kill is planted in a
 * temporary copy of the repository (workspace.ts) and the copy's `twinchain swarm` runs it within
 * a bounded budget over the swarm files that fit its file (mutation-targets.ts). A failing seed
 * kills it; a mutant that does not type-check, crashes or hangs is killed by that. Results go to
 * a cache as they come, so an interrupted phase resumes.
 */
import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { classifySwarm, type SwarmJson } from './classify.js';
import { locationLabel, replaceAt, textAt, type SourceLocation } from './location-patch.js';
import { stableIds } from './mutant-id.js';
import { swarmShares, type ScenarioShare, type SwarmBudget } from './mutation-targets.js';
import { runChild } from './runner.js';
import type { StrykerReport, StrykerStatus } from './stryker-report.js';
import { sourceHash, swarmKey, type SwarmCache, type SwarmCacheEntry, type SwarmVerdict } from './swarm-cache.js';
import { MutantPatchError, mutantCopy, type LocatedPatch, type Plantable } from './workspace.js';

/** The statuses of mutants the tests did not kill, which go on to swarm. */
export const UNKILLED: readonly StrykerStatus[] = ['Survived', 'NoCoverage', 'Ignored'];

/** A generated mutant, named and located. */
export interface GeneratedMutant {
  /** Stable id (mutant-id.ts). */
  readonly id: string;
  readonly file: string;
  readonly mutatorName: string;
  readonly at: SourceLocation;
  readonly original: string;
  readonly replacement: string;
  readonly status: StrykerStatus;
  readonly statusReason?: string;
  /** Tests that killed it (StrykerJS's ids: `file#name`). */
  readonly killedBy: readonly string[];
  /** The hash of the file's source it was generated from. */
  readonly sourceHash: string;
}

/** The mutants of a StrykerJS report, named, for the files selected by `inScope`. */
export function generatedMutants(report: StrykerReport, inScope: (file: string) => boolean = () => true): GeneratedMutant[] {
  const tests = new Map<string, string>();
  for (const [file, tf] of Object.entries(report.testFiles ?? {})) for (const t of tf.tests) tests.set(t.id, t.name === '' ? t.id : `${file}#${t.name}`);
  const out: GeneratedMutant[] = [];
  for (const [file, f] of Object.entries(report.files).sort(([a], [b]) => a.localeCompare(b))) {
    if (!inScope(file)) continue;
    const ids = stableIds(file, f.source, f.mutants);
    const hash = sourceHash(f.source);
    f.mutants.forEach((m, i) => {
      const id = ids[i];
      if (id === undefined) return;
      out.push({
        id,
        file,
        mutatorName: m.mutatorName,
        at: m.location,
        original: textAt(f.source, m.location),
        replacement: m.replacement ?? '',
        status: m.status,
        ...(m.statusReason === undefined ? {} : { statusReason: m.statusReason }),
        killedBy: (m.killedBy ?? []).map((t) => tests.get(t) ?? t),
        sourceHash: hash,
      });
    });
  }
  return out.sort((a, b) => a.file.localeCompare(b.file) || a.at.start.line - b.at.start.line || a.at.start.column - b.at.start.column || a.id.localeCompare(b.id));
}

export function toPlantable(m: Pick<GeneratedMutant, 'id' | 'file' | 'at' | 'original' | 'replacement'>): Plantable {
  const patch: LocatedPatch = { file: m.file, at: m.at, original: m.original, replace: m.replacement };
  return { id: m.id.replace(/[^\w.-]/g, '-'), patches: [patch] };
}

/** Type-checks a mutated file (type-check.ts); injected so the phase's tests need no compiler. */
export type TypeCheck = (file: string, mutatedText: string) => string[];

export interface SwarmPhaseOptions {
  readonly root: string;
  /** Where each mutant's swarm outputs go (a folder per mutant, removed when it survives). */
  readonly out: string;
  readonly budget: SwarmBudget;
  /** Mutants swarm-tested at once (each swarm child runs one seed at a time). */
  readonly jobs: number;
  readonly testbed: string;
  readonly commit?: string;
  /** Accept cached results produced on another testbed. */
  readonly stale?: boolean;
  readonly typeCheck?: TypeCheck;
  readonly onLine?: (line: string) => void;
  /** Runs one scenario's share against a planted copy (default: the copy's `twinchain swarm`). */
  readonly runShare?: (copyDir: string, share: ScenarioShare, out: string) => Promise<ShareOutcome>;
  /** Runs unit tests (paths relative to the copy) in a planted copy (default: vitest). */
  readonly runTests?: (copyDir: string, files: readonly string[], out: string) => Promise<UnitTestOutcome>;
}

/** What the unit tests showed in a planted copy: passed, or the failing tests (or the error that stopped them). */
export type UnitTestOutcome = { readonly passed: true } | { readonly passed: false; readonly failed: readonly string[] };

/** The unit tests next to a file: its folder's *.test.ts, relative to the root. */
export async function unitTestsOf(root: string, file: string): Promise<string[]> {
  const dir = path.posix.dirname(file);
  const names = await readdir(path.join(root, dir)).catch(() => [] as string[]);
  return names.filter((n) => n.endsWith('.test.ts')).sort().map((n) => `${dir}/${n}`);
}

/** Time the unit tests of one folder may take in a planted copy. */
const UNIT_TESTS_MS = 15 * 60_000;

/** Runs vitest on `files` in the planted copy (its own root, no configuration file: vitest's defaults). */
export async function runUnitTests(copyDir: string, files: readonly string[], out: string): Promise<UnitTestOutcome> {
  await mkdir(out, { recursive: true });
  const json = path.join(out, 'vitest.json');
  const vitest = path.join(copyDir, 'node_modules', 'vitest', 'vitest.mjs');
  const child = await runChild([vitest, 'run', '--root', copyDir, '--testTimeout', '120000', '--hookTimeout', '120000', '--reporter=json', `--outputFile=${json}`, ...files.map((f) => path.join(copyDir, f))], path.join(out, 'vitest.log'), UNIT_TESTS_MS);
  if (child.code === 0) return { passed: true };
  const report = JSON.parse((await readFile(json, 'utf8').catch(() => 'null')) ?? 'null') as { testResults?: Array<{ name: string; message?: string; assertionResults?: Array<{ fullName: string; status: string }> }> } | null;
  const failed = (report?.testResults ?? []).flatMap((f) => {
    const rel = path.relative(copyDir, f.name).split(path.sep).join('/');
    const tests = (f.assertionResults ?? []).filter((a) => a.status === 'failed').map((a) => `${rel}#${a.fullName}`);
    return tests.length > 0 ? tests : f.message ? [`${rel}: ${f.message.split('\n')[0]}`] : [];
  });
  const why = child.timedOut ? `the unit tests did not finish within ${UNIT_TESTS_MS / 60_000} min` : `vitest exited with ${child.signal ?? `code ${child.code}`}: ${child.stderr.trim().split('\n').slice(-2).join(' | ')}`;
  return { passed: false, failed: failed.length > 0 ? failed : [why] };
}

/** What one scenario's swarm run showed. */
export type ShareOutcome =
  | { readonly kind: 'json'; readonly json: unknown }
  | { readonly kind: 'no-json'; readonly timedOut: boolean; readonly detail: string };

/** Time a swarm child gets past its share's budget to finish the seed it is running and start up. */
export const SWARM_GRACE_MS = 90_000;

/** Runs the planted copy's `twinchain swarm <scenario> --seeds N --until-fail --budget T --jobs 1`. */
export async function runSwarmShare(copyDir: string, share: ScenarioShare, out: string): Promise<ShareOutcome> {
  await rm(out, { recursive: true, force: true });
  await mkdir(out, { recursive: true });
  const args = [path.join(copyDir, 'bin', 'twinchain.js'), 'swarm', path.join(copyDir, 'scenarios', share.scenario), '--seeds', String(share.seeds), '--until-fail', '--budget', `${Math.max(1, Math.round(share.timeMs / 1000))}s`, '--jobs', '1', '--out', out];
  const log = path.join(out, 'swarm.log');
  const child = await runChild(args, log, share.timeMs + SWARM_GRACE_MS);
  const text = await readFile(path.join(out, 'swarm.json'), 'utf8').catch(() => undefined);
  if (text !== undefined) return { kind: 'json', json: JSON.parse(text) };
  const how = child.timedOut ? `was killed after ${Math.round((share.timeMs + SWARM_GRACE_MS) / 1000)} s` : `exited with ${child.signal ?? `code ${child.code}`}`;
  return { kind: 'no-json', timedOut: child.timedOut, detail: `swarm ${share.scenario} ${how} without writing swarm.json: ${child.stderr.trim().split('\n').slice(-3).join(' | ') || 'no output'}` };
}

/** The verdict of one share's outcome, or null when every seed passed. */
export function shareVerdict(share: ScenarioShare, outcome: ShareOutcome): { verdict: SwarmVerdict | null; seeds: number } {
  if (outcome.kind === 'no-json') {
    return { verdict: outcome.timedOut ? { kind: 'timeout', scenario: share.scenario, evidence: [outcome.detail] } : { kind: 'runtime-error', scenario: share.scenario, seed: null, evidence: [outcome.detail] }, seeds: 0 };
  }
  const v = classifySwarm(outcome.json);
  if (v.detection === 'survived' || v.seed === null) return { verdict: null, seeds: v.seeds };
  const run = (outcome.json as SwarmJson).runs.find((r) => r.seed === v.seed);
  if (v.detection === 'stall' && run?.verdict === 'error') return { verdict: { kind: 'runtime-error', scenario: share.scenario, seed: v.seed, evidence: v.evidence }, seeds: v.seeds };
  return { verdict: { kind: 'killed', by: v.detection === 'caught' ? 'invariant' : 'expectation', scenario: share.scenario, seed: v.seed, evidence: v.evidence }, seeds: v.seeds };
}

/** The command that replays a swarm-killed mutant's failing seed. */
export function replayCommand(id: string, seed: number): string {
  return `npm run mutation -- --replay ${id} --seed ${seed}`;
}

/** Swarm-tests one mutant (type check, plant, each share until a seed fails); null when it cannot be planted. */
export async function swarmOne(m: GeneratedMutant, o: SwarmPhaseOptions): Promise<SwarmCacheEntry | { error: string }> {
  const started = performance.now();
  const entry = (verdict: SwarmVerdict, seeds: Record<string, number>): SwarmCacheEntry => ({
    key: swarmKey(m.file, m.at, m.replacement, m.sourceHash),
    id: m.id,
    file: m.file,
    at: m.at,
    replacement: m.replacement,
    testbed: o.testbed,
    budget: o.budget,
    verdict,
    seeds,
    wallMs: Math.round(performance.now() - started),
    when: new Date().toISOString(),
    ...(o.commit === undefined ? {} : { commit: o.commit }),
  });
  const current = await readFile(path.join(o.root, m.file), 'utf8').catch(() => undefined);
  if (current === undefined) return { error: `${m.file} does not exist any more` };
  if (sourceHash(current) !== m.sourceHash) return { error: `${m.file} changed since its mutants were generated: run the test phase again` };
  if (o.typeCheck) {
    const errors = o.typeCheck(m.file, replaceAt(current, m.at, m.replacement));
    if (errors.length > 0) return entry({ kind: 'compile-error', evidence: errors.slice(0, 3) }, {});
  }
  let copy;
  try {
    copy = await mutantCopy(toPlantable(m), o.root);
  } catch (e) {
    return { error: e instanceof MutantPatchError ? e.message : `cannot make the patched copy: ${(e as Error).message}` };
  }
  const seeds: Record<string, number> = {};
  const out = path.join(o.out, toPlantable(m).id);
  try {
    // StrykerJS leaves static mutants out: the unit tests next to the file get their turn here
    if (m.status === 'Ignored') {
      const files = await unitTestsOf(o.root, m.file);
      if (files.length > 0) {
        const tests = await (o.runTests ?? runUnitTests)(copy.dir, files, path.join(out, 'unit-tests'));
        if (!tests.passed) return entry({ kind: 'killed-by-tests', tests: tests.failed.slice(0, 5) }, seeds);
      }
    }
    for (const share of swarmShares(m.file, o.budget)) {
      const outcome = await (o.runShare ?? runSwarmShare)(copy.dir, share, path.join(out, share.scenario.replace(/\.ya?ml$/, '')));
      const { verdict, seeds: n } = shareVerdict(share, outcome);
      seeds[share.scenario] = n;
      if (verdict) return entry(verdict, seeds);
    }
  } finally {
    await copy.remove();
  }
  // nothing to keep of a survivor's passing runs
  await rm(out, { recursive: true, force: true });
  return entry({ kind: 'survived' }, seeds);
}

export function verdictLine(m: GeneratedMutant, e: SwarmCacheEntry): string {
  const v = e.verdict;
  const what = `${m.id} ${m.file}:${locationLabel(m.at)} ${m.mutatorName}`;
  const seeds = Object.values(e.seeds).reduce((a, b) => a + b, 0);
  switch (v.kind) {
    case 'killed-by-tests':
      return `  ${what}: killed by the unit tests in its planted copy (${v.tests[0] ?? ''})`;
    case 'killed':
      return `  ${what}: killed by swarm (${v.by === 'invariant' ? v.evidence.join(', ') : `expectation ${v.evidence.join(', ')}`}) on ${v.scenario} seed ${v.seed}, ${(e.wallMs / 1000).toFixed(1)} s`;
    case 'runtime-error':
      return `  ${what}: runtime error on ${v.scenario}${v.seed === null ? '' : ` seed ${v.seed}`}: ${v.evidence.join('; ').slice(0, 160)}`;
    case 'timeout':
      return `  ${what}: timed out on ${v.scenario}`;
    case 'compile-error':
      return `  ${what}: compile error: ${v.evidence[0]?.slice(0, 160) ?? ''}`;
    case 'survived':
      return `  ${what}: survived ${seeds} seeds in ${(e.wallMs / 1000).toFixed(1)} s`;
  }
}

export interface SwarmPhaseResult {
  readonly results: ReadonlyMap<string, SwarmCacheEntry>;
  /** Mutants that could not be swarm-tested, with why. */
  readonly errors: ReadonlyMap<string, string>;
  /** Results taken from the cache. */
  readonly cached: number;
  /** The mutants run this time (ids). */
  readonly ran: readonly string[];
}

/** Swarm-tests the mutants (cached results first), `jobs` at a time. */
export async function runSwarmPhase(mutants: readonly GeneratedMutant[], cache: SwarmCache, o: SwarmPhaseOptions): Promise<SwarmPhaseResult> {
  const results = new Map<string, SwarmCacheEntry>();
  const errors = new Map<string, string>();
  const todo: GeneratedMutant[] = [];
  for (const m of mutants) {
    const hit = cache.find(swarmKey(m.file, m.at, m.replacement, m.sourceHash), o.testbed, o.budget, o.stale);
    if (hit) results.set(m.id, hit);
    else todo.push(m);
  }
  const cached = results.size;
  if (mutants.length > 0) o.onLine?.(`swarm: ${mutants.length} mutants the tests did not kill; ${cached} known from the cache, ${todo.length} to run, ${o.jobs} at a time`);
  let next = 0;
  let done = 0;
  const ran: string[] = [];
  const worker = async () => {
    while (next < todo.length) {
      const m = todo[next++]!;
      const r = await swarmOne(m, o);
      done++;
      if ('error' in r) {
        errors.set(m.id, r.error);
        o.onLine?.(`  [${done}/${todo.length}] ${m.id}: NOT RUN: ${r.error}`);
        continue;
      }
      await cache.add(r);
      results.set(m.id, r);
      ran.push(m.id);
      o.onLine?.(`  [${done}/${todo.length}]${verdictLine(m, r).slice(1)}`);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(o.jobs, todo.length)) }, worker));
  return { results, errors, cached, ran };
}
