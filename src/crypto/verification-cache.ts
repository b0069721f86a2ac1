import type { CryptoSuite, Signature } from './suite.js';

/** Bytes as a string key (one char per byte). */
const raw = (b: Uint8Array): string => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('latin1');

const signatureKey = (s: Signature): string =>
  s.kind === 'ecdsa' ? `e${s.r.toString(16)}:${s.s.toString(16)}:${s.v}` : `s${s.r.toString(16)}:${s.s.toString(16)}:${raw(s.publicKey)}`;

/**
 * Remembers signature checks: recovery and verification are pure functions of (digest,
 * signature[, key]), so many simulated nodes checking the same transaction or consensus message
 * can share one computation without sharing any state. Bounded; oldest entries go first.
 */
export class VerificationCache {
  private readonly results = new Map<string, Uint8Array | boolean | null>();
  hits = 0;
  misses = 0;

  constructor(private readonly capacity = 200_000) {}

  remember<T extends Uint8Array | boolean | null>(key: string, compute: () => T): T {
    const known = this.results.get(key);
    if (known !== undefined) {
      this.hits++;
      return known as T;
    }
    this.misses++;
    const value = compute();
    this.results.set(key, value);
    if (this.results.size > this.capacity) this.results.delete(this.results.keys().next().value!);
    return value;
  }
}

/** The suite with recoverSigner and verify answered from a shared VerificationCache. */
export function withVerificationCache(suite: CryptoSuite, cache: VerificationCache): CryptoSuite {
  return {
    name: suite.name,
    hash: (d) => suite.hash(d),
    generateKeyPair: (r) => suite.generateKeyPair(r),
    keyPairFromPrivateKey: (k) => suite.keyPairFromPrivateKey(k),
    sign: (d, k) => suite.sign(d, k),
    recoverSigner: (digest, signature) =>
      cache.remember(`${suite.name}/r/${digest.length}/${raw(digest)}${signatureKey(signature)}`, () => suite.recoverSigner(digest, signature)),
    verify: (digest, signature, publicKey) =>
      cache.remember(`${suite.name}/v/${digest.length}/${raw(digest)}${signatureKey(signature)}/${raw(publicKey)}`, () =>
        suite.verify(digest, signature, publicKey),
      ),
    verifyFlat: (digest, flat, publicKey) =>
      cache.remember(`${suite.name}/f/${digest.length}/${flat.length}/${raw(digest)}${raw(flat)}${raw(publicKey)}`, () => {
        try {
          return suite.verify(digest, suite.signatureFromBytes(flat), publicKey);
        } catch {
          return false;
        }
      }),
    signatureFormError: (s) => suite.signatureFormError(s),
    address: (p) => suite.address(p),
    signatureToBytes: (s) => suite.signatureToBytes(s),
    signatureFromBytes: (b) => suite.signatureFromBytes(b),
  };
}
