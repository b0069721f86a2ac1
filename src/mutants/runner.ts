import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Mutant } from './catalogue.js';
import { classifySwarm, combine, type Detection, type ScenarioVerdict } from './classify.js';
import { MutantPatchError, mutantCopy, removeAllCopies, repoRoot } from './workspace.js';

export interface MutantRunOptions {
  /** Wall-clock budget for the whole mutant (all its scenarios). */
  readonly budgetMs: number;
  readonly jobs: number;
  /** Folder for this mutant's swarm outputs and logs (kept: they hold the failing seeds' reports). */
  readonly out: string;
  /** Replay this one seed instead of scanning. */
  readonly seed?: number;
  /** Repository to copy (default: the one this code runs from). */
  readonly from?: string;
  /** Progress lines. */
  readonly onLine?: (line: string) => void;
  /** Shrink the failing seed found (twinchain shrink in the patched copy, with `jobs`), within this wall time. */
  readonly shrink?: {
    readonly budgetMs: number;
    /** The command printed and recorded for the shrink, from the mutant's replay command (the CLI's mutantShrinkCommand). */
    readonly command: (replay: string) => string;
  };
}

/** What shrinking a mutant's failing seed gave (the copy's shrink.json, in short). */
export interface MutantShrink {
  readonly command: string;
  /** The shrunk scenario (kept after the copy is gone). */
  readonly file: string | null;
  readonly target: { readonly kind: string; readonly name: string } | null;
  readonly eventsBefore: number;
  readonly eventsKept: number;
  /** Network settings (loss, latency, link overrides) before and kept. */
  readonly settingsBefore: number;
  readonly settingsKept: number;
  readonly nodesBefore: number;
  readonly nodesAfter: number;
  readonly durationMsBefore: number;
  readonly durationMsAfter: number;
  readonly candidates: number;
  readonly minimal: boolean;
  /** The written file failed the same way twice with one trace digest (on the mutant). */
  readonly verified: boolean;
  readonly wallMs: number;
  readonly error?: string;
  /** What the unmutated code made of the shrunk scenario (added by the mutants command): a pass shows it is a report of the planted bug. */
  readonly unmutated?: { readonly verdict: 'pass' | 'fail' | 'error'; readonly failed?: readonly string[]; readonly error?: string };
}

export interface MutantReport {
  readonly id: string;
  readonly title: string;
  /** `error`: the mutant could not be planted or its swarm could not run (see `error`). */
  readonly detection: Detection | 'error';
  readonly scenario: string | null;
  readonly seed: number | null;
  /** Wall ms from the start of the mutant (copy and the swarm child's start-up included) to its first failing seed. */
  readonly afterMs: number | null;
  readonly evidence: readonly string[];
  readonly seeds: number;
  readonly replay: string | null;
  readonly wallMs: number;
  readonly error?: string;
  readonly scenarios: ReadonlyArray<ScenarioVerdict & { readonly scenario: string; readonly wallMs: number }>;
  /** With options.shrink, for a failing seed. */
  readonly shrink?: MutantShrink;
}

const children = new Set<ChildProcess>();
let exitHook = false;

/** Kills every swarm child still running and removes every temporary copy (on exit or a signal). */
export function stopEverything(): void {
  for (const child of children) child.kill('SIGKILL');
  children.clear();
  removeAllCopies();
}

/** Time after the budget a child may take to finish its running seeds before it is killed. */
const GRACE_MS = 90_000;

/** Runs `node <args>` (in `cwd`, by default this process's) with its output in `log`; killed after `timeoutMs` (and on exit or a signal, see stopEverything). */
export function runChild(args: readonly string[], log: string, timeoutMs: number, cwd?: string): Promise<{ code: number | null; signal: string | null; timedOut: boolean; stderr: string }> {
  if (!exitHook) {
    exitHook = true;
    process.once('exit', stopEverything);
  }
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], ...(cwd === undefined ? {} : { cwd }) });
    children.add(child);
    const file = createWriteStream(log);
    let stderr = '';
    child.stdout.pipe(file, { end: false });
    child.stderr.on('data', (d: Buffer) => {
      stderr = (stderr + d.toString()).slice(-4000);
      file.write(d);
    });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('error', (e) => {
      clearTimeout(timer);
      children.delete(child);
      file.end();
      reject(e);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      children.delete(child);
      file.end(() => resolve({ code, signal, timedOut, stderr }));
    });
  });
}

