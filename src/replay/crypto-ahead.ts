// Replay's work done ahead on other cores: blocks read ahead of the one being executed go (their
// line's bytes, shared) to worker threads (crypto-worker.ts), which answer each part of a block
// three times: first the part prepared (block-prep.ts: parsed and packed, in slices), then its
// recorded receipts encoded, then its crypto (hashes and senders recomputed, signatureList
// verified). A big block is cut
// into parts (planParts), given to the workers in turn. The requests come from the reader thread
// directly (block-feed.ts), through a message channel to each worker, or from the replay's thread
// where it reads itself; the answers come to the replay's thread, which takes them by position
// for the block it is at; where the workers are two or more parts behind, it computes the later
// half of those itself (stealFromBehind), so that it shares their work rather than wait.
// The workers are shared by every replay in the process, started on first use, unref'd while
// idle, and run at a lower priority than the replay's own thread, which is the one everything
// waits for.
import { availableParallelism } from 'node:os';
import { MessageChannel, Worker, type MessagePort } from 'node:worker_threads';
import { BLOOM_BYTES, type ProtocolVersion } from '../chain/index.js';
import type { ExpectedReceipt } from '../exec/index.js';
import type { CryptoSuite } from '../crypto/index.js';
import { computeChunk, partRange, type ChunkResult, type PreparedRange, type ReceiptEncodings } from './block-prep.js';
import { planParts, requestKey, type AheadAnswer, type AheadRequest } from './ahead-protocol.js';
import type { JsonObject } from './recording.js';
import { isReadyMessage, type ThreadReady } from './worker-ready.js';

// Compiled (dist/), the worker runs crypto-worker.js itself; from the sources it starts through
// crypto-worker-boot.js, which registers tsx in the worker first.
const BOOT = new URL(import.meta.url.endsWith('.ts') ? './crypto-worker-boot.js' : './crypto-worker.js', import.meta.url);

/** A block's crypto, by transaction index. */
export interface BlockCrypto {
  /** 1 where the transaction's hash and sender were computed (see ChunkResult). */
  readonly computed: Uint8Array;
  readonly hashes: Uint8Array;
  readonly senders: Uint8Array;
  /** blockSignatureKey → whether that signatureList entry verifies. */
  readonly signatures: ReadonlyMap<string, boolean>;
  /** Recorded receipt `index`'s encoding, log count, the bloom of its logs and its hash, where a worker encoded it (made on each call: nothing per receipt outlives its use). */
  readonly receipt: (index: number) => RecordedReceiptEncoding | undefined;
}

/** A recorded receipt as a worker encoded it: what the executor expects (ExpectedReceipt), and its log count. */
export interface RecordedReceiptEncoding extends ExpectedReceipt {
  readonly logs: number;
}

/**
 * The young generation of a worker's heap. A block's parsed JSON (a few MB for a thousand
 * transactions) lives through both steps; in V8's default young generation most of it is copied
 * out and promoted, to be marked again later by the collector's threads. Measured on the exec-bench
 * workload: 64 MB saves about 0.1 s of CPU in 1.3 s (fewer scavenges and old-generation marks).
 */
const YOUNG_GENERATION_MB = 64;

/** A part's prepared slices as they arrive; undefined where the worker sent none (or no more will come). */
class Slices {
  private readonly arrived: Array<PreparedRange | undefined> = [];
  private wake: (() => void) | undefined;

  push(slice: PreparedRange | undefined): void {
    this.arrived.push(slice);
    this.wake?.();
    this.wake = undefined;
  }

  async next(): Promise<PreparedRange | undefined> {
    while (this.arrived.length === 0) await new Promise<void>((resolve) => (this.wake = resolve));
    return this.arrived.shift();
  }
}

/** A part's recorded receipts as a worker encoded them; the part starts at transaction `from`. */
interface PartReceipts {
  readonly from: number;
  readonly receipts: ReceiptEncodings;
}

interface Answers {
  readonly prepared: Slices;
  /** Settles before `crypto` (undefined where the worker sent none). */
  readonly receipts: Promise<PartReceipts | undefined>;
  readonly crypto: Promise<ChunkResult | undefined>;
}

