// The block lines of a recording, in order, for the replay: read ahead (bounded in lines and
// bytes), numbered, cut at --to, and each handed to the workers (CryptoAhead) as soon as it is
// read. Two ways of reading: on a thread of its own (line-reader-worker.ts), which sends each
// line straight to the workers and to the replay's thread, so that neither reading, gunzip nor
// the workers' next request ever waits for the replay's thread; or on the replay's thread itself
// where that thread cannot start. A read error, or a line that cannot be read as the next block,
// waits for its turn: the blocks before it replay first.
import { Worker, type MessagePort } from 'node:worker_threads';
import type { CryptoAhead } from './crypto-ahead.js';
import { rawBlockLine, RecordingError, type RawBlockLine, type RecordedBlock, type RecordingReader } from './recording.js';
import { isReadyMessage, type ThreadReady } from './worker-ready.js';

/** One block line, numbered; `parsed` where it had to be parsed to be numbered. */
export interface FedBlock {
  readonly line: RawBlockLine;
  readonly number: number;
  readonly parsed?: RecordedBlock;
}

export interface BlockFeed {
  /** The next block, in order; undefined after the last (or --to). A read error throws here, at its turn. */
  next(): Promise<FedBlock | undefined>;
  close(): Promise<void>;
}

export interface FeedLimits {
  /** Blocks read ahead of the one being replayed, and bytes of their lines (but 2 blocks at least). */
  readonly lines: number;
  readonly bytes: number;
}

/**
 * Whether `lines` block lines of `bytes` read and not yet replayed fill `share` of the limits (two
 * lines never do: the block being replayed and the next are always read). Both feeds read up to
 * it; the replay's thread refills from half.
 */
export function readAheadFull(lines: number, bytes: number, limits: FeedLimits, share = 1): boolean {
  return lines >= 2 && (lines >= limits.lines * share || bytes >= limits.bytes * share);
}

/** Replays that read on the reader thread, and on their own thread, since the process started. */
export const feedCounts = { readerThread: 0, replayThread: 0 };

/** Numbers lines as blocks from `from` on, stops after `to`: the part both feeds share. */
class Numbering {
  private expected: number;
  constructor(
    from: number,
    private readonly to: number | undefined,
  ) {
    this.expected = from;
  }

  /** The line as the next block, undefined past --to; throws for a line that is not the next block. */
  take(line: RawBlockLine): FedBlock | undefined {
    // a line that does not start as the writer writes it is parsed here, to know its number (or say what is wrong)
    const parsed = line.number === this.expected ? undefined : line.parse(this.expected);
    const number = this.expected++;
    if (this.to !== undefined && number > this.to) return undefined;
    return { line, number, ...(parsed ? { parsed } : {}) };
  }
}

/** Reads on the replay's own thread, in batches once half of what is read ahead is used. */
export class ThreadFeed implements BlockFeed {
  private readonly queue: Array<FedBlock | { error: unknown }> = [];
  private queuedBytes = 0;
  private exhausted = false;
  private readonly source: AsyncGenerator<RawBlockLine>;
  private readonly numbering: Numbering;

  constructor(
    reader: RecordingReader,
    to: number | undefined,
    private readonly ahead: CryptoAhead,
    private readonly limits: FeedLimits,
  ) {
    this.source = reader.rawBlockLines();
    this.numbering = new Numbering(reader.header.from, to);
    feedCounts.replayThread++;
  }

  private async fill(): Promise<void> {
    if (this.exhausted || readAheadFull(this.queue.length, this.queuedBytes, this.limits, 0.5)) return;
    let batch: Array<{ number: number; bytes: Uint8Array }> = [];
    let batchBytes = 0;
    const submit = () => {
      this.ahead.submit(batch);
      batch = [];
      batchBytes = 0;
    };
    while (!this.exhausted && !readAheadFull(this.queue.length, this.queuedBytes, this.limits)) {
      let block: FedBlock | undefined;
      try {
        const next = await this.source.next();
        if (next.done) {
          this.exhausted = true;
          break;
        }
        block = this.numbering.take(next.value);
      } catch (error) {
        this.queue.push({ error });
        this.exhausted = true;
        break;
      }
      if (!block) {
        this.exhausted = true;
        break;
      }
      batch.push({ number: block.number, bytes: block.line.bytes });
      batchBytes += block.line.bytes.length;
      this.queue.push(block);
      this.queuedBytes += block.line.bytes.length;
      // a long line goes to the workers at once, while the next is read
      if (batchBytes >= SUBMIT_BYTES) submit();
    }
    submit();
  }