export function replayCommand(id: string, seed: number): string {
  return `npx twinchain mutants --only ${id} --seed ${seed}`;
}

/** Time after its budget a shrink child may take (its verification runs and the outputs) before it is killed. */
const SHRINK_GRACE_MS = 120_000;

/** Runs the patched copy's `twinchain shrink` on a failing seed and reads what it wrote. */
async function shrinkSeed(copyDir: string, mutant: Mutant, scenario: string, seed: number, options: MutantRunOptions & { shrink: NonNullable<MutantRunOptions['shrink']> }): Promise<MutantShrink> {
  const out = path.resolve(options.out, 'shrink');
  await rm(out, { recursive: true, force: true });
  await mkdir(out, { recursive: true });
  const command = options.shrink.command(replayCommand(mutant.id, seed));
  // run in the copy, so the scenario reads as scenarios/<file> in what shrink writes
  const args = [path.join(copyDir, 'bin', 'twinchain.js'), 'shrink', path.join('scenarios', scenario), '--seed', String(seed), '--jobs', String(options.jobs), '--budget', `${Math.max(1, Math.round(options.shrink.budgetMs / 1000))}s`, '--out', out];
  options.onLine?.(`  ${mutant.id}: shrink ${scenario} --seed ${seed} --jobs ${options.jobs}`);
  const started = performance.now();
  const child = await runChild(args, path.join(out, 'shrink.log'), options.shrink.budgetMs + SHRINK_GRACE_MS, copyDir);
  const wallMs = Math.round(performance.now() - started);
  const text = await readFile(path.join(out, 'shrink.json'), 'utf8').catch(() => undefined);
  const empty = { command, file: null, target: null, eventsBefore: 0, eventsKept: 0, settingsBefore: 0, settingsKept: 0, nodesBefore: 0, nodesAfter: 0, durationMsBefore: 0, durationMsAfter: 0, candidates: 0, minimal: false, verified: false, wallMs };
  if (text === undefined) {
    const why = child.timedOut ? 'was killed after its budget and grace time' : `exited with ${child.signal ?? `code ${child.code}`}`;
    return { ...empty, error: `shrink ${why} without writing shrink.json: ${child.stderr.trim().split('\n').slice(-3).join(' | ') || 'no output'} (log ${path.join(out, 'shrink.log')})` };
  }
  const j = JSON.parse(text) as {
    target: { kind: string; name: string };
    original: { events: number; settings: number; nodes: number; durationMs: number };
    shrunk: { events: number; settings: number; nodes: number; durationMs: number; file: string };
    minimal: boolean;
    verified: { reproduced: boolean[]; deterministic: boolean } | null;
    candidates: { runs: number };
    wallMs: number;
  };
  // the copy goes: keep the shrunk scenario beside the mutant's other outputs
  const file = path.join(out, 'shrunk.yaml');
  return {
    command,
    file,
    target: j.target,
    eventsBefore: j.original.events,
    eventsKept: j.shrunk.events,
    settingsBefore: j.original.settings,
    settingsKept: j.shrunk.settings,
    nodesBefore: j.original.nodes,
    nodesAfter: j.shrunk.nodes,
    durationMsBefore: j.original.durationMs,
    durationMsAfter: j.shrunk.durationMs,
    candidates: j.candidates.runs,
    minimal: j.minimal,
    verified: j.verified !== null && j.verified.deterministic && j.verified.reproduced.every(Boolean),
    wallMs,
  };
}

/**
 * Plants one mutant in a temporary copy of the repository and runs the copy's swarm on each of
 * its scenarios (until a failing seed or the budget), then removes the copy.
 */
