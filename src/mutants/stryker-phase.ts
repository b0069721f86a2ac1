/**
 * The test phase of `npm run mutation`: StrykerJS generates the mutants of the consensus-critical
 * code and runs, for each, the selected tests that cover it (per-test coverage analysis), in
 * incremental mode so that a later run re-tests only what changed, and with an event journal so
 * that an interrupted run resumes without redoing finished mutants (stryker-journal.ts).
 *
 * Imports @stryker-mutator/core lazily: nothing the `twinchain` command loads reaches this file.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Stryker } from '@stryker-mutator/core';
import { expandGlobs } from './file-globs.js';
import { MUTATE, TEST_FILES } from './mutation-targets.js';
import { decodeTimeoutMemory, encodeTimeoutMemory, foldJournal, journalCount, readJournal, rememberTimeouts, type SourceSnapshot } from './stryker-journal.js';
import { parseStrykerReport, type StrykerReport } from './stryker-report.js';
import { writeAtomically } from './write-atomically.js';

export interface TestPhaseOptions {
  /** Repository root (StrykerJS runs with it as the working directory). */
  readonly root: string;
  /** Folder of the run's state and reports, relative to the root (e.g. reports/mutation). */
  readonly out: string;
  /** Globs of the files to mutate (default MUTATE). */
  readonly mutate?: readonly string[];
  /** StrykerJS test-runner processes at once. */
  readonly jobs: number;
  /** Re-test every mutant, reusing nothing. */
  readonly force?: boolean;
  readonly logLevel?: 'off' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
  readonly onLine?: (line: string) => void;
}

/** The files of a test-phase state folder (relative to the root). */
export function statePaths(out: string) {
  const state = path.join(out, 'state');
  return {
    state,
    incremental: path.join(state, 'stryker-incremental.json'),
    journal: path.join(state, 'stryker-journal'),
    snapshot: path.join(state, 'stryker-journal-sources.json'),
    /** Mutants that timed out in an earlier run (stryker-journal.ts, TimeoutMemory). */
    timeouts: path.join(state, 'stryker-timeouts.json'),
    temp: path.join(state, '.stryker-tmp'),
    html: path.join(out, 'stryker.html'),
    strykerJson: path.join(out, 'stryker.json'),
    swarmCache: path.join(state, 'swarm-cache.jsonl'),
    swarmOut: path.join(state, 'swarm'),
  };
}

/** The vitest configuration the mutants run with (the test selection of mutation-targets.ts). */
export const VITEST_CONFIG = 'scripts/vitest.mutation.config.ts';

/** StrykerJS's options (a type only: the module is loaded when a run starts). */
export type StrykerOptions = NonNullable<ConstructorParameters<typeof Stryker>[0]>;
type LogLevel = NonNullable<StrykerOptions['logLevel']>;

/** StrykerJS's options for one test phase (relative paths are relative to the root). */
export function strykerOptions(o: Pick<TestPhaseOptions, 'out' | 'mutate' | 'jobs' | 'force' | 'logLevel'> & { readonly tty?: boolean }): StrykerOptions {
  const p = statePaths(o.out);
  return {
    mutate: [...(o.mutate ?? MUTATE)],
    testRunner: 'vitest',
    // every file of the selection: vitest's "related" search left out test files that reach the mutated
    // code only through the RPC layer (src/rpc/methods.test.ts among them)
    vitest: { configFile: VITEST_CONFIG, related: false },
    coverageAnalysis: 'perTest',
    incremental: true,
    incrementalFile: p.incremental,
    force: o.force === true,
    concurrency: o.jobs,
    reporters: [o.tty ? 'progress' : 'progress-append-only', 'html', 'json', 'event-recorder'],
    htmlReporter: { fileName: p.html },
    jsonReporter: { fileName: p.strykerJson },
    eventReporter: { baseDir: p.journal },
    tempDirName: p.temp,
    cleanTempDir: true,
    // the node's tests run long on a shared 2-core machine: a mutant counts as timed out only
    // well past its covering tests' own time (an infinite loop still hits StrykerJS's hit limit)
    timeoutMS: 30_000,
    timeoutFactor: 2,
    dryRunTimeoutMinutes: 90,
    // a static mutant (module-level code, run once on import) would make StrykerJS reload and run
    // every related test, minutes each: the swarm phase runs the unit tests next to its file in
    // its planted copy instead, then swarm
    ignoreStatic: true,
    ignorePatterns: ['/dist', '/reports', '/scratch', '/docs'],
    thresholds: { high: 90, low: 80, break: null },
    logLevel: (o.logLevel ?? 'info') as LogLevel,
    fileLogLevel: 'off' as LogLevel,
  };
}

