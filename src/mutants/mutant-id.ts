/**
 * Stable names for generated mutants. StrykerJS numbers mutants per run; the triage file needs a
 * name that survives re-runs and edits elsewhere in the file: the file, the mutator, the original
 * text, the replacement and the text of the line it sits on (not the line number, which moves
 * when code above it changes), with a counter for identical twins on identical lines.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import { textAt, type SourceLocation } from './location-patch.js';

export interface IdentifiedMutant {
  readonly mutatorName: string;
  readonly replacement?: string;
  readonly location: SourceLocation;
}

function lineText(source: string, line: number): string {
  let start = 0;
  for (let i = 1; i < line; i++) start = source.indexOf('\n', start) + 1;
  const end = source.indexOf('\n', start);
  return source.slice(start, end < 0 ? source.length : end).trim();
}

const before = (a: SourceLocation, b: SourceLocation) => a.start.line - b.start.line || a.start.column - b.start.column || a.end.line - b.end.line || a.end.column - b.end.column;

/**
 * A stable id for each mutant of one file (same order as given): `<file name>@<8 hex>`, e.g.
 * `tx-pool@1a2b3c4d`. Mutants whose location does not exist in `source` get none.
 */
export function stableIds(file: string, source: string, mutants: readonly IdentifiedMutant[]): Array<string | undefined> {
  const stem = path.basename(file).replace(/\.[cm]?[jt]s$/, '');
  const order = mutants.map((m, i) => ({ m, i })).sort((a, b) => before(a.m.location, b.m.location));
  const seen = new Map<string, number>();
  const ids: Array<string | undefined> = new Array<string | undefined>(mutants.length);
  for (const { m, i } of order) {
    let original: string;
    try {
      original = textAt(source, m.location);
    } catch {
      continue;
    }
    const identity = JSON.stringify([file, m.mutatorName, original, m.replacement ?? '', lineText(source, m.location.start.line)]);
    const n = seen.get(identity) ?? 0;
    seen.set(identity, n + 1);
    ids[i] = `${stem}@${createHash('sha256').update(`${identity}#${n}`).digest('hex').slice(0, 8)}`;
  }
  return ids;
}
