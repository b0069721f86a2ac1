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
import { createHash } from 'node:crypto';
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
 * as timed out, and counted as killed. A resumed run tests those again, unless `confirmed` says
 * the mutant timed out in an earlier run too, on the same source (see TimeoutMemory).
 */
export function foldJournal(previous: StrykerReport | undefined, journal: Journal, snapshot: SourceSnapshot, root: string, confirmed: TimeoutMemory = new Map()): StrykerReport {
  const files: Record<string, StrykerFile> = { ...(previous?.files ?? {}) };
  const byFile = new Map<string, JournalMutant[]>();
  for (const m of journal.mutants) {
    if (m.status === 'Pending' || !STRYKER_STATUSES.includes(m.status as StrykerMutant['status'])) continue;
    const rel = relative(root, m.fileName);
    if (m.status === 'Timeout' && !timedOutBefore(confirmed, snapshot, rel, m)) continue;
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
export function journalCount(journal: Journal, snapshot?: SourceSnapshot, root = '', confirmed: TimeoutMemory = new Map()): number {
  const kept = (m: JournalMutant) => m.status !== 'Pending' && (m.status !== 'Timeout' || (snapshot !== undefined && timedOutBefore(confirmed, snapshot, relative(root, m.fileName), m)));
  return new Set(journal.mutants.filter(kept).map((m) => `${m.fileName} ${mutantKey(m)}`)).size;
}

/**
 * The mutants that timed out in earlier runs, by file: the digest of the source they timed out
 * on, and their keys. A mutant that times out again on the same source is taken as a hang (a
 * timeout counts as killed) and not tested a third time: on a machine whose load comes and goes,
 * one timeout may be a slow survivor, two in two runs are not. Kept beside the state
 * (stryker-timeouts.json); a file whose source changed starts over.
 */
export type TimeoutMemory = ReadonlyMap<string, { readonly source: string; readonly mutants: ReadonlySet<string> }>;

export function sourceDigest(source: string): string {
  return createHash('sha256').update(source).digest('hex');
}

function timedOutBefore(memory: TimeoutMemory, snapshot: SourceSnapshot, rel: string, m: JournalMutant): boolean {
  const source = snapshot.files[rel];
  const seen = memory.get(rel);
  return source !== undefined && seen !== undefined && seen.source === sourceDigest(source) && seen.mutants.has(mutantKey(m));
}

/** The memory after this journal: the mutants whose latest result in it is a timeout, added to those remembered on the same source. */
export function rememberTimeouts(memory: TimeoutMemory, journal: Journal, snapshot: SourceSnapshot, root: string): TimeoutMemory {
  const latest = new Map<string, { rel: string; key: string; status: string }>();
  for (const m of journal.mutants) {
    const rel = relative(root, m.fileName);
    latest.set(`${rel} ${mutantKey(m)}`, { rel, key: mutantKey(m), status: m.status });
  }
  const next = new Map<string, { source: string; mutants: Set<string> }>();
  for (const [rel, seen] of memory) {
    const source = snapshot.files[rel];
    if (source !== undefined && sourceDigest(source) === seen.source) next.set(rel, { source: seen.source, mutants: new Set(seen.mutants) });
  }
  for (const { rel, key, status } of latest.values()) {
    const source = snapshot.files[rel];
    if (source === undefined) continue;
    let entry = next.get(rel);
    if (!entry) next.set(rel, (entry = { source: sourceDigest(source), mutants: new Set() }));
    if (status === 'Timeout') entry.mutants.add(key);
    else entry.mutants.delete(key);
  }
  return next;
}

export function encodeTimeoutMemory(memory: TimeoutMemory): string {
  return JSON.stringify(Object.fromEntries([...memory].map(([rel, { source, mutants }]) => [rel, { source, mutants: [...mutants].sort() }])));
}

/** Reads what encodeTimeoutMemory wrote; anything else (a missing or damaged file) is an empty memory. */
export function decodeTimeoutMemory(text: string | undefined): TimeoutMemory {
  if (text === undefined) return new Map();
  try {
    const raw = JSON.parse(text) as Record<string, { source?: unknown; mutants?: unknown }>;
    return new Map(
      Object.entries(raw)
        .filter(([, v]) => typeof v?.source === 'string' && Array.isArray(v.mutants))
        .map(([rel, v]) => [rel, { source: v.source as string, mutants: new Set((v.mutants as unknown[]).filter((k): k is string => typeof k === 'string')) }]),
    );
  } catch {
    return new Map();
  }
}
