import { describe, expect, it } from 'vitest';
import { getSuite, keccak256, type SuiteName } from '../../crypto/index.js';
import { SimulatedSigner, SuiteSigner, type ConsensusSigner } from '../consensus-signer.js';
import type { PbftMessage } from './pbft-messages.js';
import { decodePbftMessage, encodePbftMessage, pbftMessageTag } from './pbft-wire.js';

function messages(): PbftMessage[] {
  const hash = (b: number) => new Uint8Array(32).fill(b);
  return [
    { type: 'viewchange', height: 4, view: 1, idx: 2, blockHash: hash(1) },
    { type: 'viewchange', height: 4, view: 2, idx: 2, blockHash: hash(1) },
    { type: 'sign', height: 5, view: 2, idx: 2, blockHash: hash(2), blockSignature: new Uint8Array(0) },
    { type: 'commit', height: 5, view: 2, idx: 2, blockHash: hash(2), blockSignature: new Uint8Array(0) },
  ];
}

describe('PBFT wire: message tags for de-duplication', () => {
  const seeded = (n: number) => Uint8Array.from({ length: n }, (_, i) => (i * 31 + 7) & 0xff);
  const signers: Array<[string, () => { signer: ConsensusSigner; id: Uint8Array; hash: (d: Uint8Array) => Uint8Array }]> = (['ecdsa', 'sm'] as SuiteName[])
    .map((name): [string, () => { signer: ConsensusSigner; id: Uint8Array; hash: (d: Uint8Array) => Uint8Array }] => [
      name,
      () => {
        const suite = getSuite(name);
        const key = suite.generateKeyPair(seeded);
        return { signer: new SuiteSigner(suite, key), id: key.publicKey, hash: (d) => suite.hash(d) };
      },
    ])
    .concat([['simulated', () => {
      const id = new Uint8Array(64).fill(9);
      return { signer: new SimulatedSigner(keccak256, new Uint8Array([1]), id), id, hash: keccak256 };
    }]]);

  it.each(signers)('%s: every distinct message from one node has its own tag; a re-sent one has the same', (_name, make) => {
    const { signer, id, hash } = make();
    const encoded = messages().map((m) => {
      const withSig = 'blockSignature' in m ? { ...m, blockSignature: signer.sign(m.blockHash) } : m;
      return encodePbftMessage(withSig, signer, hash);
    });
    const tags = encoded.map((bytes) => pbftMessageTag(bytes, signer));
    expect(new Set(tags).size).toBe(tags.length);
    expect(pbftMessageTag(Uint8Array.from(encoded[0]!), signer)).toBe(tags[0]);
    // and the messages decode, so the tag is computed on what peers really send
    for (const bytes of encoded) expect(decodePbftMessage(bytes, signer, hash, () => id).idx).toBe(2);
  });
});
