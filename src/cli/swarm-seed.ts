import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { drawSwarm, runScenario, writeRunOutputs, type Scenario, type ScenarioResult, type SwarmRun } from '../sim/index.js';
import { swarmReplayCommand } from './seed-commands.js';

/** One swarm seed's outcome (plain data, so a worker thread can post it to the parent). */
export type SeedOutcome = SwarmRun;

/** What every seed of one swarm shares. */
export interface SwarmTask {
  readonly scenario: Scenario;
  readonly file: string;
  readonly out: string;
  /** Replaying one seed: keep its trace and always write its report. */
  readonly single: boolean;
  /** The --out swarm was given, if any: the replay commands name it, so a replay writes there too. */
  readonly outOption?: string;
}

/** The ERROR outcome of a seed whose run threw, or whose worker died. */
export function errorOutcome(task: SwarmTask, seed: number, error: string, wallMs = 0): SeedOutcome {
  let drawn: readonly string[] = [];
  try {
    drawn = drawSwarm(task.scenario, seed).drawn;
  } catch {
    // the draw itself failed: the error says why
  }
  return {
    seed,
    verdict: 'error',
    drawn,
    digest: null,
    replay: swarmReplayCommand(task.file, seed, task.outOption),
    failed: [],
    violations: [],
    error,
    report: null,
    wallMs,
    virtualMs: null,
    blocks: null,
  };
}

/** Runs one seed: draws its faults, runs the scenario, writes the report of a failing (or replayed) seed. */
export async function runSwarmSeed(task: SwarmTask, seed: number): Promise<SeedOutcome> {
  const started = performance.now();
  const { file, out, single } = task;
  const replay = swarmReplayCommand(file, seed, task.outOption);
  let draw;
  let result: ScenarioResult;
  const seedDir = path.join(out, `seed-${seed}`);
  try {
    draw = drawSwarm(task.scenario, seed);
    // a replay of one seed also keeps its trace; a scan keeps only the digests
    const tracePath = single ? path.join(seedDir, 'trace.jsonl') : undefined;
    if (tracePath) await mkdir(seedDir, { recursive: true });
    result = await runScenario(draw.scenario, { file, seed, replayCommand: replay, ...(tracePath ? { tracePath } : {}) });
  } catch (e) {
    // one seed's internal failure is that seed's finding, not the end of the swarm
    return errorOutcome(task, seed, e instanceof Error ? e.message : String(e), performance.now() - started);
  }
  let report: string | null = null;
  if (result.verdict === 'fail' || single) report = (await writeRunOutputs(result, seedDir, { swarm: { drawn: draw.drawn } })).report;
  const failed = result.expectations.filter((e) => !e.ok);
  return {
    seed,
    verdict: result.verdict,
    drawn: [...draw.drawn],
    digest: result.digest,
    replay,
    failed: failed.map((e) => ({ name: e.name, ok: e.ok, detail: e.detail })),
    violations: result.violations.map((v) => ({ invariant: v.invariant, node: v.node, height: v.height, detail: v.detail, atMs: v.atMs })),
    report,
    wallMs: performance.now() - started,
    virtualMs: result.virtualMs,
    blocks: result.totals.blocks,
    ...(result.metrics.mutations.size > 0 ? { mutations: Object.fromEntries([...result.metrics.mutations].map(([node, counts]) => [node, Object.fromEntries(counts)])) } : {}),
  };
}
