import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { blockHash, genesisMark, ProtocolVersion, TX_STATUS, type Block } from '../chain/index.js';
import { fromHex, toHex } from '../codec/index.js';
import { decodeAbi, encodeFunctionCall } from '../abi/index.js';
import { getSuite, keccak256 } from '../crypto/index.js';
import { LevelStoreFactory, MemoryStore } from '../storage/index.js';
import { chainOn, testGenesis } from './chain-harness.test-helper.js';
import { GroupChain } from './group-chain.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

describe('GroupChain and Ledger', () => {
  it('starts from a genesis block with FISCO\'s mark, empty sealer list and zero roots', async () => {
    const c = await chainOn(new MemoryStore());
    expect(c.chain.height).toBe(0);
    const genesis = await c.chain.ledger.blockByNumber(0);
    const mark = new TextDecoder().decode(genesis!.block.header.extraData[0]);
    expect(mark).toBe(genesisMark(testGenesis(), ProtocolVersion.parse('2.11.0')));
    expect(mark).toMatch(/^1-[0-9a-f]{128},[0-9a-f]{128},[0-9a-f]{128},[0-9a-f]{128},-pbft-storage-0-1000-300000000-3$/);
    expect(genesis!.block.header.sealerList).toEqual([]);
    expect(toHex(genesis!.block.header.stateRoot)).toBe(`0x${'0'.repeat(64)}`);
    // storage state (the default): the genesis tables' dbHash is kept aside, and the state's
    // identity is the hash chain over the blocks' dbHashes, starting from zero
    const genesisRoot = (await c.chain.ledger.stateRootAt(0))!;
    expect(c.chain.state.kind).toBe('storage');
    expect(toHex(genesisRoot)).not.toBe(`0x${'0'.repeat(64)}`);
    expect(c.chain.state.root).toEqual(keccak256(new Uint8Array([...new Uint8Array(32), ...genesisRoot])));
  });

  it('indexes blocks, transactions and receipts, and keeps the totals', async () => {
    const c = await chainOn(new MemoryStore());
    const deploy = c.tx(0, null, c.helloWorldInit());
    const b1 = await c.commitBlock([deploy]);
    const contract = b1.block.receipts[0]!.contractAddress;
    const set = c.tx(1, contract, c.data('set(string)', ['indexed']));
    const bad = c.tx(2, fromHex('00'.repeat(19) + 'ab'), c.data('set(string)', ['x']));
    const b2 = await c.commitBlock([set, bad]);
    const { ledger } = c.chain;
    expect(ledger.height).toBe(2);
    expect((await ledger.blockByHash(b2.hash))?.block.header.number).toBe(2);
    expect(await ledger.numberOfHash(b1.hash)).toBe(1);
    expect(await ledger.blockByNumber(3)).toBeUndefined();
    const record = await ledger.transaction(set.hash);
    expect(record).toMatchObject({ blockNumber: 2, index: 0 });
    expect(toHex(record!.sender)).toBe(toHex(c.builders[1]!.address));
    expect(record!.receipt.status).toBe(0);
    expect((await ledger.transactionAt(2, 1))?.receipt.status).toBe(TX_STATUS.CallAddressError);
    expect(await ledger.transactionAt(2, 2)).toBeUndefined();
    expect(await ledger.transaction(new Uint8Array(32))).toBeUndefined();
    expect(ledger.txTotals).toEqual({ txSum: 3n, failedTxSum: 1n });
    expect(ledger.validSignatures(b2.hash, b2.block.header, b2.block.signatureList)).toBe(3);
    expect(toHex(blockHash(b2.block.header, c.suite))).toBe(toHex(b2.hash));
  });

  it('a committed block is synced to the disk with its state: a crash right after the commit loses neither', async () => {
    const store = new MemoryStore();
    const c = await chainOn(store);
    const b1 = await c.commitBlock([c.tx(0, null, c.helloWorldInit())]);
    expect(store.unsyncedWrites).toBe(0);
    store.crash();
    const again = await chainOn(store);
    expect(again.chain.height).toBe(1);
    expect(toHex(again.chain.headHash)).toBe(toHex(b1.hash));
    expect(toHex(again.chain.state.root)).toBe(toHex(c.chain.state.root));
  });

  it('refuses a block that does not extend the head', async () => {
    const c = await chainOn(new MemoryStore());
    await expect(
      c.chain.execute({ number: 5, parentHash: c.chain.headHash, timestamp: 0, sealer: 0, sealerList: [] }, []),
    ).rejects.toThrowError('can only execute block 1, got 5');
    await expect(
      c.chain.execute({ number: 1, parentHash: new Uint8Array(32).fill(1), timestamp: 0, sealer: 0, sealerList: [] }, []),
    ).rejects.toThrowError('is not the head');
  });

  it('refuses to open a store that holds another genesis, saying both marks', async () => {
    const store = new MemoryStore();
    await chainOn(store);
    await expect(
      GroupChain.open({ store, suite: getSuite('ecdsa'), version: ProtocolVersion.parse('2.11.0'), genesis: testGenesis('ecdsa', { txCountLimit: 5 }) }),
    ).rejects.toThrowError(/another genesis: stored mark .*-1000-.*configured .*-5-/);
  });
});

