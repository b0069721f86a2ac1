import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadScenarioFile, runScenario } from '../sim/index.js';
import { captureIo } from './capture-io.test-helper.js';
import { main } from './main.js';
import { scenarioFolder, smallScenario } from './scenario-files.test-helper.js';

const scenarios = scenarioFolder('twinchain-shrink-');

/** Two double-signers of four sealers (f + 1) break PBFT at once; the rest is noise. */
const COLLUDE = `name: collude
duration: 8s
chain: { nodes: 4, consensusSignatures: simulated }
network: { latency: { kind: uniform, minMs: 2, maxMs: 20 }, loss: 0.01 }
workloads:
  - { kind: helloworld, rate: 5 }
timeline:
  - { at: 1s, pause: node0 }
  - { at: 1.5s, resume: node0 }
  - { at: 3s, crash: node1 }
  - { at: 4s, restart: node1 }
byzantine:
  - { node: node2, behaviour: double-sign }
  - { node: node3, behaviour: double-sign }
expect: { liveness: false }
`;

interface ShrinkJson {
  target: { kind: string; name: string };
  original: { events: number; settings: number; nodes: number };
  shrunk: { events: number; nodes: number; durationMs: number; file: string };
  kept: Array<{ id: number; now: string; without: string }>;
  minimal: boolean;
  stopped: string | null;
  verified: { reproduced: boolean[]; digests: string[]; deterministic: boolean } | null;
  candidates: { runs: number };
  jobs: number;
}
const shrinkJson = async (out: string) => JSON.parse(await readFile(path.join(out, 'shrink.json'), 'utf8')) as ShrinkJson;

