import { RLP } from '@ethereumjs/rlp';
import { CodecError } from './codec-error.js';

export type RlpInput = Uint8Array | bigint | number | string | RlpInput[];
/** A decoded RLP item: a byte string or a list of items. */
export type RlpValue = Uint8Array | RlpValue[];

// A two-pass encoder (sizes first, then one output buffer) and an offset-based decoder that
// returns views into its input: byte for byte what @ethereumjs/rlp produces and accepts, without
// its copy per nesting level. Decoded byte strings share the input's memory; nothing here or
// downstream mutates them.

/** Bytes of a scalar that is not a Uint8Array, exactly as @ethereumjs/rlp converts it. */
function scalarBytes(input: RlpInput): Uint8Array {
  const encoded = RLP.encode(input as Parameters<typeof RLP.encode>[0]);
  return encoded.length === 1 && encoded[0]! < 0x80 ? encoded : (RLP.decode(encoded) as Uint8Array);
}

function lengthOfLength(length: number): number {
  let n = 0;
  while (length > 0) {
    n++;
    length = Math.floor(length / 256);
  }
  return n;
}

/** The size of the RLP header of a string or list payload of `length` bytes. */
export function headerSize(length: number): number {
  return length < 56 ? 1 : 1 + lengthOfLength(length);
}

/**
 * Encoded size of `input`; list payload sizes go to `sizes` in pre-order, scalars that are not
 * byte arrays are converted once into `scalars` (also pre-order).
 */
function measure(input: RlpInput, sizes: number[], scalars: Uint8Array[]): number {
  if (input instanceof Uint8Array) {
    const n = input.length;
    if (n === 1 && input[0]! < 0x80) return 1;
    return headerSize(n) + n;
  }
  if (Array.isArray(input)) {
    const slot = sizes.length;
    sizes.push(0);
    let payload = 0;
    for (let i = 0; i < input.length; i++) payload += measure(input[i]!, sizes, scalars);
    sizes[slot] = payload;
    return headerSize(payload) + payload;
  }
  const bytes = scalarBytes(input);
  scalars.push(bytes);
  return measure(bytes, sizes, scalars);
}

/** Writes at `at` the header of a payload of `length` bytes (`offset` 0x80 for a string, 0xc0 for a list); the position after it. */
export function writeHeader(out: Uint8Array, at: number, length: number, offset: number): number {
  if (length < 56) {
    out[at] = offset + length;
    return at + 1;
  }
  const n = lengthOfLength(length);
  out[at] = offset + 55 + n;
  for (let i = n; i >= 1; i--) {
    out[at + i] = length % 256;
    length = Math.floor(length / 256);
  }
  return at + 1 + n;
}

interface Cursor {
  list: number;
  scalar: number;
}

function writeItem(input: RlpInput, out: Uint8Array, at: number, sizes: readonly number[], scalars: readonly Uint8Array[], cursor: Cursor): number {
  let bytes: Uint8Array;
  if (input instanceof Uint8Array) bytes = input;
  else if (Array.isArray(input)) {
    at = writeHeader(out, at, sizes[cursor.list++]!, 0xc0);
    for (let i = 0; i < input.length; i++) at = writeItem(input[i]!, out, at, sizes, scalars, cursor);
    return at;
  } else bytes = scalars[cursor.scalar++]!;
  const n = bytes.length;
  if (n === 1 && bytes[0]! < 0x80) {
    out[at] = bytes[0]!;
    return at + 1;
  }
  at = writeHeader(out, at, n, 0x80);
  out.set(bytes, at);
  return at + n;
}

export function rlpEncode(input: RlpInput): Uint8Array {
  if (input instanceof Uint8Array) {
    const n = input.length;
    // @ethereumjs/rlp hands a single byte below 0x80 back as is
    if (n === 1 && input[0]! < 0x80) return input;
    const out = new Uint8Array(headerSize(n) + n);
    out.set(input, writeHeader(out, 0, n, 0x80));
    return out;
  }
  const sizes: number[] = [];
  const scalars: Uint8Array[] = [];
  const total = measure(input, sizes, scalars);
  if (!Array.isArray(input) && scalars[0]!.length === 1 && scalars[0]![0]! < 0x80) return scalars[0]!;
  const out = new Uint8Array(total);
  writeItem(input, out, 0, sizes, scalars, { list: 0, scalar: 0 });
  return out;
}

/** Why bytes are not RLP; rlpDecode says "invalid RLP" once, in front of it. */
class RlpError extends Error {}

