// Replay's work done ahead on other cores: blocks read ahead of the one being executed are sent
// (as their line's text) to worker threads (crypto-worker.ts), which answer each part of a block
// twice: first the part prepared (block-prep.ts: parsed, re-encoded, hashed), then its crypto
// (senders recovered, signatureList verified, receipts encoded). A big block is split
// between the workers. The replay takes the answers by position for the block it is at, and
// computes itself any part no worker has started (or every part, where no worker runs). The
// workers are shared by every replay in the process, started on first use, unref'd, and run at a
// lower priority than the replay's own thread, which is the one everything waits for.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { ProtocolVersion } from '../chain/index.js';
import type { CryptoSuite } from '../crypto/index.js';
import { partRange, type PreparedRange } from './block-prep.js';
import { computeChunk, type ChunkResult } from './crypto-chunk.js';
import type { JsonObject } from './recording.js';

// Compiled (dist/), the worker runs crypto-worker.js itself; from the sources it starts through
// crypto-worker-boot.js, which registers tsx in the worker first.
const BOOT = new URL(import.meta.url.endsWith('.ts') ? './crypto-worker-boot.js' : './crypto-worker.js', import.meta.url);

/** Lines at least this long (a few hundred transactions) are split between the workers. */
const SPLIT_CHARS = 300_000;

export interface AheadRequest {
  readonly id: number;
  readonly number: number;
  readonly suite: 'ecdsa' | 'sm';
  readonly version: string;
  /** The block's line in the recording, as read. */
  readonly text: string;
  /** Which part of the block's transactions (partRange). */
  readonly part: number;
  readonly parts: number;
  /**
   * Who computes this part's crypto, claimed with compareExchange from 0: 1 = the worker (the
   * replay waits for its answer), 2 = the replay itself (it got there first, or stopped: the
   * worker skips it, and skips preparing it too if it has not started that).
   */
  readonly claim: Int32Array;
}

/** A worker's answers to one request: `prepared` first, then `crypto`; each absent when the worker skipped the part or could not read the line. */
export type AheadAnswer = { readonly id: number; readonly step: 'prepared'; readonly prepared?: PreparedRange } | { readonly id: number; readonly step: 'crypto'; readonly result?: ChunkResult };

/** A block's crypto, by transaction index. */
export interface BlockCrypto {
  /** 1 where the transaction's hash and sender were computed (see ChunkResult). */
  readonly computed: Uint8Array;
  readonly hashes: Uint8Array;
  readonly senders: Uint8Array;
  /** blockSignatureKey → whether that signatureList entry verifies. */
  readonly signatures: ReadonlyMap<string, boolean>;
  /** Each recorded receipt's encoding and log count, where a worker encoded it. */
  readonly receipts: ReadonlyArray<{ readonly bytes: Uint8Array; readonly logs: number } | undefined>;
}

interface Waiting {
  prepared: (prepared: PreparedRange | undefined) => void;
  crypto: (result: ChunkResult | undefined) => void;
}

class SharedWorker {
  ready = false;
  failed = false;
  /** Settles once the worker is up or has failed. */
  readonly booted: Promise<void>;
  private settleBoot!: () => void;
  private nextId = 1;
  private readonly waiting = new Map<number, Waiting>();
  private readonly worker: Worker;

  constructor() {
    this.booted = new Promise((resolve) => (this.settleBoot = resolve));
    this.worker = new Worker(BOOT);
    this.worker.on('message', (message: AheadAnswer | 'ready') => {
      if (message === 'ready') {
        this.ready = true;
        this.settleBoot();
        return;
      }
      const waiting = this.waiting.get(message.id);
      if (message.step === 'prepared') {
        waiting?.prepared(message.prepared);
        return;
      }
      this.waiting.delete(message.id);
      waiting?.crypto(message.result);
      if (this.waiting.size === 0) this.worker.unref();
    });
    const fail = () => {
      this.failed = true;
      this.ready = false;
      this.settleBoot();
      for (const w of this.waiting.values()) {
        w.prepared(undefined);
        w.crypto(undefined);
      }
      this.waiting.clear();
    };
    this.worker.on('error', fail);
    this.worker.on('exit', fail);
    // after the listeners: adding a 'message' listener refs the worker's port again
    this.worker.unref();
  }

