import type { CandidateJob, CandidateOutcome } from './candidate.js';

/** Runs one candidate at a time, in this thread or in a worker. */
export interface CandidateRunner {
  /** Undefined when the run was cancelled. */
  run(job: CandidateJob): Promise<CandidateOutcome | undefined>;
  /** Abandons the candidate being run (its run resolves undefined). */
  cancel(): void;
  close(): Promise<void>;
}

export interface PoolStats {
  /** Candidate runs that finished. */
  runs: number;
  /** Runs abandoned because an earlier candidate of their batch was accepted (or the shrink stopped). */
  cancelled: number;
  /** Candidates answered from an earlier run of the same text. */
  cached: number;
  /** Wall ms spent in finished runs. */
  runMs: number;
}

/**
 * Runs candidates on a set of runners. `first` answers which candidate of a list is the first,
 * in list order, that a predicate accepts: candidates start in list order, one per idle runner,
 * none after one already accepted, and running candidates after an accepted one are cancelled.
 * Every candidate before the answer has run, so the answer is the one --jobs 1 gives, whatever
 * the timing; only the number of runs spent on later candidates differs.
 */
export class CandidatePool {
  readonly stats: PoolStats = { runs: 0, cancelled: 0, cached: 0, runMs: 0 };
  private readonly cache = new Map<string, CandidateOutcome>();
  private readonly busy = new Set<CandidateRunner>();
  private stopRequested = false;
  private deadline = Infinity;

  constructor(
    private readonly runners: readonly CandidateRunner[],
    private readonly onRun: (outcome: CandidateOutcome) => void = () => undefined,
    /** Wall clock in ms, for stopAt. */
    private readonly now: () => number = () => performance.now(),
  ) {
    if (runners.length === 0) throw new Error('a candidate pool needs at least one runner');
  }

  /** Stops at this wall time (see `now`): no candidate starts after it, and runners that poll shouldStop end theirs. */
  stopAt(atMs: number): void {
    this.deadline = atMs;
  }

  /** Whether the pool was stopped or its deadline has passed (runners in this thread poll it during a run). */
  get shouldStop(): boolean {
    if (!this.stopRequested && this.now() >= this.deadline) this.stop();
    return this.stopRequested;
  }

  get jobs(): number {
    return this.runners.length;
  }

  get stopped(): boolean {
    return this.stopRequested;
  }

  /** Stops every run and makes every later request answer 'stopped'. */
  stop(): void {
    this.stopRequested = true;
    for (const r of this.busy) r.cancel();
  }

  private key(job: CandidateJob): string {
    return `${job.stopOn ?? ''}\n${job.keepFaults ? 'faults\n' : ''}${job.yaml}`;
  }

  /** The outcome a job had before, if it ran. */
  known(job: CandidateJob): CandidateOutcome | undefined {
    return this.cache.get(this.key(job));
  }

  private async runOn(runner: CandidateRunner, job: CandidateJob): Promise<CandidateOutcome | undefined> {
    const key = this.key(job);
    const cached = this.cache.get(key);
    if (cached) {
      this.stats.cached++;
      return cached;
    }
    this.busy.add(runner);
    let outcome: CandidateOutcome | undefined;
    try {
      outcome = await runner.run(job);
    } finally {
      this.busy.delete(runner);
    }
    if (!outcome) {
      this.stats.cancelled++;
      return undefined;
    }
    this.stats.runs++;
    this.stats.runMs += outcome.wallMs;
    this.cache.set(key, outcome);
    this.onRun(outcome);
    return outcome;
  }

  /** Runs one job; 'stopped' when the pool was stopped. */
  async one(job: CandidateJob): Promise<CandidateOutcome | 'stopped'> {
    const found = await this.first([job], () => true);
    if (found === 'stopped') return 'stopped';
    return found!.outcome;
  }

  /** The first job, in list order, whose outcome `accept` takes; undefined when none does, 'stopped' when the pool was stopped. */
  async first(jobs: readonly CandidateJob[], accept: (o: CandidateOutcome) => boolean): Promise<{ index: number; outcome: CandidateOutcome } | undefined | 'stopped'> {
    if (this.shouldStop) return 'stopped';
    let next = 0;
    let best: { index: number; outcome: CandidateOutcome } | undefined;
    const running = new Map<number, CandidateRunner>();
    const loop = async (runner: CandidateRunner) => {
      for (;;) {
        if (this.shouldStop) return;
        const index = next;
        if (index >= jobs.length || (best && index > best.index)) return;
        next++;
        running.set(index, runner);
        const outcome = await this.runOn(runner, jobs[index]!);
        running.delete(index);
        if (!outcome || !accept(outcome)) continue;
        if (!best || index < best.index) {
          best = { index, outcome };
          for (const [i, r] of running) if (i > index) r.cancel();
        }
      }
    };
    await Promise.all(this.runners.map(loop));
    return this.shouldStop ? 'stopped' : best;
  }

  async close(): Promise<void> {
    await Promise.all(this.runners.map((r) => r.close()));
  }
}
