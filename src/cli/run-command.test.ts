import { readdirSync } from 'node:fs';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { captureIo } from './capture-io.test-helper.js';
import { scenarioFolder, smallScenario } from './scenario-files.test-helper.js';
import { main } from './main.js';

const scenarios = scenarioFolder('twinchain-run-');
const scenarioFile = scenarios.file;

const SMALL = smallScenario;

describe('twinchain run', () => {
  it('passes a scenario: summary table, outputs written, exit 0', async () => {
    const file = await scenarioFile('ok', SMALL('expect: { liveness: { within: 5s }, minHeight: 3 }'));
    const io = captureIo();
    const out = path.join(scenarios.dir, 'ok-out');
    expect(await main(['run', file, '--out', out, '--seed', '4'], io)).toBe(0);
    expect(io.stdout).toMatch(/^small \(.*ok\.yaml\), seed 4: PASS$/m);
    expect(io.stdout).toMatch(/virtual in .* wall: \d+(\.\d+)?× real time \(virtual\/wall\)/);
    expect(io.stdout).toMatch(/✓ +every live honest node reached height 3/);
    expect(io.stdout).toContain(`report:  ${path.join(out, 'report.html')}`);
    const summary = JSON.parse(await readFile(path.join(out, 'summary.json'), 'utf8'));
    expect(summary).toMatchObject({ scenario: 'small', seed: 4, verdict: 'pass', replay: `npx twinchain run ${file} --seed 4 --out ${out}` });
    const trace = (await readFile(path.join(out, 'trace.jsonl'), 'utf8')).split('\n');
    expect(trace.length).toBeGreaterThan(1000);
  });

  it('fails with exit 1, naming the failed expectation, the seed and the exact replay command', async () => {
    const file = await scenarioFile('fails', SMALL('expect: { minHeight: 500, liveness: false }'));
    const io = captureIo();
    expect(await main(['run', file, '--quiet', '--out', path.join(scenarios.dir, 'fails-out')], io)).toBe(1);
    expect(io.stdout).toContain('small, seed 1: FAIL');
    expect(io.stdout).toMatch(/✗ every live honest node reached height 500: lowest: node\d at \d+/);
    // the replay writes where this run wrote (the --out was once left out)
    expect(io.stdout).toContain(`replay this run exactly: npx twinchain run ${file} --seed 1 --out ${path.join(scenarios.dir, 'fails-out')}\n`);
    const summary = JSON.parse(await readFile(path.join(scenarios.dir, 'fails-out', 'summary.json'), 'utf8')) as { replay: string };
    expect(summary.replay).toBe(`npx twinchain run ${file} --seed 1 --out ${path.join(scenarios.dir, 'fails-out')}`);
  });

  // issue 44: the summary fits a 100-column terminal (each detail under its expectation), and a
  // node outside a group shows - for that group's height, not 0
  it('fits 100 columns and shows - for the height of a group a node is outside', async () => {
    const file = await scenarioFile(
      'two-groups-small',
      `name: two-groups-small
duration: 4s
chain: { nodes: 5 }
groups:
  - { id: 1, consensus: pbft, sealers: [node0, node1, node2, node3] }
  - { id: 2, consensus: raft, sealers: [node1, node2, node3], observers: [node4] }
workloads:
  - { kind: helloworld, group: 1, rate: 5 }
  - { kind: helloworld, group: 2, rate: 5 }
expect: { liveness: { within: 5s }, minHeight: 1 }
`,
    );
    const io = captureIo();
    const out = path.join(scenarios.dir, 'two-groups-out');
    expect(await main(['run', file, '--out', out], io)).toBe(0);
    const lines = io.stdout.split('\n');
    for (const line of lines.filter((l) => !l.startsWith('report:') && !l.startsWith('summary:') && !l.startsWith('trace:'))) {
      expect(line.length, line).toBeLessThanOrEqual(100);
    }
    // every expectation: its name after ✓, its detail on the next line, indented under it
    const marks = lines.flatMap((l, i) => (/^ {2}[✓✗] /.test(l) ? [i] : []));
    expect(marks.length).toBeGreaterThanOrEqual(4);
    for (const i of marks) {
      let next = i + 1;
      while (/^ {4}\S/.test(lines[next]!)) next++; // a long name continues
      expect(lines[next]).toMatch(/^ {6}\S/);
    }
    const node4 = lines.find((l) => /^ {2}node4 /.test(l))!;
    expect(node4).toMatch(/^ {2}node4\s+up\s+g2 observer\s+-\s+\d+\s/);
    const summary = JSON.parse(await readFile(path.join(out, 'summary.json'), 'utf8')) as { nodes: Array<{ name: string; heights: Record<string, number> }> };
    expect(Object.keys(summary.nodes.find((n) => n.name === 'node4')!.heights)).toEqual(['2']);
    expect(Object.keys(summary.nodes.find((n) => n.name === 'node0')!.heights)).toEqual(['1']);
    expect(Object.keys(summary.nodes.find((n) => n.name === 'node1')!.heights)).toEqual(['1', '2']);
  });

  it('refuses a bad scenario file with exit 2 and file:line:column: key', async () => {
    const file = await scenarioFile('bad', SMALL('timeline:\n  - { at: 2s, crash: node9 }'));
    const io = captureIo();
    expect(await main(['run', file], io)).toBe(2);
    expect(io.stderr).toBe(`twinchain run: bad scenario file: ${file}:7:22: timeline[0].crash: unknown node "node9" (this scenario has node0 … node3)\n`);
    const missing = captureIo();
    expect(await main(['run', path.join(scenarios.dir, 'nope.yaml')], missing)).toBe(2);
    expect(missing.stderr).toMatch(/nope\.yaml:1:1: cannot read the file: no such file\n$/);
    const folder = captureIo();
    expect(await main(['run', scenarios.dir], folder)).toBe(2);
    expect(folder.stderr).toBe(`twinchain run: bad scenario file: ${scenarios.dir}:1:1: cannot read the file: it is a folder\n`);
  });
});

