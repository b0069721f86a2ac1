import { Address } from '@ethereumjs/util';
import { describe, expect, it } from 'vitest';
import { ProtocolVersion } from '../chain/index.js';
import { fromHex } from '../codec/index.js';
import { decodeAbi, encodeFunctionCall } from '../abi/index.js';
import { getSuite, keccak256 } from '../crypto/index.js';
import { WorldState } from '../state/index.js';
import { MemoryStore } from '../storage/index.js';
import { harness, type Harness } from './exec-harness.test-helper.js';
import { ExecutionEngine, intrinsicGas } from './execution-engine.js';
import { writeGenesisTables } from './genesis-state.js';
import { entryCapacity, memoryGas, OP_GAS, PrecompiledGas } from './precompiled-gas.js';

describe('PrecompiledGas', () => {
  it('prices memory as 3 per word plus words²/512, nothing for none', () => {
    expect(memoryGas(0)).toBe(0);
    expect(memoryGas(1)).toBe(3);
    expect(memoryGas(32)).toBe(3);
    expect(memoryGas(33)).toBe(6);
    // 469 words: 1407 + floor(219961 / 512) = 1407 + 429
    expect(memoryGas(15_000)).toBe(1836);
  });

  it('adds operation costs to the memory of the largest size seen (FISCO test_PrecompiledGas numbers)', () => {
    const gas = new PrecompiledGas();
    gas.append('CreateTable');
    gas.append('OpenTable');
    gas.append('Insert');
    gas.append('Select');
    gas.append('Update');
    expect(gas.total(0)).toBe(36_400);
    gas.setMemUsed(256);
    expect(gas.total(0)).toBe(36_424);
    gas.updateMemUsed(15_000);
    expect(gas.total(0)).toBe(38_236);
    gas.updateMemUsed(100); // a smaller size does not lower it
    gas.append('LE');
    expect(gas.total(0)).toBe(38_239);
  });

  it('counts operations times their count, the output as memory, and setMemUsed may lower the memory', () => {
    const gas = new PrecompiledGas();
    gas.append('Select', 3);
    gas.append('GetByte64');
    expect(gas.total(32)).toBe(3 * 200 + 192 + 3);
    gas.setMemUsed(1000);
    gas.setMemUsed(10);
    expect(gas.total(0)).toBe(3 * 200 + 192 + 3);
    expect(OP_GAS.GetByte32).toBe(96);
    expect(OP_GAS.GetString).toBe(3);
    expect(OP_GAS.Remove).toBe(2_500);
  });

  it("measures an entry as its fields' names and values in bytes", () => {
    expect(entryCapacity([['name', 'fruit'], ['item_name', 'äpple']])).toBe(4 + 5 + 9 + 6);
  });
});

const at = (n: number) => fromHex(n.toString(16).padStart(40, '0'));
const TABLE_FACTORY = at(0x1001);
const CRUD = at(0x1002);

/** The precompiled gas of one transaction: its gasUsed less the intrinsic gas. */
async function precompiledGasOf(h: Harness, to: Uint8Array, signature: string, args: unknown[]): Promise<{ gas: number; result: number }> {
  const data = h.callData(signature, args);
  const receipt = await h.run(0, to, data);
  expect(receipt.status, signature).toBe(0);
  return { gas: Number(receipt.gasUsed - intrinsicGas(data, false)), result: Number(decodeAbi('int256', receipt.output)[0]) };
}

