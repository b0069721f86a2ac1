#!/usr/bin/env node
// Runs the compiled CLI in dist/ (`npm run build`; `prepare` builds it on npm install/ci and
// npm pack). In a clone, where src/ exists, it runs the TypeScript sources through tsx instead
// when dist/ is missing or anything under src/ is newer than the build (dist/.built), so an
// edit is never answered by stale output. The check reads only modification times (one
// readdir per folder and one stat per entry, about 4 ms); an installed package has no src/.
import { readdirSync, statSync } from 'node:fs';
import { fileURLToPath, URL } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));

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
    const file = `${dir}/${entry.name}`;
    if (statSync(file).mtimeMs > since || (entry.isDirectory() && newerThan(file, since))) return true;
  }
  return false;
}

const src = `${root}src`;
const built = mtime(`${root}dist/.built`);
const sources = mtime(src);
let main;
if (sources !== undefined && (built === undefined || sources > built || newerThan(src, built))) {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('../src/cli/main.ts'));
} else {
  try {
    ({ main } = await import('../dist/cli/main.js'));
  } catch (e) {
    if (e?.code !== 'ERR_MODULE_NOT_FOUND' || !String(e.message).includes('dist/cli/main.js')) throw e;
    console.error(`twinchain: ${root}dist/ is missing (the package was not built: npm run build) and there are no sources to run`);
    process.exit(70);
  }
}
process.exitCode = await main(process.argv.slice(2));
