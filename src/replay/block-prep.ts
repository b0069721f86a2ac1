// A recorded block made ready for the replay's own thread by a worker (crypto-worker.ts), in three
// steps of one range of its transactions:
//  1. prepareRange: the line parsed and the recorded fields of every transaction packed into a
//     few transferable arrays, so that the replay builds its Transactions without parsing JSON
//     (prepared-block.ts) and can start executing them, as recorded. They come in two slices, a
//     short first one that the replay executes while the rest is prepared. For the replay's first
//     long line the first comes from the head of the line, before the whole line is parsed
//     (headSlice, line-head.ts), and the whole line must then read the same. Whatever does not fit
//     that shape (a missing or malformed field) marks a slice `slow`: the replay then gives up
//     what it started of the block, checks it from the JSON and reports in its own words
//     (block-checks.ts).
//  2. receiptsOfRange: every recorded receipt encoded as FISCO encodes receipts, so that the
//     executor takes each one's bloom and hash where its own receipt encodes the same, and the
//     replay checks each with one byte comparison (a receipt it cannot encode is compared field by
//     field). Quick next to step 3, and wanted as soon as the block has executed: it comes first.
//  3. cryptoOfRange: each transaction re-encoded from its recorded fields and hashed, its sender
//     recovered from its signature, and the block's signatureList entries verified (by the range
//     that has the header): a ChunkResult. computeChunk does the same on the replay's own thread,
//     from the block's JSON, for a part the replay's thread takes from a worker that is behind
//     (its receipts then compared field by field).
import { BLOOM_BYTES, bloomBits, bloomSet, encodeSignedTransaction, signedTransactionDigests, type ProtocolVersion } from '../chain/index.js';
import { bigintToBytes, bytesEqual, toHexNoPrefix } from '../codec/index.js';
import { isDeepStrictEqual } from 'node:util';
import { hexRlpEncode, isHexShape, type HexRlpItem } from './hex-rlp.js';
import { lineHead } from './line-head.js';
import type { CryptoSuite } from '../crypto/index.js';
import { parseHeader, parseTransaction, transactionObjects, type RecordedHeader, type RecordedTransaction } from './recorded-json.js';
import type { JsonObject } from './recording.js';

export interface ChunkRange {
  /** First transaction index, and one past the last. */
  readonly from: number;
  readonly to: number;
  /** Verify the block's signatureList too (one range of a block does). */
  readonly signatures: boolean;
}

export interface ChunkResult {
  readonly from: number;
  /**
   * Per transaction of the range: 1 when its hash and sender were computed; 0 when the replay
   * must look itself (no signed fields recorded, a malformed transaction, or no signer recovers),
   * so that it reports the problem in its own words.
   */
  readonly computed: Uint8Array;
  /** 32 bytes per transaction: the hash of the re-encoded signed payload. */
  readonly hashes: Uint8Array;
  /** 20 bytes per transaction: the address the signature recovers to. */
  readonly senders: Uint8Array;
  /** blockSignatureKey → whether that signatureList entry verifies. */
  readonly signatures: ReadonlyArray<readonly [string, boolean]>;
}

/**
 * Recorded receipts encoded as FISCO encodes receipts, by transaction of a range, with what the
 * executor would hash to build the block from them (BlockExecutor's ExpectedReceipt): the bloom
 * of each one's recorded logs, computed from the logs, and the hash of each encoding.
 */
export interface ReceiptEncodings {
  /** 1 where the receipt could be encoded (see receiptEncoding). */
  readonly encoded: Uint8Array;
  readonly bytes: Uint8Array;
  /** Where each receipt's encoding starts, then the end. */
  readonly offsets: Uint32Array;
  /** Each encoded receipt's log count. */
  readonly logCounts: Uint32Array;
  /** 256 bytes per receipt: the logsBloom of its recorded logs. */
  readonly blooms: Uint8Array;
  /** 32 bytes per receipt: the suite's hash of its encoding. */
  readonly hashes: Uint8Array;
}

