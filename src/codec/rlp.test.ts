import { RLP } from '@ethereumjs/rlp';
import { describe, expect, it } from 'vitest';
import { CodecError } from './codec-error.js';
import { rlpBytesPayload, rlpDecode, rlpEncode, rlpItemEnd, rlpListItemsShallow, rlpListOfEncodedRange, rlpListPayload, type RlpInput } from './rlp.js';

/** A small deterministic generator (tests must not depend on Math.random). */
function lcg(seed: number) {
  let n = seed >>> 0;
  return (max: number) => {
    n = (Math.imul(n, 1664525) + 1013904223) >>> 0;
    return n % max;
  };
}

function randomItem(next: (max: number) => number, depth: number): RlpInput {
  const kind = next(depth > 2 ? 3 : 5);
  if (kind < 3) {
    const sizes = [0, 1, 1, 2, 20, 55, 56, 57, 200, 300];
    const length = next(200) === 0 ? 70_000 : sizes[next(sizes.length)]!;
    return Uint8Array.from({ length }, () => next(256));
  }
  return Array.from({ length: next(kind === 3 ? 4 : 12) }, () => randomItem(next, depth + 1));
}

const reference = (input: RlpInput) => RLP.encode(input as Parameters<typeof RLP.encode>[0]);
const same = (a: Uint8Array, b: Uint8Array) => Buffer.from(a.buffer, a.byteOffset, a.length).equals(Buffer.from(b.buffer, b.byteOffset, b.length));
/** Decoded values compared through their encodings (the encoding is injective). */
const sameValue = (a: unknown, b: unknown) => same(reference(a as RlpInput), reference(b as RlpInput));

function referenceDecode(bytes: Uint8Array): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: RLP.decode(bytes) };
  } catch {
    return { ok: false };
  }
}

describe('rlp codec (against @ethereumjs/rlp)', () => {
  it('encodes byte for byte and decodes back', () => {
    const next = lcg(7);
    for (let i = 0; i < 400; i++) {
      const item = randomItem(next, 0);
      const encoded = rlpEncode(item);
      expect(same(encoded, reference(item))).toBe(true);
      expect(sameValue(rlpDecode(encoded), RLP.decode(encoded))).toBe(true);
    }
  });

  it('encodes other scalars like @ethereumjs/rlp', () => {
    for (const value of [0, 1, 127, 128, 255, 256, 1_000_000, 0n, 5n, 2n ** 70n, '', 'a', 'hello', '0x', '0x1', '0xabcd', 'long string '.repeat(10)]) {
      expect(rlpEncode(value)).toEqual(reference(value));
      expect(rlpEncode([value, [value]])).toEqual(reference([value, [value]]));
    }
    expect(() => rlpEncode(-1)).toThrow();
  });

  it('accepts and rejects exactly what @ethereumjs/rlp does', () => {
    const next = lcg(11);
    let rejected = 0;
    for (let i = 0; i < 3000; i++) {
      let bytes: Uint8Array;
      if (i % 3 === 0) bytes = Uint8Array.from({ length: next(12) }, () => next(256));
      else {
        bytes = reference(randomItem(next, 2)).slice();
        if (bytes.length > 0) {
          const at = next(bytes.length);
          if (i % 3 === 1) bytes[at] = next(256);
          else bytes = bytes.subarray(0, at);
        }
      }
      const expected = referenceDecode(bytes);
      if (expected.ok) expect(sameValue(rlpDecode(bytes), expected.value)).toBe(true);
      else {
        rejected++;
        expect(() => rlpDecode(bytes)).toThrowError('invalid RLP');
      }
    }
    expect(rejected).toBeGreaterThan(100);
    for (const bad of [[0x81, 0x05], [0x01, 0x02], [0xb8, 0x05, 1, 2, 3, 4, 5], [0xb9, 0x00, 0x40], [0xf8, 0x02, 1, 2], [0xc2, 0x01], [0xbf]]) {
      expect(() => rlpDecode(Uint8Array.from(bad))).toThrowError('invalid RLP');
    }
  });

  it('takes the long form from a length of 56 exactly, for strings and lists', () => {
    const string55 = [0xb8, 55, ...new Array<number>(55).fill(0x61)];
    const string56 = [0xb8, 56, ...new Array<number>(56).fill(0x61)];
    expect(() => rlpDecode(Uint8Array.from(string55))).toThrowError('gives its length 55 in the long form, used only from 56');
    expect(rlpDecode(Uint8Array.from(string56))).toEqual(new Uint8Array(56).fill(0x61));
    const list55 = [0xf8, 55, ...new Array<number>(55).fill(0x01)];
    const list56 = [0xf8, 56, ...new Array<number>(56).fill(0x01)];
    expect(() => rlpDecode(Uint8Array.from(list55))).toThrowError('gives its length 55 in the long form, used only from 56');
    expect(rlpDecode(Uint8Array.from(list56))).toHaveLength(56);
    // and the encoder switches at the same length
    expect([...rlpEncode(new Uint8Array(55).fill(0x61)).subarray(0, 2)]).toEqual([0x80 + 55, 0x61]);
    expect([...rlpEncode(new Uint8Array(56).fill(0x61)).subarray(0, 2)]).toEqual([0xb8, 56]);
  });

  // each used to read "invalid RLP: invalid RLP: …" (or "invalid RLP: invalid RLP (safeSlice): …")
  it.each([
    [[0xf8], 'tx: invalid RLP: the length of the item at byte 0 runs past the end of the data (got "1 byte")'],
    [[0x81, 0x05], 'tx: invalid RLP: the single byte 0x05 at byte 1 has a prefix; a byte below 0x80 is its own encoding (got "2 bytes")'],
    [[0x01, 0x02], 'tx: invalid RLP: 1 byte after the item that ends at byte 1 (got "2 bytes")'],
    [[0xb8, 0x05, 1, 2, 3, 4, 5], 'tx: invalid RLP: the item at byte 0 gives its length 5 in the long form, used only from 56 (got "7 bytes")'],
    [[0xb9, 0x00, 0x40], 'tx: invalid RLP: the length of the item at byte 0 runs past the end of the data (got "3 bytes")'],
    [[0xb9, 0x00, 0x40, 0x00], 'tx: invalid RLP: the length of the item at byte 0 starts with a zero byte (got "4 bytes")'],
    [[0xf8, 0x02, 1, 2], 'tx: invalid RLP: the item at byte 0 gives its length 2 in the long form, used only from 56 (got "4 bytes")'],
    [[0xc2, 0x01], 'tx: invalid RLP: the item at byte 0 is 3 bytes long, only 2 remain (got "2 bytes")'],
    [[0xc2, 0x82, 0x01], 'tx: invalid RLP: the item at byte 1 is 3 bytes long, only 2 remain (got "3 bytes")'],
  ])('says once that %j is invalid RLP, and why: %s', (bad, message) => {
    expect(() => rlpDecode(Uint8Array.from(bad), 'tx')).toThrowError(expect.objectContaining({ message }));
  });

  it('finds list payloads and item ends for hashing parts of an encoding', () => {
    const next = lcg(3);
    for (let i = 0; i < 100; i++) {
      const items = Array.from({ length: 1 + next(30) }, () => randomItem(next, 1));
      const encoded = rlpEncode(items);
      const { start, end } = rlpListPayload(encoded);
      expect(end).toBe(encoded.length);
      let at = start;
      const cut = next(items.length + 1);
      for (let k = 0; k < cut; k++) at = rlpItemEnd(encoded, at);
      expect(same(rlpListOfEncodedRange(encoded, start, at), reference(items.slice(0, cut)))).toBe(true);
    }
  });
});

