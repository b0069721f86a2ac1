import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { lstat, mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anchorProblems, applyMutant, catalogue, classifySwarm, combine, median, mutantCopy, MutantPatchError, QUICK, repoRoot, runMutant, type Mutant } from './index.js';

const root = repoRoot();
const sha = async (file: string) => createHash('sha256').update(await readFile(file)).digest('hex');

let out: string;
beforeAll(async () => {
  out = await mkdtemp(path.join(tmpdir(), 'twinchain-mutants-test-'));
});
afterAll(async () => {
  await rm(out, { recursive: true, force: true });
});

describe('the mutant catalogue', () => {
  it('has at least ten mutants with unique ids, library scenarios and quick ids that exist', () => {
    expect(catalogue.length).toBeGreaterThanOrEqual(10);
    expect(new Set(catalogue.map((m) => m.id)).size).toBe(catalogue.length);
    for (const m of catalogue) {
      expect(m.patches.length, m.id).toBeGreaterThan(0);
      for (const s of m.scenarios) expect(existsSync(path.join(root, 'scenarios', s)), `${m.id}: ${s}`).toBe(true);
    }
    for (const id of QUICK.ids) expect(catalogue.map((m) => m.id)).toContain(id);
  });

  // a refactor that moves a patched line must fail here, not make a mutant silently test nothing
  it.each(catalogue.map((m) => [m.id, m] as const))('%s: every anchor occurs exactly once in today’s sources', async (_id, mutant) => {
    expect(await anchorProblems(mutant, root)).toEqual([]);
  });
});

describe('planting a mutant', () => {
  const fabricated = (find: string): Mutant => ({ id: 'fabricated', title: 't', scenarios: ['quickstart.yaml'], patches: [{ file: 'src/consensus/pbft/pbft.ts', find, replace: 'x' }] });

  it('refuses an anchor that is missing or not unique, naming the mutant, the file and the anchor', async () => {
    expect(await anchorProblems(fabricated('  this line is not in pbft.ts\n'), root)).toEqual([
      'mutant fabricated: the anchor "this line is not in pbft.ts" occurs nowhere in src/consensus/pbft/pbft.ts (it must occur exactly once)',
    ]);
    expect((await anchorProblems(fabricated('this.view'), root))[0]).toMatch(/^mutant fabricated: the anchor "this\.view" occurs \d+ times in src\/consensus\/pbft\/pbft\.ts/);
    const missingFile: Mutant = { ...fabricated('x'), patches: [{ file: 'src/nope.ts', find: 'x', replace: 'y' }] };
    expect(await anchorProblems(missingFile, root)).toEqual(['mutant fabricated: src/nope.ts does not exist']);
    await expect(mutantCopy(fabricated('  this line is not in pbft.ts\n'), root)).rejects.toThrow(MutantPatchError);
    const report = await runMutant(fabricated('  this line is not in pbft.ts\n'), { budgetMs: 10_000, jobs: 1, out: path.join(out, 'fabricated'), from: root });
    expect(report).toMatchObject({ id: 'fabricated', detection: 'error', error: expect.stringContaining('occurs nowhere in src/consensus/pbft/pbft.ts') });
  });

  it('patches a temporary copy, never the working tree, and removes the copy', async () => {
    const mutant = catalogue.find((m) => m.id === 'pbft-sign-unexecuted')!;
    const files = [...new Set(mutant.patches.map((p) => p.file))];
    const before = await Promise.all(files.map((f) => sha(path.join(root, f))));
    const copy = await mutantCopy(mutant, root);
    try {
      for (const f of files) {
        const text = await readFile(path.join(copy.dir, f), 'utf8');
        expect(text).toContain('MUTANT');
        for (const p of mutant.patches.filter((x) => x.file === f)) expect(text).toContain(p.replace);
      }
      expect((await lstat(path.join(copy.dir, 'node_modules'))).isSymbolicLink()).toBe(true);
      expect(existsSync(path.join(copy.dir, 'bin', 'twinchain.js'))).toBe(true);
      expect(existsSync(path.join(copy.dir, 'scenarios', 'pbft-swarm.yaml'))).toBe(true);
      // its CLI is bundled from the patched sources, and bin/twinchain.js's check takes that bundle
      expect(copy.bundled).toBe(true);
      const { whatToRun } = (await import(pathToFileURL(path.join(copy.dir, 'bin', 'dist-freshness.js')).href)) as { whatToRun(root: string): string };
      expect(whatToRun(copy.dir)).toBe('dist');
      const bundle = path.join(copy.dir, 'dist', 'bundle');
      for (const entry of ['main.js', 'swarm-worker.js', 'shrink-worker.js', 'crypto-worker.js', 'line-reader-worker.js', 'report-page.js', 'report-page.css']) expect(existsSync(path.join(bundle, entry)), entry).toBe(true);
      const bundled = (await Promise.all((await readdir(bundle)).filter((f) => f.endsWith('.js')).map((f) => readFile(path.join(bundle, f), 'utf8')))).join('\n');
      // the patched line as code (the catalogue's text of it, in the mutants command, goes on with its comment)
      expect(bundled).toMatch(/if \(this\.pbft\.leaderOf\(view\) !== this\.config\(\)\.selfIndex\) return;\n/);
      // applying twice fails: the anchor is gone from the patched copy
      await expect(applyMutant(mutant, copy.dir)).rejects.toThrow(/occurs nowhere in src\/consensus\/pbft\/pbft\.ts/);
    } finally {
      await copy.remove();
    }
    expect(existsSync(copy.dir)).toBe(false);
    expect(await Promise.all(files.map((f) => sha(path.join(root, f))))).toEqual(before);
    expect(await readFile(path.join(root, files[0]!), 'utf8')).not.toContain('MUTANT');
  });
});

