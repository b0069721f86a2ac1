// What a worker thread runs when its parent runs from the TypeScript sources (under vitest, or
// bin/twinchain.js through tsx): the bundled worker of dist/bundle/ when the build is of the sources
// as they are (the check bin/twinchain.js makes), else the sources through tsx, which a worker must
// register for itself. Booting the sources through tsx costs a swarm worker about 2.4 s of CPU
// against 0.6 s for the bundle, and the in-process tests start sixteen workers.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { whatToRun } from '../../../bin/dist-freshness.js';

const ROOT = new URL('../../../', import.meta.url);

/**
 * Loads the worker `name` (e.g. `swarm-worker`): the bundle's when fresh, else `source` (its .ts)
 * through tsx. `root` (a file URL ending in /) is the repository's.
 */
export async function bootWorker(name, source, root = ROOT) {
  const bundled = new URL(`dist/bundle/${name}.js`, root);
  if (existsSync(bundled) && whatToRun(fileURLToPath(root)) === 'dist') return import(bundled.href);
  const { register } = await import('tsx/esm/api');
  register();
  return import(source.href);
}