  async next(): Promise<FedBlock | undefined> {
    await this.fill();
    const item = this.queue.shift();
    if (!item) return undefined;
    if ('error' in item) throw item.error;
    this.queuedBytes -= item.line.bytes.length;
    return item;
  }

  async close(): Promise<void> {
    await this.source.return(undefined);
  }
}

/** Block lines go to the workers in batches of this many bytes (or the lines read ahead, if fewer). */
const SUBMIT_BYTES = 200_000;

// ---- reading on a worker thread -------------------------------------------------------------

/** How a block line went to the workers: each part, the worker (of the replay's) it went to, and its claim. */
export type PartPlan = ReadonlyArray<{ readonly worker: number; readonly part: number; readonly parts: number; readonly claim: Int32Array }>;

/** What the reader thread is told: open a recording (a session), how far the replay has got, stop. */
export type ReaderRequest =
  | {
      readonly type: 'open';
      readonly session: number;
      readonly file: string;
      readonly limits: FeedLimits;
      /** The first block's number, and the last to read (--to). */
      readonly from: number;
      readonly to?: number;
      /** Where the lines go besides the replay's thread: the replay's workers (a port each), its number and chain. */
      readonly workers: { readonly replay: number; readonly suite: 'ecdsa' | 'sm'; readonly version: string; readonly ports: MessagePort[] };
    }
  | { readonly type: 'consumed'; readonly session: number; readonly lines: number; readonly bytes: number }
  | { readonly type: 'close'; readonly session: number };

/** What it answers: lines (each in a SharedArrayBuffer, with how it went to the workers), the end, or a read error at a line. */
export type ReaderAnswer =
  | { readonly session: number; readonly type: 'lines'; readonly lines: ReadonlyArray<{ readonly bytes: Uint8Array; readonly line: number; readonly plan: PartPlan }> }
  | { readonly session: number; readonly type: 'end' }
  | { readonly session: number; readonly type: 'error'; readonly line: number; readonly problem: string };

// Compiled (dist/), the worker runs line-reader-worker.js itself; from the sources it starts
// through line-reader-worker-boot.js, which registers tsx in the worker first.
const BOOT = new URL(import.meta.url.endsWith('.ts') ? './line-reader-worker-boot.js' : './line-reader-worker.js', import.meta.url);

/** The reader thread, shared by every replay in the process: started on first use, unref'd while no replay reads. */
class ReaderThread {
  ready = false;
  failed = false;
  readonly booted: Promise<void>;
  private readonly worker: Worker;
  private readonly sessions = new Map<number, (answer: ReaderAnswer) => void>();
  private nextSession = 1;

  constructor() {
    let settle!: () => void;
    this.booted = new Promise((resolve) => (settle = resolve));
    this.worker = new Worker(BOOT);
    this.worker.on('message', (message: ReaderAnswer | ThreadReady) => {
      if (isReadyMessage(message)) {
        this.ready = true;
        settle();
        if (this.sessions.size === 0) this.worker.unref();
        return;
      }
      this.sessions.get(message.session)?.(message);
    });
    const fail = (e?: unknown) => {
      this.failed = true;
      this.ready = false;
      settle();
      const problem = e instanceof Error ? e.message : 'the reader thread stopped';
      for (const [session, deliver] of this.sessions) deliver({ session, type: 'error', line: 0, problem });
      this.sessions.clear();
    };
    this.worker.on('error', fail);
    this.worker.on('exit', () => fail());
    // referenced while it boots (a replay waits for that), then only while a replay reads
  }

  open(request: Omit<Extract<ReaderRequest, { type: 'open' }>, 'type' | 'session'>, deliver: (answer: ReaderAnswer) => void): number {
    const session = this.nextSession++;
    this.sessions.set(session, deliver);
    this.worker.ref();
    this.worker.postMessage({ type: 'open', session, ...request } satisfies ReaderRequest, request.workers.ports);
    return session;
  }

