import { describe, expect, it } from 'vitest';
import { toHex } from '../codec/index.js';
import { EcdsaSuite } from './ecdsa-suite.js';
import { SECP256K1_N } from './suite.js';

/** The flat form with its last byte, the recovery id, flipped 0 <-> 1. */
const flipV = (flat: Uint8Array): Uint8Array => {
  const out = Uint8Array.from(flat);
  out[64]! ^= 1;
  return out;
};

const counterRandom = (seed: number) => {
  let n = seed;
  return (length: number) => Uint8Array.from({ length }, () => (n = (n * 1103515245 + 12345) % 2 ** 31) & 0xff);
};

describe.each(['native', 'noble'] as const)('EcdsaSuite (%s backend)', (backend) => {
  const suite = new EcdsaSuite(backend);
  const key = suite.generateKeyPair(counterRandom(7));
  const digest = suite.hash(new TextEncoder().encode('twinchain'));

  it('uses the requested backend', () => {
    expect(suite.backend.name).toBe(backend);
  });

  it('signs deterministically, low-s, and recovers the signer', () => {
    const a = suite.sign(digest, key);
    const b = suite.sign(digest, key);
    expect(a).toEqual(b);
    expect(a.s <= SECP256K1_N / 2n).toBe(true);
    expect(toHex(suite.recoverSigner(digest, a)!)).toBe(toHex(key.publicKey));
    expect(suite.verify(digest, a, key.publicKey)).toBe(true);
  });

  it('rejects high-s and out-of-range values', () => {
    const sig = suite.sign(digest, key);
    const high = { ...sig, s: SECP256K1_N - sig.s, v: sig.v ^ 1 };
    expect(suite.signatureFormError(high)).toEqual({ field: 's', reason: 'value above n/2 (high-s is not allowed)' });
    expect(suite.recoverSigner(digest, high)).toBeNull();
    expect(suite.signatureFormError({ ...sig, r: 0n })?.field).toBe('r');
    expect(suite.signatureFormError({ ...sig, v: 2 })?.field).toBe('v');
  });

  it('low-s includes s = ⌊n/2⌋ itself; one more is high', () => {
    const sig = suite.sign(digest, key);
    expect(suite.signatureFormError({ ...sig, s: SECP256K1_N >> 1n })).toBeNull();
    expect(suite.signatureFormError({ ...sig, s: (SECP256K1_N >> 1n) + 1n })?.field).toBe('s');
  });

  it('verify refuses r or s of zero or of exactly n (and does not throw)', () => {
    const sig = suite.sign(digest, key);
    for (const bad of [{ r: 0n }, { r: SECP256K1_N }, { s: 0n }, { s: SECP256K1_N }]) expect(suite.verify(digest, { ...sig, ...bad }, key.publicKey), JSON.stringify(bad, (_k, v) => (typeof v === 'bigint' ? String(v) : v))).toBe(false);
  });

  it('does not recover the signer from a different digest', () => {
    const sig = suite.sign(digest, key);
    const other = suite.hash(Uint8Array.of(1));
    const recovered = suite.recoverSigner(other, sig);
    expect(recovered === null || toHex(recovered) !== toHex(key.publicKey)).toBe(true);
    expect(suite.verify(other, sig, key.publicKey)).toBe(false);
  });

  it('verifies as FISCO does, by recovering from (r, s, v) and comparing: a flipped v is refused', () => {
    const sig = suite.sign(digest, key);
    expect(suite.verify(digest, sig, key.publicKey)).toBe(true);
    // r and s still verify against the key; only the recovery id is wrong
    expect(suite.backend.verify(digest, suite.signatureToBytes(sig).subarray(0, 64), key.publicKey)).toBe(true);
    expect(suite.verify(digest, { ...sig, v: sig.v ^ 1 }, key.publicKey)).toBe(false);
    expect(suite.verify(digest, suite.signatureFromBytes(flipV(suite.signatureToBytes(sig))), key.publicKey)).toBe(false);
    for (const v of [2, 3, 4, 27, 255]) expect(suite.verify(digest, { ...sig, v }, key.publicKey), `v ${v}`).toBe(false);
  });

  it('takes the high-s twin (r, n − s, v ^ 1) of a block signature, as FISCO\'s ecdsaRecover does; transactions keep the low-s rule', () => {
    const sig = suite.sign(digest, key);
    const twin = { ...sig, s: SECP256K1_N - sig.s, v: sig.v ^ 1 };
    expect(suite.verify(digest, twin, key.publicKey)).toBe(true);
    expect(suite.verify(digest, { ...twin, v: sig.v }, key.publicKey)).toBe(false);
    expect(suite.recoverSigner(digest, twin)).toBeNull();
  });

  it('round-trips the 65-byte flat form', () => {
    const sig = suite.sign(digest, key);
    const flat = suite.signatureToBytes(sig);
    expect(flat.length).toBe(65);
    expect(suite.signatureFromBytes(flat)).toEqual(sig);
    expect(() => suite.signatureFromBytes(flat.subarray(1))).toThrowError('65 bytes');
  });
});

describe('EcdsaSuite backends agree', () => {
  it('produce identical signatures and keys', () => {
    const native = new EcdsaSuite('native');
    const noble = new EcdsaSuite('noble');
    const key = native.generateKeyPair(counterRandom(3));
    expect(noble.keyPairFromPrivateKey(key.privateKey)).toEqual(key);
    const digest = native.hash(Uint8Array.of(9, 9));
    expect(noble.sign(digest, key)).toEqual(native.sign(digest, key));
  });

  it('keccak256 matches the known empty-input digest', () => {
    expect(toHex(new EcdsaSuite().hash(new Uint8Array(0)))).toBe(
      '0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470',
    );
  });

  it('generates keys from the injected randomness only', () => {
    const suite = new EcdsaSuite();
    expect(suite.generateKeyPair(counterRandom(11))).toEqual(suite.generateKeyPair(counterRandom(11)));
    expect(toHex(suite.generateKeyPair(counterRandom(11)).privateKey)).not.toBe(toHex(suite.generateKeyPair(counterRandom(12)).privateKey));
  });
});
