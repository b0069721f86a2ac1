// The recording format (version 1): JSON Lines, gzip-compressed when the file name ends in .gz
// (read either way: gzip is recognised by its magic bytes). Line 1 is the header; every further
// line is one block with its transactions and receipts, in increasing block number. Blocks and
// receipts are kept exactly as the node answered them (SPEC.md's JSON shapes), so a recording
// made against any FISCO 2.x node replays without network access and nothing is re-encoded.
import { isAscii } from 'node:buffer';
import { createReadStream, createWriteStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { constants as zlibConstants, createGunzip, createGzip, gunzipSync } from 'node:zlib';
import type { Readable, Writable } from 'node:stream';
import { CodecError } from '../codec/index.js';

export const RECORDING_FORMAT = 'twinchain-recording';
export const RECORDING_VERSION = 1;

export type JsonObject = { [key: string]: unknown };

export interface RecordingHeader {
  readonly format: typeof RECORDING_FORMAT;
  readonly version: typeof RECORDING_VERSION;
  /** The endpoint recorded (URL as given). */
  readonly source: string;
  /** ISO time the recording was started. */
  readonly recordedAt: string;
  readonly group: number;
  /** getClientVersion's result as received. */
  readonly clientVersion: JsonObject;
  /** "Supported Version" of the chain (e.g. 2.11.0). */
  readonly supportedVersion: string;
  readonly chainId: string;
  /** later (FISCO ≥ 2.1 payloads: signatures, receiptsRoot, dbHash) or earlier (2.0). */
  readonly interfaceVariant: 'later' | 'earlier';
  readonly suite: 'ecdsa' | 'sm';
  /** From the genesis mark; undefined when the mark does not say. */
  readonly stateType?: 'storage' | 'mpt';
  /** Block 0 as getBlockByNumber(0, true) answered it (its extraData holds the genesis mark). */
  readonly genesis: JsonObject;
  /** The group's configuration when recording began (getSystemConfigByKey, sealer and observer lists). */
  readonly config: {
    readonly txCountLimit?: string;
    readonly txGasLimit?: string;
    readonly consensusTimeout?: string;
    readonly sealers: readonly string[];
    readonly observers: readonly string[];
  };
  /** The first block recorded (1 for a whole chain). */
  readonly from: number;
}

export interface RecordedBlock {
  readonly number: number;
  /** getBlockByNumber(number, true) as answered. */
  readonly block: JsonObject;
  /** getTransactionReceipt of each transaction, in block order, as answered. */
  readonly receipts: readonly JsonObject[];
}

/** A recording that cannot be read: names the file, the line and what is wrong. */
export class RecordingError extends Error {
  override readonly name = 'RecordingError';
  constructor(
    readonly file: string,
    readonly line: number,
    readonly problem: string,
    /** The gzip data stops short: the file was cut off (a writer stopped, a copy broke off). */
    readonly cutOff = false,
  ) {
    super(`${file}:${line}: ${problem}`);
  }
}

/** The header's supportedVersion problem, said once: `header: "supportedVersion" "3.0.0" is not a supported version: only …`. */
export function unsupportedVersion(value: unknown, error: unknown): string {
  const why = error instanceof CodecError ? error.reason : error instanceof Error ? error.message : String(error);
  return `header: "supportedVersion" ${JSON.stringify(value)} is not a supported version: ${why}`;
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const HEADER_KEYS: readonly (keyof RecordingHeader)[] = [
  'source',
  'recordedAt',
  'group',
  'clientVersion',
  'supportedVersion',
  'chainId',
  'interfaceVariant',
  'suite',
  'genesis',
  'config',
  'from',
];

/** Check line 1; every problem names the key. */
export function parseHeader(value: unknown, file: string): RecordingHeader {
  const fail = (problem: string): never => {
    throw new RecordingError(file, 1, problem);
  };
  if (!isObject(value)) return fail('the header is not a JSON object');
  if (value.format !== RECORDING_FORMAT) return fail(`not a Twinchain recording (format is ${JSON.stringify(value.format)}, expected "${RECORDING_FORMAT}")`);
  if (value.version !== RECORDING_VERSION) return fail(`recording format version ${JSON.stringify(value.version)} is not supported (this Twinchain reads version ${RECORDING_VERSION})`);
  for (const key of HEADER_KEYS) if (value[key] === undefined) fail(`header: "${key}" is missing`);
  if (!Number.isInteger(value.group) || (value.group as number) < 1) fail(`header: "group" must be a positive integer, got ${JSON.stringify(value.group)}`);
  if (!Number.isInteger(value.from) || (value.from as number) < 1) fail(`header: "from" must be a block number ≥ 1, got ${JSON.stringify(value.from)}`);
  if (value.interfaceVariant !== 'later' && value.interfaceVariant !== 'earlier') fail(`header: "interfaceVariant" must be later or earlier, got ${JSON.stringify(value.interfaceVariant)}`);
  if (value.suite !== 'ecdsa' && value.suite !== 'sm') fail(`header: "suite" must be ecdsa or sm, got ${JSON.stringify(value.suite)}`);
  if (value.stateType !== undefined && value.stateType !== 'storage' && value.stateType !== 'mpt') fail(`header: "stateType" must be storage or mpt, got ${JSON.stringify(value.stateType)}`);
  if (!isObject(value.genesis)) fail('header: "genesis" must be block 0 as a JSON object');
  if (!isObject(value.clientVersion)) fail('header: "clientVersion" must be a JSON object');
  const config = value.config;
  if (!isObject(config) || !Array.isArray(config.sealers) || !Array.isArray(config.observers)) fail('header: "config" must hold "sealers" and "observers" lists');
  return value as unknown as RecordingHeader;
}

/** Check one block line. */
export function parseBlockLine(value: unknown, file: string, line: number, expectedNumber: number): RecordedBlock {
  const fail = (problem: string): never => {
    throw new RecordingError(file, line, problem);
  };
  if (!isObject(value)) return fail('a block line is not a JSON object');
  if (value.number !== expectedNumber) fail(`expected block ${expectedNumber}, got ${JSON.stringify(value.number)} (blocks must follow each other)`);
  if (!isObject(value.block)) fail(`block ${expectedNumber}: "block" must be a JSON object`);
  if (!Array.isArray(value.receipts) || !value.receipts.every(isObject)) fail(`block ${expectedNumber}: "receipts" must be a list of JSON objects`);
  return value as unknown as RecordedBlock;
}

/** How much of a recording readRecordingHeader reads for its first line (a header is a few KB). */
const HEADER_PREFIX = 1 << 16;
/** …and inflates them no further than this (64 KB of gzip can hold far more; the rest is the stream's). */
const HEADER_INFLATED_LIMIT = 1 << 22;

/**
 * The header of a recording without setting up its block stream (for a replay whose blocks another
 * thread reads): line 1 from the file's first 64 KB, inflated as far as they go. Whatever that
 * cannot settle (a longer header, an empty file, a line that is not a header) is read by
 * RecordingReader.open, so the answer and every error are the same as there.
 */
export async function readRecordingHeader(file: string): Promise<RecordingHeader> {
  const handle = await open(file, 'r');
  let prefix: Buffer;
  try {
    const { bytesRead, buffer } = await handle.read(Buffer.alloc(HEADER_PREFIX), 0, HEADER_PREFIX, 0);
    prefix = buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
  try {
    const text = prefix[0] === 0x1f && prefix[1] === 0x8b ? gunzipSync(prefix, { finishFlush: zlibConstants.Z_SYNC_FLUSH, maxOutputLength: HEADER_INFLATED_LIMIT }) : prefix;
    const end = text.indexOf(0x0a);
    if (end > 0) {
      const line = text.subarray(0, text[end - 1] === 0x0d ? end - 1 : end);
      return parseHeader(JSON.parse(line.toString('utf8')), file);
    }
  } catch {
    // said in RecordingReader.open's words below
  }
  const reader = await RecordingReader.open(file);
  reader.close();
  return reader.header;
}

async function isGzip(file: string): Promise<boolean> {
  const handle = await open(file, 'r');
  try {
    const { bytesRead, buffer } = await handle.read(Buffer.alloc(2), 0, 2, 0);
    return bytesRead === 2 && buffer[0] === 0x1f && buffer[1] === 0x8b;
  } finally {
    await handle.close();
  }
}

/** Reads a recording: the header first, then its blocks one at a time. */
export class RecordingReader {
  private constructor(
    readonly file: string,
    readonly header: RecordingHeader,
    private readonly lines: AsyncIterator<Uint8Array>,
    private readonly closeStreams: () => void,
    private lineNumber: number,
    /** Whether the file is gzip-compressed. */
    readonly gzip: boolean,
    private readonly ending: { unterminated: boolean },
  ) {}

  /** Read to its end, the file's last line had no line end (a writer stopped before it, or another tool wrote it). */
  get lastLineUnterminated(): boolean {
    return this.ending.unterminated;
  }

  static async open(file: string): Promise<RecordingReader> {
    // check the file first: a read stream on a missing file would emit an unhandled error
    const gzip = await isGzip(file);
    const raw = createReadStream(file, { highWaterMark: 1 << 20 });
    const input: Readable = gzip ? raw.pipe(createGunzip({ chunkSize: 1 << 20 })) : raw;
    const ending = { unterminated: false };
    const lines = splitLines(input, () => (ending.unterminated = true));
    const close = () => {
      void lines.return(undefined);
      input.destroy();
      raw.destroy();
    };
    try {
      const first = await lines.next();
      if (first.done) throw new RecordingError(file, 1, 'the file is empty (no header line)');
      const binary = binaryByteAt(first.value);
      if (!gzip && binary >= 0) {
        throw new RecordingError(file, 1, `not a Twinchain recording: neither gzip-compressed (which starts with the bytes 1f 8b) nor JSON Lines text (byte ${binary} is 0x${first.value[binary]!.toString(16).padStart(2, '0')})`);
      }
      const header = parseHeader(parseJson(utf8(first.value), file, 1), file);
      return new RecordingReader(file, header, lines, close, 1, gzip, ending);
    } catch (e) {
      close();
      throw e instanceof RecordingError ? e : readFailure(file, 1, e);
    }
  }

  /** Stop reading and close the file (also when no block was read: a generator never started has nothing to close). */
  close(): void {
    this.closeStreams();
  }

  /** The line of the block last yielded by blocks() (1: the header). */
  get line(): number {
    return this.lineNumber;
  }

  /** Every block line in order; a malformed line stops with its file:line. */
  async *blocks(): AsyncGenerator<RecordedBlock> {
    let expected = this.header.from;
    for await (const line of this.rawBlockLines()) yield line.parse(expected++);
  }

  /**
   * Every block line in order, not yet parsed: its bytes, its line number, the block number it
   * starts with (`{"number":N,`, as RecordingWriter writes it), and `parse`, which checks it as
   * blocks() does (throwing file:line on a malformed line). For a reader that parses elsewhere:
   * each line's bytes are in a SharedArrayBuffer of their own, for other threads to read.
   */
  async *rawBlockLines(): AsyncGenerator<RawBlockLine> {
    try {
      for (;;) {
        let next: IteratorResult<Uint8Array>;
        try {
          next = await this.lines.next();
        } catch (e) {
          throw readFailure(this.file, this.lineNumber + 1, e);
        }
        if (next.done) return;
        this.lineNumber++;
        const bytes = next.value;
        if (isBlank(bytes)) continue;
        yield rawBlockLine(bytes, this.file, this.lineNumber);
      }
    } finally {
      this.closeStreams();
    }
  }
}

/** A block line as read: see RecordingReader.rawBlockLines. */
export interface RawBlockLine {
  readonly bytes: Uint8Array;
  readonly line: number;
  /** The number the line starts with, where it starts as RecordingWriter writes (else parse to know). */
  readonly number?: number;
  readonly parse: (expectedNumber: number) => RecordedBlock;
}

/** The RawBlockLine of these bytes, line `line` of `file` (also for bytes read on another thread). */
export function rawBlockLine(bytes: Uint8Array, file: string, line: number): RawBlockLine {
  const number = leadingNumber(bytes);
  return {
    bytes,
    line,
    ...(number === undefined ? {} : { number }),
    parse: (expected: number) => parseBlockLine(parseJson(utf8(bytes), file, line), file, line, expected),
  };
}

const LEADING = '{"number":';

/** N of a line that starts `{"number":N,` (N in decimal, without leading zeros). */
function leadingNumber(bytes: Uint8Array): number | undefined {
  for (let i = 0; i < LEADING.length; i++) if (bytes[i] !== LEADING.charCodeAt(i)) return undefined;
  let n = 0;
  let i = LEADING.length;
  for (; i < bytes.length && i < LEADING.length + 15 && bytes[i]! >= 0x30 && bytes[i]! <= 0x39; i++) n = n * 10 + (bytes[i]! - 0x30);
  const digits = i - LEADING.length;
  if (digits === 0 || bytes[i] !== 0x2c || (digits > 1 && bytes[LEADING.length] === 0x30)) return undefined;
  return n;
}

/** The text of UTF-8 bytes. */
export function utf8(bytes: Uint8Array): string {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // recordings are ASCII but for odd strings: ASCII is its own Latin-1, which decodes several times faster
  return isAscii(buffer) ? buffer.toString('latin1') : buffer.toString('utf8');
}

/** Only whitespace. */
function isBlank(bytes: Uint8Array): boolean {
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i];
    if (c !== 0x20 && c !== 0x09 && c !== 0x0d && c !== 0x0a) return false;
  }
  return true;
}

/**
 * The lines of a byte stream (LF or CRLF), split on the bytes (UTF-8 never has 0x0a inside a
 * character); each line without its line end, in a SharedArrayBuffer of its own, so that other
 * threads read it without a copy.
 */
async function* splitLines(input: AsyncIterable<Buffer>, onUnterminated: () => void = () => undefined): AsyncGenerator<Uint8Array> {
  let partial: Buffer[] = [];
  const line = (parts: Buffer[]) => {
    let size = 0;
    for (const p of parts) size += p.length;
    const last = parts[parts.length - 1];
    const crlf = size > 0 && last !== undefined && last.length > 0 && last[last.length - 1] === 0x0d;
    const bytes = new Uint8Array(new SharedArrayBuffer(size));
    let at = 0;
    for (const p of parts) {
      bytes.set(p, at);
      at += p.length;
    }
    return crlf ? bytes.subarray(0, size - 1) : bytes;
  };
  for await (const chunk of input) {
    let start = 0;
    for (let at = chunk.indexOf(0x0a); at !== -1; at = chunk.indexOf(0x0a, start)) {
      partial.push(chunk.subarray(start, at));
      yield line(partial);
      partial = [];
      start = at + 1;
    }
    if (start < chunk.length) partial.push(chunk.subarray(start));
  }
  if (partial.length > 0) {
    onUnterminated();
    yield line(partial);
  }
}

/** A read or inflate failure at a line, in words: zlib's own message, and what it means for the file. */
function readFailure(file: string, line: number, e: unknown): RecordingError {
  const { code, message } = e as NodeJS.ErrnoException;
  if (code === 'Z_BUF_ERROR') return new RecordingError(file, line, `cannot read: the file is cut off, its gzip data stops short: ${message}`, true);
  if (code === 'Z_DATA_ERROR') return new RecordingError(file, line, `cannot read: the gzip data is damaged: ${message}`);
  return new RecordingError(file, line, `cannot read: ${message}`);
}

/** Where a line's first 64 bytes hold one that text does not (a control character other than tab and line breaks); -1 if nowhere. */
function binaryByteAt(line: Uint8Array): number {
  const end = Math.min(line.length, 64);
  for (let i = 0; i < end; i++) {
    const b = line[i]!;
    if (b < 0x09 || (b > 0x0d && b < 0x20) || b === 0x7f) return i;
  }
  return -1;
}

function parseJson(text: string, file: string, line: number): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new RecordingError(file, line, `not JSON: ${(e as Error).message}`);
  }
}

