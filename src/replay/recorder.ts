// The recorder: reads a group's blocks and receipts from any FISCO BCOS 2.x JSON-RPC endpoint,
// through SPEC.md's methods only, and writes them as a recording (recording.ts, format v1).
//
// How the header is filled in:
// - clientVersion: getClientVersion as answered. interfaceVariant: from its "Supported Version"
//   through ProtocolVersion (2.0.0-rc1 = earlier, newer = later; no such field = earlier, an
//   unparsable one = later), as `twinchain conform` detects it. supportedVersion: that field, or
//   2.0.0-rc1 when absent (the field exists from 2.0.0-rc2 on). chainId: "Chain Id", or "1" (FISCO's
//   default) when absent (the earlier variant does not report it).
// - suite: the first transaction with a signature among the first HELD_BLOCKS blocks recorded
//   (the later variant's transaction objects carry one): a `v` of 64 bytes is an SM2 public key,
//   so sm, anything else ecdsa. Without one: the client version (a product version ending in
//   " gm" is an SM node), else ecdsa. The header is written once that is decided.
// - stateType: the genesis mark in block 0's extraData (…-storage-… or …-mpt-…), else undefined.
// - config: getSystemConfigByKey tx_count_limit, tx_gas_limit and consensus_timeout (each left
//   out when the node answers it with an error), getSealerList, getObserverList.
//
// Blocks: getBlockByNumber(n, true) and getTransactionReceipt for each of its transactions, sent
// as JSON-RPC batches while the node accepts them (single requests from the first batch it
// refuses), with at most `concurrency` HTTP requests in flight, written strictly in block order.
// Replies are checked (block number, parent hash, receipt per transaction); transient failures
// (no answer, broken answer, HTTP 5xx) are retried with exponential back-off.
import { interfaceVariantOfClientVersion, productVersionOf } from '../chain/index.js';
import { JsonRpcClient, type FetchFunction } from '../rpc/index.js';
import { RecordError, RecordStoppedError, RecordUsageError, STOP_GRACE_MS } from './record-errors.js';
import { isObject, Link, Stopping, type Request } from './record-link.js';
import { existingRecording, type ExistingRecording } from './recording-resume.js';
import { RECORDING_FORMAT, RECORDING_VERSION, RecordingWriter, type JsonObject, type RecordedBlock, type RecordingHeader } from './recording.js';

/** Blocks held before the header is written, while no signed transaction says the suite. */
export const HELD_BLOCKS = 100;

export interface RecordProgress {
  /** Blocks written in this run. */
  readonly blocks: number;
  /** Blocks this run is to write. */
  readonly total: number;
  readonly transactions: number;
  /** The last block written. */
  readonly lastBlock: number;
  readonly seconds: number;
  readonly blocksPerSecond: number;
  /** Seconds left at the current rate; undefined before there is a rate. */
  readonly etaSeconds: number | undefined;
}

export interface RecordOptions {
  /** JSON-RPC endpoint as given. */
  readonly url: string;
  /** The recording file; continued when it exists (same chain and group only). */
  readonly out: string;
  /** Default 1, or the group of the recording continued. */
  readonly group?: number;
  /** First block of a new recording (default 1); with an existing file, only its next block. */
  readonly from?: number;
  /** Last block (default: the block number when recording starts). */
  readonly to?: number | 'latest';
  /** Default: the global fetch. */
  readonly fetch?: FetchFunction;
  /** HTTP requests in flight at most (default 8). */
  readonly concurrency?: number;
  /** Blocks asked for in one batch (default 10). */
  readonly blocksPerRequest?: number;
  /** Requests per batch at most (default 100, FISCO's and Twinchain's limit). */
  readonly maxBatch?: number;
  /** Retries of a transient failure (default 5), after waits of retryDelayMs, ×2, ×4 … */
  readonly retries?: number;
  readonly retryDelayMs?: number;
  /** Per HTTP request (default 30 s). */
  readonly requestTimeoutMs?: number;
  /** Default: setTimeout. */
  readonly sleep?: (ms: number) => Promise<void>;
  /** Milliseconds of a monotonic clock (default performance.now). */
  readonly now?: () => number;
  /** Told after every block batch written. */
  readonly onProgress?: (progress: RecordProgress) => void;
  /** Told about choices made on the way (resuming, batches refused, retries). */
  readonly onNotice?: (text: string) => void;
  /**
   * Stops cleanly: no new requests for blocks and no retries from then on; requests in flight
   * get STOP_GRACE_MS to answer (a node that does not is cut off), and every block complete by
   * then is written. Stopped before the chain is known: RecordStoppedError.
   */
  readonly signal?: AbortSignal;
  /** The header's recordedAt (default: now, as ISO text); fixed for byte-identical fixture recordings. */
  readonly recordedAt?: string;
}

