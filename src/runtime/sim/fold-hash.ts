// Murmur3-style 32-bit mixing, used to fold trace entries into the rolling digest cheaply.
// Not cryptographic: it detects accidental divergence, not tampering.

/** Folds the 32-bit word `value` into the hash state `h`. */
export function fold(h: number, value: number): number {
  let v = Math.imul(value | 0, 0xcc9e2d51);
  v = (v << 15) | (v >>> 17);
  v = Math.imul(v, 0x1b873593);
  h ^= v;
  h = (h << 13) | (h >>> 19);
  return (Math.imul(h, 5) + 0xe6546b64) | 0;
}

/** Final avalanche of a hash state; returns an unsigned 32-bit value. */
export function finish(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Folds a non-negative integer up to 2^53 as two words. */
export function foldUint53(h: number, value: number): number {
  return fold(fold(h, value >>> 0), Math.floor(value / 0x1_0000_0000));
}

/** Folds a string: its length, then two UTF-16 code units per word. */
export function foldString(h: number, text: string): number {
  const n = text.length;
  h = fold(h, n);
  let i = 0;
  for (; i + 1 < n; i += 2) h = fold(h, text.charCodeAt(i) | (text.charCodeAt(i + 1) << 16));
  if (i < n) h = fold(h, text.charCodeAt(i));
  return h;
}

/** 32-bit hash of a byte string (payload fingerprints in the trace). */
export function hashBytes(bytes: Uint8Array): number {
  const n = bytes.length;
  let h = fold(0x2545f491, n);
  let i = 0;
  for (; i + 3 < n; i += 4) h = fold(h, bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24));
  let tail = 0;
  for (let shift = 0; i < n; i++, shift += 8) tail |= bytes[i]! << shift;
  return finish(fold(h, tail));
}

/** Eight lower-case hex digits of an unsigned 32-bit value. */
export function hex32(value: number): string {
  return (value >>> 0).toString(16).padStart(8, '0');
}
