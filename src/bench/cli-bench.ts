import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import type { BenchIo } from './bench-io.js';
import { table } from './measure.js';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { packageRoot } from '../package-root.js';

const RUNS = 11;
const TARGET_MS = 250;
const ROOT = `${packageRoot()}${path.sep}`;

/**
 * What bin/twinchain.js runs here, by the check it makes (bin/dist-freshness.js: the build unless
 * something under src/ is newer), and its bundle where there is one.
 */
export async function whatRuns(): Promise<string> {
  const freshness = (await import(pathToFileURL(`${ROOT}bin/dist-freshness.js`).href)) as { whatToRun(root: string): 'sources' | 'dist' };
  if (freshness.whatToRun(ROOT) === 'sources') {
    return existsSync(`${ROOT}dist/.built`) ? 'the sources through tsx (src/ is newer than dist/: npm run build)' : 'the sources through tsx (no dist/: npm run build)';
  }
  const compiled = existsSync(`${ROOT}dist/bundle/main.js`) ? 'the bundled CLI in dist/bundle/' : 'the compiled dist/';
  return existsSync(`${ROOT}src`) ? compiled : `${compiled} (installed package)`;
}

function wallMs(args: string[]): number {
  const start = performance.now();
  execFileSync(process.execPath, args, { stdio: 'ignore' });
  return performance.now() - start;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

/**
 * Wall time of `twinchain --help` as a new process next to a bare `node -e ''` measured in the
 * same run (alternating, so both see the same machine load). Target: a median ≤ 250 ms.
 */
export async function run(io: BenchIo): Promise<void> {
  const bin = `${ROOT}bin/twinchain.js`;
  const runs = await whatRuns();
  wallMs([bin, '--help']); // one untimed run: the file system cache
  const help: number[] = [];
  const bare: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    bare.push(wallMs(['-e', '']));
    help.push(wallMs([bin, '--help']));
  }
  const [h, b] = [median(help), median(bare)];
  io.out(`cli: \`twinchain --help\` as a new process (bin/twinchain.js runs ${runs}) next to \`node -e ''\`, ${RUNS} runs each, alternating\n`);
  io.out(
    table(
      ['process', 'median ms', 'min ms', 'max ms', 'target'],
      [
        ['twinchain --help', h.toFixed(0), Math.min(...help).toFixed(0), Math.max(...help).toFixed(0), h <= TARGET_MS ? `meets ≤ ${TARGET_MS}` : `ABOVE target ${TARGET_MS}`],
        ["node -e ''", b.toFixed(0), Math.min(...bare).toFixed(0), Math.max(...bare).toFixed(0), ''],
        ['difference', (h - b).toFixed(0), '', '', ''],
      ],
    ),
  );
}
