import { cp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { captureIo } from './capture-io.test-helper.js';
import { main } from './main.js';
import { scenarioFolder, smallScenario } from './scenario-files.test-helper.js';
import { failingSeedLines, shrinkCommand } from './seed-commands.js';
import { parseSwarmArgs, SHARD_COUNT_VARIABLE, SHARD_INDEX_VARIABLE } from './swarm-command.js';

const scenarios = scenarioFolder('twinchain-swarm-shards-');

// passes some seeds and fails others (a crashed leader means a view change), so failing seeds' reports are merged too
const SCENARIO = smallScenario(`swarm: { crashes: [0, 1], partitions: [0, 1], window: [2s, 6s], faultDuration: [1s, 2s] }
expect: { liveness: { within: 10s }, maxViewChanges: 0 }
`);

/** Masks what depends on the machine and the split (swarm.json's SWARM_TIMING_KEYS, the reports' wall time): the rest must be equal byte for byte. */
function withoutTimings(text: string): string {
  return text
    .replace(/"(shards|jobs|seedsPerMinute|wallMs|afterMs|virtualPerWall)": ?[0-9.]+/g, '"$1":_')
    .replace(/(<dt>Wall time<\/dt>\s*<dd>)[^<]*/g, '$1_')
    .replace(/(<dt>Virtual \/ wall<\/dt>\s*<dd>)[0-9.]+×/g, '$1_×');
}

/** Every file of a swarm output folder (the shards' own result files aside), timings masked. */
async function outputs(dir: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || entry.name.startsWith('swarm-shard-')) continue;
    const file = path.join(entry.parentPath, entry.name);
    files.set(path.relative(dir, file), withoutTimings(await readFile(file, 'utf8')));
  }
  return files;
}

/** The seed rows and the verdict lines (after the wall-time line) of what swarm or a merge printed, the speed column masked. */
function printed(stdout: string): string[] {
  const lines = stdout.split('\n');
  const wall = lines.findIndex((l) => / s wall/.test(l));
  const rows = lines.slice(0, wall).filter((l) => /^ {2}seed +\d+ {2}|^ {8}/.test(l));
  const verdict = lines.slice(wall + 1).filter((l) => !/^(merged|shard \d+\/\d+ result): /.test(l));
  return [...rows, ...verdict].map((l) => l.replace(/ +[0-9.]+× /, ' _× '));
}

async function swarm(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const io = captureIo();
  const code = await main(['swarm', ...args], io);
  return { code, stdout: io.stdout, stderr: io.stderr };
}

