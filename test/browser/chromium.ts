// The Chromium the browser tests drive (playwright-core downloads none): TWINCHAIN_CHROMIUM, else
// Debian's /usr/bin/chromium. Missing, the tests skip with a note in npm test's last lines, or,
// with TWINCHAIN_REQUIRE_BROWSER=1 (as .ci/run sets), the file fails.
import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { noteSkip } from '../support/skip-notes.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export const CHROMIUM = process.env['TWINCHAIN_CHROMIUM'] || '/usr/bin/chromium';

/** Why `executable` cannot run, or undefined when it can (`named`: it came from TWINCHAIN_CHROMIUM). */
export function chromiumProblem(executable: string, named = process.env['TWINCHAIN_CHROMIUM'] === executable): string | undefined {
  const what = `${executable}${named ? ' (TWINCHAIN_CHROMIUM)' : ''}`;
  try {
    if (!statSync(executable).isFile()) return `${what} is not a file`;
    accessSync(executable, constants.X_OK);
    return undefined;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? `${what} not found` : `${what} cannot be run (${code === 'EACCES' ? 'not executable' : String(code)})`;
  }
}

const HOW = 'install it with apt-get install -y chromium, or set TWINCHAIN_CHROMIUM to a Chromium executable';

/**
 * Whether `file`'s browser tests can run. When they cannot: with TWINCHAIN_REQUIRE_BROWSER=1 it
 * throws (the file fails); otherwise it notes the skip for npm test's summary and returns false.
 */
export function chromiumAvailable(file: string): boolean {
  const why = chromiumProblem(CHROMIUM);
  if (why === undefined) return true;
  if (process.env['TWINCHAIN_REQUIRE_BROWSER'] === '1') throw new Error(`${why}, and TWINCHAIN_REQUIRE_BROWSER=1 requires it: ${HOW}`);
  noteSkip(path.relative(ROOT, file), `${why}: ${HOW}`);
  return false;
}
