import { describe, expect, it } from 'vitest';
import { fromHex, rlpDecode, rlpEncode, toHex, type RlpValue } from '../codec/index.js';
import { getSuite, type CryptoSuite } from '../crypto/index.js';
import { blockHash, decodeBlockHeader, encodeBlockHeader, type BlockHeader } from './block-header.js';
import { checkSignatureList, decodeBlock, decodeTxsParallel, encodeBlock, encodeTxsParallel, type Block } from './block.js';
import { computeReceiptsRoot, computeTransactionsRoot } from './block-roots.js';
import { bloomBits, bloomMayContain, bloomOr, bloomSet, logsBloom } from './log-bloom.js';
import { merkleRoot16 } from './merkle-root.js';
import { ProtocolVersion } from './protocol-version.js';
import { decodeReceipt, encodeReceipt, type Receipt } from './receipt.js';
import { TransactionBuilder } from './transaction-builder.js';
import { vectors } from './vectors.test-helper.js';

const ecdsa = getSuite('ecdsa');
const vector = vectors.blocks[0]!;

function headerFromVector(): BlockHeader {
  const h = vector.header as Record<string, string> & { extraData: string[]; sealerList: string[] };
  return {
    parentHash: fromHex(h.parentHash),
    stateRoot: fromHex(h.stateRoot),
    transactionsRoot: fromHex(h.transactionsRoot),
    receiptsRoot: fromHex(h.receiptsRoot),
    dbHash: fromHex(h.dbHash),
    logsBloom: fromHex(h.logsBloom),
    number: Number(h.number),
    gasLimit: BigInt(h.gasLimit),
    gasUsed: BigInt(h.gasUsed),
    timestamp: Number(h.timestamp),
    extraData: h.extraData.map(fromHex),
    sealer: Number(h.sealer),
    sealerList: h.sealerList.map(fromHex),
  };
}

const zero32 = new Uint8Array(32);
const zeroBloom = new Uint8Array(256);

describe('block header (vector rc2-block-1)', () => {
  const header = headerFromVector();

  it('hashes to the documented block hash', () => {
    expect(toHex(blockHash(header, ecdsa))).toBe(vector.hash);
  });

  it('decodes back to the same header', () => {
    expect(decodeBlockHeader(encodeBlockHeader(header))).toEqual(header);
  });

  it('has the documented one-transaction root', () => {
    expect(toHex(merkleRoot16([fromHex(vector.transactions[0]!)], ecdsa))).toBe(toHex(header.transactionsRoot));
  });

  it('carries a signature from sealerList[0]', () => {
    const sigs = vector.signatureList.map((s) => ({ index: Number(s.index), signature: fromHex(s.signature) }));
    expect(checkSignatureList(fromHex(vector.hash), sigs, header.sealerList, ecdsa)).toEqual({ valid: [0], invalid: [] });
    const wrongHash = checkSignatureList(new Uint8Array(32).fill(1), sigs, header.sealerList, ecdsa);
    expect(wrongHash.valid).toEqual([]);
    expect(wrongHash.invalid[0]!.reason).toContain('does not verify');
    expect(checkSignatureList(fromHex(vector.hash), [{ index: 3, signature: sigs[0]!.signature }], header.sealerList, ecdsa).invalid[0]!.reason).toContain(
      'no sealer with index 3',
    );
  });

  it('rejects malformed headers with the field named', () => {
    const bytes = encodeBlockHeader({ ...header, logsBloom: new Uint8Array(10) });
    expect(() => decodeBlockHeader(bytes)).toThrowError('header field logsBloom: expected 256 bytes, got 10');
  });
});

describe('receipts', () => {
  const r = vectors.receipts[0]!;
  const receipt: Receipt = {
    stateRoot: zero32,
    gasUsed: BigInt(r.gasUsed),
    contractAddress: new Uint8Array(20),
    logsBloom: zeroBloom,
    status: Number(r.status),
    output: fromHex(r.output),
    logs: [],
  };

  it('pre-2.9 7-item receipt gives the documented receipts root', async () => {
    expect(toHex(await computeReceiptsRoot([receipt], 'merkle16', ecdsa, false))).toBe(r.receiptsRoot);
  });

  it('8-item (2.9.0+) receipts round-trip with remainGas and logs', () => {
    const withLogs: Receipt = {
      ...receipt,
      remainGas: 12345n,
      logs: [{ address: new Uint8Array(20).fill(2), topics: [new Uint8Array(32).fill(3)], data: Uint8Array.of(9) }],
    };
    expect(decodeReceipt(encodeReceipt(withLogs, true), true)).toEqual(withLogs);
    expect(decodeReceipt(encodeReceipt(receipt, false), false)).toEqual(receipt);
    expect(() => decodeReceipt(encodeReceipt(receipt, false), true)).toThrowError('a receipt is a list of 8 items here, got 7');
  });
});

