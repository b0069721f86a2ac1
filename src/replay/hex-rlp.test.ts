import { describe, expect, it } from 'vitest';
import { fromHex, rlpEncode, toHex, type RlpInput } from '../codec/index.js';
import { hexRlpEncode, isHexShape, type HexRlpItem } from './hex-rlp.js';

let seed = 11;
const next = () => (seed = (seed * 48271) % 2147483647);
const bytes = (length: number) => Uint8Array.from({ length }, () => next() & 0xff);

/** A random tree of byte strings (as hex or bytes) and lists, and the same tree decoded. */
function randomItem(depth: number): [HexRlpItem, RlpInput] {
  const pick = next() % 6;
  if (depth > 0 && pick === 0) {
    const children = Array.from({ length: next() % 5 }, () => randomItem(depth - 1));
    return [children.map((c) => c[0]), children.map((c) => c[1])];
  }
  // lengths around the encoding's edges: empty, one byte either side of 0x80, 55/56, long
  const length = [0, 1, 1, 2, 20, 32, 55, 56, 57, 255, 256, 1100][next() % 12]!;
  const value = bytes(length);
  if (length === 1 && next() % 2 === 0) value[0] = next() % 0x80;
  return next() % 3 === 0 ? [value, value] : [toHex(value), value];
}

describe('hexRlpEncode', () => {
  it('gives rlpEncode\'s bytes for the same items decoded, in upper-case hex too', () => {
    for (let i = 0; i < 300; i++) {
      const [hex, decoded] = randomItem(3);
      const expected = rlpEncode(decoded);
      expect(hexRlpEncode(hex)).toEqual(expected);
      const upper = JSON.parse(JSON.stringify(hex, (_k, v: unknown) => (typeof v === 'string' ? `0x${v.slice(2).toUpperCase()}` : v instanceof Uint8Array ? toHex(v) : v))) as HexRlpItem;
      expect(hexRlpEncode(upper)).toEqual(expected);
    }
  });

  it('refuses a digit that is not hex anywhere, one-byte strings included', () => {
    expect(hexRlpEncode(['0x01', ['0xabcd', '0xzz']])).toBeUndefined();
    expect(hexRlpEncode(['0x01', ['0xabcd', '0xab1g']])).toBeUndefined();
    expect(hexRlpEncode(`0x${'ab'.repeat(60)}g0`)).toBeUndefined();
    expect(hexRlpEncode(['0x7f', '0x80', '0x'])).toEqual(rlpEncode([fromHex('0x7f'), fromHex('0x80'), new Uint8Array(0)]));
  });

  it('isHexShape: 0x and whole bytes (of the given length), digits left to the writing', () => {
    expect(isHexShape('0x')).toBe(true);
    expect(isHexShape('0xab', 1)).toBe(true);
    expect(isHexShape('0xzz', 1)).toBe(true);
    expect(isHexShape('0xabc')).toBe(false);
    expect(isHexShape('0Xab')).toBe(false);
    expect(isHexShape('abcd')).toBe(false);
    expect(isHexShape('0xabcd', 1)).toBe(false);
    expect(isHexShape(12)).toBe(false);
  });
});
