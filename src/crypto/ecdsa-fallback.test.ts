import { describe, expect, it, vi } from 'vitest';
import type * as Backend from './secp256k1-backend.js';

vi.mock('./secp256k1-backend.js', async (importOriginal) => {
  const real = await importOriginal<typeof Backend>();
  return { ...real, loadNativeBackend: () => undefined };
});

describe('EcdsaSuite without the native addon', () => {
  it('falls back to @noble/curves in auto mode and still signs and recovers', async () => {
    const { EcdsaSuite } = await import('./ecdsa-suite.js');
    const suite = new EcdsaSuite('auto');
    expect(suite.backend.name).toBe('noble');
    const key = suite.keyPairFromPrivateKey(new Uint8Array(32).fill(3));
    const digest = suite.hash(Uint8Array.of(1));
    expect(suite.recoverSigner(digest, suite.sign(digest, key))).toEqual(key.publicKey);
  });

  it('refuses an explicit native request with a clear error', async () => {
    const { EcdsaSuite } = await import('./ecdsa-suite.js');
    expect(() => new EcdsaSuite('native')).toThrowError('the native secp256k1 addon could not be loaded');
  });
});
