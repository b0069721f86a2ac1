import { describe, expect, it } from 'vitest';
import { EcdsaSuite } from './ecdsa-suite.js';
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

  it('stays bounded', () => {
    const cache = new VerificationCache(2);
    for (let i = 0; i < 5; i++) cache.remember(String(i), () => true);
    expect(cache.remember('0', () => false)).toBe(false); // evicted, recomputed
  });
});
