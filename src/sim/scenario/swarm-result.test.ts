import { describe, expect, it } from 'vitest';
import { mergeShardResults, parseShardResultLine, shardResultLine, type ScanPlan, type ShardInput, type ShardResult, type SwarmRun } from './swarm-result.js';
import { shardOf, shardSeed, shardSeedCount, type ShardSpec } from './swarm-shard.js';

describe('swarm shards', () => {
  it('give every seed of a scan to exactly one shard, in seed order within each', () => {
    for (const [from, total] of [[1, 20], [0, 7], [5, 3], [2, 1]] as const) {
      for (const count of [1, 2, 3, 7, 10]) {
        const seen: number[] = [];
        for (let index = 0; index < count; index++) {
          const shard = { index, count };
          const n = shardSeedCount(total, shard)!;
          const seeds = Array.from({ length: n }, (_, k) => shardSeed(from, shard, k));
          expect(seeds).toEqual([...seeds].sort((a, b) => a - b));
          for (const s of seeds) expect(shardOf(s, from, count)).toBe(index);
          seen.push(...seeds);
        }
        expect(seen.sort((a, b) => a - b), `from ${from}, ${total} seeds, ${count} shards`).toEqual(Array.from({ length: total }, (_, i) => from + i));
      }
    }
    expect(shardSeedCount(undefined, { index: 0, count: 3 })).toBeUndefined();
    expect(shardSeedCount(2, { index: 4, count: 7 })).toBe(0);
  });
});

const PLAN: ScanPlan = { from: 1, seeds: 9, untilFail: false, budgetMs: null };
const SHA = 'a'.repeat(64);

function run(seed: number, verdict: SwarmRun['verdict'] = 'pass'): SwarmRun {
  return {
    seed,
    verdict,
    drawn: [`crash node${seed % 4} from 1.0 s to 2.0 s`],
    digest: verdict === 'error' ? null : `digest-${seed}`,
    replay: `npx twinchain swarm s.yaml --seed ${seed}`,
    failed: verdict === 'fail' ? [{ name: 'liveness', ok: false, detail: 'stalled' }] : [],
    violations: [],
    ...(verdict === 'error' ? { error: 'boom' } : {}),
    report: null,
    wallMs: 100 + seed,
    virtualMs: verdict === 'error' ? null : 8000,
    blocks: verdict === 'error' ? null : 12,
  };
}

/** Shard `index` of `count` of PLAN (or `plan`), its seeds failing where `fails` says. */
function shard(index: number, count: number, fails: (seed: number) => boolean = () => false, plan: ScanPlan = PLAN, extra: Partial<ShardResult> = {}): ShardResult {
  const spec: ShardSpec = { index, count };
  const runs: SwarmRun[] = [];
  for (let k = 0; k < shardSeedCount(plan.seeds ?? 8, spec)!; k++) {
    const seed = shardSeed(plan.from, spec, k);
    runs.push(run(seed, fails(seed) ? 'fail' : 'pass'));
    if (plan.untilFail && fails(seed)) break;
  }
  const failing = runs.find((r) => r.verdict !== 'pass');
  return {
    format: 'twinchain-swarm-shard/1',
    twinchain: { version: '0.1.0', commit: 'c0ffee' },
    scenario: { name: 's', file: 's.yaml', sha256: SHA },
    shard: spec,
    plan,
    stop: plan.untilFail && failing ? 'failure' : plan.seeds === null ? 'budget' : 'done',
    jobs: 1,
    wallMs: 1000,
    seedsPerMinute: 10,
    cpuMs: 900,
    firstFailure: failing ? { seed: failing.seed, afterMs: 500 } : null,
    runs,
    ...extra,
  };
}

const inputs = (...results: ShardResult[]): ShardInput[] => results.map((result, i) => ({ result, source: `in${i}` }));
const split = (count: number, fails?: (seed: number) => boolean, plan?: ScanPlan) => inputs(...Array.from({ length: count }, (_, i) => shard(i, count, fails, plan)));