export { RecordError, RecordStoppedError, RecordUsageError, STOP_GRACE_MS } from './record-errors.js';

export interface RecordSummary {
  readonly file: string;
  readonly url: string;
  readonly group: number;
  /** Blocks written in this run (from..to; none when to < from). */
  readonly from: number;
  readonly to: number;
  readonly blocks: number;
  readonly transactions: number;
  readonly seconds: number;
  readonly blocksPerSecond: number;
  /** The last block already in the file when it was continued. */
  readonly resumedAfter: number | undefined;
  /** Whether the node took batches to the end. */
  readonly batches: boolean;
  /** Stopped by the signal before `to`. */
  readonly stopped: boolean;
  readonly header: RecordingHeader;
}


function hexNumber(n: number): string {
  return `0x${n.toString(16)}`;
}

/** A hex (or decimal) quantity as a number; undefined when it is not one. */
function quantity(value: unknown): number | undefined {
  if (typeof value !== 'string' || !/^(0x[0-9a-fA-F]+|[0-9]+)$/.test(value)) return undefined;
  const n = Number(BigInt(value));
  return Number.isSafeInteger(n) ? n : undefined;
}

function sameHex(a: unknown, b: unknown): boolean {
  return typeof a === 'string' && typeof b === 'string' && a.toLowerCase() === b.toLowerCase();
}

/** From the genesis mark (block 0's extraData[0], hex of the text). */
export function stateTypeOf(genesis: JsonObject): 'storage' | 'mpt' | undefined {
  const extra = genesis.extraData;
  if (!Array.isArray(extra) || typeof extra[0] !== 'string' || !/^(0x)?([0-9a-fA-F]{2})*$/.test(extra[0])) return undefined;
  const mark = Buffer.from(extra[0].replace(/^0x/, ''), 'hex').toString('latin1');
  if (mark.includes('-storage-')) return 'storage';
  if (mark.includes('-mpt-')) return 'mpt';
  return undefined;
}

/** The suite a transaction object's signature shows; undefined without one. */
export function suiteOfTransaction(tx: unknown): 'ecdsa' | 'sm' | undefined {
  if (!isObject(tx) || !isObject(tx.signature)) return undefined;
  const v = tx.signature.v;
  if (typeof v !== 'string') return undefined;
  return v.replace(/^0x/, '').length === 128 ? 'sm' : 'ecdsa';
}

const header0Requests = (group: number): Request[] => [
  { method: 'getBlockByNumber', params: [group, '0x0', true] },
  { method: 'getBlockNumber', params: [group] },
  { method: 'getSealerList', params: [group] },
  { method: 'getObserverList', params: [group] },
  { method: 'getSystemConfigByKey', params: [group, 'tx_count_limit'] },
  { method: 'getSystemConfigByKey', params: [group, 'tx_gas_limit'] },
  { method: 'getSystemConfigByKey', params: [group, 'consensus_timeout'] },
];

