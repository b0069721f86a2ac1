// Carrying a mutation run's state between machines: --save-state, and a fresh clone starting from it.
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readMutationReport, regenerateTriageFile, runMutation, TRIAGE_FILE } from './mutation-run.js';
import { DEFAULT_SWARM_BUDGET } from './mutation-targets.js';
import { CARRY_FILE, loadState, mutantCount, readCarriedState, saveState, StateCarryError } from './state-carry.js';
import { readStrykerReport, resumeFromJournal, statePaths } from './stryker-phase.js';
import type { StrykerReport } from './stryker-report.js';

let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(path.join(tmpdir(), 'twinchain-state-carry-'));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

const loc = (sl: number, sc: number, el: number, ec: number) => ({ start: { line: sl, column: sc }, end: { line: el, column: ec } });
const OUT = path.join('reports', 'mutation');
const source = 'export const f = (a: number) => a > 1;\n';
const other = 'export const g = () => 2;\n';
const TEST = 'src/txpool/a.test.ts#f works';

/** A state folder as an interrupted run leaves it: the incremental file of an earlier complete run, a journal with its sources, swarm results. */
async function interruptedRun(root: string): Promise<void> {
  const p = statePaths(path.join(root, OUT));
  const previous: StrykerReport = {
    schemaVersion: '1.0',
    thresholds: { high: 90, low: 80, break: null },
    files: { 'src/sync/b.ts': { language: 'typescript', source: other, mutants: [{ id: '7', mutatorName: 'ArithmeticOperator', replacement: '-2', location: loc(1, 24, 1, 25), status: 'Killed', killedBy: [TEST] }] } },
    testFiles: { 'src/txpool/a.test.ts': { source: 'it("f")', tests: [{ id: TEST, name: 'f works' }] } },
    projectRoot: root,
  };
  await mkdir(p.journal, { recursive: true });
  await writeFile(p.incremental, JSON.stringify(previous));
  await writeFile(p.snapshot, JSON.stringify({ files: { 'src/txpool/a.ts': source, 'src/sync/b.ts': other }, testFiles: { 'src/txpool/a.test.ts': 'it("f")' } }));
  await writeFile(path.join(p.journal, '00000-onDryRunCompleted.json'), JSON.stringify({ result: { tests: [{ id: TEST, name: 'f works', fileName: path.join(root, 'src/txpool/a.test.ts') }] } }));
  const a = path.join(root, 'src/txpool/a.ts');
  await writeFile(path.join(p.journal, '00001-onMutantTested.json'), JSON.stringify({ id: '0', fileName: a, mutatorName: 'EqualityOperator', replacement: 'a >= 1', location: loc(1, 33, 1, 38), status: 'Killed', killedBy: [TEST], coveredBy: [TEST] }));
  await writeFile(path.join(p.journal, '00002-onMutantTested.json'), JSON.stringify({ id: '1', fileName: a, mutatorName: 'BooleanLiteral', replacement: 'true', location: loc(1, 33, 1, 38), status: 'Survived', coveredBy: [TEST] }));
  await writeFile(path.join(p.journal, '00003-onMutantTested.json'), JSON.stringify({ id: '2', fileName: a, mutatorName: 'ConditionalExpression', replacement: 'false', location: loc(1, 33, 1, 38), status: 'Timeout' }));
  await writeFile(p.swarmCache, `${JSON.stringify({ key: 'k1', id: 'a@1', verdict: { kind: 'survived' } })}\n${JSON.stringify({ key: 'k2', id: 'a@2', verdict: { kind: 'compile-error', evidence: ['x'] } })}\n`);
  await writeFile(path.join(p.state, 'swarm-baseline.json'), JSON.stringify({ testbed: 'abc', seeds: { 'pbft-swarm.yaml': 20 } }));
}

/** What the state folder holds, file by file (to show a save changed nothing there). */
async function listing(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile()) {
      const f = path.join(e.parentPath, e.name);
      out[path.relative(dir, f)] = await readFile(f, 'utf8');
    }
  }
  return out;
}

