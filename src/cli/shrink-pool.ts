import { Worker } from 'node:worker_threads';
import { errorOutcome, runCandidate, type CandidateJob, type CandidateOutcome, type CandidateRunner } from '../sim/index.js';

/**
 * Runs candidates in this thread (--jobs 1). A cancel, or `stop()` turning true (a budget),
 * takes effect at the next simulation event; signals and timers get their turn between
 * candidates only (a run never yields to the event loop).
 */
export function localCandidateRunner(file: string, stop: () => boolean = () => false): CandidateRunner {
  let cancelled = false;
  return {
    run: async (job) => {
      cancelled = false;
      await new Promise((resolve) => setImmediate(resolve));
      return runCandidate(job, { file, cancelled: () => cancelled || stop() });
    },
    cancel: () => {
      cancelled = true;
    },
    close: async () => undefined,
  };
}

// Compiled (dist/), the worker runs shrink-worker.js itself; from the sources it starts through
// shrink-worker-boot.js, which registers tsx in the worker first.
const BOOT = new URL(import.meta.url.endsWith('.ts') ? './shrink-worker-boot.js' : './shrink-worker.js', import.meta.url);

/**
 * Runs candidates in a worker thread, one at a time. A cancel sets a flag the worker reads after
 * every simulation event, so the run ends within an event and the worker answers null: the
 * worker is never terminated in the middle of a run (that can land inside a native addon call,
 * see WorkerRunner in swarm-pool.ts). A worker that crashes makes its candidate an error outcome
 * and is replaced for the next one.
 */
export class WorkerCandidateRunner implements CandidateRunner {
  private worker: Worker | undefined;
  private readonly flag = new Int32Array(new SharedArrayBuffer(4));
  private pending: ((o: CandidateOutcome | undefined) => void) | undefined;

  constructor(private readonly file: string) {}

  run(job: CandidateJob): Promise<CandidateOutcome | undefined> {
    if (this.pending) throw new Error('a shrink worker runs one candidate at a time');
    const worker = this.worker ?? this.spawn();
    Atomics.store(this.flag, 0, 0);
    return new Promise((resolve) => {
      this.pending = resolve;
      worker.postMessage(job);
    });
  }

  cancel(): void {
    if (this.pending) Atomics.store(this.flag, 0, 1);
  }

  async close(): Promise<void> {
    if (this.pending) {
      this.cancel();
      await new Promise<void>((resolve) => {
        const settle = this.pending!;
        this.pending = (o) => {
          settle(o);
          resolve();
        };
      });
    }
    const worker = this.worker;
    this.worker = undefined;
    if (worker) await worker.terminate();
  }

  private settle(outcome: CandidateOutcome | undefined): void {
    const p = this.pending;
    this.pending = undefined;
    p?.(outcome);
  }

  private spawn(): Worker {
    const worker = new Worker(BOOT, { workerData: { file: this.file, cancel: this.flag.buffer } });
    this.worker = worker;
    worker.on('message', (outcome: CandidateOutcome | null) => {
      if (worker === this.worker) this.settle(outcome ?? undefined);
    });
    const died = (why: string) => {
      if (worker !== this.worker) return;
      this.worker = undefined;
      this.settle(errorOutcome(why));
      void worker.terminate();
    };
    worker.on('error', (e) => died(`the shrink worker crashed: ${e.message.split('\n')[0]}`));
    worker.on('exit', (code) => died(`the shrink worker exited (code ${code})`));
    return worker;
  }
}