/** Record `options.url`'s group into `options.out` (see the top of this file). */
export async function record(options: RecordOptions): Promise<RecordSummary> {
  const now = options.now ?? (() => performance.now());
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const notice = options.onNotice ?? (() => undefined);
  const started = now();
  const existing = await existingRecording(options.out, notice);
  if (existing && options.group !== undefined && options.group !== existing.header.group) {
    throw new RecordUsageError(`${options.out} records group ${existing.header.group}, not group ${options.group}; pick another --out to record group ${options.group}`);
  }
  const group = options.group ?? existing?.header.group ?? 1;
  const from = existing ? existing.last + 1 : (options.from ?? 1);
  if (existing && options.from !== undefined && options.from !== from) {
    throw new RecordUsageError(`${options.out} ends at block ${existing.last}, so it can only continue from block ${from} (got --from ${options.from}); leave out --from or pick another --out`);
  }

  // requests still in flight STOP_GRACE_MS after the signal are cut off
  const cutOff = new AbortController();
  let grace: ReturnType<typeof setTimeout> | undefined;
  const startGrace = () => (grace = setTimeout(() => cutOff.abort(), STOP_GRACE_MS));
  if (options.signal?.aborted) startGrace();
  else options.signal?.addEventListener('abort', startGrace, { once: true });
  const client = new JsonRpcClient(options.url, { ...(options.fetch ? { fetch: options.fetch } : {}), timeoutMs: options.requestTimeoutMs ?? 30_000, signal: cutOff.signal });
  const link = new Link(client, {
    concurrency: options.concurrency ?? 8,
    maxBatch: options.maxBatch ?? 100,
    retries: options.retries ?? 5,
    retryDelayMs: options.retryDelayMs ?? 250,
    sleep,
    notice,
    signal: options.signal,
  });
  try {
    return await recordChain(options, existing, link, { group, from, now, notice, started });
  } catch (e) {
    if (!(e instanceof Stopping)) throw e;
    throw new RecordStoppedError(`stopped before the chain was read (${e.message}); ${options.out} ${existing ? 'is as it was' : 'was not written'}`);
  } finally {
    link.stopped = true;
    options.signal?.removeEventListener('abort', startGrace);
    clearTimeout(grace);
  }
}

