import { execFileSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import type { BenchIo } from './bench-io.js';
import { table } from './measure.js';

/** Wall time of `twinchain --help` as a fresh process (target: under one second). */
export async function run(io: BenchIo): Promise<void> {
  const bin = new URL('../../bin/twinchain.js', import.meta.url).pathname;
  const times: number[] = [];
  for (let i = 0; i < 7; i++) {
    const start = performance.now();
    execFileSync(process.execPath, [bin, '--help'], { stdio: 'ignore' });
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  const median = times[3]!;
  io.out('cli: `twinchain --help` as a new process, 7 runs\n');
  io.out(
    table(
      ['measure', 'ms', 'target'],
      [
        ['median', median.toFixed(0), median < 1000 ? 'meets < 1000' : 'ABOVE target 1000'],
        ['max', times[6]!.toFixed(0), ''],
      ],
    ),
  );
}