/** verify's inputs: the block hash, the signature bytes and the sealer's key. */
export function blockSignatureKey(hash: Uint8Array, signature: Uint8Array, sealer: Uint8Array): string {
  return `${toHexNoPrefix(hash)}:${toHexNoPrefix(signature)}:${toHexNoPrefix(sealer)}`;
}

/**
 * Step 2 done from a block's JSON on the replay's own thread, for a part it takes from a worker that is behind (or that no worker has): each
 * signed transaction re-encoded, hashed and its sender recovered, and (for the first range) the
 * signatureList verified. The results are positional: the replayer compares them with the very
 * transactions it parsed from the same block object.
 */
export function computeChunk(block: JsonObject, number: number, range: ChunkRange, suite: CryptoSuite, version: ProtocolVersion): ChunkResult {
  const { work } = rangeWork(block, [], number, range, range.signatures, suite, version);
  const result = cryptoOfRange(work, suite, version);
  // sized to the range asked for, whatever the block holds
  const size = Math.max(0, range.to - range.from);
  const fit = (a: Uint8Array, width: number) => (a.length === width * size ? a : Uint8Array.from({ length: width * size }, (_, k) => a[k] ?? 0));
  return { ...result, from: range.from, computed: fit(result.computed, 1), hashes: fit(result.hashes, 32), senders: fit(result.senders, 20) };
}

/** Byte fields of one prepared transaction, in this order, in PreparedRange.bytes. */
export const TxField = {
  To: 0,
  Data: 1,
  ExtraData: 2,
  /** The signed payload re-encoded from the recorded fields (only for the root schemes that hash payloads: empty for merkle16). */
  Raw: 3,
  /** The recorded hash. */
  Hash: 4,
  /** The recorded sender. */
  From: 5,
} as const;
export const TX_FIELDS = 6;
/** Quantities of one prepared transaction, in this order, in PreparedRange.quantities: nonce, gasPrice, gas, blockLimit, value, chainId, groupId. */
export const TX_QUANTITIES = 7;

/** One slice of a range of a block, prepared: see the module comment. */
export interface PreparedRange {
  /** First transaction index, one past the last, and the block's transaction count. */
  readonly from: number;
  readonly to: number;
  readonly count: number;
  /** Whether this is the range's last slice (every slow one is). */
  readonly last: boolean;
  /** Why the replay must check this block from its JSON itself (this slice or one before may already be executing); absent when it need not. */
  readonly slow?: string;
  /** The block's header (the first range only). */
  readonly header?: RecordedHeader;
  /** Prepared from the head of the block's line, before the whole line was parsed (headSlice). */
  readonly head?: true;
  /** TX_QUANTITIES per transaction. */
  readonly quantities: bigint[];
  /** TX_FIELDS byte fields per transaction, one after the other. */
  readonly bytes: Uint8Array;
  /** Where each field starts: TX_FIELDS per transaction, then the end. */
  readonly offsets: Uint32Array;
}

/** The transactions of part `part` of `parts` of a block of `count`. */
export function partRange(count: number, part: number, parts: number): { from: number; to: number } {
  return { from: Math.floor((count * part) / parts), to: Math.floor((count * (part + 1)) / parts) };
}

/** What prepareRange leaves for cryptoOfRange: the range's recorded transactions (undefined where one could not be read) and receipts. */
export interface RangeWork {
  readonly from: number;
  readonly to: number;
  readonly txs: ReadonlyArray<RecordedTransaction | undefined>;
  readonly receipts: readonly unknown[];
  readonly header?: RecordedHeader;
}

const NONE = new Uint8Array(0);

/**
 * The recorded transactions `from`..`to` of a block's JSON (undefined where one cannot be read),
 * its receipts (undefined: not read yet, as in a line's head), and its header when `withHeader`;
 * `problem` says why the range cannot be taken whole (the first thing wrong), if anything is.
 */
