import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadScenarioFile } from '../sim/index.js';
import { captureIo } from './capture-io.test-helper.js';
import { scenarioFolder, smallScenario } from './scenario-files.test-helper.js';
import { main } from './main.js';
import { runSeeds, WorkerRunner, type SeedRunner } from './swarm-pool.js';
import type { SeedOutcome } from './swarm-seed.js';
import { seedRow } from './swarm-text.js';

const scenarios = scenarioFolder('twinchain-swarm-');
const scenarioFile = scenarios.file;

const SMALL = (expect: string) =>
  smallScenario(`swarm: { crashes: [0, 1], partitions: [0, 1], window: [2s, 6s], faultDuration: [1s, 2s] }
expect: ${expect}
`);

interface SwarmJson {
  jobs: number;
  seedsPerMinute: number;
  wallMs: number;
  firstFailure: { seed: number; afterMs: number } | null;
  runs: Array<{ seed: number; verdict: string; digest: string | null; wallMs: number; failed: unknown[]; violations?: unknown[] }>;
}
const swarmJson = async (out: string) => JSON.parse(await readFile(path.join(out, 'swarm.json'), 'utf8')) as SwarmJson;
/** The seed rows of the output, without the speed column (wall-clock dependent). */
const rows = (stdout: string) =>
  stdout
    .split('\n')
    .filter((l) => /^ {2}seed +\d+ {2}|^ {8}/.test(l))
    .map((l) => l.replace(/ +[0-9.]+× /, ' '));

