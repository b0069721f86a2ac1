// What the replay's thread, its reader thread and its workers say to each other about block
// lines (crypto-ahead.ts, line-reader-worker.ts, crypto-worker.ts): the requests and answers, and
// how a line is split between the workers. Light on imports: the reader thread loads it too.
import type { ChunkResult, PreparedRange, ReceiptEncodings } from './block-prep.js';

/** Lines at least this long (a hundred transactions or so) are split into parts… */
export const SPLIT_BYTES = 300_000;
/** …of about this many bytes each, at most MAX_PARTS of them (and one per worker at least). */
export const PART_BYTES = 360_000;
export const MAX_PARTS = 8;

export interface AheadRequest {
  /** requestKey(replay, number, part): the replay's thread matches the answers by it. */
  readonly key: string;
  readonly number: number;
  readonly suite: 'ecdsa' | 'sm';
  readonly version: string;
  /** The block's line in the recording, as read (in a SharedArrayBuffer: not copied). */
  readonly bytes: Uint8Array;
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

/**
 * A worker's answers to one request, in this order: `prepared` slices (the last says so), its
 * `receipts` (the encodings of the part's recorded receipts, which start at transaction `from`),
 * then `crypto`. Where the worker skipped the part or could not read the line: one `prepared` and
 * the `crypto`, without a value.
 */
export type AheadAnswer =
  | { readonly key: string; readonly step: 'prepared'; readonly prepared?: PreparedRange }
  | { readonly key: string; readonly step: 'receipts'; readonly from: number; readonly receipts?: ReceiptEncodings }
  | { readonly key: string; readonly step: 'crypto'; readonly result?: ChunkResult };

export function requestKey(replay: number, number: number, part: number): string {
  return `${replay}:${number}:${part}`;
}

/**
 * How a block line is split between `workers` workers, each part's worker by turn from `turn`, and
 * the claims. A long line is cut into parts of PART_BYTES or so, also for one worker: the parts
 * whose crypto the workers have not started when the replay needs it are computed by the replay
 * itself, while the workers finish theirs. Measured on the exec-bench workload (blocks of 1,000,
 * one worker, two cores): with 2 parts per block the replay spent a median 83 ms of 0.7 s outside
 * the executor, with 4 parts 44–56 ms, with 8 parts 34–48 ms, with 16 parts 52 ms.
 */
export function planParts(bytes: number, workers: number, turn: number): Array<{ worker: number; part: number; parts: number; claim: Int32Array }> {
  const parts = bytes >= SPLIT_BYTES ? Math.max(workers, Math.min(MAX_PARTS, Math.ceil(bytes / PART_BYTES))) : 1;
  return Array.from({ length: parts }, (_, part) => ({ worker: (turn + part) % workers, part, parts, claim: new Int32Array(new SharedArrayBuffer(4)) }));
}