const pastTheEnd = (at: number, end: number, limit: number) => new RlpError(`the item at byte ${at} is ${end - at} bytes long, only ${limit - at} remain`);

/** The big-endian length of the item at `at`, in bytes [at + 1, at + 1 + lengthBytes): no leading zero (as @ethereumjs/rlp checks). */
function readLength(bytes: Uint8Array, at: number, lengthBytes: number, limit: number): number {
  const start = at + 1;
  const end = start + lengthBytes;
  if (end > limit) throw new RlpError(`the length of the item at byte ${at} runs past the end of the data`);
  if (bytes[start] === 0) throw new RlpError(`the length of the item at byte ${at} starts with a zero byte`);
  let length = 0;
  for (let i = start; i < end; i++) length = length * 256 + bytes[i]!;
  if (length < 56) throw new RlpError(`the item at byte ${at} gives its length ${length} in the long form, used only from 56`);
  return length;
}

/** Decodes the item at `at`, which must end by `limit`; returns the item and sets `next.at` past it. */
function decodeItem(bytes: Uint8Array, at: number, limit: number, next: { at: number }): RlpValue {
  const first = bytes[at]!;
  if (first <= 0x7f) {
    next.at = at + 1;
    return bytes.subarray(at, at + 1);
  }
  if (first <= 0xb7) {
    const length = first - 0x80;
    const end = at + 1 + length;
    if (end > limit) throw pastTheEnd(at, end, limit);
    if (length === 1 && bytes[at + 1]! < 0x80) {
      throw new RlpError(`the single byte 0x${bytes[at + 1]!.toString(16).padStart(2, '0')} at byte ${at + 1} has a prefix; a byte below 0x80 is its own encoding`);
    }
    next.at = end;
    return length === 0 ? new Uint8Array(0) : bytes.subarray(at + 1, end);
  }
  if (first <= 0xbf) {
    const lengthBytes = first - 0xb7;
    // a long string has at least one byte beyond its length
    if (limit - at - 1 < lengthBytes + 1) throw new RlpError(`the length of the item at byte ${at} runs past the end of the data`);
    const start = at + 1 + lengthBytes;
    const end = start + readLength(bytes, at, lengthBytes, limit);
    if (end > limit) throw pastTheEnd(at, end, limit);
    next.at = end;
    return bytes.subarray(start, end);
  }
  let start: number;
  let end: number;
  if (first <= 0xf7) {
    start = at + 1;
    end = start + (first - 0xc0);
  } else {
    const lengthBytes = first - 0xf7;
    start = at + 1 + lengthBytes;
    end = start + readLength(bytes, at, lengthBytes, limit);
  }
  if (end > limit) throw pastTheEnd(at, end, limit);
  const items: RlpValue[] = [];
  let position = start;
  while (position < end) {
    items.push(decodeItem(bytes, position, end, next));
    position = next.at;
  }
  next.at = end;
  return items;
}

/** Strict decode of exactly one RLP item (non-canonical lengths and trailing bytes rejected). */
export function rlpDecode(bytes: Uint8Array, what = 'RLP data'): RlpValue {
  if (bytes.length === 0) return new Uint8Array(0);
  try {
    const next = { at: 0 };
    const value = decodeItem(bytes, 0, bytes.length, next);
    const rest = bytes.length - next.at;
    if (rest !== 0) throw new RlpError(`${rest} byte${rest === 1 ? '' : 's'} after the item that ends at byte ${next.at}`);
    return value;
  } catch (e) {
    if (!(e instanceof RlpError)) throw e;
    throw new CodecError(what, `${bytes.length} byte${bytes.length === 1 ? '' : 's'}`, `invalid RLP: ${e.message}`);
  }
}

/**
 * Where the items of the RLP list `bytes` start and end: [payloadStart, payloadEnd). For hashing
 * a prefix of a list's items without re-encoding them (see rlpListPrefix).
 */
export function rlpListPayload(bytes: Uint8Array): { start: number; end: number } {
  const first = bytes[0]!;
  if (first < 0xc0) throw new CodecError('RLP list', `${bytes.length} bytes`, 'not a list');
  if (first <= 0xf7) return { start: 1, end: 1 + first - 0xc0 };
  const lengthBytes = first - 0xf7;
  let length = 0;
  for (let i = 1; i <= lengthBytes; i++) length = length * 256 + bytes[i]!;
  return { start: 1 + lengthBytes, end: 1 + lengthBytes + length };
}

