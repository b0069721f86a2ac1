import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { mergeShardResults, parseShardResultLine, type ShardResult } from '../sim/index.js';
import type { BenchIo } from './bench-io.js';
import { whatRuns } from './cli-bench.js';
import { table } from './measure.js';
import { packageRoot } from '../package-root.js';

const ROOT = `${packageRoot()}${path.sep}`;
const BIN = path.join(ROOT, 'bin', 'twinchain.js');
const SCENARIO = 'scenarios/pbft-swarm.yaml';
const SEEDS = 12;
const ROUNDS = 5;

/** One `twinchain swarm` process to its exit: its result line. */
function swarmProcess(args: string[], out: string): Promise<ShardResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'swarm', SCENARIO, '--seeds', String(SEEDS), '--json-stdout', '--exit-zero', '--out', out, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      const result = code === 0 ? parseShardResultLine(stdout.trim()) : undefined;
      if (result) resolve(result);
      else reject(new Error(`swarm ${args.join(' ')} exited ${code}: ${stderr.trim().split('\n').slice(-3).join(' | ')}`));
    });
  });
}

interface Setup {
  readonly name: string;
  /** The argument lists of the processes run at once. */
  readonly processes: ReadonlyArray<readonly string[]>;
}

const SETUPS: readonly Setup[] = [
  { name: '1 shard, 1 process, --jobs 1', processes: [['--shard', '0/1', '--jobs', '1']] },
  { name: '2 shards, 2 processes, --jobs 1 each', processes: [['--shard', '0/2', '--jobs', '1'], ['--shard', '1/2', '--jobs', '1']] },
  { name: '1 process, --jobs 2 (threads; reference)', processes: [['--jobs', '2']] },
];

const median = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? s[s.length >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/**
 * Seeds per minute of `twinchain swarm` on pbft-swarm.yaml as one shard in one process, as two
 * shards in two processes at once (what an engine running N copies does on one machine), and as
 * one process with two worker threads; each wall time from the processes' start to the last exit
 * (start-up included: that is the per-shard overhead), in interleaved rounds. The two shards'
 * merged runs must equal the one shard's (same verdicts and digests).
 */
export async function run(io: BenchIo): Promise<void> {
  io.out(`swarm: ${SEEDS} seeds of ${SCENARIO} per setup, ${ROUNDS} interleaved rounds, ${availableParallelism()} cores; wall time from start to the last process's exit (bin/twinchain.js runs ${await whatRuns()})`);
  const dir = await mkdtemp(path.join(tmpdir(), 'twinchain-swarm-bench-'));
  const load = loadavg()[0]!;
  const rates = SETUPS.map(() => [] as number[]);
  const cpu = SETUPS.map(() => [] as number[]);
  const ratios: number[] = [];
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const wall: number[] = [];
      let digests: string | undefined;
      // rotate the order, so no setup always runs first or after the same one
      for (let j = 0; j < SETUPS.length; j++) {
        const s = (round + j) % SETUPS.length;
        const setup = SETUPS[s]!;
        const start = performance.now();
        const results = await Promise.all(setup.processes.map((args, p) => swarmProcess([...args], path.join(dir, `r${round}-s${s}-p${p}`))));
        const ms = performance.now() - start;
        wall[s] = ms;
        rates[s]!.push((SEEDS / ms) * 60_000);
        cpu[s]!.push(results.reduce((n, r) => n + r.cpuMs, 0));
        const runs = results.length === 1 && results[0]!.shard.count === 1 ? results[0]!.runs : mergeShardResults(results.map((result, p) => ({ result, source: `process ${p}` }))).runs;
        const key = JSON.stringify(runs.map((r) => [r.seed, r.verdict, r.digest]));
        if (digests !== undefined && key !== digests) throw new Error(`${setup.name}: its verdicts and digests differ from the other setups' in round ${round + 1}`);
        digests = key;
      }
      ratios.push(wall[0]! / wall[1]!);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  io.out(
    table(
      ['setup', 'median seeds/min', 'min', 'max', 'vs 1 shard', 'CPU s (median)'],
      SETUPS.map((s, i) => {
        const r = rates[i]!;
        return [s.name, median(r).toFixed(1), Math.min(...r).toFixed(1), Math.max(...r).toFixed(1), `${(median(r) / median(rates[0]!)).toFixed(2)}×`, (median(cpu[i]!) / 1000).toFixed(1)];
      }),
    ),
  );
  const cores = availableParallelism();
  io.out(
    `2 shards / 1 shard, per round: ${ratios.map((r) => r.toFixed(2)).join(', ')}; median ${median(ratios).toFixed(2)}× on ${cores} cores ` +
      `(goal: near ${cores.toFixed(1)}×; load average ${load.toFixed(1)} at the start, ${loadavg()[0]!.toFixed(1)} at the end: other work shares these cores)`,
  );
  // CPU time hardly depends on what else runs: one shard is o + S·c, two are 2·o + S·c, so the
  // second process's extra CPU is the per-process overhead o (start-up and warm-up)
  const one = median(cpu[0]!);
  const overhead = median(cpu[1]!) - one;
  const perSeed = (one - overhead) / SEEDS;
  // on idle cores, 1 shard takes o + S·c and 2 shards o + S·c/2
  const ratioAt = (seeds: number) => (overhead + seeds * perSeed) / (overhead + (seeds * perSeed) / 2);
  io.out(
    `CPU: ${(perSeed / 1000).toFixed(2)} s per seed, and ${(overhead / 1000).toFixed(1)} s per process (start-up and warm-up: what the second shard's process adds); ` +
      `on ${cores} idle cores that allows 2 shards ${ratioAt(SEEDS).toFixed(2)}× the seeds/min of 1 for this ${SEEDS}-seed scan, ${ratioAt(1000).toFixed(2)}× for 1,000 seeds ` +
      `(verdicts and digests equal in every setup)`,
  );
}