function rangeWork(
  block: JsonObject,
  receipts: readonly unknown[] | undefined,
  number: number,
  range: { from: number; to: number },
  withHeader: boolean,
  suite: CryptoSuite,
  version: ProtocolVersion,
): { work: RangeWork; count: number; problem?: string } {
  const place = { block: number };
  let objects: JsonObject[];
  let header: RecordedHeader | undefined;
  let problem: string | undefined;
  try {
    objects = transactionObjects(block, place);
  } catch (e) {
    return { work: { from: 0, to: 0, txs: [], receipts: [] }, count: 0, problem: (e as Error).message };
  }
  try {
    if (withHeader) header = parseHeader(block, place, { hashRequired: true });
  } catch (e) {
    problem = (e as Error).message;
  }
  const count = objects.length;
  const to = Math.min(range.to, count);
  if (receipts && receipts.length !== count) problem ??= `${count} transactions, ${receipts.length} receipts`;
  if (header && header.number !== number) problem ??= `its block says number ${header.number}`;
  const txs: Array<RecordedTransaction | undefined> = [];
  for (let i = range.from; i < to; i++) {
    let t: RecordedTransaction | undefined;
    try {
      t = parseTransaction(objects[i]!, { block: number, index: i }, suite, version.txGeneration);
      if (!t.body || !t.signature) problem ??= `transaction ${i} lacks ${t.missing.join(', ')}`;
    } catch (e) {
      problem ??= `transaction ${i}: ${(e as Error).message}`;
    }
    txs.push(t);
  }
  return { work: { from: range.from, to, txs, receipts: receipts?.slice(range.from, to) ?? [], ...(header ? { header } : {}) }, count, ...(problem === undefined ? {} : { problem }) };
}

/**
 * How many transactions the first slice of a range holds: the replay starts executing them while
 * the worker prepares the rest (a block's first transactions execute in about the time the rest
 * take to prepare).
 */
export const FIRST_SLICE = 128;

/**
 * The first slice of part 0 of `parts` of block `number` from the head of its line
 * (line-head.ts): up to `wanted` of its first transactions, fewer than the part holds, and its
 * header, packed as prepareRange packs them, with the block's transaction count; not the last
 * slice (prepareRange of the whole line, given this one, sends the rest of the part, or says the
 * block must be read from its JSON). Undefined where the line has no such head or the head holds
 * anything a whole-line reading would mark slow.
 */
export function headSlice(text: string, number: number, parts: number, suite: CryptoSuite, version: ProtocolVersion, wanted = FIRST_SLICE): PreparedRange | undefined {
  const head = lineHead(text, wanted);
  if (!head) return undefined;
  const taken = Math.min(head.most, partRange(head.count, 0, parts).to - 1);
  if (taken < 1) return undefined;
  let value: { number?: unknown; block?: unknown };
  try {
    value = JSON.parse(head.text(taken)) as typeof value;
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || value.number !== number || typeof value.block !== 'object' || value.block === null) return undefined;
  const first = rangeWork(value.block as JsonObject, undefined, number, { from: 0, to: taken }, true, suite, version);
  if (first.problem !== undefined || first.count !== taken) return undefined;
  return { ...packSlice(first.work, head.count, false, version), head: true };
}

/** Whether two packed slices hold the same transactions, count and header. */
function sameSlice(a: PreparedRange, b: PreparedRange): boolean {
  return (
    a.from === b.from &&
    a.last === b.last &&
    a.to === b.to &&
    a.count === b.count &&
    bytesEqual(a.bytes, b.bytes) &&
    isDeepStrictEqual(a.offsets, b.offsets) &&
    isDeepStrictEqual(a.quantities, b.quantities) &&
    isDeepStrictEqual(a.header, b.header)
  );
}

/**
 * Step 1 for part `part` of `parts` of a block line's `value` (its JSON, parsed), whose number
 * is `number`: the range prepared in slices, each given to `post` as soon as it is packed (the
 * first `firstSlice` transactions, then the rest); a slice that is `slow` is the last. Returns
 * what step 2 needs for the whole range. Where `head` (headSlice of the same line, part 0) went
 * first, only the rest of the part is posted, as one slice: slow where the whole line reads the
 * head's transactions, count or header otherwise, or finds anything in the part to mark slow.
 */