  send(request: ReaderRequest): void {
    this.worker.postMessage(request);
  }

  end(session: number): void {
    if (!this.sessions.delete(session)) return;
    this.worker.postMessage({ type: 'close', session } satisfies ReaderRequest);
    if (this.sessions.size === 0) this.worker.unref();
  }
}

let reader: ReaderThread | undefined;

/** The reader thread once it is up (started here on first use), or undefined where no worker thread can run. */
export async function readerThread(): Promise<ReaderThread | undefined> {
  if (!reader || reader.failed) {
    try {
      reader = new ReaderThread();
    } catch {
      return undefined;
    }
  }
  await reader.booted;
  return reader.ready ? reader : undefined;
}

/** The share of the read-ahead taken before the reader thread is told (it reads on into the other 3/4 meanwhile). */
const TELL_SHARE = 1 / 4;

/** Reads on the reader thread: lines arrive as they are read, are numbered and go to the workers at once. */
export class WorkerFeed implements BlockFeed {
  private readonly arrived: Array<FedBlock | { error: unknown }> = [];
  private done = false;
  private wake: (() => void) | undefined;
  private readonly session: number;
  private readonly numbering: Numbering;
  private consumed = { lines: 0, bytes: 0 };
  /** Taken since the reader was last told. */
  private untold = { lines: 0, bytes: 0 };

  constructor(
    private readonly thread: Pick<ReaderThread, 'open' | 'send' | 'end'>,
    private readonly file: string,
    from: number,
    to: number | undefined,
    private readonly ahead: Pick<CryptoAhead, 'id' | 'suite' | 'version' | 'channels' | 'expect'>,
    private readonly limits: FeedLimits,
  ) {
    this.numbering = new Numbering(from, to);
    feedCounts.readerThread++;
    const workers = { replay: ahead.id, suite: ahead.suite.name, version: ahead.version.text, ports: ahead.channels() };
    this.session = thread.open({ file, limits, from, ...(to === undefined ? {} : { to }), workers }, (answer) => this.receive(answer));
  }

  private receive(answer: ReaderAnswer): void {
    if (this.done) return;
    if (answer.type === 'lines') {
      for (const { bytes, line, plan } of answer.lines) {
        let block: FedBlock | undefined;
        try {
          block = this.numbering.take(rawBlockLine(bytes, this.file, line));
        } catch (error) {
          this.finish({ error });
          break;
        }
        if (!block) {
          this.finish();
          break;
        }
        this.arrived.push(block);
        this.ahead.expect(block.number, plan);
      }
    } else if (answer.type === 'end') this.finish();
    else this.finish({ error: new RecordingError(this.file, answer.line, answer.problem) });
    this.wake?.();
  }

  private finish(last?: { error: unknown }): void {
    if (last) this.arrived.push(last);
    this.done = true;
    this.thread.end(this.session);
  }

  async next(): Promise<FedBlock | undefined> {
    while (this.arrived.length === 0 && !this.done) await new Promise<void>((resolve) => (this.wake = resolve));
    this.wake = undefined;
    const item = this.arrived.shift();
    if (!item) return undefined;
    if ('error' in item) throw item.error;
    this.consumed = { lines: this.consumed.lines + 1, bytes: this.consumed.bytes + item.line.bytes.length };
    this.untold = { lines: this.untold.lines + 1, bytes: this.untold.bytes + item.line.bytes.length };
    // told in steps, not per line (a message per block costs small blocks a few percent): once a
    // quarter of the read-ahead has been taken since. The reader stops only with the whole
    // read-ahead untold, so it never waits on lines taken and not yet told.
    const due = this.untold.lines >= this.limits.lines * TELL_SHARE || this.untold.bytes >= this.limits.bytes * TELL_SHARE;
    if (due && !this.done) {
      this.thread.send({ type: 'consumed', session: this.session, ...this.consumed });
      this.untold = { lines: 0, bytes: 0 };
    }
    return item;
  }

  async close(): Promise<void> {
    this.done = true;
    this.thread.end(this.session);
  }
}
