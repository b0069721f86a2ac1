import { cp, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  mergeShardResults,
  MergeRefusal,
  parseShardResultLine,
  SHARD_FILE,
  shardName,
  ShardResultError,
  seedsPerMinute,
  swarmJsonText,
  type MergedScan,
  type ShardInput,
  type SwarmRun,
} from '../sim/index.js';
import { CliError } from './cli-error.js';
import type { CliIo } from './io.js';
import { fileSystemReason, makeOutputFolder } from './output-path.js';
import { parseOptions } from './parse-options.js';
import { fileSha256 } from './swarm-command.js';
import { shrinkCommand, swarmReplayCommand } from './seed-commands.js';
import { plural, seedRow, verdictLines, type VerdictContext } from './swarm-text.js';

/** A commit as printed: 12 hex digits, and whether the tree was edited. */
const shortCommit = (commit: string | null): string => (commit === null ? 'unknown' : `${commit.slice(0, 12)}${commit.includes('-dirty') ? ' with edits' : ''}`);

export const MERGE_OPTIONS = {
  out: { type: 'string' },
  scenario: { type: 'string' },
  'until-fail': { type: 'boolean' },
} as const;

export interface MergeArgs {
  /** Folders, files, or `-` (standard input). */
  readonly inputs: readonly string[];
  readonly out: string | undefined;
  readonly scenario: string | undefined;
  readonly untilFail: boolean;
}

export function parseMergeArgs(args: string[]): MergeArgs {
  const { values, positionals } = parseOptions(args, MERGE_OPTIONS);
  if (positionals.length === 0) throw new CliError('expected the shards\' results: folders (their --out), files, or - for standard input');
  if (positionals.filter((p) => p === '-').length > 1) throw new CliError('- (standard input) can be given once');
  return { inputs: positionals, out: values.out, scenario: values.scenario, untilFail: values['until-fail'] === true };
}

/** Every shard result on the lines of `text` (lines without one are skipped: a log holds other lines too). */
function resultsInText(text: string, source: string, folder: string | undefined, oneLine: boolean): ShardInput[] {
  const found: ShardInput[] = [];
  text.split('\n').forEach((line, i) => {
    const where = oneLine ? source : `${source} line ${i + 1}`;
    let result;
    try {
      result = parseShardResultLine(line);
    } catch (e) {
      if (e instanceof ShardResultError) throw new CliError(`corrupt shard result at ${where}: ${e.message}`);
      throw e;
    }
    if (result) found.push({ result, source: where, ...(folder === undefined ? {} : { folder }) });
  });
  return found;
}

async function readText(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (e) {
    throw new CliError(`cannot read ${file}: ${fileSystemReason(e as NodeJS.ErrnoException, file)}`);
  }
}

/** The shard result files in a folder, or else in its direct subfolders (one artifact per folder, as CI downloads them). */
async function shardFilesIn(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { withFileTypes: true });
  const here = entries.filter((e) => e.isFile() && SHARD_FILE.test(e.name)).map((e) => path.join(folder, e.name));
  if (here.length > 0) return here.sort();
  const below: string[] = [];
  for (const sub of entries.filter((e) => e.isDirectory())) {
    const inner = await readdir(path.join(folder, sub.name), { withFileTypes: true });
    below.push(...inner.filter((e) => e.isFile() && SHARD_FILE.test(e.name)).map((e) => path.join(folder, sub.name, e.name)));
  }
  return below.sort();
}

