// Replay's crypto done ahead on other cores: blocks read ahead of the one being executed are sent
// (as their line's text) to worker threads (crypto-worker.ts) that re-encode and hash their
// transactions, recover their senders and verify their signatureList entries; a big block is
// split between the workers. The replay takes the results by position for the block it parsed
// from the same line, and computes itself any range no worker has started (or every range, where
// no worker runs). The workers are shared by every replay in the process, started on first use
// and unref'd.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { ProtocolVersion } from '../chain/index.js';
import type { CryptoSuite } from '../crypto/index.js';
import { chunkRanges, computeChunk, type ChunkRange, type ChunkResult } from './crypto-chunk.js';
import type { JsonObject } from './recording.js';

// Compiled (dist/), the worker runs crypto-worker.js itself; from the sources it starts through
// crypto-worker-boot.js, which registers tsx in the worker first.
const BOOT = new URL(import.meta.url.endsWith('.ts') ? './crypto-worker-boot.js' : './crypto-worker.js', import.meta.url);

export interface AheadRequest {
  readonly id: number;
  readonly number: number;
  readonly suite: 'ecdsa' | 'sm';
  readonly version: string;
  /** The block's line in the recording, as read. */
  readonly text: string;
  readonly range: ChunkRange;
  /**
   * Who computes this range, claimed with compareExchange from 0: 1 = the worker (the replay
   * waits for its answer), 2 = the replay itself (it got there first; the worker skips it).
   */
  readonly claim: Int32Array;
}

export interface AheadResult {
  readonly id: number;
  /** Absent when the worker skipped the range or could not read the line. */
  readonly result?: ChunkResult;
}

/** A block's crypto, by transaction index. */
export interface BlockCrypto {
  /** 1 where the transaction's hash and sender were computed (see ChunkResult). */
  readonly computed: Uint8Array;
  readonly hashes: Uint8Array;
  readonly senders: Uint8Array;
  /** blockSignatureKey → whether that signatureList entry verifies. */
  readonly signatures: ReadonlyMap<string, boolean>;
}

class SharedWorker {
  ready = false;
  failed = false;
  /** Settles once the worker is up or has failed. */
  readonly booted: Promise<void>;
  private settleBoot!: () => void;
  private nextId = 1;
  private readonly waiting = new Map<number, (result: ChunkResult | undefined) => void>();
  private readonly worker: Worker;

  constructor() {
    this.booted = new Promise((resolve) => (this.settleBoot = resolve));
    this.worker = new Worker(BOOT);
    this.worker.on('message', (message: AheadResult | 'ready') => {
      if (message === 'ready') {
        this.ready = true;
        this.settleBoot();
        return;
      }
      const done = this.waiting.get(message.id);
      this.waiting.delete(message.id);
      done?.(message.result);
      if (this.waiting.size === 0) this.worker.unref();
    });
    const fail = () => {
      this.failed = true;
      this.ready = false;
      this.settleBoot();
      for (const done of this.waiting.values()) done(undefined);
      this.waiting.clear();
    };
    this.worker.on('error', fail);
    this.worker.on('exit', fail);
    // after the listeners: adding a 'message' listener refs the worker's port again
    this.worker.unref();
  }

  /** Sends the requests in one message (one wake-up of the worker); each is answered on its own. */
  request(requests: ReadonlyArray<Omit<AheadRequest, 'id'>>): Array<Promise<ChunkResult | undefined>> {
    const sent: AheadRequest[] = [];
    const answers = requests.map(
      (request) =>
        new Promise<ChunkResult | undefined>((resolve) => {
          const id = this.nextId++;
          this.waiting.set(id, resolve);
          sent.push({ ...request, id });
        }),
    );
    if (sent.length > 0) {
      // referenced while answers are due, so that a replay waiting on one is not left hanging
      this.worker.ref();
      this.worker.postMessage(sent);
    }
    return answers;
  }
}

/** Workers shared by every replay in the process: two where there are at least two cores. */
const POOL = Math.min(2, Math.max(1, availableParallelism()));
const shared: SharedWorker[] = [];

function startPool(): void {
  try {
    while (shared.length < POOL) shared.push(new SharedWorker());
  } catch {
    // no worker threads here: replays compute everything themselves
  }
}

