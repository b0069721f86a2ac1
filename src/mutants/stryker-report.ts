/**
 * The parts of StrykerJS's report (the mutation-testing-elements JSON schema, which is also its
 * incremental file) that the mutation run reads and writes. File names are relative to the
 * repository root with forward slashes; locations are 1-based (see location-patch.ts).
 */
import type { SourceLocation } from './location-patch.js';

export type StrykerStatus = 'Killed' | 'Survived' | 'NoCoverage' | 'Timeout' | 'CompileError' | 'RuntimeError' | 'Ignored' | 'Pending';

export const STRYKER_STATUSES: readonly StrykerStatus[] = ['Killed', 'Survived', 'NoCoverage', 'Timeout', 'CompileError', 'RuntimeError', 'Ignored', 'Pending'];

export interface StrykerMutant {
  readonly id: string;
  readonly mutatorName: string;
  readonly replacement?: string;
  readonly location: SourceLocation;
  readonly status: StrykerStatus;
  readonly statusReason?: string;
  readonly coveredBy?: readonly string[];
  readonly killedBy?: readonly string[];
  readonly testsCompleted?: number;
  readonly static?: boolean;
}

export interface StrykerFile {
  readonly language: string;
  readonly source: string;
  readonly mutants: readonly StrykerMutant[];
}

export interface StrykerTest {
  readonly id: string;
  readonly name: string;
  readonly location?: { readonly start: { readonly line: number; readonly column: number } };
}

export interface StrykerTestFile {
  readonly source?: string;
  readonly tests: readonly StrykerTest[];
}

export interface StrykerReport {
  readonly schemaVersion: string;
  readonly thresholds: { readonly high: number; readonly low: number; readonly break?: number | null };
  readonly files: Readonly<Record<string, StrykerFile>>;
  readonly testFiles?: Readonly<Record<string, StrykerTestFile>>;
  readonly projectRoot?: string;
}

/** A report that is not one: says what is wrong and where. */
export class StrykerReportError extends Error {
  override readonly name = 'StrykerReportError';
}

function isPosition(p: unknown): boolean {
  const q = p as { line?: unknown; column?: unknown } | null;
  return typeof q === 'object' && q !== null && Number.isInteger(q.line) && Number.isInteger(q.column);
}

/** Checks the shape this code relies on (not the whole schema); throws StrykerReportError naming the first problem. */
export function parseStrykerReport(json: unknown, where: string): StrykerReport {
  const r = json as Partial<StrykerReport> | null;
  if (typeof r !== 'object' || r === null || typeof r.files !== 'object' || r.files === null) throw new StrykerReportError(`${where}: not a StrykerJS report (no "files" object)`);
  for (const [name, file] of Object.entries(r.files)) {
    if (typeof file?.source !== 'string' || !Array.isArray(file.mutants)) throw new StrykerReportError(`${where}: files["${name}"] has no source text or no mutants array`);
    for (const m of file.mutants) {
      if (typeof m?.id !== 'string' || typeof m.mutatorName !== 'string' || !STRYKER_STATUSES.includes(m.status) || !isPosition(m.location?.start) || !isPosition(m.location?.end)) {
        throw new StrykerReportError(`${where}: files["${name}"] has a malformed mutant ${JSON.stringify(m).slice(0, 200)}`);
      }
    }
  }
  return { schemaVersion: r.schemaVersion ?? '1.0', thresholds: r.thresholds ?? { high: 80, low: 60 }, files: r.files, ...(r.testFiles ? { testFiles: r.testFiles } : {}), ...(r.projectRoot ? { projectRoot: r.projectRoot } : {}) };
}