describe('twinchain swarm', () => {
  it('runs seeds with drawn faults, lists the failing ones, and a failing seed replays to the same run', async () => {
    // at most 0 view changes: a seed that draws a crash or a partition of the leader fails
    const file = await scenarioFile('swarm', `name: swarmy
duration: 20s
chain: { nodes: 4 }
workloads:
  - { kind: helloworld, rate: 5 }
swarm: { crashes: [0, 1], partitions: [0, 1], window: [2s, 10s], faultDuration: [2s, 4s] }
expect: { liveness: { within: 10s }, maxViewChanges: 0 }
`);
    const out = path.join(scenarios.dir, 'swarm-out');
    const io = captureIo();
    const code = await main(['swarm', file, '--seeds', '4', '--out', out], io);
    const runs = (JSON.parse(await readFile(path.join(out, 'swarm.json'), 'utf8')) as { runs: Array<{ seed: number; verdict: string; digest: string; replay: string }> }).runs;
    expect(runs.map((r) => r.seed)).toEqual([1, 2, 3, 4]);
    const failing = runs.filter((r) => r.verdict === 'fail');
    expect(failing.length).toBeGreaterThan(0);
    expect(code).toBe(1);
    expect(io.stdout).toContain(`${failing.length} of 4 seeds FAILED:`);
    const first = failing[0]!;
    // the replay command keeps --out (it was once left out, so the replay wrote elsewhere)
    const command = `npx twinchain swarm ${file} --seed ${first.seed} --out ${out}`;
    expect(io.stdout).toContain(`seed ${first.seed}: ${command}    (`);
    expect(first.replay).toBe(command);

    // run the printed command: the scan's swarm.json stays; the replay's goes to the seed's folder
    const scanJson = await readFile(path.join(out, 'swarm.json'), 'utf8');
    const replay = captureIo();
    expect(await main(command.split(' ').slice(2), replay)).toBe(1);
    expect(await readFile(path.join(out, 'swarm.json'), 'utf8')).toBe(scanJson);
    const again = (JSON.parse(await readFile(path.join(out, `seed-${first.seed}`, 'swarm.json'), 'utf8')) as { runs: Array<{ digest: string; replay: string }> }).runs;
    expect(again.map((r) => [r.digest, r.replay])).toEqual([[first.digest, command]]);
    // the replay keeps the trace, whose last line carries that digest
    const trace = (await readFile(path.join(out, `seed-${first.seed}`, 'trace.jsonl'), 'utf8')).trim().split('\n');
    expect(trace.length).toBeGreaterThan(100);
    expect(replay.stdout).toContain(path.join(out, `seed-${first.seed}`, 'trace.jsonl'));
    expect(replay.stdout).toContain(path.join(out, `seed-${first.seed}`, 'swarm.json'));
  });
});

