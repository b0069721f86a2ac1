import { describe, expect, it } from 'vitest';
import { getSuite, keccak256, VerificationCache, withVerificationCache, type CryptoSuite } from '../crypto/index.js';
import { SimulatedSigner, SuiteSigner } from './consensus-signer.js';

const seeded = (seed: number) => {
  let n = seed;
  return (length: number) => Uint8Array.from({ length }, () => (n = (n * 48271) % 2147483647) & 0xff);
};
const digest = (i: number) => keccak256(Uint8Array.of(i));

describe.each<[string, () => CryptoSuite, number]>([
  ['ecdsa', () => getSuite('ecdsa'), 65],
  ['sm', () => getSuite('sm'), 128],
  ['ecdsa with a verification cache (verifyFlat)', () => withVerificationCache(getSuite('ecdsa'), new VerificationCache()), 65],
])('SuiteSigner, %s', (_name, make, size) => {
  const suite = make();
  const key = suite.generateKeyPair(seeded(7));
  const other = suite.generateKeyPair(seeded(8));
  const signer = new SuiteSigner(suite, key);

  it("signs in FISCO's flat form, messages differing in the first 64 bytes", () => {
    expect(signer.scheme).toBe(suite.name);
    expect(signer.signatureSize).toBe(size);
    expect(signer.distinctPart).toEqual([0, 64]);
    const s = signer.sign(digest(1));
    expect(s.length).toBe(size);
    expect(s).toEqual(suite.signatureToBytes(suite.sign(digest(1), key)));
  });

  it('verifies its own signatures and no others: another digest, another node, bytes of the wrong length or form', () => {
    const s = signer.sign(digest(1));
    expect(signer.verify(digest(1), s, key.publicKey)).toBe(true);
    expect(signer.verify(digest(2), s, key.publicKey)).toBe(false);
    expect(signer.verify(digest(1), s, other.publicKey)).toBe(false);
    expect(signer.verify(digest(1), s.subarray(0, size - 1), key.publicKey)).toBe(false);
    expect(signer.verify(digest(1), new Uint8Array(size), key.publicKey)).toBe(false);
    expect(new SuiteSigner(suite, other).verify(digest(1), s, key.publicKey)).toBe(true); // any signer checks anyone's
  });

  it('signs a digest once while it is among the last 8 signed (the same bytes, not signed again)', () => {
    const s = new SuiteSigner(suite, key);
    const first = s.sign(digest(0));
    expect(s.sign(digest(0))).toBe(first);
    for (let i = 1; i < 8; i++) s.sign(digest(i)); // 8 held: digest 0 is still there
    expect(s.sign(digest(0))).toBe(first);
    s.sign(digest(8)); // a 9th pushes out the oldest signed: digest 0
    const resigned = s.sign(digest(0));
    expect(resigned).not.toBe(first);
    expect(resigned).toEqual(first); // signing is deterministic
  });
});

describe('SimulatedSigner', () => {
  const salt = Uint8Array.of(1, 2, 3);
  const ids = [new Uint8Array(64).fill(1), new Uint8Array(64).fill(2)];
  const a = new SimulatedSigner(keccak256, salt, ids[0]!);
  const b = new SimulatedSigner(keccak256, salt, ids[1]!);

  it('signs with a secret of its node and the salt: the hash size, all of it distinct per message', () => {
    expect(a.scheme).toBe('simulated');
    expect(a.signatureSize).toBe(32);
    expect(a.distinctPart).toEqual([0, 32]);
    const s = a.sign(digest(1));
    expect(s.length).toBe(32);
    expect(s).not.toEqual(a.sign(digest(2)));
    expect(s).not.toEqual(b.sign(digest(1)));
  });

  it('any node of the simulation verifies it; another node id, digest, salt or length is refused', () => {
    const s = a.sign(digest(1));
    expect(b.verify(digest(1), s, ids[0]!)).toBe(true);
    expect(a.verify(digest(1), s, ids[0]!)).toBe(true);
    expect(b.verify(digest(1), s, ids[1]!)).toBe(false);
    expect(b.verify(digest(2), s, ids[0]!)).toBe(false);
    expect(new SimulatedSigner(keccak256, Uint8Array.of(9), ids[1]!).verify(digest(1), s, ids[0]!)).toBe(false);
    expect(b.verify(digest(1), s.subarray(0, 31), ids[0]!)).toBe(false);
    expect(b.verify(digest(1), Uint8Array.of(...s, 0), ids[0]!)).toBe(false);
    const flipped = Uint8Array.from(s);
    flipped[31] ^= 1;
    expect(b.verify(digest(1), flipped, ids[0]!)).toBe(false);
  });

  it('a node id given as a view into a larger buffer is the same node', () => {
    const big = new Uint8Array(70);
    big.set(ids[0]!, 3);
    expect(b.verify(digest(1), a.sign(digest(1)), big.subarray(3, 67))).toBe(true);
  });
});
