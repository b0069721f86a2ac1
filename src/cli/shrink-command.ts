import { writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import {
  CandidatePool,
  drawSwarm,
  firstViolation,
  loadScenarioFile,
  reproduces,
  runScenario,
  scenarioYaml,
  seconds,
  shellWord,
  ShrinkError,
  Shrinker,
  writeRunOutputs,
  type CandidateRunner,
  type FaultInterval,
  type Scenario,
  type ScenarioResult,
  type ShrinkProgress,
  type ShrinkResult,
  type ShrinkTarget,
} from '../sim/index.js';
import { CliError } from './cli-error.js';
import type { CliIo } from './io.js';
import { makeOutputFolder } from './output-path.js';
import { integerOption, parseOptions } from './parse-options.js';
import { loadScenarioOrExit, parseSeed } from './run-command.js';
import { localCandidateRunner, WorkerCandidateRunner } from './shrink-pool.js';
import { budgetOption } from './swarm-command.js';
import { DEFAULT_SHRINK_BUDGET_MS, shrinkCommand } from './seed-commands.js';


/** The scenario of a failing run with every event explicit: the swarm seed's draw, or the file itself with its seed. */
export function expandedRun(scenario: Scenario, file: string, seed: string | number, plain: boolean): { scenario: Scenario; how: string } {
  let expanded: Scenario;
  let how: string;
  if (scenario.swarm && !plain) {
    if (typeof seed !== 'number' || !Number.isSafeInteger(seed) || seed < 0) throw new CliError(`a swarm seed is a whole number ≥ 0 (got "${String(seed)}"); --plain shrinks the file's own run with that seed`);
    expanded = drawSwarm(scenario, seed).scenario;
    how = `the swarm draw of seed ${seed}, as \`twinchain swarm ${file} --seed ${seed}\` runs it`;
  } else {
    expanded = { ...scenario, seed };
    how = `seed ${String(seed)}, as \`twinchain run ${file} --seed ${String(seed)}\` runs it`;
  }
  // recordings by absolute path: candidates are read from anywhere
  const workloads = expanded.workloads.map((w) => (w.kind === 'replay' ? { ...w, file: path.resolve(path.dirname(file), w.file) } : w));
  const { swarm: _swarm, ...rest } = expanded;
  return { scenario: { ...rest, workloads }, how };
}

function targetText(target: ShrinkTarget): string {
  return target.kind === 'invariant' ? target.name : `the expectation "${target.name}"`;
}

/** "pbft-lock, first at 12.3 s on node1 (height 9): detail" */
function violationText(result: { outcome: ShrinkResult['original']['outcome'] }, target: ShrinkTarget): string {
  const v = firstViolation(result.outcome, target);
  if (!v) return `${targetText(target)} fails`;
  return `${target.name}, first at ${seconds(v.atMs)} on ${v.node}${v.height > 0 ? ` (height ${v.height})` : ''}: ${v.detail}`;
}

function progressText(p: ShrinkProgress, runs: number, elapsedMs: number): string {
  if (p.phase === 'original') return `shrink: running the original (${p.originalEvents} events, ${p.nodes} nodes)  ${(elapsedMs / 1000).toFixed(0)} s`;
  const trying = p.trying ? `trying ${p.trying[0] === p.trying[1] ? p.trying[0] : `${p.trying[0]}–${p.trying[1]}`} events` : 'between candidates';
  return `shrink: ${p.phase.padEnd(10)} ${runs} candidates  ${trying}  best so far ${p.events} of ${p.originalEvents} events, ${p.nodes} nodes  ${(elapsedMs / 1000).toFixed(0)} s`;
}

/** The report's copy of the original run's faults. */
function originalFaults(faults: readonly FaultInterval[] | undefined): Array<{ fromMs: number; untilMs?: number; kind: string; description: string; nodes: string[] }> {
  return (faults ?? []).map((f) => ({ fromMs: f.fromMs, ...(f.untilMs === undefined ? {} : { untilMs: f.untilMs }), kind: f.kind, description: f.description, nodes: [...f.nodes] }));
}

export interface ShrinkVerification {
  /** The written file, run twice: did both runs show the target, with one trace digest? */
  readonly reproduced: [boolean, boolean];
  readonly digests: [string, string];
  readonly result: ScenarioResult;
}

/**
 * twinchain shrink <file> --seed S: shrinks a failing run to a small standalone scenario that
 * fails the same way, checks it is 1-minimal and that `twinchain run` of the written file fails
 * with the same violation twice with one trace digest, and writes it with the original's plan
 * and a report.
 */
export async function run(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseOptions(args, {
    seed: { type: 'string' },
    out: { type: 'string' },
    jobs: { type: 'string' },
    budget: { type: 'string' },
    violation: { type: 'string' },
    plain: { type: 'boolean' },
  });
  if (positionals.length !== 1) throw new CliError(`expected exactly one scenario file, got ${positionals.length}`);
  const file = positionals[0]!;
  const scenario = await loadScenarioOrExit(file);
  const seed = parseSeed(values.seed) ?? scenario.seed;
  const jobs = integerOption(values.jobs, 'jobs', availableParallelism(), 1, 256);
  const budgetMs = budgetOption(values.budget) ?? DEFAULT_SHRINK_BUDGET_MS;
  const { scenario: expanded, how } = expandedRun(scenario, file, seed, values.plain === true);
  const out = values.out ?? path.join('reports', `${scenario.name}-seed-${String(seed)}-shrink`);
  await makeOutputFolder(out);

  const runners: CandidateRunner[] = jobs === 1 ? [localCandidateRunner(file, () => pool.shouldStop)] : Array.from({ length: jobs }, () => new WorkerCandidateRunner(file));
  let last: ShrinkProgress | undefined;
  const started = performance.now();
  let shown = false;
  const draw = () => {
    if (!io.isTty || !last) return;
    shown = true;
    process.stdout.write(`\r${progressText(last, pool.stats.runs, performance.now() - started)}\x1b[K`);
  };
  const pool = new CandidatePool(runners, draw);
  // the elapsed time moves on between candidates too
  const ticker = io.isTty ? setInterval(draw, 1000) : undefined;
  let interrupted = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (interrupted) process.exit(130);
    interrupted = true;
    if (shown) process.stdout.write('\r\x1b[K');
    io.err(`twinchain shrink: ${signal}: stopping; the best scenario so far will be written (${signal} again quits at once)`);
    pool.stop();
  };
  // the budget counts from the start, but the original run always ends: without it there is nothing to write
  let budgetTimer: NodeJS.Timeout | undefined;
  const armBudget = () => {
    if (budgetTimer) return;
    pool.stopAt(started + budgetMs);
    budgetTimer = setTimeout(() => pool.stop(), Math.max(0, budgetMs - (performance.now() - started)));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  io.out(`${scenario.name}, ${how}: shrinking with ${jobs} job${jobs === 1 ? '' : 's'}, budget ${values.budget ?? `${DEFAULT_SHRINK_BUDGET_MS / 60_000}m`}`);
  let result: ShrinkResult;
  try {
    result = await new Shrinker({
      scenario: expanded,
      file,
      pool,
      ...(values.violation === undefined ? {} : { violation: values.violation }),
      onOriginal: (outcome, target) => {
        if (shown) process.stdout.write('\r\x1b[K');
        io.out(`the original run: ${violationText({ outcome }, target)}`);
      },
      onProgress: (p) => {
        if (p.phase !== 'original') armBudget();
        last = p;
        draw();
      },
    }).run();
  } catch (e) {
    if (e instanceof ShrinkError) {
      if (interrupted) {
        io.err(`twinchain shrink: stopped before the original run ended; nothing written`);
        return 130;
      }
      throw new CliError(`cannot shrink ${file} (${how}): ${e.message}`, 2);
    }
    throw e;
  } finally {
    if (budgetTimer) clearTimeout(budgetTimer);
    if (ticker) clearInterval(ticker);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    if (shown) process.stdout.write('\r\x1b[K');
    await pool.close();
  }

  const { target, original, shrunk } = result;
  const name = `${scenario.name}-seed-${String(seed)}`.toLowerCase().replace(/[^a-z0-9_-]/g, '-');
  const command = shrinkCommand(file, seed, { ...(values.out === undefined ? {} : { out: values.out }), ...(values.plain ? { plain: true } : {}) });
  const relative = (abs: string) => path.relative(out, abs) || '.';
  const originalFile = path.join(out, 'original.yaml');
  const shrunkFile = path.join(out, 'shrunk.yaml');
  await writeFile(
    originalFile,
    scenarioYaml(
      { ...original.scenario, name, description: `${scenario.name}: ${how}, with every event written out (${original.events} events). It fails with ${targetText(target)}.` },
      { comment: `The failing run shrink started from (${command}).\n\`twinchain run ${originalFile}\` runs it exactly as that seed did.`, recordingPath: relative },
    ),
  );
  const status = result.minimal ? '1-minimal' : 'NOT YET MINIMAL';
  await writeFile(
    shrunkFile,
    scenarioYaml(
      { ...shrunk.scenario, name: `${name}-shrunk`, description: `${scenario.name}, ${how}, shrunk from ${original.events} events to ${shrunk.events}. It fails with ${targetText(target)}.` },
      { comment: `Shrunk by ${command}: ${shrunk.events} of ${original.events} events kept, ${status}.\nEvery event is explicit and the seed fixed: \`twinchain run ${shrunkFile}\` fails the same way every time.`, recordingPath: relative },
    ),
  );

  let verification: ShrinkVerification | undefined;
  if (!interrupted) verification = await verify(shrunkFile, out, target, original, how);

  const kept = result.kept;
  const phases = Object.fromEntries(result.phases.reduce((m, p) => m.set(p.phase, { runs: (m.get(p.phase)?.runs ?? 0) + p.runs, accepted: (m.get(p.phase)?.accepted ?? 0) + p.accepted }), new Map<string, { runs: number; accepted: number }>()));
  await writeFile(
    path.join(out, 'shrink.json'),
    `${JSON.stringify(
      {
        scenario: scenario.name,
        file,
        seed,
        how,
        target,
        violation: firstViolation(shrunk.outcome, target) ?? null,
        original: { events: original.events, settings: original.settings, nodes: original.nodes, groups: original.groups, durationMs: original.durationMs, digest: original.outcome.digest, file: originalFile },
        shrunk: { events: shrunk.events, settings: shrunk.settings, nodes: shrunk.nodes, groups: shrunk.groups, durationMs: shrunk.durationMs, file: shrunkFile },
        kept,
        minimal: result.minimal,
        stopped: result.stopped ? (interrupted ? 'interrupted' : 'budget') : null,
        verified: verification ? { reproduced: verification.reproduced, digests: verification.digests, deterministic: verification.digests[0] === verification.digests[1] } : null,
        candidates: { runs: result.stats.runs, cancelled: result.stats.cancelled, cached: result.stats.cached, runMs: Math.round(result.stats.runMs) },
        jobs,
        wallMs: Math.round(performance.now() - started),
        phases,
      },
      null,
      2,
    )}\n`,
  );

  io.out(
    `kept ${shrunk.events} of ${original.events} events${original.settings > 0 ? ` and ${shrunk.settings} of ${original.settings} network settings` : ''}; nodes ${original.nodes} → ${shrunk.nodes}, groups ${original.groups} → ${shrunk.groups}, duration ${seconds(original.durationMs)} → ${seconds(shrunk.durationMs)}; ` +
      `${result.stats.runs} candidates run${result.stats.cancelled > 0 ? ` (and ${result.stats.cancelled} cancelled)` : ''} in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  io.out(`the violation: ${violationText(shrunk, target)}`);
  if (kept.length > 0) {
    io.out(result.minimal ? 'kept, and the run without each:' : 'kept:');
    const width = Math.max(...kept.map((k) => `#${k.id}`.length));
    for (const k of kept) {
      io.out(`  ${`#${k.id}`.padEnd(width)}  ${k.now}${k.without ? `    without it: ${k.without}` : ''}`);
      if (k.was !== k.now) io.out(`  ${' '.repeat(width)}  (was: ${k.was})`);
    }
  } else io.out('kept nothing: the violation shows without any workload, fault or network setting');
  if (result.minimal && kept.length === 0) io.out('1-minimal: nothing left to take out');
  else if (result.minimal) io.out(`1-minimal: checked by running the scenario without each kept event or setting once (${kept.length} run${kept.length === 1 ? '' : 's'}); none of them shows ${targetText(target)}`);
  else {
    const why = interrupted ? 'stopped by a signal' : `stopped by the budget (${values.budget ?? `${DEFAULT_SHRINK_BUDGET_MS / 60_000}m`})`;
    io.out(`NOT YET MINIMAL: ${why}; the best scenario so far is written. Shrink it on: npx twinchain shrink ${shellWord(shrunkFile)}`);
  }
  if (verification) {
    const [a, b] = verification.reproduced;
    const same = verification.digests[0] === verification.digests[1];
    io.out(
      a && b && same
        ? `verified: twinchain run ${shrunkFile} fails with ${targetText(target)} twice, trace digest ${verification.digests[0]} both times`
        : `NOT VERIFIED: twinchain run ${shrunkFile} ${a && b ? 'fails both times' : `showed ${targetText(target)} ${a ? 'in the first run only' : b ? 'in the second run only' : 'in neither run'}`}, digests ${verification.digests.join(' and ')}`,
    );
  }
  io.out(`written: ${shrunkFile}, ${originalFile} (every event of the original), ${verification ? `${path.join(out, 'report.html')} (its fault timeline beside the original's), ` : ''}${path.join(out, 'shrink.json')}`);
  io.out(`run it: npx twinchain run ${shellWord(shrunkFile)}`);
  if (interrupted) return 130;
  const verified = verification !== undefined && verification.reproduced.every(Boolean) && verification.digests[0] === verification.digests[1];
  return result.minimal && verified ? 0 : 1;
}

/** Runs the written file twice, as `twinchain run` would; the first run writes the report (beside the original's faults) and the trace. */
async function verify(shrunkFile: string, out: string, target: ShrinkTarget, original: ShrinkResult['original'], how: string): Promise<ShrinkVerification> {
  const scenario = await loadScenarioFile(shrunkFile);
  const replay = `npx twinchain run ${shellWord(shrunkFile)}`;
  const first = await runScenario(scenario, { file: shrunkFile, replayCommand: replay, tracePath: path.join(out, 'trace.jsonl') });
  const second = await runScenario(scenario, { file: shrunkFile });
  const shows = (r: ScenarioResult) =>
    reproduces({ verdict: r.verdict, violations: r.violations, failed: r.expectations.filter((e) => !e.ok).map((e) => e.name), digest: r.digest, events: r.events, virtualMs: r.virtualMs, wallMs: r.wallMs, stoppedEarly: r.stoppedEarly, leaders: [] }, target);
  await writeRunOutputs(first, out, { shrunkFrom: { how, events: original.events, digest: original.outcome.digest } }, {
    title: `Fault timeline of the original run (${original.events} events)`,
    note: `The run this one was shrunk from: ${how}.`,
    durationMs: original.outcome.virtualMs,
    nodes: Array.from({ length: original.nodes }, (_, i) => `node${i}`),
    faults: originalFaults(original.outcome.faults),
  });
  return { reproduced: [shows(first), shows(second)], digests: [first.digest, second.digest], result: first };
}
