import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { afterAll, describe, expect, it } from 'vitest';

const BOOT = new URL('./worker-boot.js', import.meta.url).href;
const tree = mkdtempSync(path.join(tmpdir(), 'twinchain-worker-boot-'));
afterAll(() => rmSync(tree, { recursive: true, force: true }));

/** A repository with a source worker and a bundled one, each saying which it is, the build at `builtAt` (s) and the sources at `sourcesAt`. */
function repo(name: string, { bundle = true, builtAt = 2_000, sourcesAt = 1_000 } = {}): string {
  const root = path.join(tree, name);
  mkdirSync(path.join(root, 'src'), { recursive: true });
  mkdirSync(path.join(root, 'dist', 'bundle'), { recursive: true });
  writeFileSync(path.join(root, 'package.json'), '{ "type": "module" }\n');
  writeFileSync(path.join(root, 'src', 'w.js'), "import { parentPort } from 'node:worker_threads';\nparentPort.postMessage('sources');\n");
  if (bundle) writeFileSync(path.join(root, 'dist', 'bundle', 'w.js'), "import { parentPort } from 'node:worker_threads';\nparentPort.postMessage('bundle');\n");
  writeFileSync(path.join(root, 'dist', '.built'), '');
  utimesSync(path.join(root, 'dist', '.built'), builtAt, builtAt);
  for (const p of ['src/w.js', 'src']) utimesSync(path.join(root, p), sourcesAt, sourcesAt);
  return root;
}

/** What a worker thread booted through bootWorker in `root` ran. */
function boot(root: string): Promise<string> {
  const entry = path.join(root, 'entry.mjs');
  const rootUrl = pathToFileURL(`${root}/`).href;
  writeFileSync(entry, `import { bootWorker } from ${JSON.stringify(BOOT)};\nawait bootWorker('w', new URL('src/w.js', ${JSON.stringify(rootUrl)}), new URL(${JSON.stringify(rootUrl)}));\n`);
  return new Promise((resolve, reject) => {
    const worker = new Worker(entry);
    worker.once('message', (m: string) => void worker.terminate().then(() => resolve(m)));
    worker.once('error', reject);
  });
}

describe('a worker thread started from the sources', () => {
  it('runs the bundled worker when the build is newer than every source', async () => {
    expect(await boot(repo('fresh'))).toBe('bundle');
  });

  it('runs the sources when one of them is newer than the build, or there is no bundle', async () => {
    expect(await boot(repo('stale', { sourcesAt: 3_000 }))).toBe('sources');
    expect(await boot(repo('unbundled', { bundle: false }))).toBe('sources');
  });
});