describe('twinchain shrink', () => {
  it('keeps the byzantine nodes and the behaviour a violation needs, checks 1-minimality and the written file, and --jobs 2 writes the same file as --jobs 1', async () => {
    const file = await scenarios.file('collude', COLLUDE);
    const outs = [path.join(scenarios.dir, 'one'), path.join(scenarios.dir, 'two')];
    const ios = [captureIo(), captureIo()];
    expect(await main(['shrink', file, '--jobs', '1', '--out', outs[0]!], ios[0]!)).toBe(0);
    expect(await main(['shrink', file, '--jobs', '2', '--out', outs[1]!], ios[1]!)).toBe(0);
    const [one, two] = [await readFile(path.join(outs[0]!, 'shrunk.yaml'), 'utf8'), await readFile(path.join(outs[1]!, 'shrunk.yaml'), 'utf8')];
    // the same but for the --out each was given (named in its comment)
    expect(two.replaceAll(outs[1]!, 'OUT')).toBe(one.replaceAll(outs[0]!, 'OUT'));

    const json = await shrinkJson(outs[0]!);
    expect(json.target).toEqual({ kind: 'invariant', name: 'pbft-conflicting-quorums' });
    expect(json.original).toMatchObject({ events: 5, settings: 2, nodes: 4 });
    expect(json.minimal).toBe(true);
    expect(json.stopped).toBeNull();
    expect(json.verified).toMatchObject({ reproduced: [true, true], deterministic: true });
    expect(json.kept.filter((k) => k.now.startsWith('byzantine')).map((k) => k.without)).toEqual(['passes', 'passes']);
    expect(json.shrunk.events).toBeLessThanOrEqual(3);
    expect((await shrinkJson(outs[1]!)).jobs).toBe(2);

    const out = ios[0]!.stdout;
    expect(out).toMatch(/^collude, seed 1, as `twinchain run .*collude\.yaml --seed 1` runs it: shrinking with 1 job, budget 5m$/m);
    expect(out).toMatch(/^the original run: pbft-conflicting-quorums, first at [0-9.]+ s on /m);
    expect(out).toMatch(new RegExp(`^kept ${json.shrunk.events} of 5 events and \\d of 2 network settings; nodes 4 → 4, groups 1 → 1, duration 8 s → [0-9.]+ s; \\d+ candidates run`, 'm'));
    expect(out).toMatch(/^ {2}#\d+ +byzantine node2 double-sign in group 1 .* {4}without it: passes$/m);
    expect(out).toMatch(/^1-minimal: checked by running the scenario without each kept event or setting once \(\d runs?\); none of them shows pbft-conflicting-quorums$/m);
    expect(out).toMatch(/^verified: twinchain run .*shrunk\.yaml fails with pbft-conflicting-quorums twice, trace digest [0-9a-f]{16} both times$/m);

    // the violation needs both byzantine nodes and their behaviour: kept, the noise around them gone, and 4 nodes
    // (3 would leave f = 0 for two byzantine ones, beyond the budget the original kept to: not tried)
    const shrunk = await loadScenarioFile(path.join(outs[0]!, 'shrunk.yaml'));
    expect(shrunk.byzantine).toEqual([expect.objectContaining({ node: 'node2', behaviour: 'double-sign' }), expect.objectContaining({ node: 'node3', behaviour: 'double-sign' })]);
    expect(shrunk.timeline).toEqual([]);
    expect(shrunk.chain.nodes).toBe(4);
    // standalone: the written file runs (twinchain run) and fails with the same invariant; the report shows both timelines
    const run = captureIo();
    expect(await main(['run', path.join(outs[0]!, 'shrunk.yaml'), '--quiet', '--out', path.join(scenarios.dir, 'rerun')], run)).toBe(1);
    expect(run.stdout).toContain('pbft-conflicting-quorums');
    const report = await readFile(path.join(outs[0]!, 'report.html'), 'utf8');
    expect(report).toContain('id="original-timeline"');
    expect(report).toContain('Fault timeline of the original run (5 events)');
    // the original, written out, replays the original run exactly
    const original = await loadScenarioFile(path.join(outs[0]!, 'original.yaml'));
    const direct = await runScenario(await loadScenarioFile(file));
    expect((await runScenario(original)).digest).toBe(direct.digest);
  }, 180_000);

  it('a budget spent keeps the best so far, says it is not minimal and exits 1', async () => {
    const file = await scenarios.file('budget', COLLUDE);
    const out = path.join(scenarios.dir, 'budget-out');
    const io = captureIo();
    expect(await main(['shrink', file, '--jobs', '1', '--budget', '1ms', '--out', out], io)).toBe(1);
    expect(io.stdout).toMatch(/^NOT YET MINIMAL: stopped by the budget \(1ms\); the best scenario so far is written\. Shrink it on: npx twinchain shrink .*shrunk\.yaml$/m);
    const json = await shrinkJson(out);
    expect(json).toMatchObject({ minimal: false, stopped: 'budget', verified: { reproduced: [true, true], deterministic: true } });
    expect(json.shrunk.events).toBeLessThanOrEqual(5);
  }, 60_000);

  it('Ctrl-C stops it with the best scenario so far written, said to be not yet minimal (exit 130)', async () => {
    const file = await scenarios.file('interrupt', COLLUDE);
    const out = path.join(scenarios.dir, 'interrupt-out');
    const bin = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'twinchain.js');
    const child = spawn(process.execPath, [bin, 'shrink', file, '--jobs', '1', '--out', out], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((resolve) => {
      child.stdout.on('data', (d: Buffer) => {
        stdout += d.toString();
        // once the original run has shown its violation, the shrink is under way
        if (stdout.includes('the original run:') && child.signalCode === null && !child.killed) child.kill('SIGINT');
      });
      child.on('close', (c) => resolve(c));
    });
    expect(code).toBe(130);
    expect(stderr).toContain('twinchain shrink: SIGINT: stopping; the best scenario so far will be written');
    expect(stdout).toMatch(/^NOT YET MINIMAL: stopped by a signal; the best scenario so far is written\./m);
    const json = await shrinkJson(out);
    expect(json).toMatchObject({ minimal: false, stopped: 'interrupted', verified: null });
    expect(existsSync(path.join(out, 'report.html'))).toBe(false);
    // what was written still fails the same way
    const result = await runScenario(await loadScenarioFile(path.join(out, 'shrunk.yaml')));
    expect(result.violations.map((v) => v.invariant)).toContain('pbft-conflicting-quorums');
  }, 60_000);

  it('refuses a run that passes, a violation it does not show, and a swarm seed that is not a whole number', async () => {
    const pass = await scenarios.file('pass', 'name: calm\nduration: 2s\nchain: { nodes: 4, consensusSignatures: simulated }\nexpect: { liveness: false }\n');
    const cases: Array<[string[], RegExp]> = [
      [[pass], /^twinchain shrink: cannot shrink .*pass\.yaml \(seed 1, as `twinchain run .*` runs it\): the run passes: there is no failure to keep$/],
      [[await scenarios.file('other', COLLUDE), '--violation', 'raft-one-leader'], /the run does not show "raft-one-leader"; it shows: pbft-conflicting-quorums/],
      [[await scenarios.file('swarmy', smallScenario('swarm: { crashes: [0, 1] }\n')), '--seed', 'abc'], /^twinchain shrink: a swarm seed is a whole number ≥ 0 \(got "abc"\); --plain shrinks the file's own run with that seed$/],
      [[pass, '--jobs', '0'], /^twinchain shrink: --jobs must be an integer from 1 to 256 \(got "0"\)$/],
    ];
    for (const [args, message] of cases) {
      const io = captureIo();
      expect(await main(['shrink', ...args, ...(args.includes('--jobs') ? [] : ['--jobs', '1']), '--out', path.join(scenarios.dir, 'refused')], io)).toBe(2);
      expect(io.stderr.trim()).toMatch(message);
    }
  }, 60_000);
});

describe('swarm and shrink', () => {
  it('failing rows name the shrink command; --until-fail --shrink shrinks the first failing seed; original.yaml replays that seed exactly', async () => {
    const file = await scenarios.file('sw', smallScenario('swarm: { crashes: [1, 1], window: [2s, 5s], faultDuration: [1s, 2s] }\nexpect: { minHeight: 500, liveness: false }\n'));
    const out = path.join(scenarios.dir, 'sw-out');
    const io = captureIo();
    expect(await main(['swarm', file, '--until-fail', '--seeds', '3', '--jobs', '1', '--shrink', '--out', out], io)).toBe(1);
    expect(io.stdout).toMatch(new RegExp(`^ {4}shrink: npx twinchain shrink ${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} --seed 1$`, 'm'));
    const swarm = JSON.parse(await readFile(path.join(out, 'swarm.json'), 'utf8')) as { runs: Array<{ seed: number; digest: string; shrink?: string }> };
    expect(swarm.runs[0]!.shrink).toBe(`npx twinchain shrink ${file} --seed 1`);
    const shrinkOut = path.join(out, 'seed-1', 'shrink');
    const json = await shrinkJson(shrinkOut);
    // every run misses height 500, so nothing is needed: no event, one node, the shortest run
    expect(json.target).toEqual({ kind: 'expectation', name: 'every live honest node reached height 500' });
    expect(json.shrunk).toMatchObject({ events: 0, nodes: 1, durationMs: 1000 });
    expect(io.stdout).toMatch(/^kept 0 of \d+ events; nodes 4 → 1/m);
    const original = await runScenario(await loadScenarioFile(path.join(shrinkOut, 'original.yaml')));
    expect(original.digest).toBe(swarm.runs[0]!.digest);
  }, 120_000);
});