describe('shard result lines', () => {
  it('read back what they wrote, after a log prefix too', () => {
    const result = shard(1, 3, (s) => s === 5);
    const line = shardResultLine(result);
    expect(line).not.toContain('\n');
    expect(parseShardResultLine(line)).toEqual(result);
    expect(parseShardResultLine(`[pod/twinchain-swarm-1-x/swarm] ${line}\r`)).toEqual(result);
    expect(parseShardResultLine('  seed    5  FAIL  …')).toBeUndefined();
  });

  it('refuse a line cut off, changed, or of another format', () => {
    const line = shardResultLine(shard(0, 2));
    expect(() => parseShardResultLine(line.slice(0, 200))).toThrow(/cut off or changed: it does not end with its check \(200 characters\)/);
    const changed = line.replace('"digest":"digest-1"', '"digest":"digest-7"');
    expect(changed).not.toBe(line);
    expect(() => parseShardResultLine(changed)).toThrow('a shard result changed on its way: its check does not match its content');
    expect(() => parseShardResultLine(line.replace('twinchain-swarm-shard/1', 'twinchain-swarm-shard/9'))).toThrow(/format twinchain-swarm-shard\/9, which this twinchain does not read/);
  });

  it('refuse a well-sealed line whose content is not a shard result, naming the field', async () => {
    const { createHash } = await import('node:crypto');
    const body = JSON.stringify({ ...shard(0, 2), jobs: 'two' });
    const sealed = `${body.slice(0, -1)},"check":"${createHash('sha256').update(body).digest('hex')}"}`;
    expect(() => parseShardResultLine(sealed)).toThrow(/^a shard result with jobs: /);
  });
});

