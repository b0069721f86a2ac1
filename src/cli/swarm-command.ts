import { mkdir, writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { durationMs } from '../sim/index.js';
import { CliError } from './cli-error.js';
import type { CliIo } from './io.js';
import { makeOutputFolder } from './output-path.js';
import { integerOption, parseOptions } from './parse-options.js';
import { loadScenarioOrExit } from './run-command.js';
import { localRunner, runSeeds, WorkerRunner, type SeedRunner } from './swarm-pool.js';
import type { SwarmTask } from './swarm-seed.js';

/** A wall-clock budget such as 300s or 5m, in ms. */
export function budgetOption(value: string | undefined, option = 'budget'): number | undefined {
  if (value === undefined) return undefined;
  let ms: number;
  try {
    ms = durationMs(value);
  } catch {
    throw new CliError(`--${option} must be a duration such as 300s, 5m or 1h (got "${value}")`);
  }
  if (ms <= 0) throw new CliError(`--${option} must be longer than 0 (got "${value}")`);
  return ms;
}

/**
 * twinchain swarm <file> --seeds N: N runs, each with faults drawn (from its seed) within the
 * bounds of the file's `swarm` section; lists the failing seeds and how to replay each.
 */
export async function run(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseOptions(args, {
    seeds: { type: 'string' },
    from: { type: 'string' },
    seed: { type: 'string' },
    out: { type: 'string' },
    jobs: { type: 'string' },
    'until-fail': { type: 'boolean' },
    budget: { type: 'string' },
  });
  if (positionals.length !== 1) throw new CliError(`expected exactly one scenario file, got ${positionals.length}`);
  if (values.seed !== undefined && (values.seeds !== undefined || values.from !== undefined)) throw new CliError('give --seed (replay one seed) or --seeds/--from, not both');
  const file = positionals[0]!;
  const scenario = await loadScenarioOrExit(file);
  if (!scenario.swarm) io.err(`note: ${file} has no swarm section; every seed runs the file's own faults with its own random choices`);
  const single = values.seed === undefined ? undefined : integerOption(values.seed, 'seed', 0, 0);
  const first = single ?? integerOption(values.from, 'from', 1, 0);
  const jobs = integerOption(values.jobs, 'jobs', availableParallelism(), 1, 256);
  const budgetMs = budgetOption(values.budget);
  const untilFail = values['until-fail'] === true;
  if (single !== undefined && (untilFail || budgetMs !== undefined)) throw new CliError('--until-fail and --budget scan seeds; --seed replays one');
  if (untilFail && values.seeds === undefined && budgetMs === undefined) throw new CliError('--until-fail without --seeds needs a --budget (e.g. --budget 5m)');
  // with a budget (or until a failure) and no --seeds, seeds are unbounded
  const count = single !== undefined ? 1 : values.seeds === undefined && budgetMs !== undefined ? undefined : integerOption(values.seeds, 'seeds', 10, 1);
  const out = values.out ?? path.join('reports', `${scenario.name}-swarm`);
  await makeOutputFolder(out);

  const task: SwarmTask = { scenario, file, out, single: single !== undefined, ...(values.out === undefined ? {} : { outOption: values.out }) };
  const used = single !== undefined ? 1 : Math.min(jobs, count ?? jobs);
  const runners: SeedRunner[] = used === 1 ? [localRunner(task)] : Array.from({ length: used }, () => new WorkerRunner(task));
  const limits = [count === undefined ? undefined : `${count} swarm run${count === 1 ? '' : 's'}`, untilFail ? 'until a seed fails' : undefined, budgetMs === undefined ? undefined : `for at most ${values.budget}`];
  io.out(`${scenario.name}: ${limits.filter((l) => l !== undefined).join(', ')} from seed ${first}, ${used} job${used === 1 ? '' : 's'}`);
  let scan;
  try {
    scan = await runSeeds(runners, { first, count, untilFail, budgetMs, onOutcome: (o) => io.out(o.line) });
  } finally {
    await Promise.all(runners.map((r) => r.close()));
  }
  const rows = scan.outcomes;
  const seedsPerMinute = Math.round((rows.length / Math.max(1, scan.wallMs)) * 60_000 * 10) / 10;
  const failing = rows.filter((r) => r.verdict !== 'pass');
  // a replay of one seed writes its swarm.json in the seed's folder: the scan's stays as it was
  const swarmJson = single === undefined ? path.join(out, 'swarm.json') : path.join(out, `seed-${first}`, 'swarm.json');
  await mkdir(path.dirname(swarmJson), { recursive: true });
  await writeFile(
    swarmJson,
    `${JSON.stringify(
      {
        scenario: scenario.name,
        file,
        jobs: used,
        seedsPerMinute,
        wallMs: Math.round(scan.wallMs),
        firstFailure: scan.firstFailure,
        runs: rows.map((r) => ({
          seed: r.seed,
          verdict: r.verdict,
          drawn: r.drawn,
          digest: r.digest,
          replay: r.replay,
          failed: r.failed,
          ...(r.verdict === 'pass' ? {} : { violations: r.violations }),
          ...(r.error === undefined ? {} : { error: r.error }),
          report: r.report,
          wallMs: Math.round(r.wallMs),
        })),
      },
      null,
      2,
    )}\n`,
  );
  io.out('');
  io.out(
    `${rows.length} seed${rows.length === 1 ? '' : 's'} in ${(scan.wallMs / 1000).toFixed(1)} s wall: ${seedsPerMinute} seeds/min with ${used} job${used === 1 ? '' : 's'}` +
      `${scan.budgetSpent ? `; budget ${values.budget} spent` : ''}${untilFail && scan.firstFailure ? `; stopped at the first failing seed, known after ${(scan.firstFailure.afterMs / 1000).toFixed(1)} s` : ''}`,
  );
  if (failing.length === 0) {
    io.out(`all ${rows.length} seeds passed${single !== undefined && rows[0]?.report ? `; report ${rows[0].report}, trace ${path.join(out, `seed-${first}`, 'trace.jsonl')}, ${swarmJson}` : ''}`);
    return 0;
  }
  io.out(`${failing.length} of ${rows.length} seeds FAILED:`);
  for (const r of failing) {
    const where = r.error !== undefined ? `internal error: ${r.error}` : `report ${r.report}${single === undefined ? '; the replay also writes the trace' : `, trace ${path.join(out, `seed-${r.seed}`, 'trace.jsonl')}, ${swarmJson}`}`;
    io.out(`  seed ${r.seed}: ${r.replay}    (${where})`);
  }
  return 1;
}
