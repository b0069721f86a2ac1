import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { catalogue, median, QUICK, repoRoot, runMutant, stopEverything, type Mutant, type MutantReport, type MutantShrink } from '../mutants/index.js';
import { CliError } from './cli-error.js';
import type { CliIo } from './io.js';
import { makeOutputFolder } from './output-path.js';
import { integerOption, parseOptions } from './parse-options.js';
import { DEFAULT_SHRINK_BUDGET_MS, mutantShrinkCommand } from './seed-commands.js';
import { budgetOption } from './swarm-command.js';

const DEFAULT_BUDGET_MS = 300_000;

function seconds(ms: number | null): string {
  return ms === null ? '–' : `${(ms / 1000).toFixed(1)} s`;
}

/** The catalogue as `--list` prints it. */
export function listing(mutants: readonly Mutant[] = catalogue): string {
  const width = Math.max(...mutants.map((m) => m.id.length));
  return mutants
    .map((m) => `${m.id.padEnd(width)}  ${m.title}\n${' '.repeat(width)}  on ${m.scenarios.join(', ')}; patches ${[...new Set(m.patches.map((p) => p.file))].join(', ')}${QUICK.ids.includes(m.id as (typeof QUICK.ids)[number]) ? ' (quick)' : ''}`)
    .join('\n');
}

/** What the unmutated code made of a mutant's shrunk scenario. */
export type UnmutatedVerdict = { readonly verdict: 'pass' | 'fail'; readonly failed: readonly string[] } | { readonly verdict: 'error'; readonly error: string };

/** The line about a mutant's shrunk scenario. */
export function shrinkLine(s: MutantShrink, unmutated?: UnmutatedVerdict): string {
  if (s.error !== undefined) return `    shrink failed: ${s.error}`;
  const parts = [
    `kept ${s.eventsKept} of ${s.eventsBefore} events${s.settingsBefore > 0 ? ` and ${s.settingsKept} of ${s.settingsBefore} network settings` : ''}`,
    `nodes ${s.nodesBefore} → ${s.nodesAfter}`,
    `duration ${s.durationMsBefore / 1000} s → ${s.durationMsAfter / 1000} s`,
    `${s.candidates} candidates in ${seconds(s.wallMs)}`,
    s.minimal ? '1-minimal' : 'NOT YET MINIMAL',
    s.verified ? `fails with ${s.target?.name ?? '?'} twice, one digest` : 'NOT VERIFIED',
  ];
  if (unmutated?.verdict === 'error') parts.push(`the unmutated code could not run it: ${unmutated.error}`);
  else if (unmutated) parts.push(unmutated.verdict === 'pass' ? 'passes on the unmutated code' : `FAILS ON THE UNMUTATED CODE TOO (${unmutated.failed.join('; ')})`);
  return `    shrunk: ${parts.join('; ')}; ${s.file ?? ''}`;
}

/** One mutant's result as printed. */
export function resultLine(r: MutantReport): string {
  const shrink = r.replay === null ? '' : `\n    shrink: ${mutantShrinkCommand(r.replay)}`;
  switch (r.detection) {
    case 'caught':
      return `${r.id}: caught by ${r.evidence.join(', ')} on ${r.scenario} seed ${r.seed} after ${seconds(r.afterMs)} (${r.seeds} seeds)\n    replay: ${r.replay}${shrink}`;
    case 'stall':
      return `${r.id}: caught only as a stall (${r.evidence.join('; ')}) on ${r.scenario} seed ${r.seed} after ${seconds(r.afterMs)} (${r.seeds} seeds)\n    replay: ${r.replay}${shrink}`;
    case 'survived':
      return `${r.id}: survived ${r.seeds} seeds in ${seconds(r.wallMs)}`;
    case 'error':
      return `${r.id}: NOT RUN: ${r.error}`;
  }
}

function selected(only: string | undefined, quick: boolean): readonly Mutant[] {
  if (only === undefined) return quick ? catalogue.filter((m) => (QUICK.ids as readonly string[]).includes(m.id)) : catalogue;
  const ids = only.split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (ids.length === 0) throw new CliError('--only needs at least one mutant id (see --list)');
  return ids.map((id) => {
    const m = catalogue.find((x) => x.id === id);
    if (!m) throw new CliError(`unknown mutant "${id}" (known: ${catalogue.map((x) => x.id).join(', ')})`);
    return m;
  });
}

/** Runs a mutant's shrunk scenario on this (unmutated) code. */
export async function runUnmutated(file: string): Promise<UnmutatedVerdict> {
  // the simulator loads only when there is something to run (--list and --help stay quick)
  const { loadScenarioFile, runScenario } = await import('../sim/index.js');
  try {
    const result = await runScenario(await loadScenarioFile(file), { file });
    return { verdict: result.verdict, failed: [...new Set([...result.violations.map((v) => v.invariant), ...result.expectations.filter((e) => !e.ok && !e.name.startsWith('safety:')).map((e) => e.name)])] };
  } catch (e) {
    return { verdict: 'error', error: e instanceof Error ? e.message : String(e) };
  }
}

