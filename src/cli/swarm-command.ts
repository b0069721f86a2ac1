import { createHash } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import {
  durationMs,
  MAX_SHARDS,
  shardFileName,
  shardName,
  shardResultLine,
  shardSeed,
  shardSeedCount,
  seedsPerMinute,
  shellWord,
  swarmJsonText,
  WHOLE,
  type ShardResult,
  type ShardSpec,
  type ShardStop,
  type SwarmRun,
  type SwarmScenarioId,
} from '../sim/index.js';
import { twinchainBuild } from './build-identity.js';
import { CliError } from './cli-error.js';
import type { CliIo } from './io.js';
import { makeOutputFolder } from './output-path.js';
import { integerOption, parseOptions } from './parse-options.js';
import { loadScenarioOrExit } from './run-command.js';
import { localRunner, runSeeds, WorkerRunner, type SeedRunner } from './swarm-pool.js';
import type { SwarmTask } from './swarm-seed.js';
import { shrinkCommand } from './seed-commands.js';
import { seedRow, verdictLines } from './swarm-text.js';

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

/** `--shard env` reads the shard's index from this variable (Kubernetes sets it in each pod of an Indexed Job)… */
export const SHARD_INDEX_VARIABLE = 'JOB_COMPLETION_INDEX';
/** …and the number of shards from this one (the Job's completions; the manifest sets it). */
export const SHARD_COUNT_VARIABLE = 'TWINCHAIN_SHARD_COUNT';

const wholeNumber = (text: string, min: number, max: number): number | undefined => {
  const n = Number(text);
  return /^[0-9]+$/.test(text) && Number.isSafeInteger(n) && n >= min && n <= max ? n : undefined;
};

/** `--shard I/N` (0 ≤ I < N) or `--shard env` (I from $JOB_COMPLETION_INDEX, N from $TWINCHAIN_SHARD_COUNT). */
export function shardOption(value: string | undefined, env: NodeJS.ProcessEnv): ShardSpec | undefined {
  if (value === undefined) return undefined;
  if (value === 'env') {
    const countText = env[SHARD_COUNT_VARIABLE]?.trim();
    const indexText = env[SHARD_INDEX_VARIABLE]?.trim();
    if (!countText) throw new CliError(`--shard env: ${SHARD_COUNT_VARIABLE} is not set (set it to the number of shards: the Job's completions)`);
    const count = wholeNumber(countText, 1, MAX_SHARDS);
    if (count === undefined) throw new CliError(`--shard env: ${SHARD_COUNT_VARIABLE} must be an integer from 1 to ${MAX_SHARDS} (got "${countText}")`);
    if (!indexText) throw new CliError(`--shard env: ${SHARD_INDEX_VARIABLE} is not set (Kubernetes sets it in each pod of an Indexed Job; elsewhere give --shard I/N)`);
    const index = wholeNumber(indexText, 0, count - 1);
    if (index === undefined) throw new CliError(`--shard env: ${SHARD_INDEX_VARIABLE} must be an integer from 0 to ${count - 1} (${SHARD_COUNT_VARIABLE} is ${count}; got "${indexText}")`);
    return { index, count };
  }
  const m = /^([0-9]+)\/([0-9]+)$/.exec(value);
  if (!m) throw new CliError(`--shard must be I/N (shard I of N, counted from 0, e.g. 0/4) or env (got "${value}")`);
  const count = wholeNumber(m[2]!, 1, MAX_SHARDS);
  if (count === undefined) throw new CliError(`--shard ${value}: N must be from 1 to ${MAX_SHARDS}`);
  const index = wholeNumber(m[1]!, 0, count - 1);
  if (index === undefined) throw new CliError(`--shard ${value}: I must be from 0 to ${count - 1} (shards are counted from 0)`);
  return { index, count };
}

export const SWARM_OPTIONS = {
  seeds: { type: 'string' },
  from: { type: 'string' },
  seed: { type: 'string' },
  out: { type: 'string' },
  jobs: { type: 'string' },
  'until-fail': { type: 'boolean' },
  budget: { type: 'string' },
  shard: { type: 'string' },
  'json-stdout': { type: 'boolean' },
  'exit-zero': { type: 'boolean' },
  shrink: { type: 'boolean' },
} as const;

/** A swarm command line, checked: everything but the scenario file's content. */
export interface SwarmArgs {
  readonly file: string;
  /** --seed S: replay one seed. */
  readonly single: number | undefined;
  readonly from: number;
  /** Seeds of the whole scan (over all shards); undefined when it is unbounded. */
  readonly seeds: number | undefined;
  readonly jobs: number;
  readonly untilFail: boolean;
  readonly budgetMs: number | undefined;
  readonly budget: string | undefined;
  readonly shard: ShardSpec | undefined;
  readonly jsonStdout: boolean;
  readonly exitZero: boolean;
  /** --shrink: shrink the first failing seed once the scan is over. */
  readonly shrink: boolean;
  readonly out: string | undefined;
}

