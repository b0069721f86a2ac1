// The EVM over FISCO's storage state, checked against a real block: the deployment in block 2
// of a real SM chain (fixtures/realdata/sm-block2-deploy-webase.json), executed from its
// transaction input, must leave exactly the table entries whose dbHash is the block's stateRoot.
import { readFileSync } from 'node:fs';
import { Address } from '@ethereumjs/util';
import { describe, expect, it } from 'vitest';
import { fromHex, toHex } from '../codec/index.js';
import { getSuite, keccak256, sm3 } from '../crypto/index.js';
import { computeReceiptsRoot, ProtocolVersion } from '../chain/index.js';
import { BlockTables, StorageStateManager, StorageWorldState, TableStorage } from '../state/index.js';
import { MemoryStore } from '../storage/index.js';
import { ExecutionEngine } from './execution-engine.js';
import { writeGenesisTables } from './genesis-state.js';

const data = JSON.parse(readFileSync(new URL('../../fixtures/realdata/sm-block2-deploy-webase.json', import.meta.url), 'utf8')) as {
  block: { stateRoot: string };
  receipt: { from: string; contractAddress: string; input: string; gasUsed: string; status: string; output: string };
};

describe('execution over the storage state', () => {
  it('deploys the real SM block 2 contract: same address, same table entries, same dbHash', async () => {
    const tables = new BlockTables(new TableStorage(new MemoryStore()));
    const state = new StorageStateManager(() => tables, { hash: sm3, binaryCode: true, binaryCodeHash: true });
    const engine = new ExecutionEngine(state, getSuite('sm'), false);
    const outcome = await engine.run({ from: new Address(fromHex(data.receipt.from)), to: undefined, data: fromHex(data.receipt.input), gasLimit: 300_000_000n }, 2);
    expect(outcome.status).toBe(0);
    expect(outcome.contractAddress?.toString()).toBe(data.receipt.contractAddress);
    expect(outcome.gasUsed).toBe(BigInt(data.receipt.gasUsed));
    // a deploy's receipt output is empty, not the runtime code it returned
    expect(toHex(outcome.output)).toBe(data.receipt.output);
    expect(toHex(tables.dbHash({ rule: 'v2.5', hash: sm3, sm: true }))).toBe(data.block.stateRoot);
    // the sender's table is FISCO's incNonce account; the contract's has its authority
    const sender = new Address(fromHex(data.receipt.from));
    expect((await state.getAccount(sender))?.nonce).toBe(1n);
    expect(toHex(await state.getStoredCode(new Address(fromHex(data.receipt.contractAddress))))).toBe(`0x${data.receipt.input.slice(2 + 0x40, 2 + 0x40 + 0x3e3 * 2)}`);
  });

  it('a reverted call leaves no entry behind, and reads touch nothing', async () => {
    const tables = new BlockTables(new TableStorage(new MemoryStore()));
    const state = new StorageStateManager(() => tables, { hash: sm3, binaryCode: true, binaryCodeHash: true });
    const engine = new ExecutionEngine(state, getSuite('sm'), false);
    // init code that stores 1 in slot 0 and then reverts: PUSH1 1 PUSH1 0 SSTORE PUSH1 0 DUP1 REVERT
    const reverting = fromHex('0x600160005560006000fd');
    const outcome = await engine.run({ from: new Address(fromHex(data.receipt.from)), to: undefined, data: reverting, gasLimit: 300_000_000n }, 2);
    expect(outcome.status).toBe(22); // RevertInstruction
    // the sender's nonce moved (FISCO bumps it before running the init code); nothing of the contract stays
    const changed = tables.changes().map((c) => c.name).sort();
    expect(changed).toEqual(['_sys_tables_', `c_${data.receipt.from.slice(2)}`]);
  });

  it('executes the real ECDSA block 3 (addObserver at supported_version 2.4): its consensus entry, the opened tables and the stateRoot', async () => {
    const real = JSON.parse(readFileSync(new URL('../../fixtures/realdata/ecdsa-block3-addobserver-godoc.json', import.meta.url), 'utf8')) as {
      getBlockByNumber_3_true: { stateRoot: string; receiptsRoot: string; sealerList: string[]; transactions: Array<{ from: string; to: string; input: string }> };
      getTransactionReceipt: { gasUsed: string; output: string };
      getObserverList_after: string[];
      getSealerList_after: string[];
    };
    const block = real.getBlockByNumber_3_true;
    const store = new MemoryStore();
    const dbHash = { rule: 'v2.4', hash: keccak256, sm: false } as const;
    const state = await StorageWorldState.open({ store, dbHash, accounts: { binaryCode: true, binaryCodeHash: false } });
    // supported_version 2.4: precompiled calls are charged
    const engine = new ExecutionEngine(state.stateManager, getSuite('ecdsa'), false, { precompileGas: true });
    // genesis: the four sealers of the block's sealer list
    await state.begin();
    await writeGenesisTables(engine.tables, { groupId: 1, consensusType: 'pbft', sealers: block.sealerList, timestamp: 0 }, ProtocolVersion.parse('2.4.0'));
    await state.finishBlock();
    await state.commitPending((writes) => store.batch(writes));
    // block 3 (blocks 1 and 2 left these tables as they were)
    await state.begin();
    const tx = block.transactions[0]!;
    const outcome = await engine.run({ from: new Address(fromHex(tx.from)), to: new Address(fromHex(tx.to)), data: fromHex(tx.input), gasLimit: 300_000_000n }, 3);
    expect(outcome.status).toBe(0);
    expect(toHex(outcome.output)).toBe(real.getTransactionReceipt.output);
    // intrinsic gas plus FISCO's precompiled gas: no operations, 3 for the 32-byte output
    expect(`0x${outcome.gasUsed.toString(16)}`).toBe(real.getTransactionReceipt.gasUsed);
    const done = await state.finishBlock();
    expect(toHex(done.root)).toBe(block.stateRoot);
    const receipt = {
      stateRoot: done.root,
      gasUsed: outcome.gasUsed,
      contractAddress: new Uint8Array(20),
      logsBloom: new Uint8Array(256),
      status: outcome.status,
      output: outcome.output,
      logs: [],
    };
    expect(toHex(await computeReceiptsRoot([receipt], 'merkle16', getSuite('ecdsa'), false))).toBe(block.receiptsRoot);
    await state.commitPending((writes) => store.batch(writes));
    const nodes = await engine.tables.consensusNodes(4);
    expect(nodes.observers).toEqual(real.getObserverList_after);
    expect(nodes.sealers).toEqual([...real.getSealerList_after].sort());
  });
});
