import { describe, expect, it } from 'vitest';
import { bytesEqual, compareBytes, concatBytes, parseHexBytes, toHex } from './hex.js';
import { bigintToBytes, bigintToFixedBytes, bytesToBigint, parseRlpUint } from './integer.js';
import { rlpDecode, rlpEncode, rlpListOfEncoded } from './rlp.js';
import { canonicalJson } from './canonical-json.js';

describe('hex bytes', () => {
  it('parses with the prefix rule asked for', () => {
    expect(toHex(parseHexBytes('0x00ff'))).toBe('0x00ff');
    expect(toHex(parseHexBytes('00FF', '', { prefix: 'forbidden' }))).toBe('0x00ff');
    expect(toHex(parseHexBytes('0x', ''))).toBe('0x');
    expect(() => parseHexBytes('00ff', 'data')).toThrowError('data: hex data must start with 0x (got "00ff")');
    expect(() => parseHexBytes('0x00ff', 'rlp', { prefix: 'forbidden' })).toThrowError('must not start with 0x');
    expect(() => parseHexBytes('0x0', 'data')).toThrowError('odd number of hex digits');
    expect(() => parseHexBytes('0xzz', 'data')).toThrowError('not a hex string');
    expect(() => parseHexBytes('0x00', 'address', { length: 20 })).toThrowError('expected 20 bytes, got 1');
  });

  it('compares and concatenates', () => {
    const a = Uint8Array.of(1, 2);
    const b = Uint8Array.of(1, 3);
    expect(compareBytes(a, b)).toBeLessThan(0);
    expect(compareBytes(b, a)).toBeGreaterThan(0);
    expect(compareBytes(a, Uint8Array.of(1, 2, 0))).toBeLessThan(0);
    expect(bytesEqual(concatBytes(a, b), Uint8Array.of(1, 2, 1, 3))).toBe(true);
  });

  it('bytesEqual: short and long runs (compared natively), views into larger buffers, one byte off anywhere', () => {
    for (const size of [0, 1, 20, 159, 160, 300, 1000]) {
      const backing = new Uint8Array(size + 7).map((_, i) => (i * 31) & 0xff);
      const x = backing.subarray(3, 3 + size);
      const y = Uint8Array.from(x);
      expect(bytesEqual(x, y), `${size} bytes`).toBe(true);
      expect(bytesEqual(x, y.subarray(0, Math.max(0, size - 1))), `${size} against one less`).toBe(size === 0);
      for (const at of size === 0 ? [] : [0, size >> 1, size - 1]) {
        const z = Uint8Array.from(y);
        z[at]! ^= 1;
        expect(bytesEqual(x, z), `${size} bytes, byte ${at} off`).toBe(false);
      }
    }
  });
});

describe('integers', () => {
  it('encodes minimal and fixed widths', () => {
    expect(bigintToBytes(0n)).toEqual(new Uint8Array(0));
    expect(toHex(bigintToBytes(0x1234n))).toBe('0x1234');
    expect(toHex(bigintToFixedBytes(1n, 4))).toBe('0x00000001');
    expect(() => bigintToFixedBytes(0x10000n, 2)).toThrowError('does not fit in 2 bytes');
  });

  it('rejects leading zeros and over-wide RLP integers', () => {
    expect(parseRlpUint(Uint8Array.of(1, 0), 'gas')).toBe(256n);
    expect(() => parseRlpUint(Uint8Array.of(0, 1), 'gas')).toThrowError('gas: integer has a leading zero byte (got "0x0001")');
    expect(() => parseRlpUint(new Uint8Array(33).fill(1), 'nonce')).toThrowError('wider than 32 bytes');
  });
});

describe('rlp', () => {
  it('embeds pre-encoded items exactly like encoding the list', () => {
    const items = [Uint8Array.of(1), new Uint8Array(60).fill(7), [Uint8Array.of(0x80)]];
    const encoded = items.map((i) => rlpEncode(i));
    expect(rlpListOfEncoded(encoded)).toEqual(rlpEncode(items));
    const long = Array.from({ length: 300 }, (_, i) => rlpEncode(bigintToBytes(BigInt(i))));
    expect(rlpListOfEncoded(long)).toEqual(rlpEncode(Array.from({ length: 300 }, (_, i) => bigintToBytes(BigInt(i)))));
  });

  it('decodes strictly', () => {
    expect(() => rlpDecode(Uint8Array.of(0x81, 0x05), 'tx')).toThrowError('invalid RLP');
    expect(() => rlpDecode(Uint8Array.of(0x01, 0x02), 'tx')).toThrowError('invalid RLP');
  });
});

describe('canonicalJson', () => {
  it('sorts keys and encodes bytes and bigints', () => {
    expect(canonicalJson({ b: 1, a: [Uint8Array.of(255), 2n], c: undefined })).toBe('{"a":["0xff","2"],"b":1}');
    expect(canonicalJson({ z: { y: 1, x: null } })).toBe('{"z":{"x":null,"y":1}}');
    expect(() => canonicalJson({ n: NaN })).toThrowError('non-finite');
  });
});

describe('integer bytes', () => {
  it('round-trips across the small-number fast paths', () => {
    const values = [0n, 1n, 0x7fn, 0x80n, 0xffn, 0x100n, 0xffffn, 0x10000n, 0xffffffn, 0x1000000n, 0xffffffffn, 0x100000000n, 0xffffffffffffn, 0x1000000000000n, 2n ** 255n + 12345n];
    for (const v of values) {
      const hex = v === 0n ? '' : v.toString(16).padStart(Math.ceil(v.toString(16).length / 2) * 2, '0');
      expect(Buffer.from(bigintToBytes(v)).toString('hex')).toBe(hex);
      expect(bytesToBigint(bigintToBytes(v))).toBe(v);
      expect(bytesToBigint(Uint8Array.of(0, ...bigintToBytes(v)))).toBe(v);
    }
  });
});