  /** Sends the requests in one message (one wake-up of the worker); each is answered on its own, twice. */
  request(requests: ReadonlyArray<Omit<AheadRequest, 'id'>>): Array<{ prepared: Promise<PreparedRange | undefined>; crypto: Promise<ChunkResult | undefined> }> {
    const sent: AheadRequest[] = [];
    const answers = requests.map((request) => {
      const id = this.nextId++;
      let waiting!: Waiting;
      const prepared = new Promise<PreparedRange | undefined>((resolve) => (waiting = { prepared: resolve, crypto: () => undefined }));
      const crypto = new Promise<ChunkResult | undefined>((resolve) => (waiting.crypto = resolve));
      this.waiting.set(id, waiting);
      sent.push({ ...request, id });
      return { prepared, crypto };
    });
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

/**
 * How many of them one replay uses. SM2 verification (pure JavaScript, ~1 ms) costs more than
 * executing the transaction, so an SM replay waits for its crypto and uses every worker. ECDSA
 * recovery (native) costs less than execution: the replay's own thread is the slower one, and a
 * worker more than the cores left beside it only takes CPU from it (measured: the exec-bench
 * workload replays faster on two cores with one worker than with two).
 */
function workersFor(suite: CryptoSuite): number {
  return suite.name === 'sm' ? POOL : Math.max(1, Math.min(POOL, availableParallelism() - 1));
}
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

/** Parts of blocks whose crypto the workers answered, and those computed on the replay's thread, since the process started. */
export const cryptoRangeCounts = { workers: 0, here: 0 };

interface Job {
  readonly part: number;
  readonly parts: number;
  readonly claim: Int32Array;
  readonly prepared: Promise<PreparedRange | undefined>;
  readonly crypto: Promise<ChunkResult | undefined>;
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
    this.workers = shared.filter((w) => !w.failed).slice(0, workersFor(suite));
  }

  /** Hand block lines read ahead to the workers that are up, long ones split between them, one message per worker. */
  submit(blocks: ReadonlyArray<{ readonly number: number; readonly text: string }>): void {
    const ready = this.workers.filter((w) => w.ready);
    if (ready.length === 0 || blocks.length === 0) return;
    const perWorker = ready.map(() => [] as Array<{ request: Omit<AheadRequest, 'id'>; place: { number: number; part: number } }>);
    for (const { number, text } of blocks) {
      const parts = text.length >= SPLIT_CHARS ? ready.length : 1;
      const claims = Array.from({ length: parts }, () => new Int32Array(new SharedArrayBuffer(4)));
      for (let part = 0; part < parts; part++) {
        const request = { number, suite: this.suite.name, version: this.version.text, text, part, parts, claim: claims[part]! };
        perWorker[this.turn++ % ready.length]!.push({ request, place: { number, part } });
      }
      this.pending.set(number, []);
    }
    perWorker.forEach((items, w) => {
      const answers = ready[w]!.request(items.map((i) => i.request));
      items.forEach(({ request, place }, k) => {
        const jobs = this.pending.get(place.number)!;
        jobs[place.part] = { part: place.part, parts: request.parts, claim: request.claim, ...answers[k]! };
      });
    });
  }

  /**
   * The block's parts as the workers prepared them, in order; undefined where no worker has it
   * or a part could not be prepared. Preparing is quick next to the crypto, and the worker holding
   * a part does it before anything later, so this waits for it rather than doing it here.
   */
  async prepared(number: number): Promise<PreparedRange[] | undefined> {
    const jobs = this.pending.get(number);
    if (!jobs || jobs.length === 0) return undefined;
    const parts = await Promise.all(jobs.map((j) => j.prepared));
    return parts.every((p) => p !== undefined) ? parts : undefined;
  }

  /**
   * The block's crypto: the workers' answers where they started a part, computed here for the
   * rest (a worker told the replay got there first skips its part). `block` parses the line,
   * only needed where this thread computes a part.
   */
  async take(number: number, block: () => JsonObject, transactions: number): Promise<BlockCrypto> {
    const jobs = this.pending.get(number) ?? [];
    this.pending.delete(number);
    const mine = (part: number, parts: number) => {
      cryptoRangeCounts.here++;
      return computeChunk(block(), number, { ...partRange(transactions, part, parts), signatures: part === 0 }, this.suite, this.version);
    };
    // a part not started by its worker is computed here (the worker skips it); else its answer is the quickest way
    const answerOf = async (job: Job): Promise<ChunkResult> => {
      if (Atomics.compareExchange(job.claim, 0, 0, 2) === 0) return mine(job.part, job.parts);
      const answer = await job.crypto;
      if (!answer) return mine(job.part, job.parts);
      cryptoRangeCounts.workers++;
      return answer;
    };
    const results = jobs.length === 0 ? [mine(0, 1)] : await Promise.all(jobs.map(answerOf));
    const computed = new Uint8Array(transactions);
    const hashes = new Uint8Array(32 * transactions);
    const senders = new Uint8Array(20 * transactions);
    const signatures = new Map<string, boolean>();
    const receipts: Array<{ bytes: Uint8Array; logs: number } | undefined> = new Array(transactions).fill(undefined);
    for (const r of results) {
      computed.set(r.computed.subarray(0, Math.max(0, transactions - r.from)), r.from);
      hashes.set(r.hashes.subarray(0, 32 * Math.max(0, transactions - r.from)), 32 * r.from);
      senders.set(r.senders.subarray(0, 20 * Math.max(0, transactions - r.from)), 20 * r.from);
      for (const [k, ok] of r.signatures) signatures.set(k, ok);
      const e = r.receipts;
      if (e) for (let k = 0; k < e.encoded.length && r.from + k < transactions; k++) if (e.encoded[k]) receipts[r.from + k] = { bytes: e.bytes.subarray(e.offsets[k]!, e.offsets[k + 1]!), logs: e.logCounts[k]! };
    }
    return { computed, hashes, senders, signatures, receipts };
  }

  /** Forget results not taken (the replay stopped early). */
  close(): void {
    for (const jobs of this.pending.values()) for (const { claim } of jobs) Atomics.compareExchange(claim, 0, 0, 2);
    this.pending.clear();
  }
}
