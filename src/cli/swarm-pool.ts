import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { errorOutcome, runSwarmSeed, type SeedOutcome, type SwarmTask } from './swarm-seed.js';

/** Runs one seed at a time, in this thread or in a worker. */
export interface SeedRunner {
  /** Runs one seed; undefined when the run was cancelled. */
  run(seed: number): Promise<SeedOutcome | undefined>;
  /** Abandons the seed being run (its run resolves undefined). */
  cancel(): void;
  close(): Promise<void>;
}

/** Runs seeds in this thread (--jobs 1, or a one-seed replay). */
export function localRunner(task: SwarmTask): SeedRunner {
  return {
    run: (seed) => runSwarmSeed(task, seed),
    cancel: () => undefined,
    close: async () => undefined,
  };
}

// Compiled (dist/), the worker runs swarm-worker.js itself; from the sources it starts through
// swarm-worker-boot.js, which registers tsx in the worker first.
const BOOT = new URL(import.meta.url.endsWith('.ts') ? './swarm-worker-boot.js' : './swarm-worker.js', import.meta.url);

/**
 * Runs seeds in a worker thread. A worker that crashes or exits makes its seed an ERROR outcome
 * and is replaced by a fresh one for the next seed.
 *
 * A worker is only ever terminated between seeds: terminating it in the middle of one can land
 * inside a native addon call (secp256k1), which then throws in a dying environment and aborts the
 * whole process. A cancelled seed's run is abandoned (it resolves undefined) and the worker
 * finishes it before it is closed.
 */
export class WorkerRunner implements SeedRunner {
  private worker: Worker | undefined;
  private pending: { seed: number; started: number; resolve: (o: SeedOutcome | undefined) => void } | undefined;
  /** Resolves when the worker is between seeds again (its current seed finished or it died). */
  private idle: { promise: Promise<void>; resolve: () => void } | undefined;

  constructor(private readonly task: SwarmTask) {}

  run(seed: number): Promise<SeedOutcome | undefined> {
    if (this.pending) throw new Error('a swarm worker runs one seed at a time');
    const worker = this.worker ?? this.spawn();
    let done!: () => void;
    this.idle = { promise: new Promise<void>((r) => (done = r)), resolve: done };
    return new Promise((resolve) => {
      this.pending = { seed, started: performance.now(), resolve };
      worker.postMessage({ seed });
    });
  }

  cancel(): void {
    this.settle(undefined);
  }

  async close(): Promise<void> {
    this.settle(undefined);
    await this.idle?.promise;
    await this.discard();
  }

  private becameIdle(): void {
    const idle = this.idle;
    this.idle = undefined;
    idle?.resolve();
  }

  private spawn(): Worker {
    const worker = new Worker(BOOT, { workerData: this.task });
    this.worker = worker;
    worker.on('message', (outcome: SeedOutcome) => {
      if (worker !== this.worker) return;
      this.settle(outcome);
      this.becameIdle();
    });
    const died = (why: string) => {
      if (worker !== this.worker) return;
      this.worker = undefined;
      const p = this.pending;
      if (p) this.settle(errorOutcome(this.task, p.seed, why, performance.now() - p.started));
      this.becameIdle();
      void worker.terminate();
    };
    worker.on('error', (e) => died(`the swarm worker crashed: ${e.message.split('\n')[0]}`));
    worker.on('exit', (code) => died(`the swarm worker exited (code ${code})`));
    return worker;
  }

  private settle(outcome: SeedOutcome | undefined): void {
    const p = this.pending;
    this.pending = undefined;
    p?.resolve(outcome);
  }

  private async discard(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    if (worker) await worker.terminate();
  }
}

export interface ScheduleOptions {
  readonly first: number;
  /** The gap between consecutive seeds: 1, or a shard's N (its seeds are first, first + N, …). Default 1. */
  readonly step?: number;
  /** Seeds to run at most; undefined: until a failure or the budget. */
  readonly count: number | undefined;
  /** Stop after the first failing seed (in seed order). */
  readonly untilFail: boolean;
  /** No new seed is started once this much wall time has passed. */
  readonly budgetMs: number | undefined;
  /** Called once per reported seed, in seed order. */
  readonly onOutcome: (outcome: SeedOutcome) => void;
  /** Wall clock in ms (tests may pass their own). */
  readonly now?: () => number;
}

export interface ScheduleResult {
  /** The reported seeds, in seed order: the first ones of the sequence, without a gap. */
  readonly outcomes: readonly SeedOutcome[];
  /** The first non-passing seed in seed order, and wall ms from the start until its outcome arrived. */
  readonly firstFailure: { readonly seed: number; readonly afterMs: number } | null;
  readonly wallMs: number;
  readonly budgetSpent: boolean;
}

/**
 * Hands seeds out in order to the runners (one seed per runner at a time) and reports outcomes
 * in seed order, buffering those that come early. With untilFail, no seed is handed out after
 * a failure, seeds above the lowest failing one are cancelled, and only seeds up to it are
 * reported.
 */
export async function runSeeds(runners: readonly SeedRunner[], options: ScheduleOptions): Promise<ScheduleResult> {
  const now = options.now ?? (() => performance.now());
  const start = now();
  const { first, count, untilFail, budgetMs } = options;
  const step = options.step ?? 1;
  let next = first;
  let stopAt: number | undefined;
  let budgetSpent = false;
  const done = new Map<number, SeedOutcome>();
  const knownAt = new Map<number, number>();
  const running = new Map<number, SeedRunner>();
  const outcomes: SeedOutcome[] = [];
  let emit = first;

  const take = (): number | undefined => {
    if (stopAt !== undefined) return undefined;
    if (count !== undefined && next >= first + count * step) return undefined;
    if (budgetMs !== undefined && now() - start >= budgetMs) {
      budgetSpent = true;
      return undefined;
    }
    const seed = next;
    next += step;
    return seed;
  };
  const flush = () => {
    for (let o = done.get(emit); o !== undefined && (stopAt === undefined || emit <= stopAt); o = done.get(emit)) {
      done.delete(emit);
      outcomes.push(o);
      options.onOutcome(o);
      emit += step;
    }
  };
  const loop = async (runner: SeedRunner) => {
    for (let seed = take(); seed !== undefined; seed = take()) {
      running.set(seed, runner);
      const outcome = await runner.run(seed);
      running.delete(seed);
      if (!outcome) continue;
      knownAt.set(seed, now() - start);
      done.set(seed, outcome);
      if (untilFail && outcome.verdict !== 'pass' && (stopAt === undefined || seed < stopAt)) {
        stopAt = seed;
        for (const [s, r] of running) if (s > seed) r.cancel();
      }
      flush();
    }
  };
  await Promise.all(runners.map(loop));
  const failing = outcomes.find((o) => o.verdict !== 'pass');
  return {
    outcomes,
    firstFailure: failing ? { seed: failing.seed, afterMs: Math.round(knownAt.get(failing.seed) ?? 0) } : null,
    wallMs: now() - start,
    budgetSpent,
  };
}
