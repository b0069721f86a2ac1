// The glue of `npm run mutation` (StrykerJS, then swarm): fast tests with fabricated inputs; the
// real phases are exercised by the pilot runs docs/mutation.md reports.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expandGlobs, globToRegExp, matchesGlobs } from './file-globs.js';
import { LocationError, offsetOf, replaceAt, textAt } from './location-patch.js';
import { stableIds } from './mutant-id.js';
import { buildReport, fateOf, renderMarkdown, reportedMutant, summaryLines, type ReportedMutant } from './mutation-report.js';
import { MutationOptionError, mutateFor, readMutationReport, reportPaths } from './mutation-run.js';
import { DEFAULT_SWARM_BUDGET, MUTATE, scenariosFor, swarmShares, TEST_FILES, testFileRank } from './mutation-targets.js';
import { resumeFromJournal, statePaths, strykerOptions, unrunTestFiles } from './stryker-phase.js';
import { decodeTimeoutMemory, encodeTimeoutMemory, foldJournal, journalCount, readJournal, rememberTimeouts, sourceDigest, type Journal } from './stryker-journal.js';
import { parseStrykerReport, StrykerReportError, type StrykerReport } from './stryker-report.js';
import { parseTriageEntries, parseTriageFile, renderTriageFile, TriageFileError, type TriageEntry } from './survivors-file.js';
import { sourceHash, SwarmCache, swarmKey, type SwarmCacheEntry } from './swarm-cache.js';
import { generatedMutants, runSwarmPhase, shareVerdict, type GeneratedMutant, type ShareOutcome } from './swarm-phase.js';
import { MutantTypeChecker } from './type-check.js';
import { applyMutant, patchProblem, type LocatedPatch } from './workspace.js';

let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(path.join(tmpdir(), 'twinchain-mutation-glue-'));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

const loc = (sl: number, sc: number, el: number, ec: number) => ({ start: { line: sl, column: sc }, end: { line: el, column: ec } });

describe('a replacement at a location (StrykerJS: 1-based lines and columns, end exclusive)', () => {
  const text = 'const a = 1;\nif (x − y >= limit) {\n  return a;\n}\n';

  it('finds the text and replaces exactly it, on one line or across lines, after non-ASCII text', () => {
    expect(textAt(text, loc(2, 5, 2, 19))).toBe('x − y >= limit');
    expect(textAt(text, loc(2, 11, 2, 13))).toBe('>=');
    expect(replaceAt(text, loc(2, 11, 2, 13), '>')).toBe('const a = 1;\nif (x − y > limit) {\n  return a;\n}\n');
    expect(replaceAt(text, loc(2, 21, 4, 2), '{}')).toBe('const a = 1;\nif (x − y >= limit) {}\n');
    // an end one past a line's last character is that line's end
    expect(textAt(text, loc(1, 1, 1, 13))).toBe('const a = 1;');
    expect(offsetOf(text, { line: 3, column: 1 })).toBe(text.indexOf('  return'));
  });

  it('refuses positions that are not in the text, saying which', () => {
    expect(() => textAt(text, loc(9, 1, 9, 2))).toThrow(new LocationError('line 9 is past the end (the text has 5 lines)'));
    expect(() => textAt(text, loc(1, 1, 1, 40))).toThrow('column 40 is past the end of line 1 (12 characters)');
    expect(() => textAt(text, loc(2, 5, 1, 1))).toThrow('1:1 comes before 2:5');
    expect(() => textAt(text, loc(0, 1, 1, 1))).toThrow('0:1 is not a position');
  });

  it('plants a located patch only where the original text still is, naming file and place otherwise', async () => {
    const root = path.join(tmp, 'plant');
    await mkdir(path.join(root, 'src'), { recursive: true });
    await writeFile(path.join(root, 'src', 'x.ts'), text);
    const patch: LocatedPatch = { file: 'src/x.ts', at: loc(2, 11, 2, 13), original: '>=', replace: '<' };
    expect(patchProblem('m1', patch, text)).toBeNull();
    expect(patchProblem('m1', { ...patch, original: '==' }, text)).toBe('mutant m1: src/x.ts 2:11-2:13 holds ">=", not the mutated "==" (the file changed since the mutant was generated)');
    expect(patchProblem('m1', { ...patch, at: loc(7, 1, 7, 2) }, text)).toBe('mutant m1: src/x.ts has no 7:1-7:2: line 7 is past the end (the text has 5 lines)');
    await applyMutant({ id: 'm1', patches: [patch] }, root);
    expect(await readFile(path.join(root, 'src', 'x.ts'), 'utf8')).toBe('const a = 1;\nif (x − y < limit) {\n  return a;\n}\n');
    // the original is gone from the patched file: planting again fails
    await expect(applyMutant({ id: 'm1', patches: [patch] }, root)).rejects.toThrow('holds "< ", not the mutated ">="');
  });
});