/** Parses and checks `twinchain swarm` arguments (the environment gives `--shard env` its numbers). */
export function parseSwarmArgs(args: string[], env: NodeJS.ProcessEnv = process.env): SwarmArgs {
  const { values, positionals } = parseOptions(args, SWARM_OPTIONS);
  if (positionals.length !== 1) throw new CliError(`expected exactly one scenario file, got ${positionals.length}`);
  if (values.seed !== undefined && (values.seeds !== undefined || values.from !== undefined)) throw new CliError('give --seed (replay one seed) or --seeds/--from, not both');
  const single = values.seed === undefined ? undefined : integerOption(values.seed, 'seed', 0, 0);
  const budgetMs = budgetOption(values.budget);
  const untilFail = values['until-fail'] === true;
  const jsonStdout = values['json-stdout'] === true;
  const shard = shardOption(values.shard, env);
  if (single !== undefined && (untilFail || budgetMs !== undefined)) throw new CliError('--until-fail and --budget scan seeds; --seed replays one');
  if (single !== undefined && (shard !== undefined || jsonStdout)) throw new CliError('--shard and --json-stdout split and report a scan; --seed replays one seed');
  if (untilFail && values.seeds === undefined && budgetMs === undefined) throw new CliError('--until-fail without --seeds needs a --budget (e.g. --budget 5m)');
  return {
    file: positionals[0]!,
    single,
    from: single ?? integerOption(values.from, 'from', 1, 0),
    // with a budget (or until a failure) and no --seeds, seeds are unbounded
    seeds: single !== undefined ? 1 : values.seeds === undefined && budgetMs !== undefined ? undefined : integerOption(values.seeds, 'seeds', 10, 1),
    jobs: integerOption(values.jobs, 'jobs', availableParallelism(), 1, 256),
    untilFail,
    budgetMs,
    budget: values.budget,
    shard,
    jsonStdout,
    exitZero: values['exit-zero'] === true,
    shrink: values.shrink === true,
    out: values.out,
  };
}

/** CPU ms this process used since it started, over all its threads. */
function processCpuMs(): number {
  const { user, system } = process.cpuUsage();
  return Math.round((user + system) / 1000);
}

/** The SHA-256 of a file's bytes (the scenario a shard ran, as a merge checks it). */
export async function fileSha256(file: string): Promise<string> {
  return createHash('sha256')
    .update(await readFile(file))
    .digest('hex');
}

/** "its 3 seeds 2, 5, 8" / "its seeds 2, 5, 8, …": which seeds a shard runs. */
function shardSeedsText(from: number, shard: ShardSpec, count: number | undefined): string {
  if (count === 0) return 'no seeds: more shards than seeds';
  const seed = (k: number) => shardSeed(from, shard, k);
  if (count === undefined) return `its seeds ${seed(0)}, ${seed(1)}, ${seed(2)}, …`;
  if (count === 1) return `its seed ${seed(0)}`;
  const shown = count <= 4 ? Array.from({ length: count }, (_, k) => seed(k)) : [seed(0), seed(1), seed(2), '…', seed(count - 1)];
  return `its ${count} seeds ${shown.join(', ')}`;
}

/**
 * twinchain swarm <file> --seeds N: N runs, each with faults drawn (from its seed) within the
 * bounds of the file's `swarm` section; lists the failing seeds and how to replay each. With
 * --shard I/N, only the seeds of shard I, for `twinchain swarm merge` to join with the others.
 */
