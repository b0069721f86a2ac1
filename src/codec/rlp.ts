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