describe('what is mutated, which tests run, and the swarm budget per file', () => {
  it('mutates the consensus-critical code only, never tests, helpers or re-exports', () => {
    for (const f of ['src/consensus/pbft/pbft.ts', 'src/consensus/raft/raft.ts', 'src/consensus/proposal.ts', 'src/consensus/consensus-signer.ts', 'src/txpool/tx-pool.ts', 'src/sync/block-sync.ts', 'src/node/group.ts', 'src/node/group-sync.ts', 'src/node/pbft-driver.ts', 'src/node/raft-driver.ts']) {
      expect(matchesGlobs(f, MUTATE), f).toBe(true);
    }
    for (const f of ['src/txpool/tx-pool.test.ts', 'src/consensus/raft/raft-harness.test-helper.ts', 'src/consensus/index.ts', 'src/node/node.ts', 'src/node/pbft-adversary.ts', 'src/sim/scenario/swarm.ts']) {
      expect(matchesGlobs(f, MUTATE), f).toBe(false);
    }
    expect(mutateFor(['src/txpool/tx-pool.ts'])).toEqual(['src/txpool/tx-pool.ts', ...MUTATE.filter((g) => g.startsWith('!'))]);
    expect(() => mutateFor(['src/node/node.ts'])).toThrow(MutationOptionError);
    expect(() => mutateFor(['src/node/node.ts'])).toThrow(/src\/node\/node\.ts is not among the files the mutation run covers/);
  });

  it('globs: ** spans folders, * stays in one, ! excludes; expansion walks the tree', async () => {
    expect(globToRegExp('src/**/*.ts').test('src/a/b/c.ts')).toBe(true);
    expect(globToRegExp('src/**/*.ts').test('src/c.ts')).toBe(true);
    expect(globToRegExp('src/*.ts').test('src/a/c.ts')).toBe(false);
    const root = path.join(tmp, 'globs');
    for (const f of ['src/a/x.ts', 'src/a/x.test.ts', 'src/b/y.ts', 'src/index.ts', 'other/z.ts']) {
      await mkdir(path.dirname(path.join(root, f)), { recursive: true });
      await writeFile(path.join(root, f), '');
    }
    expect(await expandGlobs(root, ['src/**/*.ts', '!src/**/*.test.ts', '!src/**/index.ts'])).toEqual(['src/a/x.ts', 'src/b/y.ts']);
  });

  it('runs the unit tests first and the slow cluster tests last, none of the real-process or library suites', () => {
    expect(testFileRank('src/txpool/tx-pool.test.ts')).toBe(0);
    expect(testFileRank('src/consensus/raft/raft-fuzz.test.ts')).toBeLessThan(testFileRank('src/sim/pbft-cluster.test.ts'));
    expect(testFileRank('src/sim/pbft-cluster.test.ts')).toBeLessThan(testFileRank('src/sim/byzantine-adversaries.test.ts'));
    expect(testFileRank('src/node/multi-group.test.ts')).toBeLessThan(testFileRank('src/sim/scenario/swarm-pinned.test.ts'));
    expect(testFileRank('src/sim/scenario/swarm-pinned.test.ts')).toBeLessThan(testFileRank('src/sim/pbft-membership.test.ts'));
    expect(testFileRank('src/sim/a-new-cluster.test.ts')).toBe(TEST_FILES.length - 1);
    for (const f of ['test/scenarios/library-0.test.ts', 'test/real/pbft-chain.test.ts', 'test/readme.test.ts', 'src/cli/swarm-command.test.ts', 'src/mutants/mutants.test.ts']) expect(testFileRank(f), f).toBe(-1);
  });

  it('sends PBFT code to pbft-swarm, Raft code to raft-swarm, shared code to both with the budget split', () => {
    expect(scenariosFor('src/consensus/pbft/pbft.ts')).toEqual(['pbft-swarm.yaml']);
    expect(scenariosFor('src/node/pbft-driver.ts')).toEqual(['pbft-swarm.yaml']);
    expect(scenariosFor('src/consensus/raft/raft-wire.ts')).toEqual(['raft-swarm.yaml']);
    expect(scenariosFor('src/node/raft-driver.ts')).toEqual(['raft-swarm.yaml']);
    for (const f of ['src/txpool/tx-pool.ts', 'src/sync/block-sync.ts', 'src/node/group.ts', 'src/node/group-sync.ts', 'src/consensus/proposal.ts']) expect(scenariosFor(f), f).toEqual(['pbft-swarm.yaml', 'raft-swarm.yaml']);
    expect(swarmShares('src/consensus/pbft/pbft.ts')).toEqual([{ scenario: 'pbft-swarm.yaml', seeds: DEFAULT_SWARM_BUDGET.seeds, timeMs: DEFAULT_SWARM_BUDGET.timeMs }]);
    expect(swarmShares('src/txpool/tx-pool.ts', { seeds: 20, timeMs: 60_000 })).toEqual([
      { scenario: 'pbft-swarm.yaml', seeds: 10, timeMs: 30_000 },
      { scenario: 'raft-swarm.yaml', seeds: 10, timeMs: 30_000 },
    ]);
    expect(swarmShares('src/sync/block-sync.ts', { seeds: 21, timeMs: 60_000 }).map((s) => s.seeds)).toEqual([11, 10]);
    expect(swarmShares('src/sync/block-sync.ts', { seeds: 1, timeMs: 1000 }).map((s) => s.seeds)).toEqual([1, 1]);
    expect(() => swarmShares('src/sync/block-sync.ts', { seeds: 0, timeMs: 1000 })).toThrow('at least 1 seed');
  });

  it('configures StrykerJS: per-test coverage, incremental file and journal in the state folder, --jobs runners', () => {
    const o = strykerOptions({ out: 'reports/mutation', mutate: ['src/txpool/tx-pool.ts'], jobs: 2 });
    const p = statePaths('reports/mutation');
    expect(o).toMatchObject({ mutate: ['src/txpool/tx-pool.ts'], testRunner: 'vitest', coverageAnalysis: 'perTest', incremental: true, incrementalFile: p.incremental, force: false, concurrency: 2, eventReporter: { baseDir: p.journal } });
    expect(o.reporters).toContain('event-recorder');
    expect(o.vitest).toEqual({ configFile: 'scripts/vitest.mutation.config.ts', related: false });
    expect(strykerOptions({ out: 'r', jobs: 1, force: true }).force).toBe(true);
  });

  it('names the selected test files of which no test ran against the mutants', async () => {
    const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
    const selected = await expandGlobs(root, TEST_FILES);
    expect(selected).toContain('src/rpc/methods.test.ts');
    expect(selected).toContain('src/sim/scenario/swarm-pinned.test.ts');
    const test = { tests: [{ id: '1', name: 't' }] };
    // StrykerJS's keys may be relative or absolute
    const all = Object.fromEntries(selected.map((f, i) => [i % 2 ? path.join(root, f) : f, test]));
    const report = (testFiles: Record<string, { tests: Array<{ id: string; name: string }> }>) => ({ schemaVersion: '1.0', thresholds: { high: 80, low: 60 }, files: {}, testFiles });
    expect(await unrunTestFiles(root, report(all))).toEqual([]);
    const without = Object.fromEntries(Object.entries(all).filter(([k]) => !k.endsWith('src/rpc/methods.test.ts')));
    const empty = path.join(root, 'src/sim/scenario/swarm-pinned.test.ts');
    expect(await unrunTestFiles(root, report({ ...without, [empty]: { tests: [] }, 'src/sim/scenario/swarm-pinned.test.ts': { tests: [] } }))).toEqual(
      selected.filter((f) => f === 'src/rpc/methods.test.ts' || f === 'src/sim/scenario/swarm-pinned.test.ts'),
    );
  });
});