/**
 * twinchain mutants: plants each catalogue bug in a temporary copy of the repository, runs the
 * copy's swarm on the mutant's scenarios until a seed fails or the budget is spent, and reports
 * whether swarm caught it as a safety/invariant violation, only as a stall, or not at all.
 */
export async function run(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseOptions(args, {
    budget: { type: 'string' },
    only: { type: 'string' },
    jobs: { type: 'string' },
    quick: { type: 'boolean' },
    list: { type: 'boolean' },
    seed: { type: 'string' },
    out: { type: 'string' },
    shrink: { type: 'boolean' },
    'shrink-budget': { type: 'string' },
  });
  if (positionals.length > 0) throw new CliError(`unexpected argument "${positionals[0]}"`);
  if (values.list) {
    io.out(listing());
    return 0;
  }
  // the bugs are planted in the TypeScript sources, which an installed package does not ship
  const sources = path.join(repoRoot(), 'src');
  if (!existsSync(sources)) throw new CliError(`mutants patches the TypeScript sources and runs them through tsx: run it in a clone of the repository (no ${sources} here)`);
  const quick = values.quick === true;
  const mutants = selected(values.only, quick);
  const budgetMs = budgetOption(values.budget) ?? (quick ? QUICK.budgetMs : DEFAULT_BUDGET_MS);
  const jobs = integerOption(values.jobs, 'jobs', availableParallelism(), 1, 256);
  const seed = values.seed === undefined ? undefined : integerOption(values.seed, 'seed', 0, 0);
  const out = values.out ?? path.join('reports', 'mutants');
  const shrink = values.shrink === true;
  const shrinkBudgetMs = budgetOption(values['shrink-budget'], 'shrink-budget') ?? DEFAULT_SHRINK_BUDGET_MS;
  if (values['shrink-budget'] !== undefined && !shrink) throw new CliError('--shrink-budget goes with --shrink');
  await makeOutputFolder(out);

  const onSignal = (signal: NodeJS.Signals) => {
    stopEverything();
    io.err(`twinchain mutants: ${signal}: swarm children stopped, temporary copies removed`);
    process.exit(130);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const started = performance.now();
  const reports: MutantReport[] = [];
  io.out(`${mutants.length} mutant${mutants.length === 1 ? '' : 's'}, ${seed === undefined ? `budget ${seconds(budgetMs)} each` : `replaying seed ${seed}`}, ${jobs} job${jobs === 1 ? '' : 's'}`);
  try {
    for (const mutant of mutants) {
      const report = await runMutant(mutant, { budgetMs, jobs, out: path.join(out, mutant.id), ...(seed === undefined ? {} : { seed }), ...(shrink ? { shrink: { budgetMs: shrinkBudgetMs, command: mutantShrinkCommand } } : {}), onLine: (l) => io.out(l) });
      // a shrunk scenario is a bug report only if the code without the bug passes it
      const unmutated = report.shrink?.file ? await runUnmutated(report.shrink.file) : undefined;
      reports.push(unmutated ? { ...report, shrink: { ...report.shrink!, unmutated } } : report);
      io.out(resultLine(report));
      if (report.shrink) io.out(shrinkLine(report.shrink, unmutated));
    }
  } finally {
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
  }
  const caught = reports.filter((r) => r.detection === 'caught');
  const detectionMs = median(caught.map((r) => r.afterMs ?? r.wallMs));
  const json = path.join(out, 'mutants.json');
  await writeFile(json, `${JSON.stringify({ budgetMs, jobs, seed: seed ?? null, caught: caught.length, total: reports.length, medianDetectionMs: detectionMs, wallMs: Math.round(performance.now() - started), mutants: reports }, null, 2)}\n`);
  const count = (d: MutantReport['detection']) => reports.filter((r) => r.detection === d).length;
  const shrunk = reports.flatMap((r) => (r.shrink && r.shrink.error === undefined ? [r.shrink] : []));
  io.out('');
  io.out(
    `caught ${caught.length} of ${reports.length} as a safety/invariant violation; ${count('stall')} only as a stall, ${count('survived')} survived${count('error') > 0 ? `, ${count('error')} not run` : ''}; ` +
      `median time to detection ${seconds(detectionMs)}` +
      `${shrink ? `; shrunk ${shrunk.filter((x) => x.minimal && x.verified).length} of ${reports.filter((r) => r.seed !== null).length} failing seeds to verified 1-minimal scenarios (median ${seconds(median(shrunk.map((x) => x.wallMs)))})` : ''}; ${json}`,
  );
  return caught.length === reports.length ? 0 : 1;
}
