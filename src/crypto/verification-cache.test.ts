import { describe, expect, it } from 'vitest';
import { EcdsaSuite } from './ecdsa-suite.js';
import { Sm2Suite } from './sm2-suite.js';
import { VerificationCache, withVerificationCache } from './verification-cache.js';

describe('VerificationCache', () => {
  it('answers repeated checks from the cache with the same results, and never confuses signatures', () => {
    const suite = new EcdsaSuite();
    const cache = new VerificationCache();
    const cached = withVerificationCache(suite, cache);
    const key = suite.generateKeyPair(() => new Uint8Array(32).fill(5));
    const digest = suite.hash(Uint8Array.of(1));
    const sig = suite.sign(digest, key);
    expect(cached.recoverSigner(digest, sig)).toEqual(key.publicKey);
    expect(cached.recoverSigner(digest, sig)).toEqual(key.publicKey);
    expect([cache.hits, cache.misses]).toEqual([1, 1]);
    expect(cached.verify(digest, sig, key.publicKey)).toBe(true);
    const other = suite.generateKeyPair(() => new Uint8Array(32).fill(6));
    expect(cached.verify(digest, sig, other.publicKey)).toBe(false);
    const tampered = { ...sig, s: sig.s - 1n };
    expect(cached.recoverSigner(digest, tampered)).not.toEqual(key.publicKey);
    expect(cached.recoverSigner(suite.hash(Uint8Array.of(2)), sig)).not.toEqual(key.publicKey);
    expect(cached.name).toBe('ecdsa');
  });

  it('a recovery id, and an SM2 signature\'s public key, are part of what is remembered', () => {
    const ecdsa = new EcdsaSuite();
    const cached = withVerificationCache(ecdsa, new VerificationCache());
    const key = ecdsa.generateKeyPair(() => new Uint8Array(32).fill(5));
    const digest = ecdsa.hash(Uint8Array.of(1));
    const sig = ecdsa.sign(digest, key);
    expect(cached.verify(digest, sig, key.publicKey)).toBe(true);
    expect(cached.verify(digest, { ...sig, v: sig.v ^ 1 }, key.publicKey)).toBe(false);
    expect(cached.recoverSigner(digest, sig)).toEqual(key.publicKey);
    expect(cached.recoverSigner(digest, { ...sig, v: sig.v ^ 1 })).not.toEqual(key.publicKey);

    const sm = new Sm2Suite();
    const smCached = withVerificationCache(sm, new VerificationCache());
    const smKey = sm.generateKeyPair(() => new Uint8Array(32).fill(7));
    const other = sm.generateKeyPair(() => new Uint8Array(32).fill(8));
    const smSig = sm.sign(digest, smKey);
    expect(smCached.recoverSigner(digest, smSig)).toEqual(smKey.publicKey);
    expect(smCached.recoverSigner(digest, { ...smSig, publicKey: other.publicKey })).toBeNull();
  });

  it('stays bounded', () => {
    const cache = new VerificationCache(2);
    for (let i = 0; i < 5; i++) cache.remember(String(i), () => true);
    expect(cache.remember('0', () => false)).toBe(false); // evicted, recomputed
  });
});