describe('resuming an interrupted StrykerJS run from its journal', () => {
  const root = '/repo';
  const source = 'export const f = (a: number) => a > 1;\n';
  const snapshot = { files: { 'src/txpool/a.ts': source }, testFiles: { 'src/txpool/a.test.ts': 'it("f")' } };
  const journal: Journal = {
    tests: [{ id: 'src/txpool/a.test.ts#f works', name: 'f works', fileName: '/repo/src/txpool/a.test.ts' }],
    mutants: [
      { id: '0', fileName: '/repo/src/txpool/a.ts', mutatorName: 'EqualityOperator', replacement: 'a >= 1', location: loc(1, 33, 1, 38), status: 'Killed', killedBy: ['src/txpool/a.test.ts#f works'], coveredBy: ['src/txpool/a.test.ts#f works'] },
      { id: '1', fileName: '/repo/src/txpool/a.ts', mutatorName: 'BooleanLiteral', replacement: 'true', location: loc(1, 33, 1, 38), status: 'Survived', coveredBy: ['src/txpool/a.test.ts#f works'] },
      { id: '2', fileName: '/repo/src/txpool/a.ts', mutatorName: 'ArrowFunction', replacement: '() => undefined', location: loc(1, 18, 1, 38), status: 'Pending' },
    ],
  };

  it('folds the finished results into an incremental report with the sources the run saw', () => {
    const r = foldJournal(undefined, journal, snapshot, root);
    expect(Object.keys(r.files)).toEqual(['src/txpool/a.ts']);
    expect(r.files['src/txpool/a.ts']!.source).toBe(source);
    expect(r.files['src/txpool/a.ts']!.mutants.map((m) => [m.mutatorName, m.status])).toEqual([
      ['EqualityOperator', 'Killed'],
      ['BooleanLiteral', 'Survived'],
    ]);
    expect(r.testFiles!['src/txpool/a.test.ts']).toEqual({ source: 'it("f")', tests: [{ id: 'src/txpool/a.test.ts#f works', name: 'f works' }] });
    expect(journalCount(journal)).toBe(2);
    // what StrykerJS will read back
    expect(parseStrykerReport(JSON.parse(JSON.stringify(r)), 'folded').files['src/txpool/a.ts']!.mutants).toHaveLength(2);
  });

  it('keeps other files of the previous report, and its results of a file only with the same source', () => {
    const previous: StrykerReport = {
      schemaVersion: '1.0',
      thresholds: { high: 80, low: 60 },
      files: {
        'src/sync/b.ts': { language: 'typescript', source: 'b', mutants: [{ id: '7', mutatorName: 'BlockStatement', replacement: '{}', location: loc(1, 1, 1, 2), status: 'Killed' }] },
        'src/txpool/a.ts': { language: 'typescript', source, mutants: [{ id: '9', mutatorName: 'StringLiteral', replacement: '""', location: loc(1, 1, 1, 2), status: 'Survived' }] },
      },
    };
    const r = foldJournal(previous, journal, snapshot, root);
    expect(r.files['src/sync/b.ts']).toEqual(previous.files['src/sync/b.ts']);
    expect(r.files['src/txpool/a.ts']!.mutants.map((m) => m.mutatorName).sort()).toEqual(['BooleanLiteral', 'EqualityOperator', 'StringLiteral']);
    const changed = foldJournal({ ...previous, files: { ...previous.files, 'src/txpool/a.ts': { ...previous.files['src/txpool/a.ts']!, source: 'older' } } }, journal, snapshot, root);
    expect(changed.files['src/txpool/a.ts']!.mutants.map((m) => m.mutatorName)).toEqual(['EqualityOperator', 'BooleanLiteral']);
  });

  it('leaves timed-out mutants out (a timeout measured on a loaded machine may be a slow survivor): the resumed run tests them again', () => {
    const timedOut: Journal = { ...journal, mutants: [...journal.mutants, { id: '3', fileName: '/repo/src/txpool/a.ts', mutatorName: 'ConditionalExpression', replacement: 'false', location: loc(1, 33, 1, 38), status: 'Timeout' }] };
    const r = foldJournal(undefined, timedOut, snapshot, root);
    expect(r.files['src/txpool/a.ts']!.mutants.map((m) => m.status)).toEqual(['Killed', 'Survived']);
    expect(journalCount(timedOut)).toBe(2);
  });

  it('carries a timeout over only when the mutant timed out in an earlier run on the same source, and remembers timeouts for the next resume', () => {
    const timeout = { id: '3', fileName: '/repo/src/txpool/a.ts', mutatorName: 'ConditionalExpression', replacement: 'false', location: loc(1, 33, 1, 38), status: 'Timeout' };
    const timedOut: Journal = { ...journal, mutants: [...journal.mutants, timeout] };
    // first timeout: left out, and remembered with the source's digest
    const first = rememberTimeouts(new Map(), timedOut, snapshot, root);
    expect([...first.get('src/txpool/a.ts')!.mutants]).toEqual(['1:33-1:38 ConditionalExpression: false']);
    expect(first.get('src/txpool/a.ts')!.source).toBe(sourceDigest(source));
    expect(foldJournal(undefined, timedOut, snapshot, root, new Map()).files['src/txpool/a.ts']!.mutants.map((m) => m.status)).toEqual(['Killed', 'Survived']);
    // the next run times it out again: carried over as a timeout (a hang), counted in the resume message
    const second = foldJournal(undefined, timedOut, snapshot, root, first);
    expect(second.files['src/txpool/a.ts']!.mutants.map((m) => m.status)).toEqual(['Killed', 'Survived', 'Timeout']);
    expect(journalCount(timedOut, snapshot, root, first)).toBe(3);
    // not when the file changed since
    const edited = { ...snapshot, files: { 'src/txpool/a.ts': `${source}// edited\n` } };
    expect(foldJournal(undefined, timedOut, edited, root, first).files['src/txpool/a.ts']!.mutants.map((m) => m.status)).toEqual(['Killed', 'Survived']);
    expect(rememberTimeouts(first, journal, edited, root).get('src/txpool/a.ts')!.mutants.size).toBe(0);
    // a timed-out mutant that later finishes is forgotten
    const killedLater: Journal = { ...journal, mutants: [...journal.mutants, { ...timeout, status: 'Killed', killedBy: ['src/txpool/a.test.ts#f works'] }] };
    expect(rememberTimeouts(first, killedLater, snapshot, root).get('src/txpool/a.ts')!.mutants.size).toBe(0);
    // stored as JSON; a damaged file is an empty memory
    expect(decodeTimeoutMemory(encodeTimeoutMemory(first))).toEqual(first);
    expect(decodeTimeoutMemory('{"src/a.ts": {"source": 1}}').size).toBe(0);
    expect(decodeTimeoutMemory('{broken').size).toBe(0);
    expect(decodeTimeoutMemory(undefined).size).toBe(0);
  });

  it('resumes twice from journals that timed one mutant out: tested again after the first, carried over after the second', async () => {
    const out = path.join(tmp, 'timeouts-out');
    const p = statePaths(out);
    const timeout = { id: '3', fileName: '/repo/src/txpool/a.ts', mutatorName: 'ConditionalExpression', replacement: 'false', location: loc(1, 33, 1, 38), status: 'Timeout' };
    const interrupted = async () => {
      await mkdir(p.journal, { recursive: true });
      await writeFile(p.snapshot, JSON.stringify(snapshot));
      await writeFile(path.join(p.journal, '00001-onMutantTested.json'), JSON.stringify(journal.mutants[0]));
      await writeFile(path.join(p.journal, '00002-onMutantTested.json'), JSON.stringify(timeout));
    };
    const statuses = async () => parseStrykerReport(JSON.parse(await readFile(p.incremental, 'utf8')), p.incremental).files['src/txpool/a.ts']!.mutants.map((m) => m.status);
    await interrupted();
    expect(await resumeFromJournal(root, out)).toBe(1);
    expect(await statuses()).toEqual(['Killed']);
    expect(Object.keys(JSON.parse(await readFile(p.timeouts, 'utf8')) as object)).toEqual(['src/txpool/a.ts']);
    await interrupted();
    expect(await resumeFromJournal(root, out)).toBe(2);
    expect(await statuses()).toEqual(['Killed', 'Timeout']);
  });

  it('reads the event recorder’s files in order and skips a half-written last one', async () => {
    const dir = path.join(tmp, 'journal');
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, '00000-onDryRunCompleted.json'), JSON.stringify({ result: { status: 'complete', tests: [{ id: 't#a', name: 'a', fileName: '/repo/t.test.ts', timeSpentMs: 3, status: 0 }], mutantCoverage: { perTest: {}, static: {} } } }));
    await writeFile(path.join(dir, '00001-onMutationTestingPlanReady.json'), '{}');
    await writeFile(path.join(dir, '00002-onMutantTested.json'), JSON.stringify(journal.mutants[1]));
    await writeFile(path.join(dir, '00003-onMutantTested.json'), JSON.stringify(journal.mutants[0]));
    await writeFile(path.join(dir, '00004-onMutantTested.json'), '{"fileName":"/repo/src/txpool/a.ts","mutatorNa');
    const read = await readJournal(dir);
    expect(read.tests).toEqual([{ id: 't#a', name: 'a', fileName: '/repo/t.test.ts' }]);
    expect(read.mutants.map((m) => m.id)).toEqual(['1', '0']);
    expect(await readJournal(path.join(tmp, 'no-such-journal'))).toEqual({ tests: [], mutants: [] });
  });

  it('resumes from an output folder given as an absolute path outside the repository (--out /tmp/…)', async () => {
    const out = path.join(tmp, 'absolute-out');
    const p = statePaths(out);
    await mkdir(p.journal, { recursive: true });
    await writeFile(p.snapshot, JSON.stringify(snapshot));
    await writeFile(path.join(p.journal, '00000-onDryRunCompleted.json'), JSON.stringify({ result: { status: 'complete', tests: [{ id: journal.tests[0]!.id, name: 'f works', fileName: '/repo/src/txpool/a.test.ts', timeSpentMs: 3, status: 0 }], mutantCoverage: { perTest: {}, static: {} } } }));
    await writeFile(path.join(p.journal, '00001-onMutantTested.json'), JSON.stringify(journal.mutants[0]));
    expect(await resumeFromJournal(root, out)).toBe(1);
    const folded = parseStrykerReport(JSON.parse(await readFile(p.incremental, 'utf8')), p.incremental);
    expect(folded.files['src/txpool/a.ts']!.mutants.map((m) => m.status)).toEqual(['Killed']);
    expect(reportPaths(root, out).json).toBe(path.join(out, 'mutation-report.json'));
    // a report cut off mid-write is refused by name, not with a bare JSON error
    await writeFile(reportPaths(root, out).json, '{"date": "2026-11-29", "files": [');
    await expect(readMutationReport(root, out)).rejects.toThrow(new RegExp(`absolute-out/mutation-report\\.json is not a mutation report \\(.*JSON.*\\): run npm run mutation again`));
  });

  it('refuses a report that is not one, saying where', () => {
    expect(() => parseStrykerReport({ nope: 1 }, 'x.json')).toThrow(new StrykerReportError('x.json: not a StrykerJS report (no "files" object)'));
    expect(() => parseStrykerReport({ files: { 'a.ts': { source: '', mutants: [{ id: '1', mutatorName: 'X', status: 'Weird', location: loc(1, 1, 1, 1) }] } } }, 'x.json')).toThrow(/x\.json: files\["a\.ts"\] has a malformed mutant/);
  });
});

