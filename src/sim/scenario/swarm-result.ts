import { createHash } from 'node:crypto';
import { z } from 'zod';
import { MAX_SHARDS, shardName, shardOf, shardSeed, shardSeedCount, type ShardSpec } from './swarm-shard.js';

export type SwarmVerdict = 'pass' | 'fail' | 'error';

/** A violation as swarm.json records it. */
export interface SwarmViolation {
  readonly invariant: string;
  readonly node: string;
  readonly height: number;
  readonly detail: string;
  readonly atMs: number;
}

export interface SwarmExpectation {
  readonly name: string;
  readonly ok: boolean;
  readonly detail: string;
}

/** One seed's outcome as a scan keeps it (plain data: worker threads post it, shard results carry it). */
export interface SwarmRun {
  readonly seed: number;
  readonly verdict: SwarmVerdict;
  readonly drawn: readonly string[];
  readonly digest: string | null;
  readonly replay: string;
  readonly failed: readonly SwarmExpectation[];
  readonly violations: readonly SwarmViolation[];
  readonly error?: string;
  readonly report: string | null;
  readonly wallMs: number;
  /** Virtual ms simulated and blocks committed, for the printed row (null when the seed's run threw). */
  readonly virtualMs: number | null;
  readonly blocks: number | null;
  /** The mutations each mutating byzantine node made, by name (what the adversary did). */
  readonly mutations?: Readonly<Record<string, Readonly<Record<string, number>>>>;
}

/** Which Twinchain ran a scan: the package version and, when known, the git commit. */
export interface TwinchainBuild {
  readonly version: string;
  readonly commit: string | null;
}

/** The scenario file a scan ran: its name, the path it was given as, and the SHA-256 of its bytes. */
export interface SwarmScenarioId {
  readonly name: string;
  readonly file: string;
  readonly sha256: string;
}

/** The scan as its command line asked for it (every shard of one scan has the same plan). */
export interface ScanPlan {
  readonly from: number;
  /** Seeds over all shards; null when the scan is unbounded (a budget, or until a failure). */
  readonly seeds: number | null;
  readonly untilFail: boolean;
  readonly budgetMs: number | null;
}

export interface FirstFailure {
  readonly seed: number;
  /** Wall ms from the start of the run that found it until its outcome was known. */
  readonly afterMs: number;
}

/**
 * Why a shard stopped: it ran all its seeds (`done`), stopped at its first failing seed with
 * --until-fail (`failure`), or its --budget was spent (`budget`).
 */
export type ShardStop = 'done' | 'failure' | 'budget';

export const SHARD_FORMAT = 'twinchain-swarm-shard/1';

/** What one shard ran and found: self-describing, so that a merge can check it needs nothing else. */
export interface ShardResult {
  readonly format: typeof SHARD_FORMAT;
  readonly twinchain: TwinchainBuild;
  readonly scenario: SwarmScenarioId;
  readonly shard: ShardSpec;
  readonly plan: ScanPlan;
  readonly stop: ShardStop;
  readonly jobs: number;
  readonly wallMs: number;
  readonly seedsPerMinute: number;
  /** CPU ms the shard's process used from its start (all its threads; start-up included). */
  readonly cpuMs: number;
  readonly firstFailure: FirstFailure | null;
  /** The shard's seeds it ran, in seed order: its first runs.length seeds. */
  readonly runs: readonly SwarmRun[];
}

/** Keys of swarm.json that depend on the machine and how the scan was split, not on the seeds. */
export const SWARM_TIMING_KEYS = ['shards', 'jobs', 'seedsPerMinute', 'wallMs', 'afterMs'] as const;

export function seedsPerMinute(seeds: number, wallMs: number): number {
  return Math.round((seeds / Math.max(1, wallMs)) * 60_000 * 10) / 10;
}

/** What swarm.json holds: written the same way by a scan and by a merge of its shards. */
export interface SwarmSummary {
  readonly scenario: SwarmScenarioId;
  readonly twinchain: TwinchainBuild;
  readonly shards: number;
  readonly jobs: number;
  readonly wallMs: number;
  readonly firstFailure: FirstFailure | null;
  readonly runs: readonly SwarmRun[];
  /** The command that shrinks a failing seed, recorded beside its replay (the CLI's, so that swarm and merge name it alike). */
  readonly shrinkCommand?: (seed: number) => string;
}