export async function run(args: string[], io: CliIo): Promise<number> {
  const a = parseSwarmArgs(args);
  const { file, single, untilFail, budgetMs } = a;
  // with --json-stdout, stdout carries the result line alone; the rows go to stderr
  const say = a.jsonStdout ? (t: string) => io.err(t) : (t: string) => io.out(t);
  const scenario = await loadScenarioOrExit(file);
  if (!scenario.swarm) io.err(`note: ${file} has no swarm section; every seed runs the file's own faults with its own random choices`);
  const [sha256, twinchain] = await Promise.all([fileSha256(file), twinchainBuild()]);
  const id: SwarmScenarioId = { name: scenario.name, file, sha256 };
  const out = a.out ?? path.join('reports', `${scenario.name}-swarm`);
  await makeOutputFolder(out);
  const shard = a.shard ?? WHOLE;
  const shardFile = a.shard ? path.join(out, shardFileName(shard)) : undefined;
  // an old result of this shard must not outlive a run that stops before writing its own
  if (shardFile) await rm(shardFile, { force: true });

  const task: SwarmTask = { scenario, file, out, single: single !== undefined, ...(a.out === undefined ? {} : { outOption: a.out }) };
  const count = single !== undefined ? 1 : shardSeedCount(a.seeds, shard);
  const first = single ?? shardSeed(a.from, shard, 0);
  const used = single !== undefined ? 1 : Math.max(1, Math.min(a.jobs, count ?? a.jobs));
  const runners: SeedRunner[] = used === 1 ? [localRunner(task)] : Array.from({ length: used }, () => new WorkerRunner(task));
  const limits = [a.seeds === undefined ? undefined : `${a.seeds} swarm run${a.seeds === 1 ? '' : 's'}`, untilFail ? 'until a seed fails' : undefined, budgetMs === undefined ? undefined : `for at most ${a.budget}`]
    .filter((l) => l !== undefined)
    .join(', ');
  const jobsText = `${used} job${used === 1 ? '' : 's'}`;
  say(a.shard ? `${scenario.name}: shard ${shardName(shard)} of ${limits} from seed ${a.from} (${shardSeedsText(a.from, shard, count)}), ${jobsText}` : `${scenario.name}: ${limits} from seed ${first}, ${jobsText}`);
  let scan;
  try {
    scan = await runSeeds(runners, { first, step: shard.count, count, untilFail, budgetMs, onOutcome: (o) => say(seedRow(o)) });
  } finally {
    await Promise.all(runners.map((r) => r.close()));
  }
  const rows = scan.outcomes;
  const summary = { scenario: id, twinchain, shards: 1, jobs: used, wallMs: scan.wallMs, firstFailure: scan.firstFailure, runs: rows, shrinkCommand: (seed: number) => shrinkCommand(file, seed) };
  // a replay of one seed writes its swarm.json in the seed's folder: the scan's stays as it was
  const swarmJson = single === undefined ? path.join(out, 'swarm.json') : path.join(out, `seed-${first}`, 'swarm.json');
  const stop: ShardStop = untilFail && scan.firstFailure ? 'failure' : scan.budgetSpent ? 'budget' : 'done';
  const result: ShardResult = {
    format: 'twinchain-swarm-shard/1',
    twinchain,
    scenario: id,
    shard,
    plan: { from: a.from, seeds: a.seeds ?? null, untilFail, budgetMs: budgetMs ?? null },
    stop,
    jobs: used,
    wallMs: Math.round(scan.wallMs),
    seedsPerMinute: seedsPerMinute(rows.length, scan.wallMs),
    cpuMs: processCpuMs(),
    firstFailure: scan.firstFailure,
    runs: rows,
  };
  const line = shardResultLine(result);
  if (shardFile) await writeFile(shardFile, `${line}\n`);
  else {
    await mkdir(path.dirname(swarmJson), { recursive: true });
    await writeFile(swarmJson, swarmJsonText(summary));
  }
  say('');
  say(
    `${rows.length} seed${rows.length === 1 ? '' : 's'} in ${(scan.wallMs / 1000).toFixed(1)} s wall: ${result.seedsPerMinute} seeds/min with ${jobsText}` +
      `${scan.budgetSpent ? `; budget ${a.budget} spent` : ''}${untilFail && scan.firstFailure ? `; stopped at the first failing seed, known after ${(scan.firstFailure.afterMs / 1000).toFixed(1)} s` : ''}`,
  );
  for (const l of verdictLines(rows, { file, out, single: single !== undefined, swarmJson })) say(l);
  if (shardFile) say(`shard ${shardName(shard)} result: ${shardFile}${shard.count > 1 ? ` (twinchain swarm merge ${shellWord(out)} joins the shards)` : ''}`);
  if (a.shrink) await shrinkFirstFailure(rows, a, out, a.jsonStdout ? { ...io, out: (t) => io.err(t) } : io);
  if (a.jsonStdout) io.out(line);
  return rows.some((r) => r.verdict !== 'pass') && !a.exitZero ? 1 : 0;
}

/** swarm --shrink: the lowest failing seed shrunk (twinchain shrink, same --jobs) into seed-S/shrink/ of the output folder. */
async function shrinkFirstFailure(rows: readonly SwarmRun[], a: SwarmArgs, out: string, io: CliIo): Promise<void> {
  const first = rows.filter((r) => r.verdict !== 'pass').sort((x, y) => x.seed - y.seed)[0];
  if (!first) return;
  if (first.verdict !== 'fail') {
    io.out(`--shrink: seed ${first.seed} ended in an internal error, not a failure: nothing to shrink`);
    return;
  }
  io.out('');
  const { run: shrink } = await import('./shrink-command.js');
  await shrink([a.file, '--seed', String(first.seed), '--jobs', String(a.jobs), '--out', path.join(out, `seed-${first.seed}`, 'shrink')], io);
}
