// Whether dist/ holds a build of the sources as they are: bin/twinchain.js runs dist/ only then
// (and the sources through tsx otherwise), and the package test packs this dist/ only then. The
// check reads only modification times (one readdir per folder and one stat per entry, about 4 ms);
// an installed package has no src/, so its dist/ is what there is.
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';

function mtime(file) {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return undefined;
  }
}

/** True when something in `dir` (a file, or a folder whose entries changed) is newer than `since`; tests do not count. */
function newerThan(dir, since) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name.endsWith('.test.ts')) continue;
    const file = path.join(dir, entry.name);
    if (statSync(file).mtimeMs > since || (entry.isDirectory() && newerThan(file, since))) return true;
  }
  return false;
}

/**
 * 'sources' when `root` has a src/ and dist/ is missing or older than something in it (dist/.built's
 * modification time is the moment its build started); 'dist' otherwise.
 */
export function whatToRun(root) {
  const src = path.join(root, 'src');
  const built = mtime(path.join(root, 'dist', '.built'));
  const sources = mtime(src);
  if (sources === undefined) return 'dist';
  return built === undefined || sources > built || newerThan(src, built) ? 'sources' : 'dist';
}