// each printed "internal error: ..." with a stack trace and exited 70 (or repeated the path in Node's own words)
describe('outputs that cannot be written: one line with the path and the reason, exit 2', () => {
  const cases: Array<[string, (dir: string) => Promise<{ args: (file: string) => string[]; cwd?: string; line: (dir: string) => string }>]> = [
    [
      'run: reports/ is a file',
      async (dir) => {
        await writeFile(path.join(dir, 'reports'), 'not a folder');
        return { args: (f) => ['run', f], cwd: dir, line: () => 'twinchain run: cannot create the output folder reports/small: reports is a file, not a folder' };
      },
    ],
    [
      'run: --out is a file',
      async (dir) => {
        await writeFile(path.join(dir, 'out-file'), '');
        return { args: (f) => ['run', f, '--out', path.join(dir, 'out-file')], line: (d) => `twinchain run: cannot create the output folder ${d}/out-file: ${d}/out-file is a file, not a folder` };
      },
    ],
    [
      'run: trace.jsonl is a folder',
      async (dir) => {
        await mkdir(path.join(dir, 'o1', 'trace.jsonl'), { recursive: true });
        return { args: (f) => ['run', f, '--out', path.join(dir, 'o1')], line: (d) => `twinchain run: cannot write ${d}/o1/trace.jsonl: it is a folder` };
      },
    ],
    [
      'run: report.html is a folder',
      async (dir) => {
        await mkdir(path.join(dir, 'o2', 'report.html'), { recursive: true });
        return { args: (f) => ['run', f, '--out', path.join(dir, 'o2')], line: (d) => `twinchain run: cannot write ${d}/o2/report.html: it is a folder` };
      },
    ],
    [
      'swarm: --out under a file',
      async (dir) => {
        await writeFile(path.join(dir, 'plain'), '');
        return { args: (f) => ['swarm', f, '--seeds', '1', '--jobs', '1', '--out', path.join(dir, 'plain', 'sub')], line: (d) => `twinchain swarm: cannot create the output folder ${d}/plain/sub: ${d}/plain is a file, not a folder` };
      },
    ],
    [
      'swarm: swarm.json is a folder',
      async (dir) => {
        await mkdir(path.join(dir, 'o3', 'swarm.json'), { recursive: true });
        return { args: (f) => ['swarm', f, '--seeds', '1', '--jobs', '1', '--out', path.join(dir, 'o3')], line: (d) => `twinchain swarm: cannot write ${d}/o3/swarm.json: it is a folder` };
      },
    ],
  ];
  it.each(cases)('%s', async (name, setUp) => {
    const dir = path.join(scenarios.dir, `fs-${name.replace(/[^a-z]+/g, '-')}`);
    await mkdir(dir, { recursive: true });
    const file = await scenarioFile(`fs-${name.replace(/[^a-z]+/g, '-')}`, SMALL('expect: { liveness: { within: 5s }, minHeight: 1 }'));
    const { args, cwd, line } = await setUp(dir);
    const io = captureIo();
    const before = process.cwd();
    if (cwd) process.chdir(cwd);
    let code: number;
    try {
      code = await main(args(file), io);
    } finally {
      process.chdir(before);
    }
    // swarm notes first that the file has no swarm section
    expect(io.stderr.replace(/^note: .*\n/, '')).toBe(`${line(dir)}\n`);
    expect(code).toBe(2);
    expect(readdirSync(dir, { recursive: true }).filter((f) => String(f).endsWith('.tmp'))).toEqual([]);
  });

  // root writes anywhere, so this one runs only as another user (checked by hand: runuser -u nobody)
  it.skipIf(process.getuid?.() === 0)('run: a reports/<name> folder without write permission', async () => {
    const dir = path.join(scenarios.dir, 'fs-read-only');
    await mkdir(path.join(dir, 'reports', 'small'), { recursive: true });
    await chmod(path.join(dir, 'reports', 'small'), 0o555);
    const file = await scenarioFile('fs-read-only', SMALL('expect: { liveness: { within: 5s }, minHeight: 1 }'));
    const io = captureIo();
    const before = process.cwd();
    process.chdir(dir);
    try {
      expect(await main(['run', file], io)).toBe(2);
    } finally {
      process.chdir(before);
      await chmod(path.join(dir, 'reports', 'small'), 0o755);
    }
    expect(io.stderr).toBe('twinchain run: cannot create the output folder reports/small: permission denied\n');
  });
});