describe('twinchain swarm --shard and swarm merge', () => {
  afterEach(() => {
    delete process.env['TWINCHAIN_COMMIT'];
  });

  it('merge 1, 3 and 7 shards into what one unsharded run of the same seeds writes and prints, timings aside', async () => {
    const file = await scenarios.file('shards', SCENARIO);
    const out = path.join(scenarios.dir, 'out');
    const scan = ['--seeds', '8', '--from', '2', '--jobs', '1', '--out', out];
    const whole = await swarm([file, ...scan]);
    expect(whole.code).toBe(1); // some seeds fail, so failing seeds' reports are compared too
    const unsharded = path.join(scenarios.dir, 'unsharded');
    await rename(out, unsharded);
    const expected = await outputs(unsharded);
    expect([...expected.keys()].filter((f) => f.endsWith('report.html')).length).toBeGreaterThan(0);
    expect(expected.get('swarm.json')).toContain('"seed": 9');

    for (const count of [1, 3, 7]) {
      await rm(out, { recursive: true, force: true });
      for (let i = 0; i < count; i++) {
        const shard = await swarm([file, ...scan, '--shard', `${i}/${count}`]);
        expect(shard.stderr).toBe('');
        expect(shard.stdout.split('\n')[0]).toMatch(new RegExp(`^small: shard ${i}/${count} of 8 swarm runs from seed 2 \\(its (seed \\d|\\d seeds \\d)`));
      }
      const merge = await swarm(['merge', out, '--out', out]);
      expect(merge.stderr).toBe('');
      expect(merge.code, merge.stdout).toBe(whole.code);
      expect(merge.stdout.split('\n')[0]).toMatch(new RegExp(`^small: ${count} shards? of 8 swarm runs from seed 2, merged \\(twinchain `));
      expect(await outputs(out), `${count} shards`).toEqual(expected);
      expect(printed(merge.stdout), `${count} shards`).toEqual(printed(whole.stdout));
    }
  }, 240_000); // 32 seed runs: about 15 s on an idle 2-core machine, four times that on a loaded one

  it('--until-fail over shards finds the lowest failing seed, as one unsharded --until-fail run', async () => {
    const file = await scenarios.file('until', SCENARIO);
    const out = path.join(scenarios.dir, 'until');
    const scan = ['--until-fail', '--seeds', '12', '--from', '3', '--jobs', '1', '--out', out];
    const whole = await swarm([file, ...scan]);
    expect(whole.code).toBe(1);
    const unsharded = path.join(scenarios.dir, 'until-unsharded');
    await rename(out, unsharded);
    for (let i = 0; i < 3; i++) await swarm([file, ...scan, '--shard', `${i}/3`]);
    const merge = await swarm(['merge', out, '--out', out]);
    const json = JSON.parse(await readFile(path.join(out, 'swarm.json'), 'utf8')) as { firstFailure: { seed: number }; runs: Array<{ seed: number }> };
    expect(json.runs.at(-1)!.seed).toBe(json.firstFailure.seed);
    expect(merge.stdout).toMatch(new RegExp(`; the lowest failing seed is ${json.firstFailure.seed}, found by shard \\d/3 after`));
    // shards that ran past the lowest failing seed to their own first failure left those seeds' reports too: named, and kept out of swarm.json
    const above = /note: shards also ran on to failing seeds? ([0-9, ]+) above the lowest/.exec(merge.stdout)?.[1]?.split(', ').map(Number) ?? [];
    expect(above.length).toBeGreaterThan(0);
    const merged = await outputs(out);
    for (const seed of above) {
      expect(seed).toBeGreaterThan(json.firstFailure.seed);
      for (const f of ['report.html', 'summary.json']) expect(merged.delete(path.join(`seed-${seed}`, f))).toBe(true);
    }
    expect(merged).toEqual(await outputs(unsharded));
    expect(printed(merge.stdout).filter((l) => !l.startsWith('note: '))).toEqual(printed(whole.stdout));
  }, 120_000);

  it('merges --json-stdout lines from a log on stdin (kubectl prefixes and other lines among them), and from shard folders elsewhere', async () => {
    const file = await scenarios.file('lines', SCENARIO);
    const scan = ['--seeds', '4', '--jobs', '1'];
    const lines: string[] = [];
    for (let i = 0; i < 2; i++) {
      const shard = await swarm([file, ...scan, '--shard', `${i}/2`, '--json-stdout', '--exit-zero', '--out', path.join(scenarios.dir, `pod-${i}`)]);
      expect(shard.code).toBe(0); // --exit-zero, although seeds fail
      expect(shard.stdout.trimEnd().split('\n')).toHaveLength(1); // stdout: the result line alone
      expect(shard.stderr).toMatch(/seed +\d+ {2}(pass|FAIL)/); // the rows went to stderr
      lines.push(`[pod/twinchain-swarm-${i}-x/swarm] ${shard.stderr.split('\n')[1]}`, `[pod/twinchain-swarm-${i}-x/swarm] ${shard.stdout.trim()}`);
    }
    const whole = await swarm([file, ...scan, '--out', path.join(scenarios.dir, 'lines-whole')]);
    const io = Object.assign(captureIo(), { readStdin: async () => `${lines.join('\n')}\n` });
    const merged = path.join(scenarios.dir, 'lines-whole-merged');
    // a report another run left in the merged folder is not taken for this run's
    const failing = (JSON.parse(await readFile(path.join(scenarios.dir, 'lines-whole', 'swarm.json'), 'utf8')) as { runs: Array<{ seed: number; verdict: string }> }).runs.filter((r) => r.verdict !== 'pass');
    expect(failing.length).toBeGreaterThan(0);
    await cp(path.join(scenarios.dir, 'lines-whole', `seed-${failing[0]!.seed}`), path.join(merged, `seed-${failing[0]!.seed}`), { recursive: true });
    const stale = path.join(merged, `seed-${failing[0]!.seed}`, 'summary.json');
    await writeFile(stale, (await readFile(stale, 'utf8')).replace(/"traceDigest": "[0-9a-f]+"/, '"traceDigest": "0000000000000000"'));
    const code = await main(['swarm', 'merge', '-', '--out', merged], io);
    expect(code).toBe(whole.code);
    const [a, b] = [JSON.parse(await readFile(path.join(scenarios.dir, 'lines-whole', 'swarm.json'), 'utf8')), JSON.parse(await readFile(path.join(merged, 'swarm.json'), 'utf8'))] as Array<{ runs: Array<Record<string, unknown>> }>;
    const key = (j: { runs: Array<Record<string, unknown>> }) => j.runs.map((r) => [r['seed'], r['verdict'], r['digest'], r['drawn'], r['failed']]);
    expect(key(b!)).toEqual(key(a!));
    // no seed folders come with log lines: the list says so, and swarm.json names no report
    expect(b!.runs.filter((r) => r['verdict'] !== 'pass').every((r) => r['report'] === null)).toBe(true);
    expect(io.stdout).toContain(`seed ${failing[0]!.seed}: npx twinchain swarm ${file} --seed ${failing[0]!.seed} --out ${merged}    (its report is not among the merged inputs; the replay writes it and the trace)`);
    // the shards' own folders: their failing seeds' reports are copied into the merged folder
    const copied = path.join(scenarios.dir, 'copied');
    expect(await swarm(['merge', path.join(scenarios.dir, 'pod-0'), path.join(scenarios.dir, 'pod-1', 'swarm-shard-1-of-2.json'), '--out', copied])).toMatchObject({ code: whole.code, stderr: '' });
    const reports = JSON.parse(await readFile(path.join(copied, 'swarm.json'), 'utf8')) as { runs: Array<{ verdict: string; report: string | null; replay: string }> };
    for (const r of reports.runs.filter((x) => x.verdict !== 'pass')) expect(await readFile(r.report!, 'utf8')).toContain('<html');
    expect(reports.runs[0]!.replay).toBe(`npx twinchain swarm ${file} --seed 1 --out ${copied}`);
  });

  it('refuses a missing shard, an overlap, another scenario, another version and a corrupt line, each with its reason and exit 2', async () => {
    const file = await scenarios.file('refuse', SCENARIO);
    const other = await scenarios.file('refuse-other', `${SCENARIO}# one more line: other bytes\n`);
    const at = (name: string) => path.join(scenarios.dir, name);
    const shard = async (scenario: string, spec: string, out: string) => expect((await swarm([scenario, '--seeds', '2', '--jobs', '1', '--shard', spec, '--out', at(out)])).stderr).toBe('');
    await shard(file, '0/2', 'r0');
    await shard(file, '1/2', 'r1');
    await shard(other, '1/2', 'other');
    process.env['TWINCHAIN_COMMIT'] = 'f00d';
    await shard(file, '1/2', 'version');
    delete process.env['TWINCHAIN_COMMIT'];
    const line = (await readFile(at('r1/swarm-shard-1-of-2.json'), 'utf8')).trim();
    await writeFile(at('cut.log'), `some other log line\n${line.slice(0, 300)}\n`);
    await writeFile(at('changed.log'), `${line.replace(/"digest":"([0-9a-f])/, (_, d: string) => `"digest":"${d === '0' ? '1' : '0'}`)}\n`);
    await cp(at('r1'), at('r1-again'), { recursive: true });
    const r0 = at('r0');
    const cases: Array<[string[], RegExp]> = [
      [[r0], /^twinchain swarm merge: missing shard 1\/2: the inputs hold 1 of the 2 shards' results\n$/],
      [[r0, at('r1'), at('r1-again')], /^twinchain swarm merge: overlap: shard 1\/2 is in both .*r1\/swarm-shard-1-of-2\.json and .*r1-again\/swarm-shard-1-of-2\.json\n$/],
      [[r0, at('other')], /^twinchain swarm merge: another scenario: .*other\/swarm-shard-1-of-2\.json ran .*refuse-other\.yaml \(sha256 [0-9a-f]{12}…\), .*r0\/swarm-shard-0-of-2\.json ran .*refuse\.yaml \(sha256 [0-9a-f]{12}…\)\n$/],
      [[r0, at('version')], /^twinchain swarm merge: another version: .*version\/swarm-shard-1-of-2\.json ran twinchain 0\.1\.0 \(commit f00d\), .*r0\/swarm-shard-0-of-2\.json ran twinchain 0\.1\.0 \(commit [^)]+\)\n$/],
      [[r0, at('cut.log')], /^twinchain swarm merge: corrupt shard result at .*cut\.log line 2: a shard result cut off or changed: it does not end with its check \(300 characters\)\n$/],
      [[r0, at('changed.log')], /^twinchain swarm merge: corrupt shard result at .*changed\.log line 1: a shard result changed on its way: its check does not match its content\n$/],
      [[r0, at('r1'), '--scenario', other], /^twinchain swarm merge: another scenario: --scenario .*refuse-other\.yaml \(sha256 [0-9a-f]{12}…\) is not the file the shards ran/],
      [[at('nothing-here')], /^twinchain swarm merge: cannot read .*nothing-here: no such file or folder\n$/],
    ];
    for (const [args, reason] of cases) {
      const io = captureIo();
      expect(await main(['swarm', 'merge', ...args, '--out', at('merged')], io), args.join(' ')).toBe(2);
      expect(io.stderr).toMatch(reason);
      expect(io.stdout).toBe('');
    }
    // and the good pair merges
    expect((await swarm(['merge', r0, at('r1'), '--scenario', file, '--out', at('merged')])).stderr).toBe('');
  });

  it('--shard: I/N or env, with a clear error for each bad value', () => {
    const env = (index?: string, count?: string) => ({ ...(index === undefined ? {} : { [SHARD_INDEX_VARIABLE]: index }), ...(count === undefined ? {} : { [SHARD_COUNT_VARIABLE]: count }) });
    expect(parseSwarmArgs(['s.yaml', '--shard', '2/5'], {}).shard).toEqual({ index: 2, count: 5 });
    expect(parseSwarmArgs(['s.yaml', '--shard', 'env'], env('3', '8')).shard).toEqual({ index: 3, count: 8 });
    const bad: Array<[string, ReturnType<typeof env>, string]> = [
      ['5/5', {}, '--shard 5/5: I must be from 0 to 4 (shards are counted from 0)'],
      ['1/0', {}, '--shard 1/0: N must be from 1 to 100000'],
      ['1-of-3', {}, '--shard must be I/N (shard I of N, counted from 0, e.g. 0/4) or env (got "1-of-3")'],
      ['env', env('0'), '--shard env: TWINCHAIN_SHARD_COUNT is not set (set it to the number of shards: the Job\'s completions)'],
      ['env', env(undefined, '4'), '--shard env: JOB_COMPLETION_INDEX is not set (Kubernetes sets it in each pod of an Indexed Job; elsewhere give --shard I/N)'],
      ['env', env('4', '4'), '--shard env: JOB_COMPLETION_INDEX must be an integer from 0 to 3 (TWINCHAIN_SHARD_COUNT is 4; got "4")'],
      ['env', env('0', 'four'), '--shard env: TWINCHAIN_SHARD_COUNT must be an integer from 1 to 100000 (got "four")'],
    ];
    for (const [value, vars, message] of bad) expect(() => parseSwarmArgs(['s.yaml', '--shard', value], vars), value).toThrow(message);
    expect(() => parseSwarmArgs(['s.yaml', '--seed', '3', '--shard', '0/2'], {})).toThrow('--shard and --json-stdout split and report a scan; --seed replays one seed');
  });

  it('prints the shrink command next to the replay command of a failing seed, not of one that ended in an error', () => {
    expect(shrinkCommand('scenarios/a b.yaml', 7)).toBe("npx twinchain shrink 'scenarios/a b.yaml' --seed 7");
    expect(shrinkCommand('s.yaml', 7, { plain: true, out: 'o d' })).toBe("npx twinchain shrink s.yaml --seed 7 --plain --out 'o d'");
    expect(failingSeedLines('s.yaml', 7, 'npx twinchain swarm s.yaml --seed 7', 'report r.html')).toEqual(['  seed 7: npx twinchain swarm s.yaml --seed 7    (report r.html)', '    shrink: npx twinchain shrink s.yaml --seed 7']);
    expect(failingSeedLines('s.yaml', 7, 'npx twinchain swarm s.yaml --seed 7', 'internal error: boom', false)).toEqual(['  seed 7: npx twinchain swarm s.yaml --seed 7    (internal error: boom)']);
  });
});