/** Byte offset just past the RLP item starting at `at` (which must be well formed). */
export function rlpItemEnd(bytes: Uint8Array, at: number): number {
  const first = bytes[at]!;
  if (first <= 0x7f) return at + 1;
  if (first <= 0xb7) return at + 1 + first - 0x80;
  if (first <= 0xbf || first >= 0xf8) {
    const lengthBytes = first - (first <= 0xbf ? 0xb7 : 0xf7);
    let length = 0;
    for (let i = 1; i <= lengthBytes; i++) length = length * 256 + bytes[at + i]!;
    return at + 1 + lengthBytes + length;
  }
  return at + 1 + first - 0xc0;
}

/** RLP list whose items are already encoded (embeds them byte for byte). */
export function rlpListOfEncoded(encodedItems: readonly Uint8Array[]): Uint8Array {
  let length = 0;
  for (const item of encodedItems) length += item.length;
  const out = new Uint8Array(headerSize(length) + length);
  let at = writeHeader(out, 0, length, 0xc0);
  for (const item of encodedItems) {
    out.set(item, at);
    at += item.length;
  }
  return out;
}

/** An RLP list made of the already-encoded items in `encoded[start, end)`. */
export function rlpListOfEncodedRange(encoded: Uint8Array, start: number, end: number): Uint8Array {
  const length = end - start;
  const out = new Uint8Array(headerSize(length) + length);
  out.set(encoded.subarray(start, end), writeHeader(out, 0, length, 0xc0));
  return out;
}

/** Where one RLP item starts and ends: its prefix, payload and total length. */
interface ItemSpan {
  readonly isList: boolean;
  readonly payloadStart: number;
  readonly end: number;
}

function itemSpan(bytes: Uint8Array, at: number, what: string): ItemSpan {
  const fail = (why: string): never => {
    throw new CodecError(what, `${bytes.length} bytes`, `invalid RLP at byte ${at}: ${why}`);
  };
  if (at >= bytes.length) fail('the data ends where an item should start');
  const b = bytes[at]!;
  const longLength = (lengthOfLength: number): number => {
    if (at + 1 + lengthOfLength > bytes.length) fail('the length runs past the end');
    let n = 0;
    for (let i = 0; i < lengthOfLength; i++) n = n * 256 + bytes[at + 1 + i]!;
    return n;
  };
  let isList = false;
  let payloadStart: number;
  let length: number;
  if (b < 0x80) [payloadStart, length] = [at, 1];
  else if (b <= 0xb7) [payloadStart, length] = [at + 1, b - 0x80];
  else if (b <= 0xbf) [payloadStart, length] = [at + 1 + (b - 0xb7), longLength(b - 0xb7)];
  else if (b <= 0xf7) [isList, payloadStart, length] = [true, at + 1, b - 0xc0];
  else [isList, payloadStart, length] = [true, at + 1 + (b - 0xf7), longLength(b - 0xf7)];
  const end = payloadStart + length;
  if (end > bytes.length) fail(`an item of ${length} bytes runs past the end`);
  return { isList, payloadStart, end };
}

/**
 * The items of an RLP list as slices of `bytes`, each still encoded, without decoding them: for
 * reading one field of a large structure (a block's header) cheaply. A byte-string item is
 * returned with its prefix; `rlpBytesPayload` strips it.
 */
export function rlpListItemsShallow(bytes: Uint8Array, what = 'RLP list'): Uint8Array[] {
  const outer = itemSpan(bytes, 0, what);
  if (!outer.isList) throw new CodecError(what, `${bytes.length} bytes`, 'expected an RLP list');
  if (outer.end !== bytes.length) throw new CodecError(what, `${bytes.length} bytes`, `${bytes.length - outer.end} bytes after the list`);
  const items: Uint8Array[] = [];
  for (let at = outer.payloadStart; at < outer.end; ) {
    const span = itemSpan(bytes, at, what);
    if (span.end > outer.end) throw new CodecError(what, `${bytes.length} bytes`, `an item at byte ${at} runs past its list`);
    items.push(bytes.subarray(at, span.end));
    at = span.end;
  }
  return items;
}

/** The payload of one encoded RLP byte string. */
export function rlpBytesPayload(item: Uint8Array, what = 'RLP byte string'): Uint8Array {
  const span = itemSpan(item, 0, what);
  if (span.isList) throw new CodecError(what, `${item.length} bytes`, 'expected a byte string, got a list');
  if (span.end !== item.length) throw new CodecError(what, `${item.length} bytes`, 'trailing bytes');
  return item.subarray(span.payloadStart, span.end);
}