describe('merkleRoot16', () => {
  const h = (i: number) => ecdsa.hash(Uint8Array.of(i));

  it('hashes level by level in groups of 16', () => {
    // 17 leaves: level 1 = [H(l0..l15), H(l16)], level 2 = H(both), root = H(level 2)
    const leaves = Array.from({ length: 17 }, (_, i) => h(i));
    const leaf = (i: number) => Uint8Array.from([...(i === 0 ? [0x80] : i < 128 ? [i] : []), ...leaves[i]!]);
    const cat = (parts: Uint8Array[]) => Uint8Array.from(parts.flatMap((p) => [...p]));
    const a = ecdsa.hash(cat(Array.from({ length: 16 }, (_, i) => leaf(i))));
    const b = ecdsa.hash(leaf(16));
    expect(toHex(merkleRoot16(leaves, ecdsa))).toBe(toHex(ecdsa.hash(ecdsa.hash(cat([a, b])))));
  });

  it('of nothing is hash of the empty string', () => {
    expect(toHex(merkleRoot16([], ecdsa))).toBe(toHex(ecdsa.hash(new Uint8Array(0))));
  });
});

describe('log bloom', () => {
  it('contains what was added and (almost certainly) not other items', () => {
    const address = new Uint8Array(20).fill(0xaa);
    const topic = new Uint8Array(32).fill(0xbb);
    const bloom = logsBloom([{ address, topics: [topic] }], ecdsa);
    expect(bloom.length).toBe(256);
    expect(bloom.reduce((n, b) => n + popcount(b), 0)).toBeLessThanOrEqual(6);
    expect(bloomMayContain(bloom, address, ecdsa)).toBe(true);
    expect(bloomMayContain(bloom, topic, ecdsa)).toBe(true);
    expect(bloomMayContain(bloom, new Uint8Array(20).fill(0xcc), ecdsa)).toBe(false);
  });

  it('may contain an item only when all three of its bits are set', () => {
    const item = new Uint8Array(20).fill(0x11);
    const bits = bloomBits(item, ecdsa);
    for (const kept of [[0, 1], [0, 2], [1, 2], [0], [1], [2], []]) {
      const bloom = new Uint8Array(256);
      bloomSet(bloom, kept.map((k) => bits[k]!));
      expect(bloomMayContain(bloom, item, ecdsa), `bits ${kept.join(',')} of 3 set`).toBe(false);
    }
    const full = new Uint8Array(256);
    bloomSet(full, bits);
    expect(bloomMayContain(full, item, ecdsa)).toBe(true);
    // against the definition, for items whose bits partly overlap a busy bloom's
    const busy = logsBloom(Array.from({ length: 12 }, (_, i) => ({ address: new Uint8Array(20).fill(i), topics: [] })), ecdsa);
    let partial = 0;
    for (let i = 0; i < 300; i++) {
      const probe = Uint8Array.of(i >> 8, i & 0xff, 0x5a);
      const set = bloomBits(probe, ecdsa).filter((bit) => (busy[255 - (bit >> 3)]! >> (bit & 7)) & 1).length;
      if (set > 0 && set < 3) partial++;
      expect(bloomMayContain(busy, probe, ecdsa), `probe ${i}: ${set} of 3 bits set`).toBe(set === 3);
    }
    expect(partial).toBeGreaterThan(10);
    // an item two of whose bits fall in one byte: one of the two set is not enough
    let twin: { item: Uint8Array; bits: readonly number[] } | undefined;
    for (let i = 0; !twin && i < 20_000; i++) {
      const candidate = Uint8Array.of(i >> 8, i & 0xff, 0xa5);
      const b = bloomBits(candidate, ecdsa);
      if (b[0] >> 3 === b[1] >> 3 && b[0] !== b[1]) twin = { item: candidate, bits: b };
    }
    expect(twin).toBeDefined();
    const one = new Uint8Array(256);
    bloomSet(one, [twin!.bits[0]!, twin!.bits[2]!]);
    expect(bloomMayContain(one, twin!.item, ecdsa)).toBe(false);
  });

  it('bloomOr merges every byte of the two blooms', () => {
    const a = new Uint8Array(256).map((_, i) => (i % 3 === 0 ? 0x0f : 0));
    const b = new Uint8Array(256).map((_, i) => (i % 2 === 0 ? 0xf0 : 0x30));
    const target = Uint8Array.from(a);
    bloomOr(target, b);
    expect([...target]).toEqual([...a].map((x, i) => x | b[i]!));
  });

  it('sets the Ethereum bit positions (keccak of an address)', () => {
    // Ethereum's bloom of address 0x0...0 sets bits derived from keccak(20 zero bytes) = 0x5380c7b7...
    const bloom = logsBloom([{ address: new Uint8Array(20), topics: [] }], ecdsa);
    const h = ecdsa.hash(new Uint8Array(20));
    const bits = [0, 2, 4].map((i) => ((h[i]! << 8) | h[i + 1]!) & 2047);
    for (const bit of bits) expect(bloom[255 - (bit >> 3)]! & (1 << (bit & 7))).not.toBe(0);
  });
});