async function snapshot(root: string, mutate: readonly string[]): Promise<SourceSnapshot> {
  const read = async (files: string[]) => Object.fromEntries(await Promise.all(files.map(async (f) => [f, await readFile(path.join(root, f), 'utf8')] as const)));
  return { files: await read(await expandGlobs(root, mutate)), testFiles: await read(await expandGlobs(root, TEST_FILES)) };
}

/**
 * The selected test files (TEST_FILES, expanded) of which StrykerJS's report holds no test: they
 * never ran against the mutants, so what only they reach counts as not covered. (vitest's
 * "related" search once left six such files out without a word.)
 */
export async function unrunTestFiles(root: string, report: StrykerReport): Promise<string[]> {
  const ran = new Set(
    Object.entries(report.testFiles ?? {})
      .filter(([, f]) => f.tests.length > 0)
      .map(([file]) => path.relative(root, path.resolve(root, file)).split(path.sep).join('/')),
  );
  return (await expandGlobs(root, TEST_FILES)).filter((f) => !ran.has(f));
}

/** Reads an incremental (or json-reporter) file; undefined when there is none. */
export async function readStrykerReport(file: string): Promise<StrykerReport | undefined> {
  const text = await readFile(file, 'utf8').catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') return undefined;
    throw e;
  });
  return text === undefined ? undefined : parseStrykerReport(JSON.parse(text), file);
}

/**
 * Folds a journal left by an interrupted run into the incremental file (so its finished mutants
 * are reused) and returns how many results it carried over. Its timeouts are remembered: one that
 * timed out in an earlier run too is carried over as a timeout, the others are tested again.
 */
export async function resumeFromJournal(root: string, out: string): Promise<number> {
  const p = statePaths(out);
  const journal = await readJournal(path.resolve(root, p.journal));
  if (journal.mutants.length === 0) return 0;
  const snapshotText = await readFile(path.resolve(root, p.snapshot), 'utf8').catch(() => undefined);
  if (snapshotText === undefined) return 0;
  const snapshot = JSON.parse(snapshotText) as SourceSnapshot;
  const memory = decodeTimeoutMemory(await readFile(path.resolve(root, p.timeouts), 'utf8').catch(() => undefined));
  const previous = await readStrykerReport(path.resolve(root, p.incremental));
  const folded = foldJournal(previous, journal, snapshot, root, memory);
  await writeAtomically(path.resolve(root, p.incremental), JSON.stringify(folded));
  await writeAtomically(path.resolve(root, p.timeouts), encodeTimeoutMemory(rememberTimeouts(memory, journal, snapshot, root)));
  await rm(path.resolve(root, p.journal), { recursive: true, force: true });
  return journalCount(journal, snapshot, root, memory);
}

/**
 * Runs StrykerJS over the selected files and returns the complete report: this run's results
 * and, for files outside its `mutate`, those an earlier run left in the incremental file.
 */
export async function runTestPhase(o: TestPhaseOptions): Promise<StrykerReport> {
  const p = statePaths(o.out);
  await mkdir(path.resolve(o.root, p.state), { recursive: true });
  if (o.force) {
    await rm(path.resolve(o.root, p.journal), { recursive: true, force: true });
  } else {
    const carried = await resumeFromJournal(o.root, o.out);
    if (carried > 0) o.onLine?.(`tests: resuming an interrupted run: ${carried} mutant results carried over from its journal`);
  }
  await writeAtomically(path.resolve(o.root, p.snapshot), JSON.stringify(await snapshot(o.root, o.mutate ?? MUTATE)));
  const options = strykerOptions({ ...o, tty: process.stdout.isTTY === true });
  const { Stryker } = await import('@stryker-mutator/core');
  const cwd = process.cwd();
  process.chdir(o.root);
  try {
    await new Stryker(options).runMutationTest();
  } finally {
    process.chdir(cwd);
  }
  const report = await readStrykerReport(path.resolve(o.root, p.incremental));
  if (!report) throw new Error(`StrykerJS finished without writing ${p.incremental}`);
  // the run completed: its incremental file holds everything the journal did
  if (existsSync(path.resolve(o.root, p.journal))) await rm(path.resolve(o.root, p.journal), { recursive: true, force: true });
  return report;
}
