import { describe, expect, it } from 'vitest';
import { getSuite, keccak256 } from '../crypto/index.js';
import { SimulatedSigner, SuiteSigner } from './consensus-signer.js';
import { pbftMessageTag } from './pbft/pbft-wire.js';

const seeded = (seed: number) => {
  let n = seed;
  return (length: number) => Uint8Array.from({ length }, () => (n = (n * 48271) % 2147483647) & 0xff);
};
const digest = (i: number) => keccak256(Uint8Array.of(i));

// Signers made inside the tests themselves: consensus-signer.test.ts makes its signers while the
// file is collected, where StrykerJS's per-test coverage sees no test run the constructors. A
// file of its own: see docs/mutation.md, "Editing a selected test file".
describe('signers made in a test', () => {
  it('an SM2 signer signs 128 bytes (r‖s‖public key), and a PBFT message\'s tag is its envelope signature\'s r‖s: two messages of one node never share one', () => {
    const suite = getSuite('sm');
    const signer = new SuiteSigner(suite, suite.generateKeyPair(seeded(11)));
    expect(signer.signatureSize).toBe(128);
    const message = (i: number) => {
      const s = signer.sign(digest(i));
      return { s, bytes: Uint8Array.of(0xf8, 0x10, ...new Uint8Array(20).fill(i), ...s) };
    };
    const [one, two] = [message(1), message(2)];
    const latin1 = (b: Uint8Array) => Buffer.from(b).toString('latin1');
    expect(pbftMessageTag(one.bytes, signer)).toBe(latin1(one.s.subarray(0, 64)));
    expect(pbftMessageTag(two.bytes, signer)).toBe(latin1(two.s.subarray(0, 64)));
    expect(pbftMessageTag(one.bytes, signer)).not.toBe(pbftMessageTag(two.bytes, signer));
  });

  it('the simulated signer names its scheme "simulated" (a byzantine sync peer forges signatures of that scheme by the name)', () => {
    expect(new SimulatedSigner(keccak256, Uint8Array.of(1), new Uint8Array(64).fill(3)).scheme).toBe('simulated');
    expect(new SuiteSigner(getSuite('ecdsa'), getSuite('ecdsa').generateKeyPair(seeded(12))).signatureSize).toBe(65);
  });
});
