import { RLP } from '@ethereumjs/rlp';
import { CodecError } from './codec-error.js';

export type RlpInput = Uint8Array | bigint | number | string | RlpInput[];
/** A decoded RLP item: a byte string or a list of items. */
export type RlpValue = Uint8Array | RlpValue[];

export function rlpEncode(input: RlpInput): Uint8Array {
  return RLP.encode(input as Parameters<typeof RLP.encode>[0]);
}

/** Strict decode of exactly one RLP item (non-canonical lengths and trailing bytes rejected). */
export function rlpDecode(bytes: Uint8Array, what = 'RLP data'): RlpValue {
  try {
    return RLP.decode(bytes) as RlpValue;
  } catch (e) {
    throw new CodecError(what, `${bytes.length} bytes`, `invalid RLP: ${(e as Error).message}`);
  }
}

/** RLP list whose items are already encoded (embeds them byte for byte). */
export function rlpListOfEncoded(encodedItems: readonly Uint8Array[]): Uint8Array {
  let length = 0;
  for (const item of encodedItems) length += item.length;
  const header = rlpLengthPrefix(length, 0xc0);
  const out = new Uint8Array(header.length + length);
  out.set(header, 0);
  let at = header.length;
  for (const item of encodedItems) {
    out.set(item, at);
    at += item.length;
  }
  return out;
}

function rlpLengthPrefix(length: number, offset: number): Uint8Array {
  if (length < 56) return Uint8Array.of(offset + length);
  const lenBytes: number[] = [];
  for (let n = length; n > 0; n = Math.floor(n / 256)) lenBytes.unshift(n % 256);
  return Uint8Array.of(offset + 55 + lenBytes.length, ...lenBytes);
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
