import { describe, expect, it } from 'vitest';
import { fromHex, rlpDecode, rlpEncode, toHex, type RlpValue } from '../codec/index.js';
import { EcdsaSuite, getSuite, SECP256K1_N, Sm2Suite, type CryptoSuite } from '../crypto/index.js';
import { TransactionBuilder } from './transaction-builder.js';
import { TxDecodeError } from './transaction-error.js';
import {
  adoptSender,
  decodeTransaction,
  decodeTransactionHex,
  encodeSignedTransaction,
  encodeUnsignedTransaction,
  recoverSender,
  signedTransactionDigests,
  transactionToJson,
} from './transaction.js';
import { vectors } from './vectors.test-helper.js';

const suiteFor = (name: string): CryptoSuite => getSuite(name.startsWith('sm') ? 'sm' : 'ecdsa');

describe('FISCO documentation vectors', () => {
  it.each(vectors.transactions.map((v) => [v.name, v] as const))('%s: hash, signing hash and sender', (_name, v) => {
    const suite = suiteFor(v.suite);
    const tx = decodeTransactionHex(v.raw, { suite, generation: v.generation });
    expect(toHex(tx.hash)).toBe(v.hash);
    if (v.signingHash) expect(toHex(tx.signingHash)).toBe(v.signingHash);
    expect(tx.sender).toBeUndefined();
    expect(toHex(recoverSender(tx, suite))).toBe(v.from);
    expect(toHex(tx.sender!)).toBe(v.from);
    // re-encoding the decoded fields reproduces the payload bit for bit
    expect(toHex(encodeSignedTransaction(tx.body, tx.generation, tx.signature))).toBe(`0x${v.raw}`);
    expect(toHex(decodeTransactionHex(`0x${v.raw}`, { suite, generation: v.generation }).hash)).toBe(v.hash);
  });

  it('the getTransactionByHash example re-encodes from its JSON fields to the documented hashes', () => {
    const suite = getSuite('ecdsa');
    const body = {
      nonce: 0x3eb675ec791c2d19858c91d0046821c27d815e2e9c151604912205000002968n,
      gasPrice: 0xan,
      gas: 0x2faf080n,
      blockLimit: 0x100n,
      to: fromHex('8c17cf316c1063ab6c89df875e96c9f0f5b2f744'),
      value: 0n,
      data: fromHex(
        '4ed3885e0000000000000000000000000000000000000000000000000000000000000020000000000000000000000000000000000000000000000000000000000000000a464953434f2042434f5300000000000000000000000000000000000000000000',
      ),
      chainId: 1n,
      groupId: 1n,
      extraData: new Uint8Array(0),
    };
    const signature = {
      kind: 'ecdsa' as const,
      r: 0x9edf7c0cb63645442aff11323916d51ec5440de979950747c0189f338afdcefdn,
      s: 0x2f3473184513c6a3516e066ea98b7cfb55a79481c9db98e658dd016c37f03dcfn,
      v: 0,
    };
    const tx = decodeTransaction(encodeSignedTransaction(body, 'rc2', signature), { suite, generation: 'rc2' });
    expect(toHex(tx.hash)).toBe('0x3961fac263d8e640b148ddcfafd71d2069e93a006abc937c32fb16cfa96e661d');
    expect(toHex(tx.signingHash)).toBe('0xc52d8ae438be7095e7d2006c63bafde52141fb2198440609a117801634708435');
    expect(toHex(recoverSender(tx, suite))).toBe('0x57c7be32cbfb3bfed4fddc87efcc735b4e945fb3');
  });

  it('transactionToJson names every field', () => {
    const v = vectors.transactions.find((t) => t.name === 'rc1-ecdsa')!;
    const tx = decodeTransactionHex(v.raw, { suite: getSuite('ecdsa'), generation: 'rc1' });
    recoverSender(tx, getSuite('ecdsa'));
    const json = transactionToJson(tx);
    expect(json).toMatchObject({ generation: 'rc1', hash: v.hash, from: v.from, value: '0x0', to: '0xd6f1a71052366dbae2f7ab2d5d5845e77965cf0d' });
    expect(json).not.toHaveProperty('chainId');
  });
});

const seeded = (seed: number) => {
  let n = seed;
  return (length: number) => Uint8Array.from({ length }, () => (n = (n * 48271) % 2147483647) & 0xff);
};