describe('two independent executors fed the same blocks', () => {
  it.each(['ecdsa', 'sm'] as const)('reach identical receipts and state roots (%s)', async (suite) => {
    const a = await chainOn(new MemoryStore(), { suite });
    const b = await chainOn(new MemoryStore(), { suite });
    const blocks: Block[] = [];
    const d = await a.commitBlock([a.tx(0, null, a.helloWorldInit())]);
    blocks.push(d.block);
    const contract = d.block.receipts[0]!.contractAddress;
    for (let i = 0; i < 3; i++) {
      const txs = [0, 1, 2].map((j) => a.tx(j, contract, a.data('set(string)', [`round ${i} from ${j}`])));
      blocks.push((await a.commitBlock(txs)).block);
    }
    for (const block of blocks) {
      const applied = await b.chain.applyBlock(block);
      expect(toHex(applied.hash)).toBe(toHex(blockHash(block.header, a.suite)));
    }
    expect(toHex(b.chain.state.root)).toBe(toHex(a.chain.state.root));
    for (let n = 1; n <= 4; n++) {
      const x = (await a.chain.ledger.blockByNumber(n))!.block;
      const y = (await b.chain.ledger.blockByNumber(n))!.block;
      expect(y.receipts).toEqual(x.receipts);
      expect(toHex(y.header.receiptsRoot)).toBe(toHex(x.header.receiptsRoot));
    }
  });

  it('catches a block whose stated roots its transactions do not produce', async () => {
    const a = await chainOn(new MemoryStore());
    const b = await chainOn(new MemoryStore());
    const block = (await a.commitBlock([a.tx(0, null, a.helloWorldInit())])).block;
    const tampered: Block = { ...block, header: { ...block.header, stateRoot: new Uint8Array(32).fill(7) } };
    await expect(b.chain.applyBlock(tampered)).rejects.toThrowError(/does not re-execute to the same result: stateRoot/);
    expect(b.chain.height).toBe(0);
    await b.chain.applyBlock(block); // the genuine block still applies afterwards
    expect(b.chain.height).toBe(1);
  });
});

describe('FISCO\'s storage state ([state] type=storage)', () => {
  it.each(['ecdsa', 'sm'] as const)('stateRoot = dbHash, replicas agree, a tampered dbHash is caught, a reopened store reads on (%s)', async (suite) => {
    const genesis = testGenesis(suite, { stateType: 'storage' });
    const store = new MemoryStore();
    const a = await chainOn(store, { suite, genesis });
    const b = await chainOn(new MemoryStore(), { suite, genesis });
    expect(a.chain.state.kind).toBe('storage');
    const d = await a.commitBlock([a.tx(0, null, a.helloWorldInit())]);
    const contract = d.block.receipts[0]!.contractAddress;
    // stock solc's selectors are keccak-256 on every suite
    const s = await a.commitBlock([0, 1].map((j) => a.tx(j, contract, encodeFunctionCall('set(string)', [`storage ${j}`], keccak256))));
    expect(s.block.receipts.map((r) => r.status)).toEqual([0, 0]);
    for (const { block } of [d, s]) {
      expect(toHex(block.header.dbHash)).toBe(toHex(block.header.stateRoot));
      expect(toHex(block.header.stateRoot)).not.toBe(`0x${'0'.repeat(64)}`);
      for (const receipt of block.receipts) expect(toHex(receipt.stateRoot)).toBe(toHex(block.header.stateRoot));
    }
    const tampered: Block = { ...d.block, header: { ...d.block.header, dbHash: new Uint8Array(32).fill(9), stateRoot: new Uint8Array(32).fill(9) } };
    await expect(b.chain.applyBlock(tampered)).rejects.toThrowError(/does not re-execute to the same result/);
    for (const { block } of [d, s]) expect(toHex((await b.chain.applyBlock(block)).hash)).toBe(toHex(blockHash(block.header, a.suite)));
    expect(toHex(b.chain.state.root)).toBe(toHex(a.chain.state.root));

    const reopened = await GroupChain.open({ store, suite: a.suite, version: a.version, genesis });
    expect(reopened.height).toBe(2);
    expect(toHex(reopened.state.root)).toBe(toHex(a.chain.state.root));
    const call = await reopened.executor.call({ from: a.builders[0]!.address, to: contract, data: encodeFunctionCall('get()', [], keccak256) }, reopened.height);
    expect(call.status).toBe(0);
    expect(decodeAbi('string', call.output)).toEqual(['storage 1']);
  });
});

describe('LevelDB persistence', () => {
  it('reopening after a process restart restores chain, indexes and state exactly', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'twinchain-ledger-'));
    dirs.push(dir);
    const script = new URL('./restart-writer.test-helper.ts', import.meta.url).pathname;
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', script, dir], { cwd: process.cwd() });
    const written = JSON.parse(stdout.trim().split('\n').pop()!) as {
      height: number;
      headHash: string;
      stateRoot: string;
      contract: string;
      setTx: string;
      totals: [string, string];
    };
    const store = await new LevelStoreFactory(dir).open('group1');
    try {
      const c = await chainOn(store);
      expect(c.chain.height).toBe(written.height);
      expect(toHex(c.chain.headHash)).toBe(written.headHash);
      expect(toHex(c.chain.state.root)).toBe(written.stateRoot);
      expect((await c.chain.ledger.transaction(fromHex(written.setTx)))?.receipt.status).toBe(0);
      expect(c.chain.ledger.txTotals).toEqual({ txSum: BigInt(written.totals[0]), failedTxSum: BigInt(written.totals[1]) });
      const got = await c.chain.executor.call({ from: c.builders[0]!.address, to: fromHex(written.contract), data: c.data('get()') }, c.chain.height);
      expect(decodeAbi('string', got.output)).toEqual(['written before the restart']);
      // and the chain goes on from there
      await c.commitBlock([c.tx(0, fromHex(written.contract), c.data('set(string)', ['after']))]);
      expect(c.chain.height).toBe(written.height + 1);
    } finally {
      await store.close();
    }
  });
});