export function prepareRange(
  value: unknown,
  number: number,
  part: number,
  parts: number,
  suite: CryptoSuite,
  version: ProtocolVersion,
  post: (slice: PreparedRange) => void,
  firstSlice = FIRST_SLICE,
  head?: PreparedRange,
): RangeWork {
  const slow = (why: string, work: RangeWork, count: number): PreparedRange => ({ from: work.from, to: work.to, count, last: true, slow: why, quantities: [], bytes: NONE, offsets: new Uint32Array(0) });
  const none: RangeWork = { from: 0, to: 0, txs: [], receipts: [] };
  const line = value as { number?: unknown; block?: unknown; receipts?: unknown };
  if (typeof line !== 'object' || line === null || line.number !== number) {
    post(slow('not the expected block line', none, 0));
    return none;
  }
  const block = line.block as JsonObject;
  const receipts = line.receipts;
  if (typeof block !== 'object' || block === null || !Array.isArray(receipts)) {
    post(slow('no block or receipts', none, 0));
    return none;
  }
  const count = Array.isArray(block.transactions) ? block.transactions.length : 0;
  const { from, to } = partRange(count, part, parts);
  if (head && part === 0) {
    const read = rangeWork(block, receipts, number, { from, to: head.to }, true, suite, version);
    const rest = rangeWork(block, receipts, number, { from: read.work.to, to }, false, suite, version);
    const problem = read.problem ?? (sameSlice(head, packSlice(read.work, count, false, version)) ? rest.problem : 'the head of its line reads otherwise than the whole line');
    post(problem === undefined ? packSlice(rest.work, count, true, version) : slow(problem, rest.work, rest.count));
    return joinWork(read.work, rest.work);
  }
  const first = rangeWork(block, receipts, number, { from, to: Math.min(to, from + firstSlice) }, part === 0, suite, version);
  const whole = first.work.to >= to;
  post(first.problem === undefined ? packSlice(first.work, count, whole, version) : slow(first.problem, first.work, first.count));
  if (whole) return first.work;
  // after a slow first slice the rest is still read for step 2, but not posted (the replay checks the block from its JSON)
  const rest = rangeWork(block, receipts, number, { from: first.work.to, to }, false, suite, version);
  if (first.problem === undefined) post(rest.problem === undefined ? packSlice(rest.work, count, true, version) : slow(rest.problem, rest.work, rest.count));
  return joinWork(first.work, rest.work);
}

function joinWork(a: RangeWork, b: RangeWork): RangeWork {
  return { from: a.from, to: b.to, txs: [...a.txs, ...b.txs], receipts: [...a.receipts, ...b.receipts], ...(a.header ? { header: a.header } : {}) };
}

/** A slice's transactions (every one read) packed into transferable arrays. */
function packSlice(work: RangeWork, count: number, last: boolean, version: ProtocolVersion): PreparedRange {
  const withRaw = version.rootScheme !== 'merkle16';
  const quantities: bigint[] = [];
  const fields: Uint8Array[] = [];
  for (const t of work.txs) {
    const body = t!.body!;
    quantities.push(body.nonce, body.gasPrice, body.gas, body.blockLimit, body.value, body.chainId ?? 0n, body.groupId ?? 0n);
    fields.push(body.to ?? NONE, body.data, body.extraData ?? NONE, withRaw ? encodeSignedTransaction(body, version.txGeneration, t!.signature!) : NONE, t!.hash, t!.from);
  }
  const offsets = new Uint32Array(fields.length + 1);
  let size = 0;
  fields.forEach((f, k) => {
    offsets[k] = size;
    size += f.length;
  });
  offsets[fields.length] = size;
  const bytes = new Uint8Array(size);
  fields.forEach((f, k) => bytes.set(f, offsets[k]!));
  return { from: work.from, to: work.to, count, last, ...(work.header ? { header: work.header } : {}), quantities, bytes, offsets };
}

