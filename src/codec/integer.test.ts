import { describe, expect, it } from 'vitest';
import { CodecError } from './codec-error.js';
import { UINT256_MAX, bigintToBytes, bigintToFixedBytes, bytesToBigint, parseRlpUint } from './integer.js';

/** Minimal big-endian bytes by repeated division: the plain definition the fast paths must agree with. */
function minimalBytes(value: bigint): number[] {
  const out: number[] = [];
  for (let v = value; v > 0n; v >>= 8n) out.unshift(Number(v & 0xffn));
  return out;
}

/** Values at and around every byte-width boundary up to 2^264, where the width of the encoding changes. */
function boundaries(): bigint[] {
  const values = new Set<bigint>([0n, 1n, 0x7fn, 0x80n, 0x7fffffffn, 0x80000000n, 2n ** 53n - 1n, 2n ** 53n, 2n ** 53n + 1n, UINT256_MAX]);
  for (let bits = 8n; bits <= 264n; bits += 8n) {
    for (const v of [2n ** bits - 2n, 2n ** bits - 1n, 2n ** bits, 2n ** bits + 1n]) values.add(v);
  }
  // a few values with every byte set differently, of each width
  for (let width = 1; width <= 33; width++) {
    let v = 0n;
    for (let i = 0; i < width; i++) v = (v << 8n) | BigInt((i * 37 + 11) % 256 || 1);
    values.add(v);
  }
  return [...values].sort((a, b) => (a < b ? -1 : 1));
}

describe('integer codec', () => {
  it('bigintToBytes writes minimal big-endian bytes at every width boundary', () => {
    for (const value of boundaries()) {
      expect([...bigintToBytes(value)], `0x${value.toString(16)}`).toEqual(minimalBytes(value));
    }
  });

  it('bytesToBigint reads every width exactly, past the 2^53 a double holds', () => {
    for (const value of boundaries()) {
      expect(bytesToBigint(Uint8Array.from(minimalBytes(value))), `0x${value.toString(16)}`).toBe(value);
    }
    // leading zero bytes are read, not refused, and all-ones of each width come back whole
    expect(bytesToBigint(Uint8Array.of(0, 0, 1))).toBe(1n);
    for (let width = 1; width <= 40; width++) expect(bytesToBigint(new Uint8Array(width).fill(0xff))).toBe(2n ** BigInt(8 * width) - 1n);
    expect(bytesToBigint(new Uint8Array(0))).toBe(0n);
  });

  it('bigintToFixedBytes pads to the width and refuses what does not fit', () => {
    expect([...bigintToFixedBytes(0n, 4)]).toEqual([0, 0, 0, 0]);
    expect([...bigintToFixedBytes(0x1234n, 4)]).toEqual([0, 0, 0x12, 0x34]);
    expect([...bigintToFixedBytes(2n ** 32n - 1n, 4)]).toEqual([0xff, 0xff, 0xff, 0xff]);
    expect(() => bigintToFixedBytes(2n ** 32n, 4)).toThrow(/does not fit in 4 bytes/);
    expect(bigintToFixedBytes(UINT256_MAX, 32)).toEqual(new Uint8Array(32).fill(0xff));
    expect(() => bigintToFixedBytes(-1n, 32)).toThrow(CodecError);
    expect(() => bigintToBytes(-1n)).toThrow(/negative/);
  });

  it('parseRlpUint refuses a leading zero byte and a value wider than allowed, naming the field', () => {
    expect(parseRlpUint(new Uint8Array(0), 'nonce')).toBe(0n);
    expect(parseRlpUint(Uint8Array.of(0x80), 'nonce')).toBe(0x80n);
    expect(() => parseRlpUint(Uint8Array.of(0, 1), 'nonce')).toThrow(/nonce.*leading zero/s);
    expect(() => parseRlpUint(Uint8Array.of(0), 'nonce')).toThrow(/leading zero/);
    expect(parseRlpUint(new Uint8Array(32).fill(0xff), 'value')).toBe(UINT256_MAX);
    expect(() => parseRlpUint(new Uint8Array(33).fill(1), 'value')).toThrow(/value.*wider than 32 bytes/s);
    expect(parseRlpUint(Uint8Array.of(1, 0), 'index', 2)).toBe(256n);
    expect(() => parseRlpUint(Uint8Array.of(1, 0, 0), 'index', 2)).toThrow(/wider than 2 bytes/);
  });
});
