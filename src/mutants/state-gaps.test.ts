import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildReport, renderMarkdown, type Fate, type ReportedMutant } from './mutation-report.js';
import { stateGaps } from './mutation-run.js';
import { DEFAULT_SWARM_BUDGET } from './mutation-targets.js';
import type { StrykerReport } from './stryker-report.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

const at = { start: { line: 1, column: 1 }, end: { line: 1, column: 2 } };
const mutant = (id: string, fate: Fate): ReportedMutant => ({ id, file: 'src/txpool/a.ts', at, line: 1, where: '1:1-1:2', mutatorName: 'BooleanLiteral', original: 'a', replacement: 'true', fate });
const killed = mutant('a@1', { kind: 'killed-by-tests', tests: ['t'] });
const swarmed = mutant('a@2', { kind: 'survived', tests: 'Survived', seeds: 20 });
const MUTATE = ['src/txpool/**/*.ts'];

/** A checkout whose files are `onDisk`, and a state that recorded `recorded` for them. */
async function checkout(onDisk: Record<string, string>, recorded: { files: Record<string, string>; tests: Record<string, string> }) {
  const root = await mkdtemp(path.join(tmpdir(), 'state-gaps-'));
  dirs.push(root);
  for (const [rel, text] of Object.entries(onDisk)) {
    await mkdir(path.dirname(path.join(root, rel)), { recursive: true });
    await writeFile(path.join(root, rel), text);
  }
  const report: StrykerReport = {
    schemaVersion: '1.0',
    thresholds: { high: 80, low: 60, break: null },
    files: Object.fromEntries(Object.entries(recorded.files).map(([rel, source]) => [rel, { language: 'typescript', source, mutants: [] }])),
    testFiles: { '': { tests: [] }, ...Object.fromEntries(Object.entries(recorded.tests).map(([rel, source]) => [rel, { source, tests: [] }])) },
  };
  return { root, report };
}

const files = { 'src/txpool/a.ts': 'export const a = 1;\n', 'src/txpool/a.test.ts': 'it("a")\n', 'src/other/b.ts': 'b\n' };

describe('a report of the state as it stands (--report-only)', () => {
  it('is complete when every mutant has its final result, made on the mutated files and selected tests as they are', async () => {
    const { root, report } = await checkout(files, { files: { 'src/txpool/a.ts': files['src/txpool/a.ts'], 'src/other/b.ts': 'not what is on disk' }, tests: { 'src/txpool/a.test.ts': files['src/txpool/a.test.ts'] } });
    // a file outside the mutated globs does not count, and neither does the test entry without a file
    expect(await stateGaps(root, report, [killed, swarmed], MUTATE)).toEqual([]);
    const md = renderMarkdown(buildReport([killed, swarmed], { date: 'd', commit: 'c', budget: DEFAULT_SWARM_BUDGET, fromState: true }));
    expect(md).toContain('which is complete: every mutant has its final result');
    expect(md).not.toContain('**Partial**');
  });

  it('is partial, saying why, when mutants lack a result or a mutated or selected test file changed since its results', async () => {
    const untested = mutant('a@3', { kind: 'not-swarmed', tests: 'Pending', reason: 'the test phase did not finish' });
    const unswarmed = mutant('a@4', { kind: 'not-swarmed', tests: 'Survived', reason: 'the swarm phase has not run it' });
    const { root, report } = await checkout(files, { files: { 'src/txpool/a.ts': 'export const a = 2;\n', 'src/txpool/gone.ts': 'x' }, tests: { 'src/txpool/a.test.ts': 'it("an older a")\n' } });
    const gaps = await stateGaps(root, report, [killed, untested, unswarmed, swarmed], MUTATE, ['src/txpool/new.test.ts']);
    expect(gaps).toEqual([
      '1 mutant not tested yet',
      '1 mutant the tests did not kill not swarm-tested on this testbed',
      'changed since their results: src/txpool/a.ts, src/txpool/gone.ts, src/txpool/a.test.ts',
      'selected test files no result was made with: src/txpool/new.test.ts',
    ]);
    const md = renderMarkdown(buildReport([killed, untested], { date: 'd', commit: 'c', budget: DEFAULT_SWARM_BUDGET, partial: gaps }));
    expect(md).toContain("so the figures are not the files' score: 1 mutant not tested yet; 1 mutant the tests did not kill");
    expect(md).not.toContain('which is complete');
  });
});