describe('carrying a mutation run to another machine', () => {
  it('saves what a resume would fold (journal over the incremental file, timeouts left out), and leaves the state folder as it was', async () => {
    const root = path.join(tmp, 'saver');
    await interruptedRun(root);
    const before = await listing(path.join(root, OUT));
    const saved = await saveState(root, OUT, CARRY_FILE, 'abc123', new Date('2026-11-30T09:00:00Z'));
    expect(await listing(path.join(root, OUT))).toEqual(before);
    expect(saved.savedAt).toBe('2026-11-30T09:00:00.000Z');
    expect(mutantCount(saved.incremental)).toBe(3);
    expect(saved.incremental!.projectRoot).toBe('.');
    const back = await readCarriedState(path.join(root, CARRY_FILE));
    expect(back.commit).toBe('abc123');
    expect(back.incremental!.files['src/txpool/a.ts']!.mutants.map((m) => [m.mutatorName, m.status])).toEqual([
      ['EqualityOperator', 'Killed'],
      ['BooleanLiteral', 'Survived'],
    ]);
    expect(back.incremental!.files['src/sync/b.ts']!.mutants.map((m) => m.status)).toEqual(['Killed']);
    expect(back.swarmCache).toHaveLength(2);
    expect(back.baseline).toEqual({ testbed: 'abc', seeds: { 'pbft-swarm.yaml': 20 } });
  });

  it('loads into an empty state folder on another root, where StrykerJS reads it back and nothing is left to fold', async () => {
    const saver = path.join(tmp, 'saver2');
    await interruptedRun(saver);
    await saveState(saver, OUT, CARRY_FILE, 'abc123');
    const fresh = path.join(tmp, 'fresh');
    await mkdir(path.join(fresh, 'mutation'), { recursive: true });
    await writeFile(path.join(fresh, CARRY_FILE), await readFile(path.join(saver, CARRY_FILE)));
    const loaded = await loadState(fresh, OUT, CARRY_FILE);
    const p = statePaths(path.join(fresh, OUT));
    const incremental = await readStrykerReport(p.incremental);
    expect(incremental!.projectRoot).toBe(fresh);
    expect(mutantCount(incremental!)).toBe(mutantCount(loaded.incremental));
    expect(incremental!.testFiles!['src/txpool/a.test.ts']!.source).toBe('it("f")');
    expect((await readFile(p.swarmCache, 'utf8')).trim().split('\n')).toEqual(loaded.swarmCache);
    expect(JSON.parse(await readFile(path.join(p.state, 'swarm-baseline.json'), 'utf8'))).toEqual({ testbed: 'abc', seeds: { 'pbft-swarm.yaml': 20 } });
    expect(await resumeFromJournal(fresh, path.join(fresh, OUT))).toBe(0);
  });

  it('refuses to load over results already in the state folder, and changes nothing', async () => {
    const root = path.join(tmp, 'busy');
    await interruptedRun(root);
    await saveState(root, OUT, CARRY_FILE, 'abc123');
    const before = await listing(path.join(root, OUT));
    await expect(loadState(root, OUT, CARRY_FILE)).rejects.toThrow(new StateCarryError(`${statePaths(OUT).state} already holds results of its own: move it away first to load ${CARRY_FILE} (nothing was changed)`));
    expect(await listing(path.join(root, OUT))).toEqual(before);
  });

  it('refuses to save an empty state', async () => {
    const root = path.join(tmp, 'empty');
    await mkdir(root, { recursive: true });
    await expect(saveState(root, OUT, CARRY_FILE, 'x')).rejects.toThrow(/nothing to save: reports\/mutation\/state holds no test-phase results and no swarm results/);
    expect(existsSync(path.join(root, CARRY_FILE))).toBe(false);
  });

  it('names the file and the problem of a carry file it cannot use', async () => {
    const dir = path.join(tmp, 'bad');
    await mkdir(dir, { recursive: true });
    const put = async (name: string, data: string | Buffer) => {
      await writeFile(path.join(dir, name), data);
      return path.join(dir, name);
    };
    const gz = (v: unknown) => gzipSync(JSON.stringify(v));
    const good = { format: 'twinchain-mutation-state', version: 1, savedAt: 'now', commit: 'c', incremental: null, swarmCache: [], baseline: null };
    await expect(readCarriedState(path.join(dir, 'none.gz'), 'none.gz')).rejects.toThrow('none.gz: cannot read it (ENOENT)');
    await expect(readCarriedState(await put('plain.gz', '{}'), 'plain.gz')).rejects.toThrow(/^plain\.gz: not a gzipped JSON mutation state \(/);
    await expect(readCarriedState(await put('other.gz', gz({ files: {} })), 'other.gz')).rejects.toThrow('other.gz: not a mutation state saved by npm run mutation -- --save-state (no "format": "twinchain-mutation-state")');
    await expect(readCarriedState(await put('v2.gz', gz({ ...good, version: 2 })), 'v2.gz')).rejects.toThrow('v2.gz: version 2 of the state format; this code reads version 1');
    await expect(readCarriedState(await put('cache.gz', gz({ ...good, swarmCache: [1] })), 'cache.gz')).rejects.toThrow('cache.gz: "swarmCache" must be an array of lines');
    const badMutant = { ...good, incremental: { files: { 'a.ts': { source: '', mutants: [{ id: '1', mutatorName: 'X', status: 'Weird', location: loc(1, 1, 1, 1) }] } } } };
    await expect(readCarriedState(await put('mutant.gz', gz(badMutant)), 'mutant.gz')).rejects.toThrow(/^mutant\.gz "incremental": files\["a\.ts"\] has a malformed mutant/);
    const root = path.join(tmp, 'bad-root');
    await mkdir(path.join(root, 'mutation'), { recursive: true });
    await writeFile(path.join(root, CARRY_FILE), gz({ ...good, version: 2 }));
    await expect(loadState(root, OUT, CARRY_FILE)).rejects.toThrow(StateCarryError);
    expect(existsSync(path.join(root, OUT))).toBe(false);
  });

  it('reports from a committed carry file on a clone that has no state folder (--report-only), running nothing', async () => {
    const saver = path.join(tmp, 'saver3');
    await interruptedRun(saver);
    await saveState(saver, OUT, CARRY_FILE, 'abc123');
    const clone = path.join(tmp, 'clone');
    for (const d of ['src', 'scenarios', 'bin', 'mutation']) await mkdir(path.join(clone, d), { recursive: true });
    await writeFile(path.join(clone, 'package-lock.json'), '{}');
    await writeFile(path.join(clone, CARRY_FILE), await readFile(path.join(saver, CARRY_FILE)));
    const lines: string[] = [];
    const report = await runMutation({ root: clone, out: OUT, jobs: 1, budget: DEFAULT_SWARM_BUDGET, phases: 'none', onLine: (l) => lines.push(l) });
    expect(lines[0]).toBe(`report of the state as it stands in ${CARRY_FILE} (a run may still be going): 3 mutants tested so far`);
    expect(report.files.map((f) => [f.file, f.generated])).toEqual([
      ['src/sync/b.ts', 1],
      ['src/txpool/a.ts', 2],
    ]);
    expect(report.total.survived).toBe(1);
    expect((await readMutationReport(clone, OUT)).mutants).toHaveLength(3);
    expect(report.partial).toEqual(['1 mutant the tests did not kill not swarm-tested on this testbed', 'changed since their results: src/sync/b.ts, src/txpool/a.ts, src/txpool/a.test.ts']);
    expect(await readFile(path.join(clone, OUT, 'mutation-report.md'), 'utf8')).toContain('**Partial**: made from a run\'s state as it stood (`--report-only`), which is not complete, so the figures are not the files\' score: 1 mutant the tests did not kill');
    // the report is all it wrote: the carry file was read, not unpacked
    expect(existsSync(statePaths(path.join(clone, OUT)).incremental)).toBe(false);

    // triage from a partial report: a verdict for a mutant of the same file that was not tested yet is kept, not dropped
    const untested = ['### a@0badcafe', '- at: src/txpool/a.ts 1:18-1:38, ArrowFunction', '- mutant: `(a: number) => a > 1` → `() => undefined`', '- result: survived', '- verdict: equivalent: a reason written before the run reached it'];
    await mkdir(path.join(clone, 'docs'), { recursive: true });
    await writeFile(path.join(clone, TRIAGE_FILE), ['# Mutation survivors', '', '## src/txpool/a.ts', '', ...untested, ''].join('\n'));
    const said = await regenerateTriageFile(clone, OUT);
    expect(said).toEqual([`${TRIAGE_FILE}: 1 survivor (1 new, open), 0 triaged mutants now killed, 1 entry this partial report does not hold kept as they were`]);
    const triage = await readFile(path.join(clone, TRIAGE_FILE), 'utf8');
    expect(triage).toContain(untested.join('\n'));
    expect(triage).toContain('a partial report');
    expect(triage).toMatch(/- mutant: `a > 1` → `true`\n- result: survived the tests[^\n]*\n- verdict: open/);
  });

  it('starts a run on a clone with an empty state folder from the carry file, and only then', async () => {
    const saver = path.join(tmp, 'saver4');
    await interruptedRun(saver);
    // only killed mutants, so the swarm phase has nothing to run
    await rm(path.join(saver, OUT, 'state', 'stryker-journal'), { recursive: true });
    await rm(path.join(saver, OUT, 'state', 'swarm-cache.jsonl'));
    await saveState(saver, OUT, CARRY_FILE, 'abc123', new Date('2026-11-30T09:00:00Z'));
    const clone = path.join(tmp, 'clone2');
    for (const d of ['src', 'scenarios', 'bin', 'mutation']) await mkdir(path.join(clone, d), { recursive: true });
    await writeFile(path.join(clone, 'package-lock.json'), '{}');
    await writeFile(path.join(clone, CARRY_FILE), await readFile(path.join(saver, CARRY_FILE)));
    const run = async () => {
      const lines: string[] = [];
      const report = await runMutation({ root: clone, out: OUT, jobs: 1, budget: DEFAULT_SWARM_BUDGET, phases: 'swarm', onLine: (l) => lines.push(l) });
      return { lines, report };
    };
    const first = await run();
    expect(first.lines[0]).toBe(`state: starting from ${CARRY_FILE} (saved 2026-11-30T09:00:00.000Z on abc123): 1 test-phase result, 0 swarm results; what changed since is tested again`);
    expect(first.report.total.killedByTests).toBe(1);
    expect(existsSync(statePaths(path.join(clone, OUT)).incremental)).toBe(true);
    // the state folder has results now: the carry file is not loaded over them again
    const second = await run();
    expect(second.lines.some((l) => l.startsWith('state: starting from'))).toBe(false);
    expect(second.report.total.killedByTests).toBe(1);
  });
});
