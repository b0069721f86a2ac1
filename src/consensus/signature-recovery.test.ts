// Consensus signatures are checked as FISCO checks them (crypto::Verify = ecdsaVerify: recover the
// key from r, s, v and compare): a message or block signature whose recovery id is flipped is
// refused, though its r and s still verify against the sealer's key (issue 43).
import { describe, expect, it } from 'vitest';
import { EcdsaSuite } from '../crypto/index.js';
import { SuiteSigner } from './consensus-signer.js';
import { decodePbftMessage, encodePbftMessage } from './pbft/pbft-wire.js';
import { decodeRaftMessage, encodeRaftMessage } from './raft/raft-wire.js';

const suite = new EcdsaSuite();
const seeded = (seed: number) => {
  let n = seed;
  return (length: number) => Uint8Array.from({ length }, () => (n = (n * 48271) % 2147483647) & 0xff);
};
const key = suite.generateKeyPair(seeded(43));
const signer = new SuiteSigner(suite, key);
const hash = (d: Uint8Array) => suite.hash(d);
const sealer = () => key.publicKey;
const blockHash = suite.hash(Uint8Array.of(4, 3));

/** A 65-byte r‖s‖v signature with v flipped 0 <-> 1. */
function flipV(signature: Uint8Array): Uint8Array {
  expect(signature.length).toBe(65);
  const out = Uint8Array.from(signature);
  out[64] = out[64]! ^ 1;
  return out;
}

/** The encoded message with the last byte, its own signature's v, flipped (the signature is the RLP list's last item). */
function flipEnvelopeV(bytes: Uint8Array): Uint8Array {
  const out = Uint8Array.from(bytes);
  out[out.length - 1] = out[out.length - 1]! ^ 1;
  return out;
}

describe('PBFT wire: signatures recovered and compared', () => {
  it.each(['sign', 'commit'] as const)('%s: a block signature with a flipped v is refused', (type) => {
    const honest = { type, height: 5, view: 0, idx: 0, blockHash, blockSignature: signer.sign(blockHash) };
    expect(decodePbftMessage(encodePbftMessage(honest, signer, hash), signer, hash, sealer)).toMatchObject({ type, idx: 0 });
    const flipped = encodePbftMessage({ ...honest, blockSignature: flipV(honest.blockSignature) }, signer, hash);
    expect(() => decodePbftMessage(flipped, signer, hash, sealer)).toThrowError("the block signature is not that sealer's");
  });

  it("a message whose own signature has a flipped v is refused", () => {
    const bytes = encodePbftMessage({ type: 'viewchange', height: 5, view: 1, idx: 0, blockHash }, signer, hash);
    expect(decodePbftMessage(bytes, signer, hash, sealer).type).toBe('viewchange');
    expect(() => decodePbftMessage(flipEnvelopeV(bytes), signer, hash, sealer)).toThrowError("its signature is not that sealer's");
  });
});

describe('Raft wire: signatures recovered and compared', () => {
  it("an acknowledgement's block signature with a flipped v is refused", () => {
    const base = { type: 'heartbeatResp' as const, term: 2, idx: 0, height: 4, blockHash, seq: 1 };
    const ack = { height: 5, blockHash, signature: signer.sign(blockHash) };
    expect(decodeRaftMessage(encodeRaftMessage({ ...base, ack }, signer, hash), signer, hash, sealer)).toMatchObject({ ack: { height: 5 } });
    const flipped = encodeRaftMessage({ ...base, ack: { ...ack, signature: flipV(ack.signature) } }, signer, hash);
    expect(() => decodeRaftMessage(flipped, signer, hash, sealer)).toThrowError("the block signature is not that sealer's");
  });

  it('a message whose own signature has a flipped v is refused', () => {
    const bytes = encodeRaftMessage({ type: 'voteReq', term: 2, idx: 0, height: 4, blockHash, lastHeight: 4, lastEntryTerm: 1, lastLeaderTerm: 1 }, signer, hash);
    expect(decodeRaftMessage(bytes, signer, hash, sealer).type).toBe('voteReq');
    expect(() => decodeRaftMessage(flipEnvelopeV(bytes), signer, hash, sealer)).toThrowError("its signature is not that sealer's");
  });
});