describe.each([
  ['ecdsa', 'rc1'],
  ['ecdsa', 'rc2'],
  ['sm', 'rc1'],
  ['sm', 'rc2'],
] as const)('%s %s round trip', (suiteName, generation) => {
  const suite = getSuite(suiteName);
  const builder = new TransactionBuilder({ suite, generation, key: suite.generateKeyPair(seeded(42)), random: seeded(1), groupId: 3n });

  it('encode ∘ decode is the identity, sender included', () => {
    const tx = builder.build({ to: fromHex('11'.repeat(20)), data: Uint8Array.of(1, 2, 3), blockLimit: 501n });
    const back = decodeTransaction(tx.raw, { suite, generation });
    expect(back.body).toEqual(tx.body);
    expect(toHex(back.hash)).toBe(toHex(tx.hash));
    expect(toHex(back.signingHash)).toBe(toHex(tx.signingHash));
    expect(toHex(recoverSender(back, suite))).toBe(toHex(builder.address));
    if (generation === 'rc2') expect(back.body.groupId).toBe(3n);
  });

  it('a deploy has an empty to', () => {
    const tx = builder.build({ data: Uint8Array.of(0x60, 0x00), blockLimit: 10n });
    const back = decodeTransaction(tx.raw, { suite, generation });
    expect(back.isCreation).toBe(true);
    expect(back.body.to).toBeNull();
  });

  it('the other generation does not decode it', () => {
    const tx = builder.build({ blockLimit: 10n });
    const other = generation === 'rc1' ? 'rc2' : 'rc1';
    expect(() => decodeTransaction(tx.raw, { suite, generation: other })).toThrowError(/InvalidFormat: an rc\d transaction has \d+ fields/);
  });

  it('signedTransactionDigests gives the payload, hash and signing hash decoding it would', () => {
    for (const tx of [builder.build({ to: fromHex('22'.repeat(20)), data: Uint8Array.of(9, 8), blockLimit: 77n }), builder.build({ data: Uint8Array.of(0x60), blockLimit: 5n })]) {
      const digests = signedTransactionDigests(tx.body, generation, tx.signature, suite)!;
      const decoded = decodeTransaction(encodeSignedTransaction(tx.body, generation, tx.signature), { suite, generation });
      expect(toHex(digests.raw)).toBe(toHex(decoded.raw));
      expect(toHex(digests.hash)).toBe(toHex(decoded.hash));
      expect(toHex(digests.signingHash)).toBe(toHex(decoded.signingHash));
    }
  });

  it('signedTransactionDigests refuses what decoding the payload refuses', () => {
    const tx = builder.build({ blockLimit: 10n });
    const wide = { ...tx.body, nonce: 1n << 256n };
    expect(() => decodeTransaction(encodeSignedTransaction(wide, generation, tx.signature), { suite, generation })).toThrowError(TxDecodeError);
    expect(signedTransactionDigests(wide, generation, tx.signature, suite)).toBeUndefined();
    const outOfForm = { ...tx.signature, s: SECP256K1_N - 1n };
    expect(() => decodeTransaction(encodeSignedTransaction(tx.body, generation, outOfForm), { suite, generation })).toThrowError(TxDecodeError);
    expect(signedTransactionDigests(tx.body, generation, outOfForm, suite)).toBeUndefined();
  });

  it('adoptSender carries the verified sender to an identical payload only', () => {
    const tx = builder.build({ blockLimit: 10n });
    const copy = decodeTransaction(tx.raw, { suite, generation });
    expect(adoptSender(copy, tx)).toBe(true);
    expect(toHex(copy.sender!)).toBe(toHex(builder.address));
    const different = decodeTransaction(builder.build({ blockLimit: 11n }).raw, { suite, generation });
    expect(adoptSender(different, tx)).toBe(false);
    expect(different.sender).toBeUndefined();
  });
});

function mutate(raw: Uint8Array, edit: (items: RlpValue[]) => void): Uint8Array {
  const items = rlpDecode(raw) as RlpValue[];
  edit(items);
  return rlpEncode(items as never);
}

function expectDecodeError(fn: () => unknown, status: string, field: string | null, text?: string) {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(TxDecodeError);
    const err = e as TxDecodeError;
    expect(err.status).toBe(status);
    expect(err.field).toBe(field);
    if (text) expect(err.message).toContain(text);
    return;
  }
  throw new Error('expected a TxDecodeError');
}

