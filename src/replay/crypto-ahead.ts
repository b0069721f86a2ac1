// Replay's crypto done ahead on another core: blocks read ahead of the one being executed are
// sent to a worker thread (crypto-worker.ts) that recovers their transactions' signers and
// verifies their signatureList entries; the replay then takes those results where it would have
// computed exactly the same thing (keys in crypto-keys.ts), and computes anything missing itself.
// The worker is shared by every replay in the process, started on first use and unref'd; until
// it has booted (or where it cannot start) the replay computes everything on its own thread.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { JsonObject } from './recording.js';
import type { AheadRequest, AheadResult } from './crypto-keys.js';

const BOOT = new URL('./crypto-worker-boot.js', import.meta.url);

export interface AheadResults {
  readonly signers: ReadonlyMap<string, Uint8Array | null>;
  readonly signatures: ReadonlyMap<string, boolean>;
}

const NONE: AheadResults = { signers: new Map(), signatures: new Map() };

class SharedWorker {
  ready = false;
  failed = false;
  private nextId = 1;
  private readonly waiting = new Map<number, (result: AheadResult | undefined) => void>();
  private readonly worker: Worker;

  constructor() {
    this.worker = new Worker(BOOT);
    this.worker.unref();
    this.worker.on('message', (message: AheadResult | 'ready') => {
      if (message === 'ready') {
        this.ready = true;
        return;
      }
      const done = this.waiting.get(message.id);
      this.waiting.delete(message.id);
      done?.(message);
      if (this.waiting.size === 0) this.worker.unref();
    });
    const fail = () => {
      this.failed = true;
      this.ready = false;
      for (const done of this.waiting.values()) done(undefined);
      this.waiting.clear();
    };
    this.worker.on('error', fail);
    this.worker.on('exit', fail);
  }

  request(request: Omit<AheadRequest, 'id'>): Promise<AheadResult | undefined> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      // referenced while answers are due, so that a replay waiting on one is not left hanging
      this.worker.ref();
      this.worker.postMessage({ ...request, id } satisfies AheadRequest);
    });
  }
}

/** Workers shared by every replay in the process: two where there are at least two cores. */
const POOL = Math.min(2, Math.max(1, availableParallelism()));
const shared: SharedWorker[] = [];

/** One replay's view of the shared worker. */
export class CryptoAhead {
  private readonly pending = new Map<number, { claim: Int32Array; answer: Promise<AheadResult | undefined> }>();
  private readonly workers: SharedWorker[] = [];

  constructor(
    private readonly suite: 'ecdsa' | 'sm',
    private readonly version: string,
    enabled: boolean,
  ) {
    if (!enabled) return;
    try {
      while (shared.length < POOL) shared.push(new SharedWorker());
    } catch {
      // no worker threads here: the replay computes everything itself
    }
    this.workers = shared.filter((w) => !w.failed);
  }

  /** Hand a block read ahead to the worker (when it is up). */
  submit(number: number, block: JsonObject): void {
    const ready = this.workers.filter((w) => w.ready);
    if (ready.length === 0) return;
    const claim = new Int32Array(new SharedArrayBuffer(4));
    const answer = ready[number % ready.length]!.request({ number, suite: this.suite, version: this.version, block, claim });
    this.pending.set(number, { claim, answer });
  }

  /**
   * The worker's results for the block, when they are in; else none (the replay computes them,
   * and the worker, told the replay has reached this block, skips it if it has not started it).
   */
  async take(number: number): Promise<AheadResults> {
    const job = this.pending.get(number);
    if (!job) return NONE;
    this.pending.delete(number);
    // not started by its worker: the replay computes it now (and the worker skips it); else its answer is the quickest way
    if (Atomics.compareExchange(job.claim, 0, 0, 2) === 0) return NONE;
    const result = await job.answer;
    if (!result) return NONE;
    return {
      signers: new Map(result.signers.map(([k, v]) => [k, v === null ? null : Uint8Array.from(Buffer.from(v, 'hex'))])),
      signatures: new Map(result.signatures),
    };
  }

  /** Forget results not taken (the replay stopped early). */
  close(): void {
    for (const { claim } of this.pending.values()) Atomics.compareExchange(claim, 0, 0, 2);
    this.pending.clear();
  }
}
