import { performance } from 'node:perf_hooks';
import { cluster } from '../sim/index.js';
import type { BenchIo } from './bench-io.js';
import { formatRate, table } from './measure.js';

interface Run {
  readonly committed: bigint;
  readonly virtualMs: number;
  readonly wallMs: number;
}

async function measure(sealers: number, ratePerSecond: number, virtualMs: number, simulatedSignatures: boolean): Promise<Run> {
  const c = cluster({ seed: `bench-${sealers}-${ratePerSecond}`, sealers, simulatedSignatures, network: { latency: { kind: 'uniform', minMs: 2, maxMs: 10 } } });
  c.startHelloWorldLoad(ratePerSecond, virtualMs);
  const start = performance.now();
  await c.sim.run({ until: virtualMs });
  const wallMs = performance.now() - start;
  const committed = c.group('node0')!.totals().txSum;
  return { committed, virtualMs, wallMs };
}

export async function run(io: BenchIo): Promise<void> {
  io.out('pbft: simulated PBFT groups under HelloWorld set(string) load; every sealer executes every block\n');
  const rows: string[][] = [];
  const configs: Array<[number, boolean, number, number]> = [
    // sealers, simulated signatures, saturating virtual ms, 10 tx/s virtual ms
    [4, false, 10_000, 120_000],
    [16, false, 6_000, 30_000],
    [16, true, 6_000, 30_000],
    [64, false, 3_000, 10_000],
    [64, true, 3_000, 10_000],
  ];
  for (const [sealers, simulated, saturatedMs, steadyMs] of configs) {
    const saturated = await measure(sealers, 1000, saturatedMs, simulated);
    const steady = await measure(sealers, 10, steadyMs, simulated);
    const ratio = steady.virtualMs / steady.wallMs;
    rows.push([
      `${sealers} sealers${simulated ? ', simulated consensus signatures' : ''}`,
      formatRate(Number(saturated.committed) / (saturated.wallMs / 1000)),
      `${formatRate(ratio)}×`,
      sealers === 4 && !simulated ? (ratio >= 200 ? 'meets ≥ 200×' : 'BELOW 200×') : '',
    ]);
    io.out(`  ${rows.at(-1)!.join('  ')}`);
  }
  io.out('');
  io.out(table(['group', 'committed tx per wall s (saturating)', 'virtual/wall at 10 tx/s', 'target'], rows));
}
