import { describe, expect, it } from 'vitest';
import { CodecError } from './codec-error.js';
import { rlpBytesPayload, rlpDecode, rlpEncode, rlpListItemsShallow, type RlpInput } from './rlp.js';

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