describe('shallow RLP list reading', () => {
  const long = new Uint8Array(300).fill(7);
  const cases: Array<[string, RlpInput[]]> = [
    ['short items', [new Uint8Array([1]), new Uint8Array([0x80]), new Uint8Array(0), new Uint8Array([1, 2, 3])]],
    ['a long string and nested lists', [long, [new Uint8Array([5]), [long]], new Uint8Array(55), new Uint8Array(56)]],
    ['an empty list', []],
  ];
  it.each(cases)('gives each item of %s exactly as encoded', (_name, items) => {
    const encoded = rlpEncode(items);
    const shallow = rlpListItemsShallow(encoded);
    expect(shallow.map((s) => rlpDecode(s))).toEqual(rlpDecode(encoded));
    expect(shallow.map((s) => Buffer.from(s).toString('hex'))).toEqual(items.map((i) => Buffer.from(rlpEncode(i)).toString('hex')));
  });

  it('strips a byte string prefix', () => {
    expect(rlpBytesPayload(rlpEncode(long))).toEqual(long);
    expect(rlpBytesPayload(rlpEncode(new Uint8Array([0x42])))).toEqual(new Uint8Array([0x42]));
    expect(() => rlpBytesPayload(rlpEncode([long]))).toThrow(/expected a byte string/);
  });

  it('refuses what is not one well-formed list, saying where', () => {
    const encoded = rlpEncode([long, new Uint8Array([1])]);
    expect(() => rlpListItemsShallow(encoded.subarray(0, 100), 'stored block 7')).toThrow(CodecError);
    expect(() => rlpListItemsShallow(encoded.subarray(0, 100), 'stored block 7')).toThrow(/stored block 7.*runs past the end/);
    expect(() => rlpListItemsShallow(new Uint8Array([...encoded, 0]))).toThrow(/1 bytes after the list/);
    expect(() => rlpListItemsShallow(rlpEncode(long))).toThrow(/expected an RLP list/);
    expect(() => rlpListItemsShallow(new Uint8Array(0))).toThrow(/ends where an item should start/);
  });
});