function popcount(b: number): number {
  let n = 0;
  for (let x = b; x; x >>= 1) n += x & 1;
  return n;
}

const seeded = (seed: number) => {
  let n = seed;
  return (length: number) => Uint8Array.from({ length }, () => (n = (n * 48271) % 2147483647) & 0xff);
};

describe.each([
  ['ecdsa', '2.11.0'],
  ['sm', '2.11.0'],
  ['ecdsa', '2.0.0-rc1'],
  ['ecdsa', '2.1.0'],
] as const)('whole block %s %s', (suiteName, versionText) => {
  const suite: CryptoSuite = getSuite(suiteName);
  const version = ProtocolVersion.parse(versionText);
  const sealers = [1, 2, 3, 4].map((s) => suite.generateKeyPair(seeded(s)));
  const builder = new TransactionBuilder({ suite, generation: version.txGeneration, key: sealers[0]!, random: seeded(9) });
  const options = { suite, generation: version.txGeneration, receiptsWithRemainGas: version.receiptHasRemainGas };

  async function makeBlock(txCount: number): Promise<Block> {
    const transactions = Array.from({ length: txCount }, (_, i) => builder.build({ blockLimit: 100n + BigInt(i), data: Uint8Array.of(i) }));
    const receipts: Receipt[] = transactions.map((_, i) => ({
      stateRoot: zero32,
      gasUsed: BigInt(21000 + i),
      contractAddress: new Uint8Array(20),
      logsBloom: zeroBloom,
      status: 0,
      output: new Uint8Array(0),
      ...(version.receiptHasRemainGas ? { remainGas: 1000n } : {}),
      logs: [],
    }));
    const header: BlockHeader = {
      parentHash: suite.hash(Uint8Array.of(1)),
      stateRoot: zero32,
      transactionsRoot: await computeTransactionsRoot(transactions, version.rootScheme, suite),
      receiptsRoot: await computeReceiptsRoot(receipts, version.rootScheme, suite, version.receiptHasRemainGas),
      dbHash: zero32,
      logsBloom: zeroBloom,
      number: 7,
      gasLimit: 0n,
      gasUsed: 0n,
      timestamp: 1_700_000_000_000,
      extraData: [],
      sealer: 1,
      sealerList: sealers.map((k) => k.publicKey),
    };
    const hash = blockHash(header, suite);
    const signatureList = [0, 2, 3].map((index) => ({ index, signature: suite.signatureToBytes(suite.sign(hash, sealers[index]!)) }));
    return { header, transactions, receipts, signatureList };
  }

  it('encode ∘ decode keeps everything, and signatures check', async () => {
    const block = await makeBlock(20);
    const back = decodeBlock(encodeBlock(block, options), options);
    expect(back.header).toEqual(block.header);
    expect(back.transactions.map((t) => toHex(t.hash))).toEqual(block.transactions.map((t) => toHex(t.hash)));
    expect(back.receipts).toEqual(block.receipts);
    expect(back.signatureList).toEqual(block.signatureList);
    expect(checkSignatureList(blockHash(back.header, suite), back.signatureList, back.header.sealerList, suite).valid).toEqual([0, 2, 3]);
  });

  it('an empty block round-trips', async () => {
    const block = await makeBlock(0);
    expect(decodeBlock(encodeBlock(block, options), options).transactions).toEqual([]);
  });

  it('a block whose stated hash does not match its header is rejected', async () => {
    const block = await makeBlock(1);
    const items = rlpDecode(encodeBlock(block, options)) as RlpValue[];
    const hashAt = options.generation === 'rc1' ? 3 : 2;
    expect(toHex(items[hashAt] as Uint8Array)).toBe(toHex(blockHash(block.header, suite)));
    items[hashAt] = new Uint8Array(32).fill(0xee);
    expect(() => decodeBlock(rlpEncode(items as never), options)).toThrowError(/block hash mismatch: the block says 0xeeee/);
  });

  it('roots differ when a transaction changes', async () => {
    const a = await makeBlock(3);
    const b = await makeBlock(3);
    expect(toHex(a.header.transactionsRoot)).not.toBe(toHex(b.header.transactionsRoot)); // fresh random nonces
  });
});

