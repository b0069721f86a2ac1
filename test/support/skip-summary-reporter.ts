// A vitest reporter for npm test's last lines: which tests were skipped and why (the reasons the
// test files noted with noteSkip, e.g. no Chromium for the browser tests), so a skip is never
// silent; whether the run wrote into the clone's reports/ (tests write to temporary folders); and
// the ten slowest test files, so that the suite's growth shows in every CI log.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Reporter, TestModule } from 'vitest/node';
import type { SkipNote } from './skip-notes.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const REPORTS = path.join(ROOT, 'reports');

function entries(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** The summary lines for the skipped tests of `modules`, by the reasons noted in `notes`. */
export function skipSummary(modules: ReadonlyArray<{ file: string; skipped: number }>, notes: readonly SkipNote[]): string[] {
  const byReason = new Map<string, { files: Set<string>; tests: number }>();
  let unexplained = 0;
  for (const m of modules) {
    if (m.skipped === 0) continue;
    const note = notes.find((n) => n.file === m.file);
    if (!note) {
      unexplained += m.skipped;
      continue;
    }
    const entry = byReason.get(note.reason) ?? { files: new Set<string>(), tests: 0 };
    entry.files.add(m.file);
    entry.tests += m.skipped;
    byReason.set(note.reason, entry);
  }
  // a file that noted a skip before any test was collected still counts
  for (const n of notes) {
    if (![...byReason.values()].some((e) => e.files.has(n.file))) byReason.set(n.reason, { files: new Set([...(byReason.get(n.reason)?.files ?? []), n.file]), tests: byReason.get(n.reason)?.tests ?? 0 });
  }
  const lines = [...byReason].map(([reason, e]) => `SKIPPED: ${e.tests} test${e.tests === 1 ? '' : 's'} in ${[...e.files].sort().join(', ')}: ${reason}`);
  if (unexplained > 0) lines.push(`skipped on purpose: ${unexplained} test${unexplained === 1 ? '' : 's'} marked skip or skipIf in their files (each names its reason)`);
  return lines;
}

/** The `count` test files that took longest (tests and hooks), so CI shows where the suite's time grows. */
export function slowestFiles(modules: ReadonlyArray<{ file: string; durationMs: number }>, count = 10): string[] {
  const slowest = [...modules].sort((a, b) => b.durationMs - a.durationMs || a.file.localeCompare(b.file)).slice(0, count);
  if (slowest.length === 0) return [];
  const width = Math.max(...slowest.map((m) => (m.durationMs / 1000).toFixed(1).length));
  return [`the ${slowest.length} slowest test files:`, ...slowest.map((m) => `  ${(m.durationMs / 1000).toFixed(1).padStart(width)} s  ${m.file}`)];
}

export default class SkipSummaryReporter implements Reporter {
  private readonly notes = mkdtempSync(path.join(tmpdir(), 'twinchain-skip-notes-'));
  private readonly reportsBefore = new Set(entries(REPORTS));

  constructor() {
    // the test files (forked or threaded workers, started later) write their notes here
    process.env['TWINCHAIN_SKIP_NOTES'] = this.notes;
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const notes = entries(this.notes).flatMap((f) => {
      try {
        return [JSON.parse(readFileSync(path.join(this.notes, f), 'utf8')) as SkipNote];
      } catch {
        return [];
      }
    });
    rmSync(this.notes, { recursive: true, force: true });
    const modules = testModules.map((m) => ({
      file: path.relative(ROOT, m.moduleId),
      skipped: [...m.children.allTests()].filter((t) => t.result().state === 'skipped').length,
    }));
    const lines = skipSummary(modules, notes);
    const written = entries(REPORTS).filter((e) => !this.reportsBefore.has(e));
    if (written.length > 0) lines.push(`WROTE INTO THE CLONE: reports/${written.join(', reports/')} (tests must write to temporary folders)`);
    if (lines.length === 0) lines.push('skipped: none');
    lines.push(...slowestFiles(testModules.map((m) => ({ file: path.relative(ROOT, m.moduleId), durationMs: m.diagnostic().duration }))));
    process.stdout.write(`\n${lines.join('\n')}\n`);
  }
}