describe('classifying a swarm.json', () => {
  const run = (seed: number, extra: object) => ({ seed, verdict: 'fail', failed: [], violations: [], ...extra });

  it('caught: the failing seed has violations (named by invariant)', () => {
    const v = classifySwarm({
      firstFailure: { seed: 7, afterMs: 4200 },
      runs: [
        { seed: 6, verdict: 'pass', failed: [] },
        run(7, { violations: [{ invariant: 'lock-safety', node: 'node1', height: 5, detail: 'd', atMs: 1 }, { invariant: 'lock-safety', node: 'node2', height: 5, detail: 'd', atMs: 2 }], failed: [{ name: 'safety: one block per height', ok: false }] }),
      ],
    });
    expect(v).toEqual({ detection: 'caught', seeds: 2, seed: 7, afterMs: 4200, evidence: ['lock-safety'] });
  });

  it('caught: a failed expectation named safety…, even without violations', () => {
    expect(classifySwarm({ firstFailure: { seed: 1, afterMs: 10 }, runs: [run(1, { failed: [{ name: 'safety: quorum certificates', ok: false }, { name: 'liveness', ok: false }] })] })).toMatchObject({
      detection: 'caught',
      evidence: ['safety: quorum certificates'],
    });
  });

  it('stall: only liveness/receipt expectations failed, or the seed errored', () => {
    expect(classifySwarm({ firstFailure: { seed: 3, afterMs: 900 }, runs: [{ seed: 2, verdict: 'pass' }, run(3, { failed: [{ name: 'liveness: a probe reached every live honest node within 20s', ok: false }, { name: 'every transaction got a receipt', ok: false }] })] })).toEqual({
      detection: 'stall',
      seeds: 2,
      seed: 3,
      afterMs: 900,
      evidence: ['liveness: a probe reached every live honest node within 20s', 'every transaction got a receipt'],
    });
    expect(classifySwarm({ firstFailure: { seed: 1, afterMs: 5 }, runs: [{ seed: 1, verdict: 'error', error: 'boom' }] })).toMatchObject({ detection: 'stall', evidence: ['internal error: boom'] });
  });

  it('survived: every seed passed; a malformed file is refused', () => {
    expect(classifySwarm({ firstFailure: null, runs: [{ seed: 1, verdict: 'pass' }, { seed: 2, verdict: 'pass' }] })).toEqual({ detection: 'survived', seeds: 2, seed: null, afterMs: null, evidence: [] });
    expect(() => classifySwarm({ seeds: [] })).toThrow('swarm.json has no runs array');
  });

  it('combines scenarios (caught beats stall beats survived) and takes medians', () => {
    const s = (detection: 'caught' | 'stall' | 'survived', scenario: string) => ({ detection, seeds: 3, seed: detection === 'survived' ? null : 1, afterMs: null, evidence: [], scenario });
    expect(combine([s('stall', 'a'), s('caught', 'b')]).scenario).toBe('b');
    expect(combine([s('survived', 'a'), s('stall', 'b')]).detection).toBe('stall');
    expect(combine([s('survived', 'a'), s('survived', 'b')])).toMatchObject({ detection: 'survived', seeds: 6 });
    expect([median([]), median([5]), median([9, 1, 5]), median([4, 1, 2, 3])]).toEqual([null, 5, 5, 2.5]);
  });
});