/** Start the shared workers (if not yet) and wait until they are up; how many are. */
export async function cryptoWorkersReady(): Promise<number> {
  startPool();
  await Promise.all(shared.map((w) => w.booted));
  return shared.filter((w) => w.ready).length;
}

/** Ranges of transactions whose crypto the workers answered, and those computed on the replay's thread, since the process started. */
export const cryptoRangeCounts = { workers: 0, here: 0 };

interface Job {
  readonly range: ChunkRange;
  readonly claim: Int32Array;
  readonly answer: Promise<ChunkResult | undefined>;
}

/** One replay's view of the shared workers. */
export class CryptoAhead {
  private readonly pending = new Map<number, Job[]>();
  private readonly workers: SharedWorker[] = [];
  private turn = 0;

  constructor(
    private readonly suite: CryptoSuite,
    private readonly version: ProtocolVersion,
    enabled: boolean,
  ) {
    if (!enabled) return;
    startPool();
    this.workers = shared.filter((w) => !w.failed);
  }

  /** Hand blocks read ahead to the workers that are up, big ones split by chunkRanges, one message per worker. */
  submit(blocks: ReadonlyArray<{ readonly number: number; readonly text: string; readonly transactions: number }>): void {
    const ready = this.workers.filter((w) => w.ready);
    if (ready.length === 0 || blocks.length === 0) return;
    const perWorker = ready.map(() => [] as Array<{ request: Omit<AheadRequest, 'id'>; job: { range: ChunkRange; claim: Int32Array; answer?: Promise<ChunkResult | undefined> } }>);
    for (const { number, text, transactions } of blocks) {
      const jobs = chunkRanges(transactions, ready.length).map((range) => {
        const claim = new Int32Array(new SharedArrayBuffer(4));
        const job: { range: ChunkRange; claim: Int32Array; answer?: Promise<ChunkResult | undefined> } = { range, claim };
        perWorker[this.turn++ % ready.length]!.push({ request: { number, suite: this.suite.name, version: this.version.text, text, range, claim }, job });
        return job;
      });
      this.pending.set(number, jobs as Job[]);
    }
    perWorker.forEach((items, w) => {
      const answers = ready[w]!.request(items.map((i) => i.request));
      items.forEach((item, k) => {
        item.job.answer = answers[k];
      });
    });
  }

  /**
   * The block's crypto: the workers' answers where they started a range, computed here for the
   * rest (a worker told the replay got there first skips its range).
   */
  async take(number: number, block: JsonObject, transactions: number): Promise<BlockCrypto> {
    const jobs = this.pending.get(number) ?? [];
    this.pending.delete(number);
    const results = await Promise.all(
      (jobs.length > 0 ? jobs : [{ range: { from: 0, to: transactions, signatures: true }, claim: undefined, answer: undefined }]).map(async (job) => {
        const mine = () => {
          cryptoRangeCounts.here++;
          return computeChunk(block, number, job.range, this.suite, this.version);
        };
        // not started by its worker: computed here (the worker skips it); else its answer is the quickest way
        if (!job.claim || Atomics.compareExchange(job.claim, 0, 0, 2) === 0) return mine();
        const answer = await job.answer;
        if (!answer) return mine();
        cryptoRangeCounts.workers++;
        return answer;
      }),
    );
    const computed = new Uint8Array(transactions);
    const hashes = new Uint8Array(32 * transactions);
    const senders = new Uint8Array(20 * transactions);
    const signatures = new Map<string, boolean>();
    for (const r of results) {
      computed.set(r.computed.subarray(0, Math.max(0, transactions - r.from)), r.from);
      hashes.set(r.hashes.subarray(0, 32 * Math.max(0, transactions - r.from)), 32 * r.from);
      senders.set(r.senders.subarray(0, 20 * Math.max(0, transactions - r.from)), 20 * r.from);
      for (const [k, ok] of r.signatures) signatures.set(k, ok);
    }
    return { computed, hashes, senders, signatures };
  }

  /** Forget results not taken (the replay stopped early). */
  close(): void {
    for (const jobs of this.pending.values()) for (const { claim } of jobs) Atomics.compareExchange(claim, 0, 0, 2);
    this.pending.clear();
  }
}
