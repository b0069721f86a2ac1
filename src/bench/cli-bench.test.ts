import { existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../package-root.js';
import { whatRuns } from './cli-bench.js';

describe('whatRuns', () => {
  it('names what bin/twinchain.js runs, by the check bin/dist-freshness.js makes', async () => {
    const root = packageRoot();
    const { whatToRun } = (await import(pathToFileURL(path.join(root, 'bin', 'dist-freshness.js')).href)) as { whatToRun(root: string): 'sources' | 'dist' };
    const said = await whatRuns();
    if (whatToRun(root) === 'sources') {
      expect(said).toMatch(/^the sources through tsx \((src\/ is newer than dist\/|no dist\/): npm run build\)$/);
    } else {
      expect(said).toBe(existsSync(path.join(root, 'dist', 'bundle', 'main.js')) ? 'the bundled CLI in dist/bundle/' : 'the compiled dist/');
    }
  });
});
