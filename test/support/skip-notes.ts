// Why a test file skipped its tests, written where the skip-summary reporter (the last lines of
// `npm test`) reads it: a skip is never silent. The reporter sets TWINCHAIN_SKIP_NOTES to a
// temporary folder before the test files run; outside `npm test` (no folder) the note goes to stderr.
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';

export interface SkipNote {
  /** The test file, relative to the repository. */
  readonly file: string;
  /** Why its tests did not run, and what would make them run. */
  readonly reason: string;
}

export function noteSkip(file: string, reason: string): void {
  const dir = process.env['TWINCHAIN_SKIP_NOTES'];
  if (dir) writeFileSync(path.join(dir, `${randomUUID()}.json`), JSON.stringify({ file, reason } satisfies SkipNote));
  else console.warn(`${file}: tests SKIPPED: ${reason}`);
}
