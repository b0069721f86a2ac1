// Replay's crypto done ahead on another core: blocks read ahead of the one being executed are
// sent to a worker thread (crypto-worker.ts) that recovers their transactions' signers and
// verifies their signatureList entries; the replay then takes those results where it would have
// computed exactly the same thing (keys in crypto-keys.ts), and computes anything missing itself.
// The worker is shared by every replay in the process, started on first use and unref'd; until
// it has booted (or where it cannot start) the replay computes everything on its own thread.
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

let shared: SharedWorker | undefined;

/** One replay's view of the shared worker. */
export class CryptoAhead {
  private readonly pending = new Map<number, Promise<AheadResult | undefined>>();
  /** [0]: the block reached without the worker's answer; [1]: the block the worker has started. */
  private readonly progress = new Int32Array(new SharedArrayBuffer(8));
  private readonly worker: SharedWorker | undefined;

  constructor(
    private readonly suite: 'ecdsa' | 'sm',
    private readonly version: string,
    enabled: boolean,
  ) {
    if (enabled && !shared?.failed) {
      try {
        shared ??= new SharedWorker();
        this.worker = shared;
      } catch {
        this.worker = undefined;
      }
    }
  }

  /** Hand a block read ahead to the worker (when it is up). */
  submit(number: number, block: JsonObject): void {
    if (!this.worker?.ready) return;
    this.pending.set(number, this.worker.request({ number, suite: this.suite, version: this.version, block, progress: this.progress }));
  }

  /**
   * The worker's results for the block, when they are in; else none (the replay computes them,
   * and the worker, told the replay has reached this block, skips it if it has not started it).
   */
  async take(number: number): Promise<AheadResults> {
    const job = this.pending.get(number);
    if (!job) return NONE;
    this.pending.delete(number);
    // the worker works in order: once it has started this block, its answer is the quickest way
    if (Atomics.load(this.progress, 1) < number) {
      Atomics.store(this.progress, 0, number);
      if (Atomics.load(this.progress, 1) < number) return NONE;
    }
    const result = await job;
    if (!result) return NONE;
    return {
      signers: new Map(result.signers.map(([k, v]) => [k, v === null ? null : Uint8Array.from(Buffer.from(v, 'hex'))])),
      signatures: new Map(result.signatures),
    };
  }

  /** Forget results not taken (the replay stopped early). */
  close(): void {
    Atomics.store(this.progress, 0, 0x7fffffff);
    this.pending.clear();
  }
}
