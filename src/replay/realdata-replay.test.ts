// The real FISCO blocks of fixtures/realdata/ as recordings. Only ecdsa-block1-javasdk.json is a
// block 1 with its transaction (a chain whose genesis is its four sealers, as
// src/ledger/real-blocks.test.ts re-executes it): it becomes a one-block recording and replays,
// with the checks its data cannot support listed as skipped. No other file forms a sequence
// from the genesis; each is listed below with the reason, and blocks 2 and 3 are shown refused.
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { genesisHeader, ProtocolVersion, type GroupGenesis } from '../chain/index.js';
import { toHex, toQuantity } from '../codec/index.js';
import { RECORDING_FORMAT, RECORDING_VERSION, RecordingWriter, type JsonObject, type RecordingHeader } from './recording.js';
import { replayRecording } from './replayer.js';

const FIXTURES = new URL('../../fixtures/realdata/', import.meta.url);
const load = (file: string): JsonObject => JSON.parse(readFileSync(new URL(file, FIXTURES), 'utf8')) as JsonObject;

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

async function writeRecording(header: RecordingHeader, blocks: Array<{ number: number; block: JsonObject; receipts: JsonObject[] }>): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'twinchain-realdata-replay-'));
  dirs.push(dir);
  const file = path.join(dir, 'real.jsonl');
  const writer = RecordingWriter.create(file);
  await writer.writeHeader(header);
  for (const b of blocks) await writer.writeBlock(b);
  await writer.end();
  return file;
}

/** Block 0 as getBlockByNumber would print it, rebuilt from a genesis; without its hash when that is not known to be the real one. */
function genesisJson(genesis: GroupGenesis, version: ProtocolVersion): JsonObject {
  const h = genesisHeader(genesis, version);
  return {
    dbHash: toHex(h.dbHash),
    extraData: h.extraData.map((d) => toHex(d)),
    gasLimit: toQuantity(h.gasLimit),
    gasUsed: toQuantity(h.gasUsed),
    logsBloom: toHex(h.logsBloom),
    number: '0x0',
    parentHash: toHex(h.parentHash),
    receiptsRoot: toHex(h.receiptsRoot),
    sealer: '0x0',
    sealerList: [],
    signatureList: [],
    stateRoot: toHex(h.stateRoot),
    timestamp: toQuantity(h.timestamp),
    transactions: [],
    transactionsRoot: toHex(h.transactionsRoot),
  };
}

function headerFor(genesis: JsonObject, options: { supportedVersion: string; suite: 'ecdsa' | 'sm'; sealers: string[]; from: number }): RecordingHeader {
  return {
    format: RECORDING_FORMAT,
    version: RECORDING_VERSION,
    source: 'fixtures/realdata',
    recordedAt: '2026-01-01T00:00:00.000Z',
    group: 1,
    clientVersion: {},
    supportedVersion: options.supportedVersion,
    chainId: '1',
    interfaceVariant: 'later',
    suite: options.suite,
    stateType: 'storage',
    genesis,
    config: { sealers: options.sealers, observers: [] },
    from: options.from,
  };
}