describe('parallel transaction list', () => {
  const suite = getSuite('ecdsa');
  const builder = new TransactionBuilder({ suite, generation: 'rc2', key: suite.generateKeyPair(seeded(77)), random: seeded(78) });
  const txs = [1, 2, 3].map((i) => builder.build({ blockLimit: BigInt(i) }));

  it('lays out count, offsets and payloads little-endian', () => {
    const bytes = encodeTxsParallel(txs);
    const view = new DataView(bytes.buffer);
    expect(view.getUint32(0, true)).toBe(3);
    expect(view.getUint32(4, true)).toBe(0);
    expect(view.getUint32(8, true)).toBe(txs[0]!.raw.length);
    expect(decodeTxsParallel(bytes, { suite, generation: 'rc2' }).map((t) => toHex(t.hash))).toEqual(txs.map((t) => toHex(t.hash)));
  });

  it('rejects bad offsets and trailing bytes', () => {
    const bytes = encodeTxsParallel(txs);
    const badOffset = Uint8Array.from(bytes);
    new DataView(badOffset.buffer).setUint32(8, 1_000_000, true);
    expect(() => decodeTxsParallel(badOffset, { suite, generation: 'rc2' })).toThrowError('out of bounds');
    const trailing = Uint8Array.from([...bytes, 0]);
    expect(() => decodeTxsParallel(trailing, { suite, generation: 'rc2' })).toThrowError('trailing bytes');
  });
});

describe('ProtocolVersion', () => {
  it('numbers versions as FISCO does', () => {
    expect(ProtocolVersion.parse('2.0.0-rc1').number).toBe(1);
    expect(ProtocolVersion.parse('2.0.0-rc3').number).toBe(3);
    expect(ProtocolVersion.parse('2.11.0').number).toBe(0x020b0000);
  });

  it('derives generation, variant, root scheme and receipt layout', () => {
    const rc1 = ProtocolVersion.parse('2.0.0-rc1');
    expect([rc1.txGeneration, rc1.interfaceVariant, rc1.rootScheme, rc1.receiptHasRemainGas]).toEqual(['rc1', 'earlier', 'trie', false]);
    const v21 = ProtocolVersion.parse('2.1.0');
    expect([v21.txGeneration, v21.interfaceVariant, v21.rootScheme]).toEqual(['rc2', 'later', 'flat-hash']);
    expect(ProtocolVersion.parse('2.2.0').rootScheme).toBe('merkle16');
    expect(ProtocolVersion.parse('2.9.0').receiptHasRemainGas).toBe(true);
    expect(ProtocolVersion.parse('2.8.0').receiptHasRemainGas).toBe(false);
  });

  it('rejects what it cannot read, naming it', () => {
    expect(() => ProtocolVersion.parse('3.0.0')).toThrowError('only FISCO BCOS 2.x');
    expect(() => ProtocolVersion.parse('2.x')).toThrowError('supported_version: expected x.y.z or 2.0.0-rcN (got "2.x")');
  });
});