/** swarm.json's text. */
export function swarmJsonText(s: SwarmSummary): string {
  return `${JSON.stringify(
    {
      scenario: s.scenario.name,
      file: s.scenario.file,
      scenarioSha256: s.scenario.sha256,
      twinchain: s.twinchain,
      shards: s.shards,
      jobs: s.jobs,
      seedsPerMinute: seedsPerMinute(s.runs.length, s.wallMs),
      wallMs: Math.round(s.wallMs),
      firstFailure: s.firstFailure,
      runs: s.runs.map((r) => ({
        seed: r.seed,
        verdict: r.verdict,
        drawn: r.drawn,
        digest: r.digest,
        replay: r.replay,
        ...(r.verdict === 'fail' && s.shrinkCommand ? { shrink: s.shrinkCommand(r.seed) } : {}),
        failed: r.failed,
        ...(r.verdict === 'pass' ? {} : { violations: r.violations }),
        ...(r.error === undefined ? {} : { error: r.error }),
        ...(r.mutations ? { mutations: r.mutations } : {}),
        report: r.report,
        wallMs: Math.round(r.wallMs),
      })),
    },
    null,
    2,
  )}\n`;
}

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/**
 * A shard result as one line of JSON (for a file, stdout, a CI or `kubectl logs` log), ending
 * with the SHA-256 of everything before it, so that a line cut off or changed on its way is
 * refused instead of merged.
 */
export function shardResultLine(result: ShardResult): string {
  const body = JSON.stringify({ ...result, runs: result.runs.map((r) => ({ ...r, wallMs: Math.round(r.wallMs) })) });
  return `${body.slice(0, -1)},"check":"${sha256(body)}"}`;
}

/** Where a shard result line starts: anything before it on its line (a log prefix) is not part of it. */
export const SHARD_LINE_MARK = '{"format":"twinchain-swarm-shard/';

export class ShardResultError extends Error {
  override readonly name = 'ShardResultError';
}

const runSchema = z
  .object({
    seed: z.number().int().nonnegative(),
    verdict: z.enum(['pass', 'fail', 'error']),
    drawn: z.array(z.string()),
    digest: z.string().nullable(),
    replay: z.string(),
    failed: z.array(z.object({ name: z.string(), ok: z.boolean(), detail: z.string() }).strict()),
    violations: z.array(z.object({ invariant: z.string(), node: z.string(), height: z.number(), detail: z.string(), atMs: z.number() }).strict()),
    error: z.string().optional(),
    report: z.string().nullable(),
    wallMs: z.number().nonnegative(),
    virtualMs: z.number().nonnegative().nullable(),
    blocks: z.number().int().nonnegative().nullable(),
    mutations: z.record(z.string(), z.record(z.string(), z.number().int().nonnegative())).optional(),
  })
  .strict();

const resultSchema = z
  .object({
    format: z.literal(SHARD_FORMAT),
    twinchain: z.object({ version: z.string().min(1), commit: z.string().min(1).nullable() }).strict(),
    scenario: z.object({ name: z.string(), file: z.string(), sha256: z.string().regex(/^[0-9a-f]{64}$/, 'expected 64 hex digits') }).strict(),
    shard: z
      .object({ index: z.number().int().nonnegative(), count: z.number().int().min(1).max(MAX_SHARDS) })
      .strict()
      .refine((s) => s.index < s.count, 'the index must be below the count'),
    plan: z.object({ from: z.number().int().nonnegative(), seeds: z.number().int().min(1).nullable(), untilFail: z.boolean(), budgetMs: z.number().positive().nullable() }).strict(),
    stop: z.enum(['done', 'failure', 'budget']),
    jobs: z.number().int().min(1),
    wallMs: z.number().nonnegative(),
    seedsPerMinute: z.number().nonnegative(),
    cpuMs: z.number().nonnegative(),
    firstFailure: z.object({ seed: z.number().int().nonnegative(), afterMs: z.number().nonnegative() }).strict().nullable(),
    runs: z.array(runSchema),
  })
  .strict();

/**
 * Reads the shard result on one line of text (from its SHARD_LINE_MARK on); undefined when the
 * line holds none. A line that holds one but is cut off, changed or not of this format throws a
 * ShardResultError saying which.
 */
export function parseShardResultLine(line: string): ShardResult | undefined {
  const at = line.indexOf(SHARD_LINE_MARK);
  if (at < 0) return undefined;
  const text = line.slice(at).trimEnd();
  const format = /^\{"format":"([^"]*)"/.exec(text)?.[1];
  if (format !== SHARD_FORMAT) throw new ShardResultError(`a shard result of format ${format ?? '(unreadable)'}, which this twinchain does not read (it reads ${SHARD_FORMAT}): merge with the version that ran the shards`);
  const sealed = /,"check":"([0-9a-f]{64})"\}$/.exec(text);
  if (!sealed) throw new ShardResultError(`a shard result cut off or changed: it does not end with its check (${text.length} characters)`);
  const body = `${text.slice(0, sealed.index)}}`;
  if (sha256(body) !== sealed[1]) throw new ShardResultError('a shard result changed on its way: its check does not match its content');
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch (e) {
    throw new ShardResultError(`a shard result that is not JSON: ${(e as Error).message}`);
  }
  const parsed = resultSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ShardResultError(`a shard result with ${issue.path.length > 0 ? `${issue.path.join('.')}: ` : ''}${issue.message}`);
  }
  return parsed.data as ShardResult;
}