/**
 * A recorded receipt encoded as FISCO encodes receipts (what the receiptsRoot hashes), when it
 * carries every field the encoding holds, each well formed, and names `txHash`; else why not (the
 * replay then compares it field by field and says what is wrong). Equal encodings mean equal
 * status, output, logs, gasUsed, contractAddress, remainGas, logsBloom and root: every field
 * replay compares.
 */
export function receiptEncoding(json: unknown, txHash: Uint8Array, version: ProtocolVersion, suite: CryptoSuite): { bytes: Uint8Array; logs: number; bloom: Uint8Array } | string {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return 'not a JSON object';
  const r = json as JsonObject;
  const transactionHash = hexBytes(r.transactionHash, 32);
  if (!transactionHash || !bytesEqual(transactionHash, txHash)) return 'another or no transactionHash';
  const { root, logsBloom, output, contractAddress } = r;
  if (!isHexShape(root, 32) || !isHexShape(logsBloom, 256)) return 'no root or logsBloom';
  const status = quantity(r.status);
  const gasUsed = quantity(r.gasUsed);
  const remainGas = r.remainGas === undefined ? undefined : quantity(r.remainGas);
  if (typeof status !== 'bigint' || status > MAX_STATUS || typeof gasUsed !== 'bigint' || remainGas === null || !isHexShape(output) || !isHexShape(contractAddress, 20)) return 'a malformed field';
  if ((remainGas !== undefined) !== version.receiptHasRemainGas) return 'remainGas does not fit the version';
  if (!Array.isArray(r.logs)) return 'no logs';
  const logs: RecordedLogHex[] = [];
  for (const entry of r.logs as unknown[]) {
    const log = entry as JsonObject | null;
    if (typeof log !== 'object' || log === null || !Array.isArray(log.topics)) return 'a malformed log';
    const topics = log.topics as unknown[];
    if (!isHexShape(log.address, 20) || !isHexShape(log.data) || !topics.every((t) => isHexShape(t, 32))) return 'a malformed log';
    logs.push([log.address, topics as string[], log.data]);
  }
  // encodeReceipt's items (receiptItems), written from the hex
  const items: HexRlpItem[] = [root, bigintToBytes(gasUsed), contractAddress, logsBloom, bigintToBytes(status), output];
  if (remainGas !== undefined) items.push(bigintToBytes(remainGas));
  items.push(logs);
  const bytes = hexRlpEncode(items);
  if (bytes) return { bytes, logs: logs.length, bloom: bloomOfLogs(logs, suite) };
  // a digit that is not hex somewhere: said as decoding each field would say it
  if (!hexBytes(root, 32) || !hexBytes(logsBloom, 256)) return 'no root or logsBloom';
  if (!hexBytes(output) || !hexBytes(contractAddress, 20)) return 'a malformed field';
  return 'a malformed log';
}

/** A recorded log's address, topics and data, as hex. */
type RecordedLogHex = [address: string, topics: string[], data: string];

/**
 * The bloom bits of log addresses and topics (by suite and hex as recorded): a chain's logs come
 * from a few contracts and events, so most are hashed once per worker instead of once per log.
 */
const bloomBitsByItem = new Map<string, readonly number[]>();
const BLOOM_ITEMS_KEPT = 8192;

/** logsBloom of logs whose hex is known to be whole (they were encoded). */
function bloomOfLogs(logs: readonly RecordedLogHex[], suite: CryptoSuite): Uint8Array {
  const bloom = new Uint8Array(BLOOM_BYTES);
  const add = (hex: string) => {
    const key = `${suite.name}${hex}`;
    let bits = bloomBitsByItem.get(key);
    if (!bits) {
      if (bloomBitsByItem.size >= BLOOM_ITEMS_KEPT) bloomBitsByItem.clear();
      bloomBitsByItem.set(key, (bits = bloomBits(Buffer.from(hex.slice(2), 'hex'), suite)));
    }
    bloomSet(bloom, bits);
  };
  for (const [address, topics] of logs) {
    add(address);
    for (const topic of topics) add(topic);
  }
  return bloom;
}