describe('twinchain swarm --jobs', () => {
  it('--jobs 2 prints the same rows and writes the same runs as --jobs 1', async () => {
    const file = await scenarioFile('jobs', SMALL('{ liveness: { within: 10s }, maxViewChanges: 0 }'));
    const one = captureIo();
    const two = captureIo();
    const codes = [await main(['swarm', file, '--seeds', '4', '--jobs', '1', '--out', path.join(scenarios.dir, 'j1')], one), await main(['swarm', file, '--seeds', '4', '--jobs', '2', '--out', path.join(scenarios.dir, 'j2')], two)];
    expect(codes[0]).toBe(codes[1]);
    const [a, b] = [await swarmJson(path.join(scenarios.dir, 'j1')), await swarmJson(path.join(scenarios.dir, 'j2'))];
    const key = (j: SwarmJson) => j.runs.map((r) => ({ seed: r.seed, verdict: r.verdict, digest: r.digest, failed: r.failed, violations: r.violations }));
    expect(a.runs.map((r) => r.seed)).toEqual([1, 2, 3, 4]);
    expect(key(b)).toEqual(key(a));
    expect(a.runs.every((r) => typeof r.digest === 'string' && r.wallMs > 0)).toBe(true);
    expect([a.jobs, b.jobs]).toEqual([1, 2]);
    expect(rows(two.stdout)).toEqual(rows(one.stdout));
    expect(rows(one.stdout).length).toBeGreaterThanOrEqual(4);
    expect(two.stdout).toMatch(/^4 seeds in [0-9.]+ s wall: [0-9.]+ seeds\/min with 2 jobs/m);
    expect(b.seedsPerMinute).toBeGreaterThan(0);
    expect(a.wallMs).toBeGreaterThanOrEqual(Math.max(...a.runs.map((r) => r.wallMs)));
    // the first failing seed in seed order, if any, is the same
    expect(b.firstFailure?.seed).toBe(a.firstFailure?.seed);
  });

  it('--seed replays one seed of a scan, passing or not: the same digest, and its report and trace written', async () => {
    const file = await scenarioFile('replay-one', SMALL('{ liveness: { within: 10s } }'));
    const scan = path.join(scenarios.dir, 'scan-3');
    await main(['swarm', file, '--from', '3', '--seeds', '1', '--out', scan], captureIo());
    const scanned = (await swarmJson(scan)).runs.find((r) => r.seed === 3)!;
    const out = path.join(scenarios.dir, 'replay-3');
    const io = captureIo();
    expect(await main(['swarm', file, '--seed', '3', '--out', out], io)).toBe(scanned.verdict === 'pass' ? 0 : 1);
    const replayed = await swarmJson(path.join(out, 'seed-3'));
    expect(replayed.runs.map((r) => [r.seed, r.verdict, r.digest])).toEqual([[3, scanned.verdict, scanned.digest]]);
    for (const f of ['report.html', 'trace.jsonl']) expect(await readFile(path.join(out, 'seed-3', f), 'utf8'), f).not.toBe('');
    expect(io.stdout).toContain(`report ${path.join(out, 'seed-3', 'report.html')}, trace ${path.join(out, 'seed-3', 'trace.jsonl')}`);
    // a scan writes the report of a failing seed only, and no trace
    const scanFiles = await readFile(path.join(scan, 'seed-3', 'report.html'), 'utf8').then(() => 'report', () => 'none');
    expect(scanFiles).toBe(scanned.verdict === 'pass' ? 'none' : 'report');
  });

  it('--until-fail reports only up to the first failing seed, even when later seeds finish first', async () => {
    const file = await scenarioFile('fails', SMALL('{ minHeight: 500, liveness: false }'));
    const out = path.join(scenarios.dir, 'uf');
    const io = captureIo();
    expect(await main(['swarm', file, '--until-fail', '--budget', '2m', '--from', '3', '--jobs', '2', '--out', out], io)).toBe(1);
    const json = await swarmJson(out);
    expect(json.runs.map((r) => [r.seed, r.verdict])).toEqual([[3, 'fail']]);
    expect(json.firstFailure).toMatchObject({ seed: 3 });
    expect(json.firstFailure!.afterMs).toBeGreaterThan(0);
    expect(json.runs[0]!.failed).toEqual([expect.objectContaining({ name: 'every live honest node reached height 500', ok: false })]);
    expect(json.runs[0]!.violations).toEqual([]);
    expect(io.stdout).toContain('1 of 1 seeds FAILED:');
    expect(io.stdout).not.toMatch(/seed +4 /);
  });

  it('refuses bad --jobs, --budget and --until-fail without bounds with one clear line', async () => {
    const file = await scenarioFile('bad', SMALL('{ minHeight: 1 }'));
    const cases: Array<[string[], string]> = [
      [['--jobs', '0'], '--jobs must be an integer from 1 to 256 (got "0")'],
      [['--jobs', 'many'], '--jobs must be an integer from 1 to 256 (got "many")'],
      [['--budget', '5 minutes'], '--budget must be a duration such as 300s, 5m or 1h (got "5 minutes")'],
      [['--budget', '0s'], '--budget must be longer than 0 (got "0s")'],
      [['--until-fail'], '--until-fail without --seeds needs a --budget (e.g. --budget 5m)'],
      [['--seed', '3', '--until-fail'], '--until-fail and --budget scan seeds; --seed replays one'],
    ];
    for (const [args, message] of cases) {
      const io = captureIo();
      expect(await main(['swarm', file, ...args, '--out', path.join(scenarios.dir, 'bad-out')], io)).toBe(2);
      expect(io.stderr).toBe(`twinchain swarm: ${message}\n`);
    }
  });

  it('a worker that dies makes its seed an ERROR row and is replaced for the next seed', async () => {
    const file = await scenarioFile('die', SMALL('{ minHeight: 1 }'));
    const runner = new WorkerRunner({ scenario: await loadScenarioFile(file), file, out: path.join(scenarios.dir, 'die-out'), single: false });
    try {
      const pending = runner.run(1);
      // kill the thread under the seed, as a crash of the worker would
      await new Promise((r) => setTimeout(r, 200));
      await (runner as unknown as { worker: { terminate(): Promise<number> } }).worker.terminate();
      const died = await pending;
      expect(died).toMatchObject({ seed: 1, verdict: 'error', digest: null });
      expect(died!.error).toMatch(/^the swarm worker exited \(code \d+\)$/);
      expect(seedRow(died!)).toContain('ERROR');
      const next = await runner.run(2);
      expect(next).toMatchObject({ seed: 2, verdict: 'pass' });
    } finally {
      await runner.close();
    }
  });
});

