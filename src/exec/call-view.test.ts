// Read-only calls run on one engine over a view of the committed state that keeps its caches
// (accounts, code, slots, FISCO's tables, tx_gas_limit) from call to call. These check that the
// caches never outlive the state they were read from, and that a call's own writes never reach
// another call, on the trie and on FISCO's storage state.
import { describe, expect, it } from 'vitest';
import { TX_STATUS } from '../chain/index.js';
import { fromHex } from '../codec/index.js';
import { decodeAbi } from '../abi/index.js';
import { deployCodeFor, harness } from './exec-harness.test-helper.js';

const SYSTEM_CONFIG = fromHex('0000000000000000000000000000000000001000');

describe.each(['mpt', 'storage'] as const)('calls on the %s state', (stateType) => {
  it('see a committed block at once, after calls that warmed the view up', async () => {
    const h = await harness({ stateType });
    const hello = await h.deploy(0, 'HelloWorld');
    const counter = await h.deploy(0, 'Counter');
    for (let i = 0; i < 3; i++) {
      expect(await h.call(hello, 'get()', [], 'string')).toEqual(['Hello, World!']);
      expect(await h.call(counter, 'get()', [], 'uint256')).toEqual([0n]);
    }
    await h.run(1, hello, h.callData('set(string)', ['changed by a block']));
    expect(await h.call(hello, 'get()', [], 'string')).toEqual(['changed by a block']);
    await h.block([h.tx(0, counter, h.callData('incrementBy(uint256)', [5n])), h.tx(1, counter, h.callData('increment()'))]);
    expect(await h.call(counter, 'get()', [], 'uint256')).toEqual([6n]);
    expect(await h.call(hello, 'get()', [], 'string')).toEqual(['changed by a block']);
  });

  it('never see a pending block, then see it once committed', async () => {
    const h = await harness({ stateType });
    const counter = await h.deploy(0, 'Counter');
    expect(await h.call(counter, 'get()', [], 'uint256')).toEqual([0n]);
    await h.executor.execute(
      { number: h.number + 1, parentHash: new Uint8Array(32), timestamp: 0, sealer: 0, sealerList: [] },
      [h.tx(0, counter, h.callData('incrementBy(uint256)', [9n]))],
    );
    expect(await h.call(counter, 'get()', [], 'uint256')).toEqual([0n]);
    await h.executor.commit((w) => h.store.batch(w, { sync: true }));
    expect(await h.call(counter, 'get()', [], 'uint256', 0)).toEqual([9n]);
    expect((await h.executor.call({ from: h.account(0).address, to: counter, data: h.callData('get()') }, h.number + 1)).output).toEqual(
      (await h.executor.call({ from: h.account(2).address, to: counter, data: h.callData('get()') }, h.number + 1)).output,
    );
  });

  it('leave nothing behind when they write: the next call reads the committed value', async () => {
    const h = await harness({ stateType });
    const counter = await h.deploy(0, 'Counter');
    const hello = await h.deploy(0, 'HelloWorld');
    const call = (to: Uint8Array, data: Uint8Array) => h.executor.call({ from: h.account(0).address, to, data }, h.number);
    for (let i = 0; i < 3; i++) {
      const increment = await call(counter, h.callData('incrementBy(uint256)', [7n]));
      expect(increment.status).toBe(0);
      expect(decodeAbi('uint256', increment.output)).toEqual([7n]);
      expect(await h.call(counter, 'get()', [], 'uint256')).toEqual([0n]);
      expect((await call(hello, h.callData('set(string)', [`written by call ${i}`]))).status).toBe(0);
      expect(await h.call(hello, 'get()', [], 'string')).toEqual(['Hello, World!']);
    }
    // a call that writes and then reverts, and one that runs out of gas, leave nothing either
    const reverter = await h.deploy(0, 'Reverter');
    expect((await call(reverter, h.callData('revertWithReason(string)', ['no']))).status).toBe(TX_STATUS.RevertInstruction);
    expect(await h.call(counter, 'get()', [], 'uint256')).toEqual([0n]);
    // and the state a block then executes on has not seen any of it
    await h.run(0, counter, h.callData('increment()'));
    expect(await h.call(counter, 'get()', [], 'uint256')).toEqual([1n]);
  });

  it('issued together, do not see each other\'s writes', async () => {
    const h = await harness({ stateType });
    const counter = await h.deploy(0, 'Counter');
    const hello = await h.deploy(0, 'HelloWorld');
    const from = h.account(0).address;
    const calls = Array.from({ length: 40 }, (_, i) => {
      switch (i % 4) {
        case 0:
          return h.executor.call({ from, to: counter, data: h.callData('incrementBy(uint256)', [BigInt(i + 1)]) }, h.number).then((r) => decodeAbi('uint256', r.output)[0]);
        case 1:
          return h.executor.call({ from, to: counter, data: h.callData('get()') }, h.number).then((r) => decodeAbi('uint256', r.output)[0]);
        case 2:
          return h.executor.call({ from, to: hello, data: h.callData('set(string)', [`call ${i}`]) }, h.number).then((r) => r.status);
        default:
          return h.executor.call({ from, to: hello, data: h.callData('get()') }, h.number).then((r) => decodeAbi('string', r.output)[0]);
      }
    });
    const results = await Promise.all(calls);
    results.forEach((result, i) => {
      expect(result).toEqual([BigInt(i + 1), 0n, 0, 'Hello, World!'][i % 4]);
    });
  });

  it('queued around a commit: those issued before it read the old state, those after it the new', async () => {
    const h = await harness({ stateType });
    const hello = await h.deploy(0, 'HelloWorld');
    const get = () => h.executor.call({ from: h.account(0).address, to: hello, data: h.callData('get()') }, h.number).then((r) => decodeAbi('string', r.output)[0]);
    expect(await get()).toBe('Hello, World!');
    await h.executor.execute(
      { number: h.number + 1, parentHash: new Uint8Array(32), timestamp: 0, sealer: 0, sealerList: [] },
      [h.tx(0, hello, h.callData('set(string)', ['the new head']))],
    );
    const before = Array.from({ length: 5 }, get);
    const commit = h.executor.commit((w) => h.store.batch(w, { sync: true }));
    const after = Array.from({ length: 5 }, get);
    await commit;
    expect(await Promise.all(before)).toEqual(Array(5).fill('Hello, World!'));
    expect(await Promise.all(after)).toEqual(Array(5).fill('the new head'));
    expect(await get()).toBe('the new head');
  });

  it('take tx_gas_limit from the committed state, changed by a block', async () => {
    const h = await harness({ stateType, genesis: { txGasLimit: 3_000_000n } });
    // GAS PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN: answers the gas left after GAS itself
    const deployed = await h.run(0, null, deployCodeFor(Uint8Array.from([0x5a, 0x60, 0x00, 0x52, 0x60, 0x20, 0x60, 0x00, 0xf3])));
    const gasLeft = async () => {
      const r = await h.executor.call({ from: h.account(0).address, to: deployed.contractAddress, data: new Uint8Array(0) }, h.number);
      expect(r.status).toBe(TX_STATUS.None);
      return decodeAbi('uint256', r.output)[0];
    };
    expect(await gasLeft()).toBe(3_000_000n - 21_000n - 2n);
    expect((await h.run(0, SYSTEM_CONFIG, h.callData('setValueByKey(string,string)', ['tx_gas_limit', '1000000']))).status).toBe(0);
    expect(await gasLeft()).toBe(1_000_000n - 21_000n - 2n);
  });
});
