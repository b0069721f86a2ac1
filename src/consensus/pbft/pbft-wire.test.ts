import { describe, expect, it } from 'vitest';
import { expectRefusal } from '../../codec/refusal.test-helper.js';
import { rlpDecode, rlpEncode, type RlpValue } from '../../codec/index.js';
import { getSuite, keccak256, type SuiteName } from '../../crypto/index.js';
import { SimulatedSigner, SuiteSigner, type ConsensusSigner } from '../consensus-signer.js';
import { MessageDecodeError } from '../proposal.js';
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

describe('PBFT wire: the tag is the distinct part of the envelope signature', () => {
  // a signer whose signatures are 40 bytes: a 4-byte constant, then 32 distinct bytes, then 4 more
  const boxed: ConsensusSigner = {
    scheme: 'boxed',
    signatureSize: 40,
    distinctPart: [4, 32],
    sign: (d) => Uint8Array.of(0xee, 0xee, 0xee, 0xee, ...keccak256(d), 0xdd, 0xdd, 0xdd, 0xdd),
    verify: () => true,
  };
  it('takes the signature part at its offset from where the signature starts, whatever the message', () => {
    for (const m of messages()) {
      const bytes = encodePbftMessage(m, boxed, keccak256);
      const signature = bytes.subarray(bytes.length - 40);
      expect(signature.subarray(0, 4)).toEqual(Uint8Array.of(0xee, 0xee, 0xee, 0xee));
      expect(pbftMessageTag(bytes, boxed)).toBe(Buffer.from(signature.subarray(4, 36)).toString('latin1'));
    }
    // a message shorter than a signature (garbage): the tag is taken from its start, never before it
    expect(pbftMessageTag(Uint8Array.of(1, 2, 3), boxed)).toBe(Buffer.from(Uint8Array.of(1, 2, 3)).toString('latin1'));
  });
});

describe('PBFT wire: decoding', () => {
  const suite = getSuite('ecdsa');
  const keys = [1, 2, 3].map((k) => suite.generateKeyPair((n) => Uint8Array.from({ length: n }, (_, i) => (i * 17 + k * 101) & 0xff)));
  const signers = keys.map((k) => new SuiteSigner(suite, k));
  const hash = (d: Uint8Array) => suite.hash(d);
  const nodeIdOf = (idx: number) => keys[idx]?.publicKey;
  const blockHash = new Uint8Array(32).fill(7);
  const proposal = { number: 5, parentHash: new Uint8Array(32).fill(4), timestamp: 1_000, sealer: 1, sealerList: keys.map((k) => k.publicKey), transactions: [Uint8Array.of(1, 2)] };
  const all: PbftMessage[] = [
    { type: 'prepare', height: 5, view: 3, idx: 1, proposal },
    { type: 'sign', height: 5, view: 3, idx: 2, blockHash, blockSignature: signers[2]!.sign(blockHash) },
    { type: 'commit', height: 5, view: 3, idx: 0, blockHash, blockSignature: signers[0]!.sign(blockHash) },
    { type: 'viewchange', height: 4, view: 9, idx: 2, blockHash },
  ];

  it.each(all.map((m) => [m.type, m] as const))('round-trips a %s', (_type, m) => {
    expect(decodePbftMessage(encodePbftMessage(m, signers[m.idx]!, hash), signers[0]!, hash, nodeIdOf)).toEqual(m);
  });

  /** A message's RLP items re-signed by sealer `by` after `edit`, so that only the edit can be refused. */
  const resigned = (m: PbftMessage, edit: (items: RlpValue[]) => RlpValue[], by = m.idx): Uint8Array => {
    const items = rlpDecode(encodePbftMessage(m, signers[m.idx]!, hash)) as RlpValue[];
    const fields = edit(items.slice(0, -1));
    return rlpEncode([...fields, signers[by]!.sign(hash(rlpEncode(fields)))]);
  };
  const at = (i: number, v: RlpValue) => (items: RlpValue[]) => items.map((x, k) => (k === i ? v : x));
  it.each<[string, () => Uint8Array, string]>([
    ['bytes that are not RLP', () => Uint8Array.of(0xf8), 'PBFT message'],
    ['a list of 5 items', () => rlpEncode([Uint8Array.of(1), Uint8Array.of(1), Uint8Array.of(1), Uint8Array.of(1), Uint8Array.of(1)]), 'a PBFT message is a list of at least 6 items'],
    ['a list for its type', () => resigned(all[3]!, at(0, [])), 'PBFT type: expected bytes'],
    ['an unknown type', () => resigned(all[3]!, at(0, Uint8Array.of(9))), 'PBFT type 9 is unknown'],
    ['a height wider than 7 bytes', () => resigned(all[3]!, at(1, new Uint8Array(8).fill(1))), 'PBFT height'],
    ['an index of no sealer', () => resigned(all[3]!, at(3, Uint8Array.of(5))), 'PBFT viewchange from index 5, which is not a sealer'],
    ['a list for its signature', () => rlpEncode([...(rlpDecode(encodePbftMessage(all[3]!, signers[2]!, hash)) as RlpValue[]).slice(0, -1), []]), 'PBFT signature: expected bytes'],
    ['a signature by another sealer', () => resigned(all[3]!, (x) => x, 0), "PBFT viewchange claims sealer 2 but its signature is not that sealer's"],
    ['a prepare of 7 items', () => resigned(all[0]!, (x) => [...x, new Uint8Array()]), 'PBFT prepare: expected 6 items'],
    ['a sign of 6 items', () => resigned(all[1]!, (x) => x.slice(0, 5)), 'PBFT sign: expected 7 items'],
    ['a commit whose block hash is 31 bytes', () => resigned(all[2]!, at(4, new Uint8Array(31))), 'PBFT commit blockHash: expected 32 bytes'],
    ['a sign whose block signature is a list', () => resigned(all[1]!, at(5, [])), 'PBFT sign blockSignature: expected some bytes'],
    ['a sign whose block signature is another sealer’s', () => resigned(all[1]!, at(5, signers[1]!.sign(blockHash))), "PBFT sign from sealer 2: the block signature is not that sealer's"],
    ['a view change of 7 items', () => resigned(all[3]!, (x) => [...x, new Uint8Array()]), 'PBFT viewchange: expected 6 items'],
    ['a view change whose block hash is a list', () => resigned(all[3]!, at(4, [])), 'PBFT viewchange blockHash: expected 32 bytes'],
  ])('refuses %s, saying what is wrong', (_what, make, message) => {
    expectRefusal(() => decodePbftMessage(make(), signers[0]!, hash, nodeIdOf), MessageDecodeError, message);
  });

  it('names a bad integer in its own words', () => {
    expect(() => decodePbftMessage(resigned(all[3]!, at(2, Uint8Array.of(0, 1))), signers[0]!, hash, nodeIdOf)).toThrow(/^PBFT view.*leading zero/);
    expect(() => decodePbftMessage(resigned(all[3]!, at(3, Uint8Array.of(1, 0, 0))), signers[0]!, hash, nodeIdOf)).toThrow(/^PBFT idx.*wider than 2 bytes/);
  });
});