/** A shard result and where it was read (for the reasons a merge gives). */
export interface ShardInput {
  readonly result: ShardResult;
  /** "folder/swarm-shard-1-of-3.json", "logs.txt line 12", "stdin line 4". */
  readonly source: string;
  /** The folder the result was read from (its seeds' report folders are there), if any. */
  readonly folder?: string;
}

/** A merge refused: the message is the one-line reason. */
export class MergeRefusal extends Error {
  override readonly name = 'MergeRefusal';
}

/** The merged scan, in seed order, as one unsharded scan of the same seeds would have it. */
export interface MergedScan {
  readonly scenario: SwarmScenarioId;
  readonly twinchain: TwinchainBuild;
  readonly plan: ScanPlan;
  readonly shards: number;
  readonly untilFail: boolean;
  readonly runs: readonly SwarmRun[];
  /** The input each run came from. */
  readonly sourceOf: ReadonlyMap<number, ShardInput>;
  readonly firstFailure: (FirstFailure & { readonly shard: ShardSpec }) | null;
  /** Sum of the shards' jobs, the longest shard's wall ms, and all shards' wall ms together. */
  readonly jobs: number;
  readonly wallMs: number;
  readonly shardWallMs: number;
  /** The first seed of the scan that no shard ran although a higher one ran or failed (budgets spent unevenly); null when there is none. */
  readonly firstUnrun: { readonly seed: number; readonly shard: ShardSpec } | null;
  /** With the --until-fail cut: the failing seeds above the lowest one that shards ran on to (not in the merged runs). */
  readonly failingAboveCut: readonly number[];
}

const version = (b: TwinchainBuild): string => `twinchain ${b.version} (commit ${b.commit ?? 'unknown'})`;

/** The seeds a scan covers and where it stops, as options (a shard's --budget is its own: shards may differ in it). */
function planText(p: ScanPlan): string {
  const parts = [`--from ${p.from}`, p.seeds === null ? undefined : `--seeds ${p.seeds}`, p.untilFail ? '--until-fail' : undefined];
  return parts.filter((x) => x !== undefined).join(' ');
}

/** Checks that a shard's runs are its own first seeds and agree with why it stopped. */
function checkShardRuns(input: ShardInput): void {
  const { shard, plan, runs, stop } = input.result;
  const where = `${input.source} (shard ${shardName(shard)})`;
  const corrupt = (why: string): never => {
    throw new MergeRefusal(`corrupt shard result: ${where} ${why}`);
  };
  const expected = shardSeedCount(plan.seeds ?? undefined, shard);
  runs.forEach((r, k) => {
    const own = shardSeed(plan.from, shard, k);
    if (r.seed === own) return;
    const owner = shardOf(r.seed, plan.from, shard.count);
    corrupt(owner === shard.index || owner === undefined ? `lists seed ${r.seed} where its seed ${own} belongs` : `lists seed ${r.seed}, which belongs to shard ${owner}/${shard.count}`);
  });
  if (expected !== undefined && runs.length > expected) corrupt(`lists ${runs.length} seeds; its share of --seeds ${plan.seeds} is ${expected}`);
  if (stop === 'done' && runs.length !== expected) corrupt(`says it ran all its seeds but lists ${runs.length} of ${expected ?? 'an unbounded scan'}`);
  const failing = runs.findIndex((r) => r.verdict !== 'pass');
  if (stop === 'failure' && (!plan.untilFail || failing !== runs.length - 1)) corrupt('says it stopped at a failing seed, but its last seed is not its first failing one');
  if (plan.untilFail && failing >= 0 && failing !== runs.length - 1) corrupt('ran --until-fail but lists seeds after its first failing one');
  if (stop === 'budget' && plan.budgetMs === null) corrupt('says its budget was spent, but it ran without --budget');
  const first = input.result.firstFailure;
  if ((first?.seed ?? null) !== (failing >= 0 ? runs[failing]!.seed : null)) corrupt(`names seed ${first?.seed ?? 'none'} as its first failure, but its runs say ${failing >= 0 ? runs[failing]!.seed : 'none'}`);
}