async function readStandardInput(io: CliIo): Promise<string> {
  if (io.readStdin) return io.readStdin();
  if (process.stdin.isTTY) throw new CliError('- reads shard results from standard input, which is a terminal: pipe them in (e.g. kubectl logs … | twinchain swarm merge -)');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Reads every shard result the inputs hold. */
export async function readShardInputs(inputs: readonly string[], io: CliIo): Promise<ShardInput[]> {
  const found: ShardInput[] = [];
  for (const input of inputs) {
    if (input === '-') {
      found.push(...resultsInText(await readStandardInput(io), 'stdin', undefined, false));
      continue;
    }
    const info = await stat(input).catch((e: NodeJS.ErrnoException) => {
      throw new CliError(`cannot read ${input}: ${e.code === 'ENOENT' ? 'no such file or folder' : fileSystemReason(e, input)}`);
    });
    if (info.isDirectory()) {
      const files = await shardFilesIn(input);
      if (files.length === 0) throw new CliError(`no shard results in ${input}: it holds no swarm-shard-I-of-N.json (nor do its subfolders)`);
      for (const file of files) found.push(...resultsInText(await readText(file), file, path.dirname(file), true));
    } else {
      const text = await readText(input);
      const results = resultsInText(text, input, path.dirname(input), SHARD_FILE.test(path.basename(input)));
      if (results.length === 0) throw new CliError(`no shard result in ${input}: none of its lines is one (a shard prints it with --json-stdout, and writes it to its --out as swarm-shard-I-of-N.json)`);
      found.push(...results);
    }
  }
  return found;
}

/** The scenario file the replay commands name: --scenario (checked against the shards' bytes), else the path every shard named. */
async function scenarioPath(merged: MergedScan, inputs: readonly ShardInput[], given: string | undefined): Promise<string> {
  if (given !== undefined) {
    const sha = await fileSha256(given).catch((e: NodeJS.ErrnoException) => {
      throw new CliError(`cannot read --scenario ${given}: ${fileSystemReason(e, given)}`);
    });
    if (sha !== merged.scenario.sha256) throw new CliError(`another scenario: --scenario ${given} (sha256 ${sha.slice(0, 12)}…) is not the file the shards ran (${merged.scenario.file}, sha256 ${merged.scenario.sha256.slice(0, 12)}…)`);
    return given;
  }
  const named = [...new Set(inputs.map((i) => i.result.scenario.file))];
  if (named.length > 1) throw new CliError(`the shards name the scenario file differently (${named.slice(0, 3).join(', ')}${named.length > 3 ? ', …' : ''}), though its bytes are the same: give --scenario <file> for the replay commands to name`);
  return named[0]!;
}

/** Whether `folder` (a seed-S/ folder) holds the report of this very run: its summary names the same seed and trace digest. */
async function holdsReportOf(folder: string, run: SwarmRun): Promise<boolean> {
  if (run.digest === null) return false;
  try {
    const summary = JSON.parse(await readFile(path.join(folder, 'summary.json'), 'utf8')) as { seed?: unknown; traceDigest?: unknown };
    await stat(path.join(folder, 'report.html'));
    return summary.seed === run.seed && summary.traceDigest === run.digest;
  } catch {
    return false;
  }
}

/**
 * A failing seed's report folder (seed-S/) into the merged folder, from the shard's folder when
 * it is another one; the report's path, or null when no input holds the report of this run (a
 * seed-S/ left by another run is neither copied nor named).
 */
async function mergedReport(run: SwarmRun, merged: MergedScan, out: string): Promise<string | null> {
  if (run.verdict === 'pass') return null;
  const folder = `seed-${run.seed}`;
  const from = merged.sourceOf.get(run.seed)?.folder;
  if (from !== undefined && path.resolve(from) !== path.resolve(out) && (await holdsReportOf(path.join(from, folder), run))) {
    await cp(path.join(from, folder), path.join(out, folder), { recursive: true, force: true });
  }
  return (await holdsReportOf(path.join(out, folder), run)) ? path.join(out, folder, 'report.html') : null;
}

/** What a merge prints: its header, the rows and the verdict lines of the unsharded run, and notes on gaps and seeds past the cut. */
function printMerged(io: CliIo, merged: MergedScan, runs: readonly SwarmRun[], ctx: VerdictContext): void {
  const { plan, twinchain } = merged;
  const scan = [plan.seeds === null ? 'an unbounded scan' : `${plan.seeds} swarm run${plan.seeds === 1 ? '' : 's'}`, plan.untilFail ? 'until a seed fails' : undefined, plan.budgetMs === null ? undefined : 'each shard within its --budget']
    .filter((l) => l !== undefined)
    .join(', ');
  io.out(
    `${merged.scenario.name}: ${plural(merged.shards, 'shard')} of ${scan}${plan.budgetMs === null ? '' : ','} from seed ${plan.from}, merged ` +
      `(twinchain ${twinchain.version}, commit ${shortCommit(twinchain.commit)}; ${merged.scenario.file}, sha256 ${merged.scenario.sha256.slice(0, 12)}…)`,
  );
  for (const r of runs) io.out(seedRow(r));
  io.out('');
  const found = merged.firstFailure;
  io.out(
    `${plural(runs.length, 'seed')} in ${(merged.wallMs / 1000).toFixed(1)} s wall (the longest of ${plural(merged.shards, 'shard')}; ${(merged.shardWallMs / 1000).toFixed(1)} s wall in all): ` +
      `${seedsPerMinute(runs.length, merged.wallMs)} seeds/min with ${plural(merged.jobs, 'job')}` +
      `${merged.untilFail && found ? `; the lowest failing seed is ${found.seed}, found by shard ${shardName(found.shard)} after ${(found.afterMs / 1000).toFixed(1)} s` : ''}`,
  );
  const unrun = merged.firstUnrun;
  if (unrun && merged.untilFail && found) io.out(`note: shard ${shardName(unrun.shard)} spent its budget before seed ${unrun.seed}: seeds from ${unrun.seed} up to ${found.seed} did not all run, and one of them may fail too`);
  else if (unrun) io.out(`note: every seed up to ${unrun.seed - 1} ran; shard ${shardName(unrun.shard)} spent its budget before seed ${unrun.seed}, and others ran on to seed ${runs.at(-1)!.seed}`);
  const above = merged.failingAboveCut;
  if (above.length > 0) {
    io.out(`note: shards also ran on to failing seed${above.length === 1 ? '' : 's'} ${above.slice(0, 8).join(', ')}${above.length > 8 ? ', …' : ''} above the lowest (left out of swarm.json, which one --until-fail run would not have reached; --seed S replays each)`);
  }
  for (const l of verdictLines(runs, ctx)) io.out(l);
}

/**
 * twinchain swarm merge <folders | files | -> [--out dir] [--scenario file] [--until-fail]:
 * checks that the results are every shard of one scan, exactly once, and writes the swarm.json
 * (and failing seeds' report folders) one unsharded run of the same seeds writes, printing its
 * rows and verdict.
 */
export async function run(args: string[], io: CliIo): Promise<number> {
  const a = parseMergeArgs(args);
  const inputs = await readShardInputs(a.inputs, io);
  let merged: MergedScan;
  try {
    merged = mergeShardResults(inputs, { untilFail: a.untilFail });
  } catch (e) {
    if (e instanceof MergeRefusal) throw new CliError(e.message);
    throw e;
  }
  const file = await scenarioPath(merged, inputs, a.scenario);
  const out = a.out ?? path.join('reports', `${merged.scenario.name}-swarm`);
  await makeOutputFolder(out);
  const runs: SwarmRun[] = [];
  for (const r of merged.runs) runs.push({ ...r, replay: swarmReplayCommand(file, r.seed, a.out), report: await mergedReport(r, merged, out) });
  const swarmJson = path.join(out, 'swarm.json');
  const firstFailure = merged.firstFailure && { seed: merged.firstFailure.seed, afterMs: merged.firstFailure.afterMs };
  await writeFile(swarmJson, swarmJsonText({ scenario: { ...merged.scenario, file }, twinchain: merged.twinchain, shards: merged.shards, jobs: merged.jobs, wallMs: merged.wallMs, firstFailure, runs, shrinkCommand: (seed) => shrinkCommand(file, seed) }));

  printMerged(io, merged, runs, { file, out, single: false, swarmJson });
  io.out(`merged: ${swarmJson}`);
  return runs.some((r) => r.verdict !== 'pass') ? 1 : 0;
}