describe('stable mutant ids', () => {
  const v1 = 'function f(a: number) {\n  return a > 1 && a > 1;\n}\n';
  const mutants = [
    { mutatorName: 'EqualityOperator', replacement: 'a >= 1', location: loc(2, 10, 2, 15) },
    { mutatorName: 'EqualityOperator', replacement: 'a >= 1', location: loc(2, 19, 2, 24) },
  ];

  it('survive edits elsewhere in the file and tell identical twins apart', () => {
    const ids = stableIds('src/txpool/tx-pool.ts', v1, mutants);
    expect(ids[0]).toMatch(/^tx-pool@[0-9a-f]{8}$/);
    expect(ids[0]).not.toBe(ids[1]);
    const v2 = `// a comment added above\n\n${v1}`;
    const moved = mutants.map((m) => ({ ...m, location: loc(m.location.start.line + 2, m.location.start.column, m.location.end.line + 2, m.location.end.column) }));
    expect(stableIds('src/txpool/tx-pool.ts', v2, moved)).toEqual(ids);
    // a change on the mutant's own line makes it a different mutant
    expect(stableIds('src/txpool/tx-pool.ts', v1.replace('&& a > 1', '&& a > 1 ') , mutants)[0]).not.toBe(ids[0]);
    expect(stableIds('src/txpool/tx-pool.ts', v1, [{ ...mutants[0]!, location: loc(40, 1, 40, 2) }])).toEqual([undefined]);
  });
});