/** Every input ran the same scenario bytes with the same twinchain, and the same scan split the same way. */
function checkSameScan(inputs: readonly ShardInput[]): void {
  const [a, ...rest] = inputs;
  for (const b of rest) {
    const [x, y] = [a!.result, b.result];
    if (x.scenario.sha256 !== y.scenario.sha256) {
      throw new MergeRefusal(`another scenario: ${b.source} ran ${y.scenario.file} (sha256 ${y.scenario.sha256.slice(0, 12)}…), ${a!.source} ran ${x.scenario.file} (sha256 ${x.scenario.sha256.slice(0, 12)}…)`);
    }
    if (x.twinchain.version !== y.twinchain.version || x.twinchain.commit !== y.twinchain.commit) {
      throw new MergeRefusal(`another version: ${b.source} ran ${version(y.twinchain)}, ${a!.source} ran ${version(x.twinchain)}`);
    }
    if (x.shard.count !== y.shard.count) throw new MergeRefusal(`another split: ${b.source} is shard ${shardName(y.shard)}, ${a!.source} is shard ${shardName(x.shard)}`);
    if (planText(x.plan) !== planText(y.plan)) throw new MergeRefusal(`another scan: ${b.source} ran ${planText(y.plan)}, ${a!.source} ran ${planText(x.plan)}`);
  }
}

/** Each shard index exactly once. */
function checkCoverage(inputs: readonly ShardInput[]): void {
  const count = inputs[0]!.result.shard.count;
  const byIndex = new Map<number, ShardInput>();
  for (const input of inputs) {
    const seen = byIndex.get(input.result.shard.index);
    if (seen) throw new MergeRefusal(`overlap: shard ${shardName(input.result.shard)} is in both ${seen.source} and ${input.source}`);
    byIndex.set(input.result.shard.index, input);
  }
  const missing: number[] = [];
  for (let i = 0; i < count && missing.length <= 5; i++) if (!byIndex.has(i)) missing.push(i);
  if (missing.length > 0) {
    const named = missing.slice(0, 5).map((i) => `${i}/${count}`);
    const more = count - byIndex.size - named.length;
    throw new MergeRefusal(`missing shard${missing.length > 1 ? 's' : ''} ${named.join(', ')}${more > 0 ? ` and ${more} more` : ''}: the inputs hold ${byIndex.size} of the ${count} shards' results`);
  }
}

/**
 * Merges the results of every shard of one scan into the scan one unsharded run of the same
 * seeds makes: the same runs in seed order, cut after the lowest failing seed when the scan ran
 * --until-fail (or `untilFail` asks for that cut). Refuses (MergeRefusal, a one-line reason)
 * results of another scenario, version, split or scan, a shard given twice or missing, and a
 * result whose seeds are not its shard's.
 */
export function mergeShardResults(inputs: readonly ShardInput[], options: { untilFail?: boolean } = {}): MergedScan {
  if (inputs.length === 0) throw new MergeRefusal('no shard results among the inputs');
  checkSameScan(inputs);
  for (const input of inputs) checkShardRuns(input);
  checkCoverage(inputs);
  const { scenario, twinchain, plan } = inputs[0]!.result;
  const untilFail = plan.untilFail || options.untilFail === true;
  const sourceOf = new Map<number, ShardInput>();
  const all: SwarmRun[] = [];
  for (const input of inputs) {
    for (const run of input.result.runs) {
      sourceOf.set(run.seed, input);
      all.push(run);
    }
  }
  all.sort((a, b) => a.seed - b.seed);
  const failing = all.find((r) => r.verdict !== 'pass');
  const runs = untilFail && failing ? all.filter((r) => r.seed <= failing.seed) : all;
  // a shard whose budget ran out before its seeds did leaves its next seed unrun
  let firstUnrun: MergedScan['firstUnrun'] = null;
  for (const { result } of inputs) {
    if (result.stop !== 'budget') continue;
    const seed = shardSeed(plan.from, result.shard, result.runs.length);
    if (firstUnrun === null || seed < firstUnrun.seed) firstUnrun = { seed, shard: result.shard };
  }
  const last = runs.at(-1)?.seed;
  if (firstUnrun !== null && (last === undefined || firstUnrun.seed > last)) firstUnrun = null;
  const found = failing ? sourceOf.get(failing.seed)!.result : undefined;
  return {
    scenario,
    twinchain,
    plan,
    shards: inputs[0]!.result.shard.count,
    untilFail,
    runs,
    sourceOf,
    firstFailure: failing && found ? { seed: failing.seed, afterMs: found.firstFailure?.seed === failing.seed ? found.firstFailure.afterMs : 0, shard: found.shard } : null,
    jobs: inputs.reduce((n, i) => n + i.result.jobs, 0),
    wallMs: Math.max(...inputs.map((i) => i.result.wallMs)),
    shardWallMs: inputs.reduce((n, i) => n + i.result.wallMs, 0),
    firstUnrun,
    failingAboveCut: untilFail && failing ? all.filter((r) => r.seed > failing.seed && r.verdict !== 'pass').map((r) => r.seed) : [],
  };
}