describe('fixtures/realdata as recordings', () => {
  it('ecdsa-block1-javasdk.json: block 1 on the genesis of its 4 sealers (2.4.0) replays; tx hash, sender, both roots, stateRoot/dbHash, block hash, sealer list and its 3 signatures (n − f = 3 of 4) all match', async () => {
    const data = load('ecdsa-block1-javasdk.json');
    const block = data.getBlockHeaderByNumber as JsonObject & { sealerList: string[] };
    const tx = data.getTransactionByHash as JsonObject;
    // the node's receipt is not in the data: the fields inferred from api.md (the real receiptsRoot confirms them)
    const inferred = data.receipt_fields_inferred as JsonObject;
    const receipt = { ...inferred, transactionHash: tx.hash, transactionIndex: '0x0', blockHash: block.hash, blockNumber: '0x1', from: tx.from, to: tx.to };
    const version = ProtocolVersion.parse('2.4.0'); // not stated; 2.2 ≤ v < 2.9 from the roots and receipt form
    // block 0 is not in the data: rebuilt from its sealers with FISCO's defaults; its timestamp
    // (and so its hash 0x4f6394…, block 1's parentHash) is unknown, so it is recorded without a hash
    const genesis = genesisJson({ groupId: 1, consensusType: 'pbft', sealers: block.sealerList, timestamp: 0, stateType: 'storage' }, version);
    const file = await writeRecording(headerFor(genesis, { supportedVersion: version.text, suite: 'ecdsa', sealers: block.sealerList, from: 1 }), [
      { number: 1, block: { ...block, transactions: [tx] }, receipts: [receipt] },
    ]);
    const report = await replayRecording(file);
    expect(report.divergence).toBeUndefined();
    expect(report).toMatchObject({ verdict: 'pass', blocks: 1, transactions: 1 });
    for (const check of ['tx hash', 'tx sender (signature)', 'transactionsRoot', 'receipt status', 'receipt output', 'receipt gasUsed', 'receiptsRoot', 'stateRoot', 'dbHash', 'block hash', 'sealerList', 'signature quorum']) {
      expect(report.checks[check], check).toBe(1);
    }
    expect(report.checks['signatures']).toBe(3);
    // the checks this data cannot support, each skipped with its reason
    expect(report.skipped.map((s) => [s.check, s.reason])).toEqual([
      ['genesis hash', "the recording's block 0 has no hash (a reconstructed block 0); block 1's parentHash is not checked either"],
      ['parentHash', 'the hash of the block before is not in the recording'],
    ]);
  });

  it('sm-block2-deploy-webase.json: block 2 alone is refused (block 1 is not in the data, so its state cannot be rebuilt)', async () => {
    const data = load('sm-block2-deploy-webase.json');
    const block = data.block as JsonObject & { sealerList: string[] };
    const version = ProtocolVersion.parse('2.5.0');
    const genesis = genesisJson({ groupId: 1, consensusType: 'pbft', sealers: block.sealerList, timestamp: 0, stateType: 'storage' }, version);
    const file = await writeRecording(headerFor(genesis, { supportedVersion: '2.5.0', suite: 'sm', sealers: block.sealerList, from: 2 }), [
      { number: 2, block, receipts: [data.receipt as JsonObject] },
    ]);
    await expect(replayRecording(file)).rejects.toThrow(/starts at block 2; replay re-executes from the genesis and cannot rebuild the state of blocks 1–1/);
  });

  it('ecdsa-block3-addobserver-godoc.json: block 3 alone is refused (blocks 1–2 are not in the data)', async () => {
    const data = load('ecdsa-block3-addobserver-godoc.json');
    const block = data.getBlockByNumber_3_true as JsonObject & { sealerList: string[] };
    const version = ProtocolVersion.parse('2.4.0');
    const genesis = genesisJson({ groupId: 1, consensusType: 'pbft', sealers: block.sealerList, timestamp: 0, stateType: 'storage' }, version);
    const file = await writeRecording(headerFor(genesis, { supportedVersion: '2.4.0', suite: 'ecdsa', sealers: block.sealerList, from: 3 }), [
      { number: 3, block, receipts: [data.getTransactionReceipt as JsonObject] },
    ]);
    await expect(replayRecording(file)).rejects.toThrow(/starts at block 3; .*cannot rebuild the state of blocks 1–2/);
  });

  // no other file holds a block with its transactions and receipts from the genesis on
  for (const [file, why] of [
    ['sm-block1-header-javasdk.json', "a block 1 header without its transaction and receipt (not published): nothing to re-execute, and the genesis is unknown"],
    ['genesis-block0-pythonsdkdoc.json', 'block 0 only (its genesis hash is checked in src/ledger/real-blocks.test.ts); no later block of that chain is in the data'],
    ['sm-txs-javasdk.json', 'two transactions without their blocks (headers, sealers, timestamps, supported_version) or receipts'],
    ['batch-receipts-javasdk.json', 'receipts without their block or transactions'],
    ['transtest-template-buildchain.json', 'a transaction template, no block'],
    ['node-rejections-issues.json', 'rejected raw transactions, no block'],
    ['pysdk-rpc-requests.json', 'requests sent to a stub server, no block'],
  ] as const) {
    it.skip(`not replayable: ${file} — ${why}`, () => {});
  }
});