interface Waiting {
  readonly prepared: Slices;
  receipts: (receipts: PartReceipts | undefined) => void;
  crypto: (result: ChunkResult | undefined) => void;
}

class SharedWorker {
  ready = false;
  failed = false;
  /** Settles once the worker is up or has failed. */
  readonly booted: Promise<void>;
  private settleBoot!: () => void;
  private readonly waiting = new Map<string, Waiting>();
  /** Answers to requests the reader thread sent before this thread heard of them. */
  private readonly early = new Map<string, AheadAnswer[]>();
  private readonly worker: Worker;

  constructor() {
    this.booted = new Promise((resolve) => (this.settleBoot = resolve));
    this.worker = new Worker(BOOT, { resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB } });
    this.worker.on('message', (message: AheadAnswer | ThreadReady) => {
      if (isReadyMessage(message)) {
        this.ready = true;
        this.settleBoot();
        if (this.waiting.size === 0) this.worker.unref();
        return;
      }
      const waiting = this.waiting.get(message.key);
      if (!waiting) {
        const known = this.early.get(message.key);
        if (known) known.push(message);
        else this.early.set(message.key, [message]);
        return;
      }
      this.deliver(waiting, message);
    });
    const fail = () => {
      this.failed = true;
      this.ready = false;
      this.settleBoot();
      for (const w of this.waiting.values()) {
        w.prepared.push(undefined);
        w.receipts(undefined);
        w.crypto(undefined);
      }
      this.waiting.clear();
    };
    this.worker.on('error', fail);
    this.worker.on('exit', fail);
    // referenced while it boots (cryptoWorkersReady waits for that), then only while answers are due
  }

  private deliver(waiting: Waiting, message: AheadAnswer): void {
    if (message.step === 'prepared') {
      waiting.prepared.push(message.prepared);
      return;
    }
    if (message.step === 'receipts') {
      waiting.receipts(message.receipts ? { from: message.from, receipts: message.receipts } : undefined);
      return;
    }
    this.waiting.delete(message.key);
    // (settled already where the receipts came first)
    waiting.receipts(undefined);
    waiting.crypto(message.result);
    if (this.waiting.size === 0) this.worker.unref();
  }

  /** The answers to the request `key` (sent by this thread or by the reader thread). */
  expect(key: string): Answers {
    const prepared = new Slices();
    const waiting: Waiting = { prepared, receipts: () => undefined, crypto: () => undefined };
    const receipts = new Promise<PartReceipts | undefined>((resolve) => (waiting.receipts = resolve));
    const crypto = new Promise<ChunkResult | undefined>((resolve) => (waiting.crypto = resolve));
    if (this.failed) {
      prepared.push(undefined);
      waiting.receipts(undefined);
      waiting.crypto(undefined);
      return { prepared, receipts, crypto };
    }
    // referenced while answers are due, so that a replay waiting on one is not left hanging
    this.worker.ref();
    this.waiting.set(key, waiting);
    const early = this.early.get(key);
    if (early) {
      this.early.delete(key);
      for (const message of early) this.deliver(waiting, message);
    }
    return { prepared, receipts, crypto };
  }

  /** Sends the requests in one message (one wake-up of the worker). */
  request(requests: readonly AheadRequest[]): void {
    if (requests.length > 0) this.worker.postMessage(requests);
  }

  /** A channel for another thread (the reader) to send requests on; its end is returned. */
  channel(): MessagePort {
    const { port1, port2 } = new MessageChannel();
    this.worker.postMessage({ port: port1 }, [port1]);
    return port2;
  }

  /** Drop what is kept for the requests of a replay that stopped (keys starting `prefix`). */
  forget(prefix: string): void {
    for (const key of this.early.keys()) if (key.startsWith(prefix)) this.early.delete(key);
    for (const [key, waiting] of this.waiting) {
      if (!key.startsWith(prefix)) continue;
      this.waiting.delete(key);
      waiting.prepared.push(undefined);
      waiting.receipts(undefined);
      waiting.crypto(undefined);
    }
    if (this.waiting.size === 0 && this.ready) this.worker.unref();
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

interface Job extends Answers {
  readonly part: number;
  readonly parts: number;
  readonly claim: Int32Array;
  /** Its worker has answered its crypto. */
  answered: boolean;
  /** Its recorded receipts, once its worker has sent them. */
  receiptsIn?: PartReceipts;
}

/**
 * The parts of a block this thread computes itself (claimed, so their workers skip them): the
 * later half of those no worker has started, where that is two or more. A worker takes its parts
 * in order, so one part behind it is done about as soon as this thread could parse the block's
 * line and compute it (parsing a line of a thousand transactions alone takes about as long as a
 * part's crypto); further behind, this thread and the worker each take half and finish together.
 */
export function stealFromBehind<J extends { readonly claim: Int32Array }>(jobs: readonly J[]): Set<J> {
  const unstarted = jobs.filter((job) => Atomics.load(job.claim, 0) === 0);
  const take = unstarted.slice(unstarted.length - Math.floor(unstarted.length / 2));
  return new Set(take.filter((job) => Atomics.compareExchange(job.claim, 0, 0, 2) === 0));
}

let replays = 0;

/** One replay's view of the shared workers. */
export class CryptoAhead {
  /** This replay's number in the process: the first part of its request keys. */
  readonly id = ++replays;
  /** The jobs of each block until its crypto is taken in full. */
  private readonly pending = new Map<number, Job[]>();
  private readonly workers: SharedWorker[];
  private turn = 0;

  private constructor(
    readonly suite: CryptoSuite,
    readonly version: ProtocolVersion,
    workers: SharedWorker[],
  ) {
    this.workers = workers;
  }

  /** A replay's view of the workers once they are up (none when `enabled` is false or no worker starts). */
  static async start(suite: CryptoSuite, version: ProtocolVersion, enabled: boolean): Promise<CryptoAhead> {
    if (!enabled) return new CryptoAhead(suite, version, []);
    await cryptoWorkersReady();
    return new CryptoAhead(suite, version, shared.filter((w) => w.ready).slice(0, workersFor(suite)));
  }

  /** How many workers this replay uses. */
  get size(): number {
    return this.workers.length;
  }

  /** A message port to each worker this replay uses, for the reader thread to send it requests. */
  channels(): MessagePort[] {
    return this.workers.map((w) => w.channel());
  }

  /** Send block lines to the workers (this thread read them), long ones split between them, one message per worker. */
  submit(blocks: ReadonlyArray<{ readonly number: number; readonly bytes: Uint8Array }>): void {
    if (this.workers.length === 0 || blocks.length === 0) return;
    const perWorker = this.workers.map(() => [] as AheadRequest[]);
    for (const { number, bytes } of blocks) {
      const plan = planParts(bytes.length, this.workers.length, this.turn);
      this.turn += plan.length;
      for (const p of plan) {
        perWorker[p.worker]!.push({ key: requestKey(this.id, number, p.part), number, suite: this.suite.name, version: this.version.text, bytes, part: p.part, parts: p.parts, claim: p.claim });
      }
      this.expect(number, plan);
    }
    perWorker.forEach((requests, w) => this.workers[w]!.request(requests));
  }

  /** Expect the answers to the parts of block `number` that were sent to the workers (by the reader thread, or submit). */
  expect(number: number, plan: ReadonlyArray<{ readonly worker: number; readonly part: number; readonly parts: number; readonly claim: Int32Array }>): void {
    if (plan.length === 0 || this.workers.length === 0) return;
    const jobs = plan.map((p) => {
      const job: Job = { part: p.part, parts: p.parts, claim: p.claim, answered: false, ...this.workers[p.worker]!.expect(requestKey(this.id, number, p.part)) };
      void job.receipts.then((receipts) => {
        if (receipts) job.receiptsIn = receipts;
      });
      void job.crypto.then(() => (job.answered = true));
      return job;
    });
    this.pending.set(number, jobs);
  }

  /** Whether the workers have answered the crypto of every part of block `number` (take then computes nothing here); false where no worker has it. */
  ready(number: number): boolean {
    const jobs = this.pending.get(number);
    return jobs !== undefined && jobs.length > 0 && jobs.every((job) => job.answered);
  }

  /**
   * The recorded receipts of block `number` (of `transactions`) that the workers have sent so far
   * (they send a part's receipts before its crypto): without waiting for the others or computing
   * anything here.
   */
  receiptsSoFar(number: number, transactions: number): (index: number) => RecordedReceiptEncoding | undefined {
    return receiptLookup((this.pending.get(number) ?? []).flatMap((job) => (job.receiptsIn ? [job.receiptsIn] : [])), transactions);
  }

  /**
   * The block's prepared slices, in order, part after part, as the workers send them: each call
   * of the function returned gives the next slice, 'end' after the last, undefined where a part
   * came without one (no worker could prepare it). Undefined where no worker has the block.
   * Preparing is quick next to the crypto, and the worker holding a part does it before anything
   * later, so this waits for it rather than doing it here.
   */
  preparedSlices(number: number): (() => Promise<PreparedRange | 'end' | undefined>) | undefined {
    const jobs = this.pending.get(number);
    if (!jobs || jobs.length === 0) return undefined;
    let job = 0;
    return async () => {
      if (job === jobs.length) return 'end';
      const slice = await jobs[job]!.prepared.next();
      if (!slice) job = jobs.length;
      else if (slice.last) job++;
      return slice;
    };
  }

  /**
   * The block's crypto: the workers' answers, and where they are behind, parts computed here (a
   * worker told the replay got there first skips its part). `block` parses the line, only needed
   * where this thread computes a part.
   */
  async take(number: number, block: () => JsonObject, transactions: number): Promise<BlockCrypto> {
    const jobs = this.pending.get(number) ?? [];
    const mine = (part: number, parts: number) => {
      cryptoRangeCounts.here++;
      return computeChunk(block(), number, { ...partRange(transactions, part, parts), signatures: part === 0 }, this.suite, this.version);
    };
    const answerOf = async (job: Job): Promise<ChunkResult> => {
      if (stolen.has(job)) return mine(job.part, job.parts);
      const answer = await job.crypto;
      if (!answer) return mine(job.part, job.parts);
      cryptoRangeCounts.workers++;
      return answer;
    };
    const stolen = stealFromBehind(jobs);
    const results = jobs.length === 0 ? [mine(0, 1)] : await Promise.all(jobs.map(answerOf));
    // a worker sends a part's receipts before its crypto (none for a part computed here: its receipts are compared field by field)
    const receipts = (await Promise.all(jobs.map((job) => job.receipts))).filter((r): r is PartReceipts => r !== undefined);
    this.pending.delete(number);
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
    return { computed, hashes, senders, signatures, receipt: receiptLookup(receipts, transactions) };
  }

  /** Forget results not taken (the replay stopped early); the workers skip what they have not started. */
  close(): void {
    for (const jobs of this.pending.values()) for (const { claim } of jobs) Atomics.compareExchange(claim, 0, 0, 2);
    this.pending.clear();
    for (const w of this.workers) w.forget(`${this.id}:`);
  }
}

/** The recorded receipts of `parts`, by index in a block of `transactions` (made on each call). */
function receiptLookup(parts: readonly PartReceipts[], transactions: number): (index: number) => RecordedReceiptEncoding | undefined {
  return (index) => {
    if (index >= transactions) return undefined;
    for (const { from, receipts: e } of parts) {
      const k = index - from;
      if (k < 0 || k >= e.encoded.length) continue;
      if (!e.encoded[k]) return undefined;
      return {
        encoding: e.bytes.subarray(e.offsets[k]!, e.offsets[k + 1]!),
        logs: e.logCounts[k]!,
        bloom: e.blooms.subarray(BLOOM_BYTES * k, BLOOM_BYTES * (k + 1)),
        hash: e.hashes.subarray(32 * k, 32 * (k + 1)),
      };
    }
    return undefined;
  };
}