describe('runSeeds', () => {
  const outcome = (seed: number, verdict: 'pass' | 'fail'): SeedOutcome => ({ seed, verdict, drawn: [], digest: `d${seed}`, replay: '', failed: [], violations: [], report: null, wallMs: 1, virtualMs: 1000, blocks: 1 });
  /** A runner whose seeds take `delay(seed)` ms and fail when `fails(seed)`. */
  const fake = (delay: (s: number) => number, fails: (s: number) => boolean, log: number[]): SeedRunner => {
    let cancel: (() => void) | undefined;
    return {
      run: (seed) =>
        new Promise((resolve) => {
          log.push(seed);
          const t = setTimeout(() => resolve(outcome(seed, fails(seed) ? 'fail' : 'pass')), delay(seed));
          cancel = () => {
            clearTimeout(t);
            resolve(undefined);
          };
        }),
      cancel: () => cancel?.(),
      close: async () => undefined,
    };
  };

  it('reports in seed order what finishes out of order', async () => {
    const seen: number[] = [];
    const started: number[] = [];
    const delay = (s: number) => (s % 2 === 1 ? 40 : 5);
    const r = await runSeeds([fake(delay, () => false, started), fake(delay, () => false, started)], { first: 1, count: 6, untilFail: false, budgetMs: undefined, onOutcome: (o) => seen.push(o.seed) });
    expect(seen).toEqual([1, 2, 3, 4, 5, 6]);
    expect(started.slice(0, 2)).toEqual([1, 2]);
    expect(r.firstFailure).toBeNull();
  });

  it('until a failure: keeps the lowest failing seed although a higher one failed first', async () => {
    const seen: number[] = [];
    const started: number[] = [];
    // seed 2 fails after 10 ms, seed 1 fails after 60 ms: seed 1 is the first failure
    const delay = (s: number) => (s === 1 ? 60 : 10);
    const r = await runSeeds([fake(delay, (s) => s <= 2, started), fake(delay, (s) => s <= 2, started)], { first: 1, count: undefined, untilFail: true, budgetMs: 10_000, onOutcome: (o) => seen.push(o.seed) });
    expect(seen).toEqual([1]);
    expect(r.firstFailure?.seed).toBe(1);
    expect(started).toEqual([1, 2]);
  });

  it("runs a shard's seeds (first, first + step, …) in order over several runners, and stops at its first failure", async () => {
    const seen: number[] = [];
    const started: number[] = [];
    const delay = (s: number) => (s === 5 ? 40 : 5);
    const r = await runSeeds([fake(delay, () => false, started), fake(delay, () => false, started)], { first: 2, step: 3, count: 4, untilFail: false, budgetMs: undefined, onOutcome: (o) => seen.push(o.seed) });
    expect(seen).toEqual([2, 5, 8, 11]);
    expect(r.outcomes.map((o) => o.seed)).toEqual([2, 5, 8, 11]);
    const failing: number[] = [];
    const u = await runSeeds([fake(delay, (s) => s >= 8, []), fake(delay, (s) => s >= 8, [])], { first: 2, step: 3, count: undefined, untilFail: true, budgetMs: 10_000, onOutcome: (o) => failing.push(o.seed) });
    expect(failing).toEqual([2, 5, 8]);
    expect(u.firstFailure?.seed).toBe(8);
  });

  it('stops handing out seeds once the budget is spent', async () => {
    let clock = 0;
    const seen: number[] = [];
    const runner: SeedRunner = {
      run: async (seed) => {
        clock += 100;
        return outcome(seed, 'pass');
      },
      cancel: () => undefined,
      close: async () => undefined,
    };
    const r = await runSeeds([runner], { first: 1, count: undefined, untilFail: false, budgetMs: 350, now: () => clock, onOutcome: (o) => seen.push(o.seed) });
    expect(seen).toEqual([1, 2, 3, 4]);
    expect(r.budgetSpent).toBe(true);
  });
});