describe('precompiled gas of table calls, computed by hand from FISCO 2.x rules', () => {
  it('createTable, CRUD insert and CRUD remove', async () => {
    const h = await harness();
    // createTable: CreateTable 16000; memory = the input, 4 + 3 heads + 3 × (length + one data word) = 292 bytes, 10 words = 30
    const created = await precompiledGasOf(h, TABLE_FACTORY, 'createTable(string,string,string)', ['t_gas', 'name', 'item_id,item_name']);
    expect(created.result).toBe(0);
    expect(created.gas).toBe(16_000 + 30);

    // insert: OpenTable 200 + Insert 10000; input 4 + 4 heads + 't_gas' 64 + 'fruit' 64 + the 35-byte entry 96 + '' 32 = 388
    // bytes, 13 words = 39 (the entry, key included, is 31 bytes; the output 32)
    const entry = '{"item_id":"1","item_name":"apple"}';
    const inserted = await precompiledGasOf(h, CRUD, 'insert(string,string,string,string)', ['t_gas', 'fruit', entry, '']);
    expect(inserted.result).toBe(1);
    expect(inserted.gas).toBe(200 + 10_000 + 39);

    // remove: OpenTable 200 + EQ 3 + Remove 2500; input 4 + 128 + 64 + 64 + the 22-byte condition 64 + 32 = 356 bytes, 12 words = 36
    const removed = await precompiledGasOf(h, CRUD, 'remove(string,string,string,string)', ['t_gas', 'fruit', '{"item_id":{"eq":"1"}}', '']);
    expect(removed.result).toBe(1);
    expect(removed.gas).toBe(200 + 3 + 2_500 + 36);

    // nothing left to remove: no Remove operation
    const none = await precompiledGasOf(h, CRUD, 'remove(string,string,string,string)', ['t_gas', 'fruit', '{"item_id":{"eq":"1"}}', '']);
    expect(none.result).toBe(0);
    expect(none.gas).toBe(200 + 3 + 36);
  });

  it('CRUD desc of a table that does not exist: OpenTable and a Select of no entries', async () => {
    const h = await harness();
    const data = h.callData('desc(string)', ['t_none']);
    const receipt = await h.run(0, CRUD, data);
    expect(receipt.status).toBe(0);
    expect(decodeAbi('string,string', receipt.output)).toEqual(['', '']);
    // OpenTable 200 + Select × 0; memory: the output, 2 heads + two empty strings' lengths = 128 bytes, 4 words = 12 (the input is 100 bytes)
    expect(Number(receipt.gasUsed - intrinsicGas(data, false))).toBe(200 + 12);
  });
});

describe('precompiled gas is charged from supported_version 2.4.0', () => {
  it.each([
    [true, 3],
    [false, 0],
  ])('precompileGas %s: addObserver costs intrinsic gas + %i', async (precompileGas, extra) => {
    const state = await WorldState.open({ store: new MemoryStore() });
    const engine = new ExecutionEngine(state.stateManager, getSuite('ecdsa'), false, { precompileGas });
    const sealer = '1'.repeat(128);
    await writeGenesisTables(engine.tables, { groupId: 1, consensusType: 'pbft', sealers: [sealer], timestamp: 0 }, ProtocolVersion.parse('2.4.0'));
    const data = encodeFunctionCall('addObserver(string)', ['2'.repeat(128)], keccak256);
    const from = new Address(fromHex('0x4ca29e9e8cb79c863c04f83827ab540315f25e67'));
    const outcome = await engine.run({ from, to: new Address(at(0x1003)), data, gasLimit: 300_000_000n }, 1);
    expect(outcome.status).toBe(0);
    expect(outcome.gasUsed).toBe(intrinsicGas(data, false) + BigInt(extra));
  });
});

describe('the block executor charges precompiled gas by the chain\'s supported_version', () => {
  it.each([
    ['2.3.0', 0],
    ['2.4.0', 3],
  ])('at %s an addObserver receipt costs intrinsic gas + %i', async (version, extra) => {
    const h = await harness({ version });
    const data = h.callData('addObserver(string)', ['2'.repeat(128)]);
    const receipt = await h.run(0, at(0x1003), data);
    expect(receipt.status).toBe(0);
    expect(receipt.gasUsed).toBe(intrinsicGas(data, false) + BigInt(extra));
  });
});
