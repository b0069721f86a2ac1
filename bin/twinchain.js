#!/usr/bin/env node
// Runs the compiled CLI, bundled in dist/bundle/ (`npm run build`; `prepare` builds it on npm install/ci and
// npm pack). In a clone, where src/ exists, it runs the TypeScript sources through tsx instead
// when dist/ is missing or anything under src/ is newer than the build (dist-freshness.js), so an
// edit is never answered by stale output.
import { existsSync } from 'node:fs';
import { fileURLToPath, URL } from 'node:url';
import { whatToRun } from './dist-freshness.js';

const root = fileURLToPath(new URL('../', import.meta.url));
let main;
if (whatToRun(root) === 'sources') {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('../src/cli/main.ts'));
} else {
  // the bundled CLI (scripts/build.js) where it was built, else the compiled modules
  const entry = existsSync(new URL('../dist/bundle/main.js', import.meta.url)) ? '../dist/bundle/main.js' : '../dist/cli/main.js';
  try {
    ({ main } = await import(entry));
  } catch (e) {
    if (e?.code !== 'ERR_MODULE_NOT_FOUND' || !String(e.message).includes('dist/cli/main.js')) throw e;
    console.error(`twinchain: ${root}dist/ is missing (the package was not built: npm run build) and there are no sources to run`);
    process.exit(70);
  }
}
process.exitCode = await main(process.argv.slice(2));