async function recordChain(
  options: RecordOptions,
  existing: ExistingRecording | undefined,
  link: Link,
  { group, from, now, notice, started }: { group: number; from: number; now: () => number; notice: (text: string) => void; started: number },
): Promise<RecordSummary> {
  // the chain: client version, block 0, head, configuration
  const versionRequest: Request = { method: 'getClientVersion', params: [] };
  const clientVersion = link.result(await link.single(versionRequest), versionRequest);
  if (!isObject(clientVersion)) throw link.nonsenseResult(versionRequest, 'the client version is not an object', clientVersion);
  const requests = header0Requests(group);
  const replies = await link.many(requests);
  const genesis = link.result(replies[0]!, requests[0]!);
  if (!isObject(genesis) || quantity(genesis.number) !== 0 || typeof genesis.hash !== 'string') {
    throw link.nonsenseResult(requests[0]!, 'expected block 0 with a number and a hash', genesis);
  }
  const head = quantity(link.result(replies[1]!, requests[1]!));
  if (head === undefined) throw link.nonsenseResult(requests[1]!, 'the block number is not a hex quantity', (replies[1] as { result: unknown }).result);
  const list = (i: number): string[] => {
    const value = link.result(replies[i]!, requests[i]!);
    if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) throw link.nonsenseResult(requests[i]!, 'expected a list of node ids', value);
    return value as string[];
  };
  const sealers = list(2);
  const observers = list(3);
  const configValue = (i: number): string | undefined => {
    const reply = replies[i]!;
    return 'result' in reply && typeof reply.result === 'string' ? reply.result : undefined;
  };

  if (existing && !sameHex(existing.header.genesis.hash, genesis.hash)) {
    throw new RecordUsageError(
      `${options.out} is a recording of another chain (its block 0 is ${String(existing.header.genesis.hash)}, ${options.url} group ${group} has ${genesis.hash}); pick another --out`,
    );
  }
  const to = options.to === undefined || options.to === 'latest' ? head : options.to;
  if (to > head) throw new RecordError(`--to ${to} is beyond the chain: ${options.url} group ${group} is at block ${head}`);
  if (!existing && options.to !== undefined && options.to !== 'latest' && to < from) throw new RecordUsageError(`--to ${to} is before --from ${from}`);
  if (!existing && from > head + 1) throw new RecordError(`--from ${from} is beyond the chain: ${options.url} group ${group} is at block ${head}`);
  if (existing) notice(`continuing ${options.out} after block ${existing.last}${to <= existing.last ? ' (it already holds every block asked for)' : ''}`);

  const supported = clientVersion['Supported Version'];
  const chainId = clientVersion['Chain Id'];
  const stateType = stateTypeOf(genesis);
  const partialHeader = {
    format: RECORDING_FORMAT,
    version: RECORDING_VERSION,
    source: options.url,
    recordedAt: options.recordedAt ?? new Date().toISOString(),
    group,
    clientVersion,
    supportedVersion: typeof supported === 'string' ? supported : '2.0.0-rc1',
    chainId: typeof chainId === 'string' ? chainId : '1',
    interfaceVariant: interfaceVariantOfClientVersion(clientVersion),
    ...(stateType ? { stateType } : {}),
    genesis,
    config: {
      ...(configValue(4) === undefined ? {} : { txCountLimit: configValue(4) }),
      ...(configValue(5) === undefined ? {} : { txGasLimit: configValue(5) }),
      ...(configValue(6) === undefined ? {} : { consensusTimeout: configValue(6) }),
      sealers,
      observers,
    },
    from,
  } as const;
  const versionSuite: 'ecdsa' | 'sm' = productVersionOf(clientVersion)?.endsWith(' gm') ? 'sm' : 'ecdsa';
  let header: RecordingHeader | undefined = existing?.header;
  const makeHeader = (suite: 'ecdsa' | 'sm'): RecordingHeader => ({ ...partialHeader, suite });

  // blocks
  const total = Math.max(0, to - from + 1);
  const perRequest = options.blocksPerRequest ?? 10;
  const window = Math.max(2, (options.concurrency ?? 8) * 2);
  let writer: RecordingWriter | undefined;
  const held: RecordedBlock[] = [];
  let written = 0;
  let transactions = 0;
  let lastWritten = from - 1;
  let previousHash: unknown = existing ? existing.lastHash : from === 1 ? genesis.hash : undefined;
  const blocksStarted = now();

  const fetchRange = async (first: number, last: number): Promise<RecordedBlock[]> => {
    const blockRequests: Request[] = [];
    for (let n = first; n <= last; n++) blockRequests.push({ method: 'getBlockByNumber', params: [group, hexNumber(n), true] });
    const blockReplies = await link.many(blockRequests);
    const blocks = blockReplies.map((reply, i) => {
      const request = blockRequests[i]!;
      const n = first + i;
      const block = link.result(reply, request);
      if (!isObject(block)) throw link.nonsenseResult(request, `expected block ${n} as an object`, block);
      if (quantity(block.number) !== n) throw link.nonsenseResult(request, `asked for block ${n}, got number ${JSON.stringify(block.number)}`, block);
      if (typeof block.hash !== 'string') throw link.nonsenseResult(request, `block ${n} has no hash`, block);
      if (!Array.isArray(block.transactions) || !block.transactions.every((tx) => isObject(tx) && typeof tx.hash === 'string')) {
        throw link.nonsenseResult(request, `block ${n}: "transactions" must be the transaction objects asked for`, block);
      }
      return block as JsonObject & { transactions: JsonObject[]; hash: string };
    });
    const receiptRequests: Request[] = [];
    for (const block of blocks) for (const tx of block.transactions) receiptRequests.push({ method: 'getTransactionReceipt', params: [group, tx.hash] });
    const receiptReplies = await link.many(receiptRequests);
    let at = 0;
    return blocks.map((block, i) => {
      const n = first + i;
      const receipts = block.transactions.map((tx, index) => {
        const request = receiptRequests[at]!;
        const receipt = link.result(receiptReplies[at++]!, request);
        if (!isObject(receipt)) throw link.nonsenseResult(request, `block ${n} has ${block.transactions.length} transactions but no receipt for transaction ${index} (${String(tx.hash)})`, receipt);
        if (!sameHex(receipt.transactionHash, tx.hash)) throw link.nonsenseResult(request, `the receipt is for transaction ${JSON.stringify(receipt.transactionHash)}, not ${String(tx.hash)}`, receipt);
        if (receipt.blockHash !== undefined && !sameHex(receipt.blockHash, block.hash)) {
          throw link.nonsenseResult(request, `the receipt names block ${JSON.stringify(receipt.blockHash)}, but transaction ${index} is in block ${n} ${block.hash}`, receipt);
        }
        return receipt;
      });
      return { number: n, block, receipts };
    });
  };

  const writeOut = async (blocks: readonly RecordedBlock[]): Promise<void> => {
    if (!writer) {
      // appended as the file is written (compressed or not, whatever its name), its last line ended first where it was not
      writer = existing ? RecordingWriter.create(options.out, { append: true, gzip: existing.gzip, lineEndFirst: existing.lineEndMissing }) : RecordingWriter.create(options.out);
      if (!header) throw new Error('no header');
      if (!existing) await writer.writeHeader(header);
    }
    for (const b of blocks) {
      await writer.writeBlock(b);
      written++;
      transactions += b.receipts.length;
      lastWritten = b.number;
    }
  };
  const firstSignedSuite = () => held.flatMap((b) => b.block.transactions as unknown[]).map(suiteOfTransaction).find((s) => s !== undefined);
  const accept = async (blocks: readonly RecordedBlock[]): Promise<void> => {
    for (const b of blocks) {
      if (previousHash !== undefined && !sameHex(b.block.parentHash, previousHash)) {
        throw new RecordError(
          `${options.url} answered nonsense to getBlockByNumber ${JSON.stringify([group, hexNumber(b.number), true])}: block ${b.number}'s parentHash ${JSON.stringify(b.block.parentHash)} is not block ${b.number - 1}'s hash ${String(previousHash)}`,
        );
      }
      previousHash = b.block.hash;
      if (header) {
        await writeOut([b]);
        continue;
      }
      held.push(b);
      const signed = firstSignedSuite();
      if (signed === undefined && held.length < HELD_BLOCKS) continue;
      header = makeHeader(signed ?? versionSuite);
      await writeOut(held.splice(0));
    }
  };

  const pending: Promise<RecordedBlock[]>[] = [];
  let nextStart = from;
  const launch = () => {
    while (pending.length < window && nextStart <= to && !options.signal?.aborted) {
      const last = Math.min(to, nextStart + perRequest - 1);
      const job = fetchRange(nextStart, last);
      job.catch(() => undefined); // awaited in order below; a later failure must not go unhandled meanwhile
      pending.push(job);
      nextStart = last + 1;
    }
  };
  let stopped = false;
  try {
    launch();
    while (pending.length > 0) {
      let blocks: RecordedBlock[];
      try {
        blocks = await pending.shift()!;
      } catch (e) {
        if (!(e instanceof Stopping)) throw e;
        stopped = true;
        break;
      }
      await accept(blocks);
      if (options.signal?.aborted) {
        stopped = true;
        break;
      }
      launch();
      if (written > 0 || held.length > 0) {
        const done = written + held.length;
        const seconds = (now() - blocksStarted) / 1000;
        const rate = seconds > 0 ? done / seconds : 0;
        options.onProgress?.({
          blocks: done,
          total,
          transactions: transactions + held.reduce((sum, b) => sum + b.receipts.length, 0),
          lastBlock: from + done - 1,
          seconds,
          blocksPerSecond: rate,
          etaSeconds: rate > 0 ? (total - done) / rate : undefined,
        });
      }
    }
    // stopped before a block was asked for (or all asked for were in hand)
    if (options.signal?.aborted && lastWritten + held.length < to) stopped = true;
  } finally {
    link.stopped = true;
    // whatever is complete stays: the header (once the chain is known) and every block in order so far
    try {
      if (!header) header = makeHeader(firstSignedSuite() ?? versionSuite);
      if (!existing || held.length > 0) await writeOut(held.splice(0));
    } finally {
      await (writer as RecordingWriter | undefined)?.end();
    }
  }
  const seconds = (now() - started) / 1000;
  const blockSeconds = (now() - blocksStarted) / 1000;
  return {
    file: options.out,
    url: options.url,
    group,
    from,
    to: stopped ? lastWritten : to,
    blocks: written,
    transactions,
    seconds,
    blocksPerSecond: blockSeconds > 0 ? written / blockSeconds : 0,
    resumedAfter: existing?.last,
    batches: link.batches,
    stopped,
    header,
  };
}