/** Writes a recording line by line (gzip when the file name ends in .gz); `append` continues one. */
export class RecordingWriter {
  private constructor(
    private readonly output: Writable,
    private readonly sink: Writable,
  ) {}

  /**
   * `gzip`: compress (default: when the name ends in .gz; appending, pass what the file holds).
   * `lineEndFirst`: appending to a file whose last line has no line end, end it first.
   */
  static create(file: string, options: { append?: boolean; gzip?: boolean; lineEndFirst?: boolean } = {}): RecordingWriter {
    const sink = createWriteStream(file, { flags: options.append ? 'a' : 'w' });
    // gzip members may follow each other: an appended .gz stays one readable stream
    const output = (options.gzip ?? file.endsWith('.gz')) ? createGzip() : sink;
    if (output !== sink) output.pipe(sink);
    if (options.lineEndFirst) output.write('\n');
    return new RecordingWriter(output, sink);
  }

  writeHeader(header: RecordingHeader): Promise<void> {
    return this.line(header);
  }

  writeBlock(block: RecordedBlock): Promise<void> {
    return this.line(block);
  }

  private line(value: unknown): Promise<void> {
    const text = `${JSON.stringify(value)}\n`;
    return new Promise((resolve, reject) => {
      this.output.write(text, (e) => (e ? reject(e) : resolve()));
    });
  }

  /** Flush and close; resolves once everything is on disk. */
  end(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.sink.once('error', reject);
      this.sink.once('close', resolve);
      this.output.end();
    });
  }
}