describe('the swarm phase: verdicts, cache and resume', () => {
  const budget = { seeds: 4, timeMs: 10_000 };
  const share = { scenario: 'pbft-swarm.yaml', seeds: 4, timeMs: 10_000 };
  const json = (runs: object[]): ShareOutcome => ({ kind: 'json', json: { firstFailure: null, runs } });

  it('reads a share’s outcome: violation, failed expectation, crash, hang, or all seeds passed', () => {
    expect(shareVerdict(share, json([{ seed: 1, verdict: 'pass' }, { seed: 2, verdict: 'fail', failed: [], violations: [{ invariant: 'agreement' }] }]))).toEqual({ verdict: { kind: 'killed', by: 'invariant', scenario: 'pbft-swarm.yaml', seed: 2, evidence: ['agreement'] }, seeds: 2 });
    expect(shareVerdict(share, json([{ seed: 1, verdict: 'fail', failed: [{ name: 'liveness: height 30' }] }])).verdict).toEqual({ kind: 'killed', by: 'expectation', scenario: 'pbft-swarm.yaml', seed: 1, evidence: ['liveness: height 30'] });
    expect(shareVerdict(share, json([{ seed: 3, verdict: 'error', error: 'TypeError: x is undefined' }])).verdict).toEqual({ kind: 'runtime-error', scenario: 'pbft-swarm.yaml', seed: 3, evidence: ['internal error: TypeError: x is undefined'] });
    expect(shareVerdict(share, { kind: 'no-json', timedOut: true, detail: 'killed' }).verdict).toMatchObject({ kind: 'timeout' });
    expect(shareVerdict(share, { kind: 'no-json', timedOut: false, detail: 'SyntaxError' }).verdict).toMatchObject({ kind: 'runtime-error', seed: null });
    expect(shareVerdict(share, json([{ seed: 1, verdict: 'pass' }, { seed: 2, verdict: 'pass' }]))).toEqual({ verdict: null, seeds: 2 });
  });

  it('caches by file, location, replacement and source hash, per testbed and budget; a cut-off line is skipped', async () => {
    const file = path.join(tmp, 'cache', 'swarm-cache.jsonl');
    const key = swarmKey('src/a.ts', loc(1, 1, 1, 2), 'x', sourceHash('src'));
    expect(swarmKey('src/a.ts', loc(1, 1, 1, 2), 'x', sourceHash('src2'))).not.toBe(key);
    expect(swarmKey('src/a.ts', loc(1, 1, 1, 3), 'x', sourceHash('src'))).not.toBe(key);
    expect(swarmKey('src/a.ts', loc(1, 1, 1, 2), 'y', sourceHash('src'))).not.toBe(key);
    const entry: SwarmCacheEntry = { key, id: 'a@1', file: 'src/a.ts', at: loc(1, 1, 1, 2), replacement: 'x', testbed: 'T1', budget, verdict: { kind: 'survived' }, seeds: { 'pbft-swarm.yaml': 4 }, wallMs: 5, when: 'now' };
    const cache = await SwarmCache.open(file);
    expect(cache.find(key, 'T1', budget)).toBeUndefined();
    await cache.add(entry);
    await writeFile(file, `${await readFile(file, 'utf8')}{"key":"cut off`);
    const again = await SwarmCache.open(file);
    expect(again.skipped).toBe(1);
    expect(again.find(key, 'T1', budget)).toEqual(entry);
    expect(again.find(key, 'T2', budget)).toBeUndefined();
    expect(again.find(key, 'T2', budget, true)).toEqual(entry);
    expect(again.find(key, 'T1', { seeds: 8, timeMs: 10_000 })).toBeUndefined();
    await again.add({ ...entry, testbed: 'T2' });
    const third = await SwarmCache.open(file);
    expect(third.skipped).toBe(1);
    expect(third.find(key, 'T2', budget)?.testbed).toBe('T2');
  });

  it('plants each unkilled mutant in a copy, stops at the first failing share, and resumes from the cache', async () => {
    const root = path.join(tmp, 'repo');
    for (const d of ['bin', 'scenarios', 'fixtures', 'node_modules', 'src/txpool']) await mkdir(path.join(root, d), { recursive: true });
    await writeFile(path.join(root, 'package.json'), '{}');
    await writeFile(path.join(root, 'tsconfig.json'), '{}');
    const source = 'export const ok = (a: number, b: number) => a >= b;\n';
    await writeFile(path.join(root, 'src/txpool/pool.ts'), source);
    const mutant = (id: string, replacement: string, at = loc(1, 45, 1, 51)): GeneratedMutant => ({ id, file: 'src/txpool/pool.ts', mutatorName: 'EqualityOperator', at, original: textAt(source, at), replacement, status: 'Survived', killedBy: [], sourceHash: sourceHash(source) });
    const killed = mutant('pool@00000001', 'a > b');
    const survivor = mutant('pool@00000002', 'a <= b');
    const stale: GeneratedMutant = { ...mutant('pool@00000003', 'true'), sourceHash: sourceHash('older source') };
    const calls: string[] = [];
    const runShare = async (dir: string, s: { scenario: string; seeds: number }): Promise<ShareOutcome> => {
      const planted = await readFile(path.join(dir, 'src/txpool/pool.ts'), 'utf8');
      calls.push(`${planted.trim()} on ${s.scenario} (${s.seeds} seeds)`);
      if (planted.includes('a > b') && s.scenario === 'raft-swarm.yaml') return json([{ seed: 1, verdict: 'pass' }, { seed: 2, verdict: 'fail', failed: [], violations: [{ invariant: 'raft-log-matching' }] }]);
      return json(Array.from({ length: s.seeds }, (_, i) => ({ seed: i + 1, verdict: 'pass' })));
    };
    const cache = await SwarmCache.open(path.join(root, 'state', 'swarm-cache.jsonl'));
    const options = { root, out: path.join(root, 'state', 'swarm'), budget, jobs: 2, testbed: 'T', runShare };
    const first = await runSwarmPhase([killed, survivor, stale], cache, options);
    expect(first.results.get(killed.id)?.verdict).toEqual({ kind: 'killed', by: 'invariant', scenario: 'raft-swarm.yaml', seed: 2, evidence: ['raft-log-matching'] });
    expect(first.results.get(killed.id)?.seeds).toEqual({ 'pbft-swarm.yaml': 2, 'raft-swarm.yaml': 2 });
    expect(first.results.get(survivor.id)?.verdict).toEqual({ kind: 'survived' });
    expect(first.errors.get(stale.id)).toBe('src/txpool/pool.ts changed since its mutants were generated: run the test phase again');
    expect(calls.sort()).toEqual([
      'export const ok = (a: number, b: number) => a <= b; on pbft-swarm.yaml (2 seeds)',
      'export const ok = (a: number, b: number) => a <= b; on raft-swarm.yaml (2 seeds)',
      'export const ok = (a: number, b: number) => a > b; on pbft-swarm.yaml (2 seeds)',
      'export const ok = (a: number, b: number) => a > b; on raft-swarm.yaml (2 seeds)',
    ]);
    // the working tree is untouched
    expect(await readFile(path.join(root, 'src/txpool/pool.ts'), 'utf8')).toBe(source);

    // an interrupted phase resumes: known results are not run again
    calls.length = 0;
    const resumed = await runSwarmPhase([killed, survivor], await SwarmCache.open(path.join(root, 'state', 'swarm-cache.jsonl')), options);
    expect(calls).toEqual([]);
    expect([resumed.cached, resumed.ran]).toEqual([2, []]);
    expect([...first.ran].sort()).toEqual([killed.id, survivor.id]);
    expect(resumed.results.get(killed.id)?.verdict.kind).toBe('killed');
    // on another testbed they run again
    await runSwarmPhase([survivor], await SwarmCache.open(path.join(root, 'state', 'swarm-cache.jsonl')), { ...options, testbed: 'T-other' });
    expect(calls).toHaveLength(2);

    // a mutant that does not type-check is killed by that, without planting it
    calls.length = 0;
    const typed = await runSwarmPhase([mutant('pool@00000004', '"no"')], cache, { ...options, typeCheck: (_f, text) => (text.includes('"no"') ? ["src/txpool/pool.ts:1:45: Type 'string' is not assignable to type 'boolean'."] : []) });
    expect(typed.results.get('pool@00000004')?.verdict).toEqual({ kind: 'compile-error', evidence: ["src/txpool/pool.ts:1:45: Type 'string' is not assignable to type 'boolean'."] });
    expect(calls).toEqual([]);

    // a static mutant (StrykerJS leaves those out) meets the unit tests next to its file first
    await writeFile(path.join(root, 'src/txpool/pool.test.ts'), '');
    const ran: string[][] = [];
    const runTests = async (dir: string, files: readonly string[]) => {
      ran.push([...files]);
      return (await readFile(path.join(dir, 'src/txpool/pool.ts'), 'utf8')).includes('a < b') ? { passed: false as const, failed: ['src/txpool/pool.test.ts#ok compares'] } : { passed: true as const };
    };
    const statics = await runSwarmPhase([{ ...mutant('pool@00000005', 'a < b'), status: 'Ignored' }, { ...mutant('pool@00000006', 'a == b'), status: 'Ignored' }], cache, { ...options, runTests });
    expect(ran).toEqual([['src/txpool/pool.test.ts'], ['src/txpool/pool.test.ts']]);
    expect(statics.results.get('pool@00000005')?.verdict).toEqual({ kind: 'killed-by-tests', tests: ['src/txpool/pool.test.ts#ok compares'] });
    expect(calls).toHaveLength(2);
    expect(statics.results.get('pool@00000006')?.verdict).toEqual({ kind: 'survived' });
  });
});

