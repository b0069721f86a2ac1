import { describe, expect, it } from 'vitest';
import { getSuite } from '../crypto/index.js';
import { RecordedSenderSuite } from './recorded-sender-suite.js';

const seeded = (seed: number) => (length: number) => Uint8Array.from({ length }, (_, i) => (seed * 31 + i * 7) & 0xff);

describe('RecordedSenderSuite', () => {
  for (const name of ['ecdsa', 'sm'] as const) {
    it(`${name}: a registered digest "recovers" to its sender, by object; anything else goes to the real suite`, () => {
      const real = getSuite(name);
      const suite = new RecordedSenderSuite(real);
      const digest = real.hash(Uint8Array.of(1, 2, 3));
      const sender = Uint8Array.from({ length: 20 }, (_, i) => i + 1);
      const signature = suite.register(digest, sender);
      expect(signature.kind).toBe(name);
      const key = suite.recoverSigner(digest, signature);
      expect(key).toBe(sender);
      expect(suite.address(key!)).toBe(sender);
      // the same bytes in another object are not registered: the real suite answers
      const copy = Uint8Array.from(digest);
      const pair = real.generateKeyPair(seeded(name.length));
      const signed = real.sign(copy, pair);
      expect(suite.recoverSigner(copy, signed)).toEqual(real.recoverSigner(copy, signed));
      expect(suite.address(pair.publicKey)).toEqual(real.address(pair.publicKey));
      expect(suite.address(pair.publicKey)).not.toBe(sender);
      // forgotten after clear
      suite.clear();
      expect(() => suite.address(sender)).not.toThrow();
      expect(suite.address(sender)).not.toBe(sender);
    });
  }

  it('gives every registered ECDSA transaction one frozen signature, and each SM one its sender as the key', () => {
    const ecdsa = new RecordedSenderSuite(getSuite('ecdsa'));
    const a = ecdsa.register(new Uint8Array(32), new Uint8Array(20));
    const b = ecdsa.register(new Uint8Array(32), new Uint8Array(20));
    expect(a).toBe(b);
    expect(Object.isFrozen(a)).toBe(true);
    const sm = new RecordedSenderSuite(getSuite('sm'));
    const sender = new Uint8Array(20).fill(9);
    const signature = sm.register(new Uint8Array(32), sender);
    expect(signature).toMatchObject({ kind: 'sm', publicKey: sender });
  });
});