describe('running a mutant', () => {
  // one real, bounded run: a PBFT quorum no group can reach makes the first seed of quickstart
  // stall, so the whole pipeline (copy, patch, child swarm, swarm.json, verdict, clean-up) is seen
  it('runs the patched copy’s swarm as a child process and classifies its first failing seed', async () => {
    const stall: Mutant = {
      id: 'test-unreachable-quorum',
      title: 'PBFT quorum n + 1',
      scenarios: ['quickstart.yaml'],
      patches: [{ file: 'src/consensus/pbft/pbft.ts', find: '  get quorum(): number {\n    return this.n - this.f;\n  }\n', replace: '  get quorum(): number {\n    return this.n + 1;\n  }\n' }],
    };
    const before = await sha(path.join(root, 'src/consensus/pbft/pbft.ts'));
    const lines: string[] = [];
    const report = await runMutant(stall, { budgetMs: 12_000, jobs: 1, out: path.join(out, 'stall'), from: root, onLine: (l) => lines.push(l) });
    expect(report).toMatchObject({ id: stall.id, detection: 'stall', scenario: 'quickstart.yaml', seed: 1, replay: 'npx twinchain mutants --only test-unreachable-quorum --seed 1' });
    // a stall does not end the search: the scan goes on from the next seed while budget remains
    // the child's budget is what the 12 s leave after copying and bundling the tree
    const first = /^ {2}test-unreachable-quorum: swarm quickstart\.yaml --until-fail --budget (\d+)s --from 1 --jobs 1$/.exec(lines[0] ?? '');
    expect(first, lines[0]).not.toBeNull();
    expect(Number(first![1])).toBeGreaterThan(0);
    expect(Number(first![1])).toBeLessThanOrEqual(12);
    expect(lines.some((l) => l.includes('--from 2 '))).toBe(true);
    expect(report.seeds).toBeGreaterThanOrEqual(2);
    expect(report.scenarios.map((s) => s.detection)).toContain('stall');
    expect(report.evidence.join(' ')).toMatch(/height 30/);
    expect(report.afterMs).toBeGreaterThan(0);
    expect(existsSync(path.join(out, 'stall', 'quickstart', 'swarm.json'))).toBe(true);
    expect(await sha(path.join(root, 'src/consensus/pbft/pbft.ts'))).toBe(before);

    // the failing seed replays to the same digest (--seed: the replay the report names)
    const digestOf = async (dir: string) => (JSON.parse(await readFile(path.join(dir, 'swarm.json'), 'utf8')) as { runs: Array<{ seed: number; digest: string }> }).runs.find((r) => r.seed === 1)!.digest;
    const replay = await runMutant(stall, { budgetMs: 20_000, jobs: 1, out: path.join(out, 'replay'), from: root, seed: 1, shrink: { budgetMs: 60_000, command: (replay) => `${replay} --shrink` } });
    expect(replay).toMatchObject({ detection: 'stall', seed: 1 });
    // with shrink: the copy's twinchain shrink of that seed, verified on the mutant (the mutants command
    // also runs the result on the code without the bug: see mutants-command.test.ts)
    expect(replay.shrink).toMatchObject({ command: 'npx twinchain mutants --only test-unreachable-quorum --seed 1 --shrink', minimal: true, verified: true, target: { kind: 'expectation' } });
    expect(replay.shrink!.error).toBeUndefined();
    expect(replay.shrink!.eventsKept).toBeLessThan(replay.shrink!.eventsBefore);
    expect(replay.shrink!.durationMsAfter).toBeLessThan(replay.shrink!.durationMsBefore);
    expect(existsSync(replay.shrink!.file!)).toBe(true);
    // (the replay's swarm.json is in its seed's folder)
    expect(await digestOf(path.join(out, 'replay', 'quickstart', 'seed-1'))).toBe(await digestOf(path.join(out, 'stall', 'quickstart')));
  }, 180_000);
});