describe('type-checking a mutated file', () => {
  it('reports the mutant’s own errors, and other files’ when it changes what the file exports', async () => {
    const root = path.join(tmp, 'ts');
    await mkdir(root, { recursive: true });
    const a = 'export function limit(n: number) {\n  return n > 3 ? n : 3;\n}\nexport const tag: "a" | "b" = "a";\n';
    // (the project's strictness, unused declarations included)
    await writeFile(path.join(root, 'tsconfig.json'), JSON.stringify({ compilerOptions: { strict: true, noUnusedLocals: true, noUnusedParameters: true, noEmit: true, skipLibCheck: true, types: [], target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext' }, include: ['*.ts'] }));
    await writeFile(path.join(root, 'a.ts'), a);
    await writeFile(path.join(root, 'b.ts'), 'import { limit } from "./a.js";\nexport const doubled: number = limit(2) * 2;\n');
    const checker = new MutantTypeChecker(root);
    try {
      expect(checker.check('a.ts', a.replace('n > 3', 'n >= 3'))).toEqual([]);
      expect(checker.check('a.ts', a.replace('= "a"', '= ""'))).toEqual(['a.ts:4:14: Type \'""\' is not assignable to type \'"a" | "b"\'.']);
      // fine in a.ts, but its inferred return type changes and b.ts no longer builds
      const other = checker.check('a.ts', a.replace('return n > 3 ? n : 3;', 'return undefined;'));
      expect(other).toHaveLength(1);
      expect(other[0]).toMatch(/^b\.ts:2:32: /);
      // an emptied body leaves its parameter unread: a style check, not a build failure
      expect(checker.check('a.ts', a.replace('{\n  return n > 3 ? n : 3;\n}', '{\n  return 3;\n}'))).toEqual([]);
      // nothing stays behind from a check
      expect(checker.check('a.ts', a)).toEqual([]);
    } finally {
      checker.dispose();
    }
  }, 30_000);
});

describe('the report', () => {
  const gm = (id: string, status: GeneratedMutant['status'], file = 'src/txpool/tx-pool.ts'): GeneratedMutant => ({ id, file, mutatorName: 'ConditionalExpression', at: loc(10, 5, 10, 9), original: 'a > b', replacement: 'true', status, killedBy: status === 'Killed' ? ['src/txpool/tx-pool.test.ts#admits'] : [], sourceHash: 'h' });
  const swarmed = (verdict: SwarmCacheEntry['verdict']): SwarmCacheEntry => ({ key: 'k', id: 'x', file: 'f', at: loc(1, 1, 1, 2), replacement: 'r', testbed: 't', budget: DEFAULT_SWARM_BUDGET, verdict, seeds: { 'pbft-swarm.yaml': 10, 'raft-swarm.yaml': 10 }, wallMs: 1, when: 'w' });

  function sample(): ReportedMutant[] {
    return [
      reportedMutant(gm('p@1', 'Killed'), fateOf(gm('p@1', 'Killed'), undefined, undefined), undefined),
      reportedMutant(gm('p@2', 'Killed'), fateOf(gm('p@2', 'Killed'), undefined, undefined), undefined),
      reportedMutant(gm('p@3', 'Timeout'), fateOf(gm('p@3', 'Timeout'), undefined, undefined), undefined),
      reportedMutant(gm('p@4', 'Survived'), fateOf(gm('p@4', 'Survived'), swarmed({ kind: 'killed', by: 'invariant', scenario: 'raft-swarm.yaml', seed: 7, evidence: ['agreement'] }), undefined), undefined),
      reportedMutant(gm('p@5', 'NoCoverage'), fateOf(gm('p@5', 'NoCoverage'), swarmed({ kind: 'compile-error', evidence: ['bad type'] }), undefined), { kind: 'equivalent', text: 'the same answer, had it compiled' }),
      reportedMutant(gm('p@6', 'Survived'), fateOf(gm('p@6', 'Survived'), swarmed({ kind: 'survived' }), undefined), { kind: 'equivalent', text: 'only a log line' }),
      reportedMutant(gm('p@7', 'Survived'), fateOf(gm('p@7', 'Survived'), swarmed({ kind: 'survived' }), undefined), undefined),
      reportedMutant(gm('p@8', 'Survived'), fateOf(gm('p@8', 'Survived'), undefined, 'cannot make the patched copy'), undefined),
      reportedMutant(gm('s@1', 'Survived', 'src/sync/block-sync.ts'), fateOf(gm('s@1', 'Survived', 'src/sync/block-sync.ts'), swarmed({ kind: 'runtime-error', scenario: 'pbft-swarm.yaml', seed: 3, evidence: ['TypeError'] }), undefined), undefined),
      reportedMutant(gm('s@2', 'Killed', 'src/sync/block-sync.ts'), fateOf(gm('s@2', 'Killed', 'src/sync/block-sync.ts'), undefined, undefined), { kind: 'equivalent', text: 'wrongly' }),
    ];
  }

  it('counts per file and scores killed / (generated − equivalent)', () => {
    const r = buildReport(sample(), { date: '2026-01-01T00:00:00.000Z', commit: 'abc', budget: DEFAULT_SWARM_BUDGET });
    const tx = r.files.find((f) => f.file === 'src/txpool/tx-pool.ts')!;
    expect(tx).toMatchObject({ generated: 8, killedByTests: 2, killedBySwarm: 1, timedOut: 1, compileErrors: 1, runtimeErrors: 0, survived: 2, equivalent: 1, notSwarmed: 1, killed: 5 });
    expect(tx.score).toBeCloseTo(5 / 7);
    expect(r.files.find((f) => f.file === 'src/sync/block-sync.ts')).toMatchObject({ generated: 2, killed: 2, runtimeErrors: 1, survived: 0, equivalent: 0, score: 1 });
    expect(r.total).toMatchObject({ generated: 10, killed: 7, equivalent: 1, survived: 2 });
    expect(r.total.score).toBeCloseTo(7 / 9);
    expect(r.triageWarnings).toEqual(['s@2 is triaged equivalent but was killed by the tests (src/txpool/tx-pool.test.ts#admits): the verdict is wrong']);
  });

  it('renders Markdown with the date, commit, per-file table, swarm kills (invariant and seed) and survivors', () => {
    const r = buildReport(sample(), { date: '2026-01-01T00:00:00.000Z', commit: 'abc', budget: DEFAULT_SWARM_BUDGET, timing: { testPhaseMs: 61_000, testMutants: 10, swarmPhaseMs: 300_000, swarmRuns: 4, compileErrors: 1 } });
    const md = renderMarkdown(r);
    expect(md).toContain('Date 2026-01-01T00:00:00.000Z, commit abc.');
    expect(md).toContain('**Score: 77.7%** — 7 killed of 10 generated − 1 equivalent = 9; 2 survived (1 of them not swarm-tested).');
    expect(md).toContain('| src/txpool/tx-pool.ts | 8 | 2 | 1 | 1 | 1 | 0 | 2 | 1 | 71.4% |');
    expect(md).toContain('| p@4 | src/txpool/tx-pool.ts:10:5-10:9 | ConditionalExpression | `a > b` → `true` | agreement | raft-swarm.yaml | 7 |');
    expect(md).toContain('| p@6 | src/txpool/tx-pool.ts:10:5-10:9 | ConditionalExpression | `a > b` → `true` | survived the tests (covered, not killed) and 20 swarm seeds | equivalent: only a log line |');
    expect(md).toContain('| p@7 |');
    expect(md).toContain('not triaged');
    expect(md).toContain('Timing (wall): test phase 61.0 s for 10 mutants (6.1 s each, reused results included); swarm phase 5.0 min for 4 mutants run (1 stopped by the type check, 3 through swarm: 100.0 s each).');
    const summary = summaryLines(r);
    expect(summary[0]).toBe('mutation score 77.7%: 7 killed of 10 generated (1 equivalent left out): 3 by the tests, 1 by swarm, 1 timed out, 1 compile errors, 1 runtime errors; 2 survived (1 not swarm-tested)');
    expect(summary).toContain('2 survivors are not in docs/mutation-survivors.md yet: npm run mutation -- --survivors');
  });

  it('names each mutant of a StrykerJS report with its original text and the killing tests by name', () => {
    const source = 'const a = b > c;\n';
    const report: StrykerReport = {
      schemaVersion: '1.0',
      thresholds: { high: 80, low: 60 },
      files: { 'src/txpool/x.ts': { language: 'typescript', source, mutants: [{ id: '3', mutatorName: 'EqualityOperator', replacement: 'b >= c', location: loc(1, 11, 1, 16), status: 'Killed', killedBy: ['5'] }] } },
      testFiles: { 'src/txpool/x.test.ts': { tests: [{ id: '5', name: 'x compares' }] } },
    };
    expect(generatedMutants(report)).toEqual([
      { id: expect.stringMatching(/^x@[0-9a-f]{8}$/), file: 'src/txpool/x.ts', mutatorName: 'EqualityOperator', at: loc(1, 11, 1, 16), original: 'b > c', replacement: 'b >= c', status: 'Killed', killedBy: ['src/txpool/x.test.ts#x compares'], sourceHash: sourceHash(source) },
    ]);
    expect(generatedMutants(report, () => false)).toEqual([]);
  });
});

describe('the triage file', () => {
  const entry = (id: string, file: string, verdict: TriageEntry['verdict'], line = 10): TriageEntry => ({ id, file, line, lines: [`### ${id}`], where: `${line}:5-${line}:9`, mutatorName: 'ConditionalExpression', original: 'a > b', replacement: 'true', result: 'survived the tests and 20 swarm seeds', verdict });

  it('parses verdicts (also continued on indented lines) and refuses malformed entries, saying where', () => {
    const text = [
      '# Mutation survivors',
      '',
      '## src/txpool/tx-pool.ts',
      '',
      '### tx-pool@00000001',
      '- at: src/txpool/tx-pool.ts 10:5-10:9, ConditionalExpression',
      '- verdict: equivalent: the check repeats one made just before;',
      '  the second can never be false.',
      '',
      '### tx-pool@00000002',
      '- at: src/txpool/tx-pool.ts 12:1-12:9, BlockStatement',
      '- verdict: gap closed: tx-pool.test.ts "refuses a nonce used on chain"',
      '',
      '### tx-pool@00000003',
      '- at: src/txpool/tx-pool.ts 14:1-14:9, BlockStatement',
      '- verdict: open',
      '',
    ].join('\n');
    const v = parseTriageFile(text);
    expect(v.get('tx-pool@00000001')).toEqual({ kind: 'equivalent', text: 'the check repeats one made just before; the second can never be false.' });
    expect(v.get('tx-pool@00000002')).toEqual({ kind: 'gap closed', text: 'tx-pool.test.ts "refuses a nonce used on chain"' });
    expect(v.get('tx-pool@00000003')).toEqual({ kind: 'open', text: '' });
    expect(() => parseTriageFile(text.replace('- verdict: open', '- verdict: maybe'))).toThrow(new TriageFileError('docs/mutation-survivors.md:16 (tx-pool@00000003): the verdict must start with "equivalent:", "gap closed:" or "open" (got "maybe")'));
    expect(() => parseTriageFile(text.replace('equivalent: the check repeats one made just before;\n  the second can never be false.', 'equivalent'))).toThrow(/needs its reason/);
    expect(() => parseTriageFile(text.replace('- verdict: open', ''))).toThrow('docs/mutation-survivors.md:14: entry tx-pool@00000003 has no "- verdict:" line');
    expect(() => parseTriageFile(`${text}\n### tx-pool@00000001\n- at: src/txpool/tx-pool.ts 1:1-1:2, X\n- verdict: open\n`)).toThrow(/entry tx-pool@00000001 appears twice/);
  });

  it('round-trips: the written file parses back to the same verdicts, keeping other files’ entries as written', () => {
    const keptText = ['## src/sync/block-sync.ts', '', '### block-sync@0000000a', '- at: src/sync/block-sync.ts 5:1-5:4, StringLiteral', '- mutant: hand-written notes stay', '- verdict: equivalent: only a log text', '  (sync logs are not read by anything)', ''].join('\n');
    const kept = [...parseTriageEntries(keptText).values()];
    const text = renderTriageFile(
      { date: 'D', commit: 'C', reportPath: 'reports/mutation/mutation-report.json' },
      [entry('tx-pool@00000001', 'src/txpool/tx-pool.ts', { kind: 'equivalent', text: 'same outcome' }), entry('tx-pool@00000002', 'src/txpool/tx-pool.ts', { kind: 'open', text: '' }, 5)],
      [entry('tx-pool@00000003', 'src/txpool/tx-pool.ts', { kind: 'gap closed', text: 'a test' })],
      kept,
    );
    expect(text).toContain('Generated from reports/mutation/mutation-report.json of D (commit C).');
    expect(text).toContain('3 survivors: 2 equivalent, 1 open.');
    expect(text).toContain('- mutant: `a > b` → `true`');
    expect(text).toContain('- mutant: hand-written notes stay\n- verdict: equivalent: only a log text\n  (sync logs are not read by anything)');
    // survivors by file and line, then the now-killed ones
    expect(text.indexOf('### tx-pool@00000002')).toBeLessThan(text.indexOf('### tx-pool@00000001'));
    expect(text.indexOf('## Now killed')).toBeGreaterThan(text.indexOf('### block-sync@0000000a'));
    const back = parseTriageEntries(text);
    expect([...back.keys()].sort()).toEqual(['block-sync@0000000a', 'tx-pool@00000001', 'tx-pool@00000002', 'tx-pool@00000003']);
    expect(back.get('block-sync@0000000a')!.verdict).toEqual({ kind: 'equivalent', text: 'only a log text (sync logs are not read by anything)' });
    expect(back.get('tx-pool@00000003')).toMatchObject({ verdict: { kind: 'gap closed', text: 'a test' }, nowKilled: true });
    expect(back.get('tx-pool@00000002')).toMatchObject({ file: 'src/txpool/tx-pool.ts', line: 5 });
  });
});