export async function runMutant(mutant: Mutant, options: MutantRunOptions): Promise<MutantReport> {
  const started = performance.now();
  const elapsed = () => performance.now() - started;
  const base = { id: mutant.id, title: mutant.title };
  const failed = (error: string, scenarios: MutantReport['scenarios'] = []): MutantReport => ({ ...base, detection: 'error', scenario: null, seed: null, afterMs: null, evidence: [], seeds: 0, replay: null, wallMs: Math.round(elapsed()), error, scenarios });
  let copy;
  try {
    copy = await mutantCopy(mutant, options.from ?? repoRoot());
  } catch (e) {
    return failed(e instanceof MutantPatchError ? e.message : `cannot make the patched copy: ${(e as Error).message}`);
  }
  const scenarios: Array<ScenarioVerdict & { scenario: string; wallMs: number }> = [];
  let shrink: MutantShrink | undefined;
  let detectionMs: number | undefined;
  try {
    scenarios: for (const scenario of mutant.scenarios) {
      // a seed that only stalls does not end the search: scan on from the next seed, within the budget
      for (let from = 1; ; ) {
        const remaining = options.budgetMs - elapsed();
        if (options.seed === undefined && remaining < 1000) break scenarios;
        const name = scenario.replace(/\.ya?ml$/, '');
        const out = path.join(options.out, from === 1 ? name : `${name}-from-${from}`);
        await rm(out, { recursive: true, force: true });
        await mkdir(out, { recursive: true });
        const scan = options.seed === undefined ? ['--until-fail', '--budget', `${Math.max(1, Math.floor(remaining / 1000))}s`, '--from', String(from)] : ['--seed', String(options.seed)];
        const args = [path.join(copy.dir, 'bin', 'twinchain.js'), 'swarm', path.join(copy.dir, 'scenarios', scenario), ...scan, '--jobs', String(options.jobs), '--out', out];
        options.onLine?.(`  ${mutant.id}: swarm ${scenario} ${scan.join(' ')} --jobs ${options.jobs}`);
        const scenarioStart = elapsed();
        const child = await runChild(args, path.join(out, 'swarm.log'), Math.max(remaining, 60_000) + GRACE_MS);
        // a one-seed replay writes its swarm.json in the seed's folder
        const json = await readFile(path.join(out, options.seed === undefined ? '' : `seed-${options.seed}`, 'swarm.json'), 'utf8').catch(() => undefined);
        if (json === undefined) {
          const why = child.timedOut ? 'was killed after its budget and grace time' : `exited with ${child.signal ?? `code ${child.code}`}`;
          return failed(`swarm of ${scenario} ${why} without writing swarm.json: ${child.stderr.trim().split('\n').slice(-3).join(' | ') || 'no output'} (log ${path.join(out, 'swarm.log')})`, scenarios);
        }
        const parsed = JSON.parse(json) as { wallMs?: number };
        const verdict = classifySwarm(parsed);
        // the child's start-up (loading the sources) counts too: what swarm.json's clock did not see
        const startup = typeof parsed.wallMs === 'number' ? Math.max(0, elapsed() - scenarioStart - parsed.wallMs) : 0;
        const shifted = { ...verdict, afterMs: verdict.afterMs === null ? null : Math.round(scenarioStart + startup + verdict.afterMs) };
        scenarios.push({ ...shifted, scenario, wallMs: Math.round(elapsed() - scenarioStart) });
        if (verdict.detection === 'caught') break scenarios;
        if (verdict.detection === 'survived' || verdict.seed === null || options.seed !== undefined) break;
        options.onLine?.(`  ${mutant.id}: seed ${verdict.seed} only stalled (${verdict.evidence.join('; ')}); scanning on`);
        from = verdict.seed + 1;
      }
    }
    const found = combine(scenarios);
    if (options.shrink && found.seed !== null && found.scenario !== null && (found.detection === 'caught' || found.detection === 'stall')) {
      detectionMs = elapsed();
      shrink = await shrinkSeed(copy.dir, mutant, found.scenario, found.seed, { ...options, shrink: options.shrink });
    }
  } finally {
    await copy.remove();
  }
  const best = combine(scenarios);
  return {
    ...base,
    detection: best.detection,
    scenario: best.scenario,
    seed: best.seed,
    afterMs: best.afterMs,
    evidence: best.evidence,
    seeds: scenarios.reduce((n, s) => n + s.seeds, 0),
    replay: best.seed === null ? null : replayCommand(mutant.id, best.seed),
    wallMs: Math.round(detectionMs ?? elapsed()),
    scenarios,
    ...(shrink ? { shrink } : {}),
  };
}