describe('mutations fail with the right error', () => {
  const ecdsa = new EcdsaSuite();
  const sm = new Sm2Suite();
  const v = vectors.transactions.find((t) => t.name === 'rc2-ecdsa')!;
  const raw = fromHex(v.raw);
  const opts = { suite: ecdsa, generation: 'rc2' as const };

  it('truncated payload → BadRLP', () => {
    expectDecodeError(() => decodeTransaction(raw.subarray(0, raw.length - 1), opts), 'BadRLP', null);
    expectDecodeError(() => decodeTransactionHex('', opts), 'BadRLP', null, 'empty payload');
    expectDecodeError(() => decodeTransactionHex('zz', opts), 'BadRLP', null);
  });

  it('a flipped length byte → BadRLP; a flipped data byte → another hash and sender', () => {
    const badLength = Uint8Array.from(raw);
    badLength[0] ^= 0x01;
    expectDecodeError(() => decodeTransaction(badLength, opts), 'BadRLP', null);
    const dataByte = Uint8Array.from(raw);
    dataByte[raw.length - 100] ^= 0x01; // inside the data field
    const tx = decodeTransaction(dataByte, opts);
    expect(toHex(tx.hash)).not.toBe(v.hash);
    let sender: string | undefined;
    try {
      sender = toHex(recoverSender(tx, ecdsa));
    } catch (e) {
      expect((e as TxDecodeError).status).toBe('InvalidSignature');
    }
    expect(sender).not.toBe(v.from);
  });

  it('encoding refuses a body whose fields its generation cannot carry', () => {
    const body = { nonce: 1n, gasPrice: 1n, gas: 100n, blockLimit: 500n, to: new Uint8Array(20), value: 0n, data: new Uint8Array(0) };
    for (const extra of [{ chainId: 1n }, { groupId: 1n }, { extraData: new Uint8Array(0) }]) {
      expectDecodeError(() => encodeUnsignedTransaction({ ...body, ...extra }, 'rc1'), 'InvalidFormat', 'chainId', 'rc1 transactions have no chainId, groupId or extraData');
    }
    expectDecodeError(() => encodeUnsignedTransaction({ ...body, groupId: 1n }, 'rc2'), 'InvalidFormat', 'chainId', 'rc2 transactions need chainId and groupId');
    expectDecodeError(() => encodeUnsignedTransaction({ ...body, chainId: 1n }, 'rc2'), 'InvalidFormat', 'groupId', 'rc2 transactions need chainId and groupId');
    expect(rlpDecode(encodeUnsignedTransaction(body, 'rc1'))).toHaveLength(7);
    expect(rlpDecode(encodeUnsignedTransaction({ ...body, chainId: 1n, groupId: 1n }, 'rc2'))).toHaveLength(10);
  });

  it('wrong field count → InvalidFormat', () => {
    expectDecodeError(() => decodeTransaction(mutate(raw, (i) => i.pop()), opts), 'InvalidFormat', null, 'has 13 fields');
    expectDecodeError(() => decodeTransaction(rlpEncode(Uint8Array.of(1, 2)), opts), 'InvalidFormat', null, 'must be an RLP list');
  });

  it('malformed fields → InvalidFormat naming the field', () => {
    expectDecodeError(() => decodeTransaction(mutate(raw, (i) => (i[4] = Uint8Array.of(1, 2))), opts), 'InvalidFormat', 'to');
    expectDecodeError(() => decodeTransaction(mutate(raw, (i) => (i[2] = Uint8Array.of(0, 5))), opts), 'InvalidFormat', 'gas', 'leading zero');
    expectDecodeError(() => decodeTransaction(mutate(raw, (i) => (i[6] = [])), opts), 'InvalidFormat', 'data', 'got a list');
    expectDecodeError(() => decodeTransaction(mutate(raw, (i) => (i[8] = new Uint8Array(33).fill(1))), opts), 'InvalidFormat', 'groupId');
  });

  it('v not 27/28 → InvalidSignature on v', () => {
    expectDecodeError(() => decodeTransaction(mutate(raw, (i) => (i[10] = Uint8Array.of(1))), opts), 'InvalidSignature', 'v', 'must be 27 or 28, got 1');
    expectDecodeError(() => decodeTransaction(mutate(raw, (i) => (i[10] = Uint8Array.of(29))), opts), 'InvalidSignature', 'v');
  });

  it('r or s wider than 32 bytes → InvalidSignature naming it, even when the extra byte is a leading zero', () => {
    expectDecodeError(() => decodeTransaction(mutate(raw, (i) => (i[11] = Uint8Array.of(0, ...(i[11] as Uint8Array)))), opts), 'InvalidSignature', 'r', 'wider than 32 bytes (33)');
    expectDecodeError(() => decodeTransaction(mutate(raw, (i) => (i[12] = Uint8Array.of(0, ...(i[12] as Uint8Array)))), opts), 'InvalidSignature', 's', 'wider than 32 bytes (33)');
  });

  it('high-s → InvalidSignature on s', () => {
    const tx = decodeTransaction(raw, opts);
    const sig = tx.signature as { r: bigint; s: bigint; v: number };
    const flipped = encodeSignedTransaction(tx.body, 'rc2', { kind: 'ecdsa', r: sig.r, s: SECP256K1_N - sig.s, v: sig.v ^ 1 });
    expectDecodeError(() => decodeTransaction(flipped, opts), 'InvalidSignature', 's', 'high-s is not allowed');
  });

  it('SM2: short public key, zero r, forged signature', () => {
    const smVector = vectors.transactions.find((t) => t.name === 'rc2-sm')!;
    const smRaw = fromHex(smVector.raw);
    const smOpts = { suite: sm, generation: 'rc2' as const };
    expectDecodeError(() => decodeTransaction(mutate(smRaw, (i) => (i[10] = new Uint8Array(65).fill(4))), smOpts), 'InvalidSignature', 'v', '64-byte public key');
    expectDecodeError(() => decodeTransaction(mutate(smRaw, (i) => (i[11] = new Uint8Array(0))), smOpts), 'InvalidSignature', 'r');
    const forged = decodeTransaction(mutate(smRaw, (i) => (i[0] = Uint8Array.of(7))), smOpts);
    expectDecodeError(() => recoverSender(forged, sm), 'InvalidSignature', 'signature', 'does not verify');
  });

  it('an ECDSA payload read as SM is rejected', () => {
    expectDecodeError(() => decodeTransaction(raw, { suite: sm, generation: 'rc2' }), 'InvalidSignature', 'v', '64-byte public key');
  });
});
