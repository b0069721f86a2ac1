/**
 * Resuming an interrupted StrykerJS run without redoing its finished mutants.
 *
 * StrykerJS's incremental mode reuses the results in its incremental file, but writes that file
 * only when a run completes. Its `event-recorder` reporter, though, writes every event to its own
 * file as it happens: the dry run's tests, then one file per tested mutant. Before each run the
 * mutation run folds such a journal (left by an interrupted run) into the incremental file, in
 * the same schema and with the sources the interrupted run saw, so StrykerJS's own incremental
 * diff decides what to reuse: a mutant whose code and covering tests did not change.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { SourceLocation } from './location-patch.js';
import { STRYKER_STATUSES, type StrykerFile, type StrykerMutant, type StrykerReport, type StrykerTest, type StrykerTestFile } from './stryker-report.js';

/** The sources a run saw, by relative path: the mutated files and the selected test files. */
export interface SourceSnapshot {
  readonly files: Readonly<Record<string, string>>;
  readonly testFiles: Readonly<Record<string, string>>;
}

/** One mutant result as the event recorder writes it (StrykerJS's MutantResult: absolute fileName, 1-based location). */
export interface JournalMutant {
  readonly id: string;
  readonly fileName: string;
  readonly mutatorName: string;
  readonly replacement?: string;
  readonly location: SourceLocation;
  readonly status: string;
  readonly statusReason?: string;
  readonly coveredBy?: readonly string[];
  readonly killedBy?: readonly string[];
  readonly testsCompleted?: number;
  readonly static?: boolean;
}

/** One test of the dry run (StrykerJS's TestResult). */
export interface JournalTest {
  readonly id: string;
  readonly name: string;
  readonly fileName?: string;
  readonly startPosition?: { readonly line: number; readonly column: number };
}

export interface Journal {
  readonly tests: readonly JournalTest[];
  readonly mutants: readonly JournalMutant[];
}

const EVENT = /^(\d+)-(onDryRunCompleted|onMutantTested)\.json$/;

/** Reads an event-recorder folder (missing: empty); a half-written last event (the run was killed mid-write) is skipped. */
export async function readJournal(dir: string): Promise<Journal> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const events = names
    .map((n) => ({ n, m: EVENT.exec(n) }))
    .filter((e): e is { n: string; m: RegExpExecArray } => e.m !== null)
    .sort((a, b) => Number(a.m[1]) - Number(b.m[1]));
  const tests: JournalTest[] = [];
  const mutants: JournalMutant[] = [];
  for (const { n, m } of events) {
    let data: unknown;
    try {
      data = JSON.parse(await readFile(path.join(dir, n), 'utf8'));
    } catch {
      continue;
    }
    if (m[2] === 'onDryRunCompleted') {
      const result = (data as { result?: { tests?: JournalTest[] } }).result;
      tests.push(...(result?.tests ?? []).map(({ id, name, fileName, startPosition }) => ({ id, name, ...(fileName === undefined ? {} : { fileName }), ...(startPosition === undefined ? {} : { startPosition }) })));
    } else {
      const r = data as JournalMutant;
      if (typeof r.fileName === 'string' && typeof r.mutatorName === 'string' && r.location?.start && r.location.end) mutants.push(r);
    }
  }
  return { tests, mutants };
}

function relative(root: string, file: string): string {
  return path.relative(root, path.resolve(root, file)).split(path.sep).join('/');
}

function mutantKey(m: { mutatorName: string; replacement?: string; location: SourceLocation }): string {
  const { start, end } = m.location;
  return `${start.line}:${start.column}-${end.line}:${end.column} ${m.mutatorName}: ${m.replacement ?? ''}`;
}

/**
 * The incremental file to resume from: `previous` (the last completed run's, if any) with the
 * journal's results laid over it. A file's results are kept only with the source they were
 * produced on (the snapshot of the run that produced them); pending mutants are left out, and so
 * are timeouts: StrykerJS times a mutant out against the dry run's wall time, so on a machine
 * whose load rose after the dry run (a shared one) a survivor that merely ran slowly is reported
 * as timed out, and counted as killed. A resumed run tests those again.
 */
export function foldJournal(previous: StrykerReport | undefined, journal: Journal, snapshot: SourceSnapshot, root: string): StrykerReport {
  const files: Record<string, StrykerFile> = { ...(previous?.files ?? {}) };
  const byFile = new Map<string, JournalMutant[]>();
  for (const m of journal.mutants) {
    if (m.status === 'Pending' || m.status === 'Timeout' || !STRYKER_STATUSES.includes(m.status as StrykerMutant['status'])) continue;
    const rel = relative(root, m.fileName);
    byFile.set(rel, [...(byFile.get(rel) ?? []), m]);
  }
  for (const [rel, ms] of byFile) {
    const source = snapshot.files[rel];
    if (source === undefined) continue;
    // the latest result per mutant wins (a resumed run reports reused results again)
    const latest = new Map<string, StrykerMutant>();
    for (const m of ms) {
      latest.set(mutantKey(m), {
        id: `journal-${m.id}`,
        mutatorName: m.mutatorName,
        ...(m.replacement === undefined ? {} : { replacement: m.replacement }),
        location: m.location,
        status: m.status as StrykerMutant['status'],
        ...(m.statusReason === undefined ? {} : { statusReason: m.statusReason }),
        ...(m.coveredBy === undefined ? {} : { coveredBy: m.coveredBy }),
        ...(m.killedBy === undefined ? {} : { killedBy: m.killedBy }),
        ...(m.testsCompleted === undefined ? {} : { testsCompleted: m.testsCompleted }),
        ...(m.static === undefined ? {} : { static: m.static }),
      });
    }
    const old = files[rel];
    const kept = old && old.source === source ? old.mutants.filter((m) => !latest.has(mutantKey(m))) : [];
    files[rel] = { language: 'typescript', source, mutants: [...kept, ...latest.values()] };
  }
  const testFiles: Record<string, StrykerTestFile> = { ...(previous?.testFiles ?? {}) };
  const testsByFile = new Map<string, StrykerTest[]>();
  for (const t of journal.tests) {
    const rel = t.fileName === undefined ? '' : relative(root, t.fileName);
    testsByFile.set(rel, [...(testsByFile.get(rel) ?? []), { id: t.id, name: t.name, ...(t.startPosition ? { location: { start: t.startPosition } } : {}) }]);
  }
  for (const [rel, tests] of testsByFile) {
    const source = rel === '' ? undefined : snapshot.testFiles[rel];
    const old = testFiles[rel];
    const ids = new Set(tests.map((t) => t.id));
    const kept = old && old.source === source ? old.tests.filter((t) => !ids.has(t.id)) : [];
    testFiles[rel] = { ...(source === undefined ? {} : { source }), tests: [...kept, ...tests] };
  }
  return { schemaVersion: '1.0', thresholds: previous?.thresholds ?? { high: 80, low: 60, break: null }, files, testFiles, projectRoot: root };
}

/** How many journaled results a fold would carry over (for the resume message). */
export function journalCount(journal: Journal): number {
  return new Set(journal.mutants.filter((m) => m.status !== 'Pending' && m.status !== 'Timeout').map((m) => `${m.fileName} ${mutantKey(m)}`)).size;
}
