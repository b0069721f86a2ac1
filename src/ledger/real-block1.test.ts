// Block 1 of a real ECDSA FISCO chain (fixtures/realdata/ecdsa-block1-javasdk.json), executed
// by the block executor on the storage state from a genesis of its four sealers: the
// transaction decodes to its real hash, and every header field, the block hash and the
// sealers' signatures come out as the real node's.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ProtocolVersion, blockHash, checkSignatureList, decodeTransaction, encodeSignedTransaction, type TxBody } from '../chain/index.js';
import { fromHex, toHex } from '../codec/index.js';
import { getSuite } from '../crypto/index.js';
import { BlockExecutor } from '../exec/index.js';
import { MemoryStore } from '../storage/index.js';
import { openGroupState } from './group-chain.js';

interface RealTx {
  [key: string]: string | { r: string; s: string; v: string };
  signature: { r: string; s: string; v: string };
}
const real = JSON.parse(readFileSync(new URL('../../fixtures/realdata/ecdsa-block1-javasdk.json', import.meta.url), 'utf8')) as {
  getBlockHeaderByNumber: Record<string, string> & { number: number; sealerList: string[]; signatureList: Array<{ index: string; signature: string }> };
  getTransactionByHash: RealTx;
  receipt_fields_inferred: { gasUsed: string; status: string };
};

describe('a real ECDSA block 1 (supported_version 2.2 to 2.8), re-executed', () => {
  it('gives the real transaction hash, roots, dbHash, block hash, and takes the real signatures', async () => {
    const suite = getSuite('ecdsa');
    const version = ProtocolVersion.parse('2.4.0');
    const header = real.getBlockHeaderByNumber;
    const t = real.getTransactionByHash;
    const q = (key: string) => BigInt(t[key] as string);
    const body: TxBody = {
      nonce: q('nonce'),
      gasPrice: q('gasPrice'),
      gas: q('gas'),
      blockLimit: q('blockLimit'),
      to: fromHex(t['to'] as string),
      value: q('value'),
      data: fromHex(t['input'] as string),
      chainId: q('chainId'),
      groupId: q('groupId'),
      extraData: fromHex(t['extraData'] as string),
    };
    const raw = encodeSignedTransaction(body, 'rc2', { kind: 'ecdsa', r: BigInt(t.signature.r), s: BigInt(t.signature.s), v: Number(t.signature.v) });
    const tx = decodeTransaction(raw, { suite, generation: 'rc2' });
    expect(toHex(tx.hash)).toBe(t['hash']);

    const store = new MemoryStore();
    const genesis = { groupId: 1, consensusType: 'pbft', sealers: header.sealerList, timestamp: 0, stateType: 'storage' } as const;
    const executor = new BlockExecutor(await openGroupState(genesis, store, suite, version), suite, version);
    await executor.applyGenesis(genesis, (w) => store.batch(w));
    const executed = await executor.execute(
      {
        number: header.number,
        parentHash: fromHex(header['parentHash']!),
        timestamp: Number(header['timestamp']),
        sealer: Number(header['sealer']),
        sealerList: header.sealerList.map((id) => fromHex(id)),
      },
      [tx],
    );
    const receipt = executed.block.receipts[0]!;
    expect(`0x${receipt.status.toString(16)}`).toBe(real.receipt_fields_inferred.status);
    expect(`0x${receipt.gasUsed.toString(16)}`).toBe(real.receipt_fields_inferred.gasUsed);
    const h = executed.block.header;
    expect(toHex(executed.senders[0]!)).toBe(t['from']);
    expect(toHex(h.stateRoot)).toBe(header['stateRoot']);
    expect(toHex(h.dbHash)).toBe(header['dbHash']);
    expect(toHex(h.transactionsRoot)).toBe(header['transactionsRoot']);
    expect(toHex(h.receiptsRoot)).toBe(header['receiptsRoot']);
    expect(`0x${h.gasUsed.toString(16)}`).toBe(header['gasUsed']);
    expect(toHex(executed.hash)).toBe(header['hash']);
    expect(toHex(blockHash(h, suite))).toBe(header['hash']);
    const signatures = header.signatureList.map((s) => ({ index: Number(s.index), signature: fromHex(s.signature) }));
    const check = checkSignatureList(executed.hash, signatures, h.sealerList, suite);
    expect(check.invalid).toEqual([]);
    expect(check.valid).toHaveLength(signatures.length);
  });
});