const MAX_STATUS = BigInt(Number.MAX_SAFE_INTEGER);
const QUANTITY_TEXT = /^(?:0x[0-9a-fA-F]+|[0-9]+)$/;

/** 0x hex of whole bytes (of `length` bytes when given), or undefined. */
function hexBytes(value: unknown, length?: number): Uint8Array | undefined {
  if (typeof value !== 'string' || value.length % 2 !== 0 || value.charCodeAt(0) !== 0x30 || value.charCodeAt(1) !== 0x78) return undefined;
  if (length !== undefined && value.length !== 2 + 2 * length) return undefined;
  // Buffer stops at the first pair that is not hex: only a full-length result was hex throughout
  const bytes = Buffer.from(value.slice(2), 'hex');
  return bytes.length * 2 === value.length - 2 ? bytes : undefined;
}

/** A quantity as recorded-json.ts's quantityOf reads it (0x hex or decimal, text or a JSON number); null when malformed. */
function quantity(value: unknown): bigint | undefined | null {
  if (value === undefined) return undefined;
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? BigInt(value) : null;
  return typeof value === 'string' && QUANTITY_TEXT.test(value) ? BigInt(value) : null;
}

/** Step 3: hashes and senders, and the signatureList verified by the range that has the header. */
export function cryptoOfRange(work: RangeWork, suite: CryptoSuite, version: ProtocolVersion): ChunkResult {
  const size = work.to - work.from;
  const computed = new Uint8Array(size);
  const hashes = new Uint8Array(32 * size);
  const senders = new Uint8Array(20 * size);
  work.txs.forEach((t, k) => {
    if (!t?.body || !t.signature) return;
    try {
      const tx = signedTransactionDigests(t.body, version.txGeneration, t.signature, suite);
      const key = tx && suite.recoverSigner(tx.signingHash, t.signature);
      if (!tx || !key) return;
      hashes.set(tx.hash, 32 * k);
      senders.set(suite.address(key), 20 * k);
      computed[k] = 1;
    } catch {
      // a transaction the replay rejects in its own words
    }
  });
  const signatures: Array<[string, boolean]> = [];
  const header = work.header;
  for (const entry of header?.signatureList ?? []) {
    const sealer = header!.sealerList[entry.index];
    if (!sealer || !header!.hash) continue;
    try {
      signatures.push([blockSignatureKey(header!.hash, entry.signature, sealer), suite.verify(header!.hash, suite.signatureFromBytes(entry.signature), sealer)]);
    } catch {
      // an entry the replay rejects in its own words
    }
  }
  return { from: work.from, computed, hashes, senders, signatures };
}

/** Step 2 for a prepared range: its recorded receipts encoded (see ReceiptEncodings). */
export function receiptsOfRange(work: RangeWork, suite: CryptoSuite, version: ProtocolVersion): ReceiptEncodings {
  const size = work.to - work.from;
  const encoded = new Uint8Array(size);
  const logCounts = new Uint32Array(size);
  const blooms = new Uint8Array(BLOOM_BYTES * size);
  const hashes = new Uint8Array(32 * size);
  const parts: Uint8Array[] = [];
  for (let k = 0; k < size; k++) {
    const hash = work.txs[k]?.hash;
    const receipt = hash ? receiptEncoding(work.receipts[k], hash, version, suite) : undefined;
    if (receipt && typeof receipt !== 'string') {
      encoded[k] = 1;
      logCounts[k] = receipt.logs;
      parts.push(receipt.bytes);
      hashes.set(suite.hash(receipt.bytes), 32 * k);
      blooms.set(receipt.bloom, BLOOM_BYTES * k);
    } else parts.push(NONE);
  }
  const offsets = new Uint32Array(size + 1);
  let total = 0;
  parts.forEach((p, k) => {
    offsets[k] = total;
    total += p.length;
  });
  offsets[size] = total;
  const bytes = new Uint8Array(total);
  parts.forEach((p, k) => bytes.set(p, offsets[k]!));
  return { encoded, bytes, offsets, logCounts, blooms, hashes };
}