describe('mergeShardResults', () => {
  it('joins the shards into the runs of the whole scan, in seed order', () => {
    for (const count of [1, 3, 7]) {
      const merged = mergeShardResults(split(count, (s) => s === 4 || s === 8).reverse());
      expect(merged.runs.map((r) => r.seed)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
      expect(merged.runs.filter((r) => r.verdict === 'fail').map((r) => r.seed)).toEqual([4, 8]);
      expect(merged.firstFailure).toMatchObject({ seed: 4, afterMs: 500, shard: { index: 3 % count, count } });
      expect(merged.jobs).toBe(count);
      expect(merged.firstUnrun).toBeNull();
    }
  });

  it('with --until-fail keeps the seeds up to the lowest failing seed over all shards', () => {
    const plan = { ...PLAN, untilFail: true };
    // shard 2/3 fails at 3 (its first seed); shard 0/3 fails later, at 7; shard 1/3 never
    const merged = mergeShardResults(split(3, (s) => s === 3 || s === 7, plan));
    expect(merged.runs.map((r) => [r.seed, r.verdict])).toEqual([[1, 'pass'], [2, 'pass'], [3, 'fail']]);
    expect(merged.firstFailure).toMatchObject({ seed: 3, shard: { index: 2, count: 3 } });
    // asked for by the merge over shards that ran every seed
    const cut = mergeShardResults(split(3, (s) => s === 5 || s === 6), { untilFail: true });
    expect(cut.runs.map((r) => r.seed)).toEqual([1, 2, 3, 4, 5]);
  });

  it('says when a budget left seeds below the last one unrun', () => {
    const plan: ScanPlan = { from: 1, seeds: null, untilFail: true, budgetMs: 60_000 };
    const slow = shard(0, 2, () => false, plan);
    const fast = shard(1, 2, (s) => s === 8, plan);
    // shard 0/2 ran 1, 3, 5, 7 (budget spent), shard 1/2 ran 2, 4, 6, 8 and failed at 8: seed 9 and up unrun, but below 8 all ran
    expect(mergeShardResults(inputs(slow, fast)).firstUnrun).toBeNull();
    const slower = { ...slow, runs: slow.runs.slice(0, 2) }; // ran 1 and 3 only: 5 and 7 unknown
    const merged = mergeShardResults(inputs(slower, fast));
    expect(merged.firstUnrun).toEqual({ seed: 5, shard: { index: 0, count: 2 } });
    expect(merged.firstFailure?.seed).toBe(8);
  });

  it('refuses another scenario, version, split or scan, each with its reason', () => {
    const [a, b, c] = split(3).map((i) => i.result);
    const cases: Array<[ShardResult, string]> = [
      [{ ...c!, scenario: { ...c!.scenario, sha256: 'b'.repeat(64) } }, 'another scenario: in2 ran s.yaml (sha256 bbbbbbbbbbbb…), in0 ran s.yaml (sha256 aaaaaaaaaaaa…)'],
      [{ ...c!, twinchain: { version: '0.1.0', commit: 'beef' } }, 'another version: in2 ran twinchain 0.1.0 (commit beef), in0 ran twinchain 0.1.0 (commit c0ffee)'],
      [{ ...c!, twinchain: { version: '0.2.0', commit: null } }, 'another version: in2 ran twinchain 0.2.0 (commit unknown), in0 ran twinchain 0.1.0 (commit c0ffee)'],
      [shard(2, 4), 'another split: in2 is shard 2/4, in0 is shard 0/3'],
      [shard(2, 3, undefined, { ...PLAN, seeds: 12 }), 'another scan: in2 ran --from 1 --seeds 12, in0 ran --from 1 --seeds 9'],
      [shard(2, 3, undefined, { ...PLAN, untilFail: true }), 'another scan: in2 ran --from 1 --seeds 9 --until-fail, in0 ran --from 1 --seeds 9'],
    ];
    for (const [odd, reason] of cases) expect(() => mergeShardResults(inputs(a!, b!, odd))).toThrow(reason);
  });

  it('refuses a missing shard and an overlap', () => {
    const [a, b, c] = split(3);
    expect(() => mergeShardResults([a!, c!])).toThrow('missing shard 1/3: the inputs hold 2 of the 3 shards\' results');
    const many = split(10).filter((_, i) => i < 2);
    expect(() => mergeShardResults(many)).toThrow('missing shards 2/10, 3/10, 4/10, 5/10, 6/10 and 3 more: the inputs hold 2 of the 10 shards\' results');
    expect(() => mergeShardResults([a!, b!, { ...b!, source: 'again' }, c!])).toThrow('overlap: shard 1/3 is in both in1 and again');
    expect(() => mergeShardResults([])).toThrow('no shard results among the inputs');
  });

  it("refuses a result whose seeds are not its shard's, or disagree with why it stopped", () => {
    const [a, b, c] = split(3).map((i) => i.result);
    const wrong = (result: ShardResult) => () => mergeShardResults(inputs(a!, b!, result));
    expect(wrong({ ...c!, runs: [run(3), run(7)] })).toThrow('corrupt shard result: in2 (shard 2/3) lists seed 7, which belongs to shard 0/3');
    expect(wrong({ ...c!, runs: [run(3), run(9)] })).toThrow('corrupt shard result: in2 (shard 2/3) lists seed 9 where its seed 6 belongs');
    expect(wrong({ ...c!, runs: [run(3), run(6)] })).toThrow('corrupt shard result: in2 (shard 2/3) says it ran all its seeds but lists 2 of 3');
    expect(wrong({ ...c!, firstFailure: { seed: 6, afterMs: 1 } })).toThrow('corrupt shard result: in2 (shard 2/3) names seed 6 as its first failure, but its runs say none');
    expect(wrong({ ...c!, stop: 'budget' })).toThrow("corrupt shard result: in2 (shard 2/3) says its budget was spent, but it ran without --budget");
  });

  it('refuses an --until-fail result that goes on past its first failing seed, whatever it says of why it stopped', () => {
    const plan: ScanPlan = { ...PLAN, untilFail: true };
    const [a, b] = split(3, () => false, plan).map((i) => i.result);
    const on = shard(2, 3, (s) => s === 3, { ...plan, untilFail: false });
    expect(on.runs.map((r) => [r.seed, r.verdict])).toEqual([[3, 'fail'], [6, 'pass'], [9, 'pass']]);
    const claims = { plan, firstFailure: { seed: 3, afterMs: 500 } };
    expect(() => mergeShardResults(inputs(a!, b!, { ...on, ...claims, stop: 'done' }))).toThrow('corrupt shard result: in2 (shard 2/3) ran --until-fail but lists seeds after its first failing one');
    expect(() => mergeShardResults(inputs(a!, b!, { ...on, ...claims, stop: 'failure' }))).toThrow('corrupt shard result: in2 (shard 2/3) says it stopped at a failing seed, but its last seed is not its first failing one');
  });
});
