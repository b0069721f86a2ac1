import { describe, expect, it } from 'vitest';
import { fromHex, toHex } from '../codec/index.js';
import { Sm2Suite } from './sm2-suite.js';
import { SM2_N } from './suite.js';

const seeded = (seed: number) => {
  let n = seed;
  return (length: number) => Uint8Array.from({ length }, () => (n = (n * 48271) % 2147483647) & 0xff);
};

describe('Sm2Suite', () => {
  const suite = new Sm2Suite();
  const key = suite.generateKeyPair(seeded(5));
  const digest = suite.hash(new TextEncoder().encode('guomi'));

  it('SM3 matches the GB/T 32905 "abc" vector', () => {
    expect(toHex(suite.hash(new TextEncoder().encode('abc')))).toBe(
      '0x66c7f0f462eeedd9d1f2d46bdc10e4e24167c4875cf2f7a2297da02b8f4ba8e0',
    );
  });

  it('signs deterministically and verifies', () => {
    const a = suite.sign(digest, key);
    expect(suite.sign(digest, key)).toEqual(a);
    expect(suite.verify(digest, a, key.publicKey)).toBe(true);
    expect(toHex(suite.recoverSigner(digest, a)!)).toBe(toHex(key.publicKey));
    expect(suite.verify(suite.hash(Uint8Array.of(1)), a, key.publicKey)).toBe(false);
  });

  it('rejects a signature carrying another key, or a bad point', () => {
    const sig = suite.sign(digest, key);
    const other = suite.generateKeyPair(seeded(6));
    expect(suite.recoverSigner(digest, { ...sig, publicKey: other.publicKey })).toBeNull();
    expect(suite.recoverSigner(digest, { ...sig, publicKey: new Uint8Array(64).fill(1) })).toBeNull();
    expect(suite.signatureFormError({ ...sig, publicKey: new Uint8Array(64) })).toEqual({ field: 'v', reason: 'public key is all zero' });
    expect(suite.signatureFormError({ ...sig, s: SM2_N })?.field).toBe('s');
  });

  it('checks a block signature as FISCO\'s sm2Verify does: r and s against the expected key, whatever key the signature carries', () => {
    // libdevcrypto/SM2Signature.cpp: sm2Verify hands SM2::verify the expected key; SM2::verify
    // reads only r and s of the 128 bytes. sm2Recover (transactions) verifies against the carried key.
    const sig = suite.sign(digest, key);
    const other = suite.generateKeyPair(seeded(7));
    const carriesOther = suite.signatureFromBytes(Uint8Array.from([...suite.signatureToBytes(sig).subarray(0, 64), ...other.publicKey]));
    expect(suite.verify(digest, carriesOther, key.publicKey)).toBe(true);
    expect(suite.verify(digest, carriesOther, other.publicKey)).toBe(false);
    expect(suite.recoverSigner(digest, carriesOther)).toBeNull();
    // SM2 has no recovery id: its "v" is the key, and a flipped last byte of it is another key
    const flipped = Uint8Array.from(suite.signatureToBytes(sig));
    flipped[127] = flipped[127]! ^ 1;
    expect(suite.recoverSigner(digest, suite.signatureFromBytes(flipped))).toBeNull();
  });

  it('verifies the guomi signature of the FISCO documentation example', () => {
    // rc2-sm vector: v slot = public key, signature over the signing hash with user id 1234567812345678
    const publicKey = fromHex(
      '8234c544a9f3ce3b401a92cc7175602ce2a1e29b1ec135381c7d2a9e8f78f3edc9c06ee55252857c9a4560cb39e9d70d40f4331cace4d2b3121b967fa7a829f0',
    );
    const signature = {
      kind: 'sm' as const,
      r: 0x0f16d87c5065ad5c3b110ef0b97fe9a67b62443cb8ddde60d4e001a64429dc6en,
      s: 0x3d2569e0449e9a900c236541afb9d8a8d5e1a36844439c7076f6e75ed624256fn,
      publicKey,
    };
    const signingHash = fromHex('7d195202f346568753cc7d561beda7a3027c876881f6139a027e9b7321c7cf4c');
    expect(suite.verify(signingHash, signature, publicKey)).toBe(true);
    expect(toHex(suite.address(publicKey))).toBe('0x1a3fc157bd47c3fc2e260b34abbf481730d0f80f');
  });

  it('keeps a bounded cache of precomputed keys, least recently used out first', () => {
    const small = new Sm2Suite(2);
    const keys = [1, 2, 3].map((s) => small.generateKeyPair(seeded(100 + s)));
    for (const k of keys) expect(small.verify(digest, small.sign(digest, k), k.publicKey)).toBe(true);
    expect(small.cachedKeys).toBe(2);
    // the evicted first key verifies again (re-precomputed), and a wrong digest still fails
    expect(small.verify(digest, small.sign(digest, keys[0]!), keys[0]!.publicKey)).toBe(true);
    expect(small.verify(suite.hash(new Uint8Array([1])), small.sign(digest, keys[0]!), keys[0]!.publicKey)).toBe(false);
    expect(small.cachedKeys).toBe(2);
    const none = new Sm2Suite(0);
    for (const k of keys) expect(none.verify(digest, none.sign(digest, k), k.publicKey)).toBe(true);
    expect(none.verify(digest, none.sign(digest, keys[0]!), keys[1]!.publicKey)).toBe(false);
    expect(none.cachedKeys).toBe(0);
  });

  it('gives a key verified often the larger table, and its verifications stay exact', () => {
    const s = new Sm2Suite(4);
    const signature = s.sign(digest, key);
    const other = s.sign(s.hash(new Uint8Array([7])), key);
    for (let i = 0; i < 127; i++) expect(s.verify(digest, signature, key.publicKey)).toBe(true);
    expect(s.hotKeys).toBe(0);
    expect(s.verify(digest, signature, key.publicKey)).toBe(true);
    expect(s.hotKeys).toBe(1);
    expect(s.verify(digest, other, key.publicKey)).toBe(false);
    expect(s.recoverSigner(digest, signature)).toEqual(key.publicKey);
  });

  it('rejects a public key off the curve with the cache on and off', () => {
    const offCurve = new Uint8Array(64).fill(1);
    const signature = { ...suite.sign(digest, key), publicKey: offCurve };
    for (const s of [new Sm2Suite(), new Sm2Suite(0)]) {
      expect(s.verify(digest, signature, offCurve)).toBe(false);
      expect(s.verify(digest, signature, offCurve)).toBe(false);
      expect(s.cachedKeys).toBe(0);
    }
  });

  it('round-trips the 128-byte flat form', () => {
    const sig = suite.sign(digest, key);
    const flat = suite.signatureToBytes(sig);
    expect(flat.length).toBe(128);
    expect(suite.signatureFromBytes(flat)).toEqual(sig);
  });
});
