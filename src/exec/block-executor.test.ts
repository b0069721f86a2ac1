import { describe, expect, it } from 'vitest';
import { encodeReceipt, logsBloom, TransactionBuilder, TX_STATUS, type Receipt } from '../chain/index.js';
import { bytesEqual, fromHex, toHex } from '../codec/index.js';
import { decodeAbi, decodeErrorString, encodeAbi, encodeFunctionCall } from '../abi/index.js';
import { getSuite, keccak256 } from '../crypto/index.js';
import type { ExecutedBlock, ExpectedReceipt } from './block-executor.js';
import { artifact, deployCodeFor, harness, seeded, type Harness } from './exec-harness.test-helper.js';
import { intrinsicGas } from './execution-engine.js';
import { MAX_CODE_SIZE } from './fisco-evm.js';

describe('HelloWorld inside blocks', () => {
  it('deploys, sets in one block, and get returns what set stored', async () => {
    const h = await harness();
    const address = await h.deploy(0, 'HelloWorld');
    expect(await h.call(address, 'get()', [], 'string')).toEqual(['Hello, World!']);
    const receipt = await h.run(1, address, h.callData('set(string)', ['Hello, FISCO BCOS']));
    expect(receipt.status).toBe(0);
    expect(receipt.logs).toHaveLength(1);
    expect(toHex(receipt.logs[0]!.address)).toBe(toHex(address));
    expect(await h.call(address, 'get()', [], 'string')).toEqual(['Hello, FISCO BCOS']);
  });

  it('derives the contract address from (sender, nonce) and bumps the nonce on deploys only', async () => {
    const h = await harness();
    const sender = h.account(0).address;
    expect(await h.nonce(sender)).toBe(0n);
    const first = await h.deploy(0, 'HelloWorld');
    expect(toHex(first)).toBe(toHex(h.createAddress(sender, 0n)));
    expect(await h.nonce(sender)).toBe(1n);
    await h.run(0, first, h.callData('set(string)', ['x']));
    await h.run(0, first, h.callData('set(string)', ['y']));
    expect(await h.nonce(sender)).toBe(1n);
    const second = await h.deploy(0, 'HelloWorld');
    expect(toHex(second)).toBe(toHex(h.createAddress(sender, 1n)));
  });

  it('gives a factory child the address from nonce 0, as FISCO (contracts start at nonce 0)', async () => {
    const h = await harness();
    const factory = await h.deploy(0, 'Factory');
    const receipt = await h.run(0, factory, h.callData('createChild(uint256)', [42n]));
    expect(receipt.status).toBe(0);
    const [child] = (await h.call(factory, 'childAt(uint256)', [0n], 'address')) as [string];
    expect(child.toLowerCase()).toBe(toHex(h.createAddress(factory, 0n)));
    expect(await h.call(fromHex(child), 'value()', [], 'uint256')).toEqual([42n]);
    await h.run(0, factory, h.callData('createChild(uint256)', [7n]));
    const [second] = (await h.call(factory, 'childAt(uint256)', [1n], 'address')) as [string];
    expect(second.toLowerCase()).toBe(toHex(h.createAddress(factory, 1n)));
  });

  it('on an SM chain derives addresses with SM3 and runs the same contracts', async () => {
    const h = await harness({ suite: 'sm' });
    const sender = h.account(0).address;
    const address = await h.deploy(0, 'HelloWorld');
    expect(toHex(address)).toBe(toHex(h.createAddress(sender, 0n)));
    expect(toHex(address)).not.toBe(toHex((await harness()).createAddress(sender, 0n)));
    // HelloWorld was compiled by standard solc: its selectors are keccak-based on every chain
    const set = await h.run(0, address, encodeFunctionCall('set(string)', ['guomi'], keccak256));
    expect(set.status).toBe(0);
    const [name] = decodeAbi('string', (await h.executor.call({ from: sender, to: address, data: fromHex('6d4ce63c') }, h.number)).output);
    expect(name).toBe('guomi');
  });
});

describe('receipt statuses', () => {
  it('revert with reason → 22 with the Error(string) output kept', async () => {
    const h = await harness();
    const reverter = await h.deploy(0, 'Reverter');
    const receipt = await h.run(0, reverter, h.callData('revertWithReason(string)', ['boom reason']));
    expect(receipt.status).toBe(TX_STATUS.RevertInstruction);
    expect(decodeErrorString(receipt.output)).toBe('boom reason');
    const req = await h.run(0, reverter, h.callData('requireNonZero(uint256)', [0n]));
    expect(req.status).toBe(22);
    expect(decodeErrorString(req.output)).toBeTypeOf('string');
  });

  it('out of gas → 12 charging the intrinsic gas only (FISCO leaves the gas untouched on EVMC_OUT_OF_GAS); bad instruction → 10 and all gas', async () => {
    const h = await harness({ genesis: { txGasLimit: 3_000_000n } });
    const reverter = await h.deploy(0, 'Reverter');
    const data = h.callData('runOutOfGas()');
    const oog = await h.run(0, reverter, data);
    expect(oog.status).toBe(TX_STATUS.OutOfGas);
    expect(oog.gasUsed).toBe(intrinsicGas(data, false));
    const bad = await h.run(0, reverter, h.callData('invalidOpcode()'));
    expect(bad.status).toBe(TX_STATUS.BadInstruction);
    expect(bad.output).toEqual(new Uint8Array(0));
    expect(bad.gasUsed).toBe(3_000_000n);
  });

  it('a sub-call that runs out of gas gives its caller the whole of its gas back, as FISCO\'s host does', async () => {
    const h = await harness({ genesis: { txGasLimit: 3_000_000n } });
    const reverter = await h.deploy(0, 'Reverter');
    // caller: CALL(gas 100000, reverter, 0, in 0..4, out 0..0), then STOP; calldata = runOutOfGas()
    const selector = h.callData('runOutOfGas()');
    const mstore = [0x63, ...selector, 0x60, 0xe0, 0x1b, 0x60, 0x00, 0x52]; // PUSH4 sel; PUSH1 224; SHL; PUSH1 0; MSTORE
    const call = [0x60, 0x00, 0x60, 0x00, 0x60, 0x04, 0x60, 0x00, 0x60, 0x00, 0x73, ...reverter, 0x62, 0x01, 0x86, 0xa0, 0xf1, 0x00];
    const deployed = await h.run(0, null, deployCodeFor(Uint8Array.from([...mstore, ...call])));
    expect(deployed.status).toBe(0);
    const receipt = await h.run(0, deployed.contractAddress, new Uint8Array(0));
    expect(receipt.status).toBe(0);
    // 21000 + the caller's own opcodes; the 100000 handed to the failed sub-call all came back
    expect(receipt.gasUsed).toBeLessThan(21_000n + 5_000n);
  });

  it('bad jump → 11, stack overflow → 13, stack underflow → 14 (raw bytecode)', async () => {
    const h = await harness();
    const cases: Array<[string, number[], number]> = [
      ['bad jump', [0x60, 0x00, 0x56], TX_STATUS.BadJumpDestination],
      ['stack overflow', [0x5b, 0x60, 0x00, 0x60, 0x00, 0x56], TX_STATUS.OutOfStack],
      ['stack underflow', [0x01], TX_STATUS.StackUnderflow],
      ['invalid', [0xfe], TX_STATUS.BadInstruction],
    ];
    for (const [, runtime, status] of cases) {
      const deployed = await h.run(0, null, deployCodeFor(Uint8Array.from(runtime)));
      expect(deployed.status).toBe(0);
      expect((await h.run(0, deployed.contractAddress, new Uint8Array(0))).status).toBe(status);
    }
  });

  it('a call to an address without code → 26 with FISCO\'s Error address output', async () => {
    const h = await harness();
    const nowhere = fromHex('8c17cf316c1063ab6c89df875e96c9f0f5b2f744');
    const receipt = await h.run(0, nowhere, h.callData('set(string)', ['x']));
    expect(receipt.status).toBe(TX_STATUS.CallAddressError);
    expect(decodeErrorString(receipt.output)).toBe('Error address:8c17cf316c1063ab6c89df875e96c9f0f5b2f744');
  });

  it('enforces the 256 KiB code size limit', async () => {
    const h = await harness();
    // init code: return `size` zero bytes of memory
    const initFor = (size: number) => {
      const s = [(size >> 16) & 0xff, (size >> 8) & 0xff, size & 0xff];
      return Uint8Array.of(0x62, ...s, 0x60, 0x00, 0xf3); // PUSH3 size PUSH1 0 RETURN
    };
    expect((await h.run(0, null, initFor(MAX_CODE_SIZE))).status).toBe(0);
    expect((await h.run(0, null, initFor(MAX_CODE_SIZE + 1))).status).toBe(TX_STATUS.OutOfGas);
  });

  it('charges intrinsic gas and reports gasUsed per transaction (2.9+) or cumulatively (before)', async () => {
    const newer = await harness();
    const a = await newer.deploy(0, 'Counter');
    const block = await newer.block([0, 1].map((i) => newer.tx(i, a, newer.callData('increment()'))));
    const [r1, r2] = block.block.receipts;
    expect(r1!.gasUsed).toBeGreaterThan(21_000n);
    expect(r2!.gasUsed).toBeLessThan(r1!.gasUsed); // second increment: SSTORE reset, not set
    expect(r1!.remainGas).toBe(300_000_000n - r1!.gasUsed);
    const older = await harness({ version: '2.4.0' });
    const b = await older.deploy(0, 'Counter');
    const blk = await older.block([0, 1].map((i) => older.tx(i, b, older.callData('increment()'))));
    expect(blk.block.receipts[1]!.gasUsed).toBeGreaterThan(blk.block.receipts[0]!.gasUsed);
    expect(blk.block.receipts[0]!.remainGas).toBeUndefined();
  });
});

describe('tx_gas_limit and system config timing', () => {
  it('takes the per-transaction gas from tx_gas_limit, changed at runtime from the next block', async () => {
    const h = await harness();
    const counter = await h.deploy(0, 'Counter');
    const setLimit = h.callData('setValueByKey(string,string)', ['tx_gas_limit', '100000']);
    const system = fromHex('0000000000000000000000000000000000001000');
    // set and use the limit in the same block: the old limit still applies there
    const same = await h.block([h.tx(0, system, setLimit), h.tx(0, counter, h.callData('incrementBy(uint256)', [1n]))]);
    expect(same.block.receipts.map((r) => r.status)).toEqual([0, 0]);
    expect(same.block.receipts[1]!.remainGas).toBe(300_000_000n - same.block.receipts[1]!.gasUsed);
    const next = await h.run(0, counter, h.callData('incrementBy(uint256)', [1n]));
    expect(next.remainGas).toBe(100_000n - next.gasUsed);
    // a deploy whose code deposit (512 bytes × 200 gas) needs more than the 100000 available runs out
    const deploy = await h.run(0, null, Uint8Array.of(0x61, 0x02, 0x00, 0x60, 0x00, 0xf3));
    expect(deploy.status).toBe(TX_STATUS.OutOfGas);
    // HelloWorld's init code alone costs more intrinsic gas (53000 + calldata) than the limit
    expect((await h.run(0, null, fromHex(artifact('HelloWorld').bytecode))).status).toBe(TX_STATUS.OutOfGasIntrinsic);
    // a transaction whose intrinsic gas alone exceeds the limit
    const huge = await h.run(0, counter, new Uint8Array(2000).fill(1));
    expect(huge.status).toBe(TX_STATUS.OutOfGasIntrinsic);
  });
});

describe('block execution is all-or-nothing', () => {
  it('a block that fails to execute leaves no state behind', async () => {
    const h = await harness();
    const counter = await h.deploy(0, 'Counter');
    const rootBefore = h.state.root;
    const good = h.tx(0, counter, h.callData('increment()'));
    // an SM2-signed transaction cannot be verified on this ECDSA chain
    const sm = getSuite('sm');
    const forged = new TransactionBuilder({ suite: sm, generation: 'rc2', key: sm.generateKeyPair(seeded(9)), random: seeded(10) }).build({
      to: counter,
      data: h.callData('increment()'),
      blockLimit: 100n,
    });
    await expect(
      h.executor.execute({ number: h.number + 1, parentHash: new Uint8Array(32), timestamp: 0, sealer: 0, sealerList: [] }, [good, forged]),
    ).rejects.toThrowError('transaction 1');
    expect(toHex(h.state.root)).toBe(toHex(rootBefore));
    expect(h.state.inBlock).toBe(false);
    expect(await h.call(counter, 'get()', [], 'uint256')).toEqual([0n]);
  });

  it('a discarded proposal changes nothing; the next proposal at that height executes cleanly', async () => {
    const h = await harness();
    const counter = await h.deploy(0, 'Counter');
    const draft = { number: h.number + 1, parentHash: new Uint8Array(32), timestamp: 0, sealer: 0, sealerList: [] };
    const a = await h.executor.execute(draft, [h.tx(0, counter, h.callData('incrementBy(uint256)', [5n]))]);
    await h.executor.discard();
    expect(await h.call(counter, 'get()', [], 'uint256')).toEqual([0n]);
    const b = await h.executor.execute(draft, [h.tx(0, counter, h.callData('incrementBy(uint256)', [5n]))]);
    expect(toHex(b.block.header.stateRoot)).toBe(toHex(a.block.header.stateRoot));
  });
});

describe('a block whose transactions come while it executes (execute with more)', () => {
  const draftAt = (number: number) => ({ number, parentHash: new Uint8Array(32), timestamp: 0, sealer: 0, sealerList: [] });

  it('gives the block, receipts and hash it gives with every transaction up front', async () => {
    const whole = await harness();
    const streamed = await harness();
    const counters = [await whole.deploy(0, 'Counter'), await streamed.deploy(0, 'Counter')];
    const txsOf = (h: typeof whole, counter: Uint8Array) => [1n, 2n, 3n, 4n, 5n].map((n) => h.tx(Number(n % 2n), counter, h.callData('incrementBy(uint256)', [n])));
    const expected = await whole.executor.execute(draftAt(whole.number + 1), txsOf(whole, counters[0]!));
    const all = txsOf(streamed, counters[1]!);
    // the first two up front, then one, then none (a call that appends nothing is asked again), then two
    const arriving: Array<typeof all> = [all.slice(2, 3), [], all.slice(3, 5)];
    const list = all.slice(0, 2);
    const asked: number[] = [];
    const more = async () => {
      asked.push(list.length);
      for (;;) {
        const next = arriving.shift();
        if (!next) return false;
        list.push(...next);
        if (next.length > 0) return true;
      }
    };
    const got = await streamed.executor.execute(draftAt(streamed.number + 1), list, { more });
    // asked once the list ran out each time, and once more at the end
    expect(asked).toEqual([2, 3, 5]);
    expect(toHex(got.hash)).toBe(toHex(expected.hash));
    expect(got.block.receipts.map((r) => r.status)).toEqual(expected.block.receipts.map((r) => r.status));
    expect(got.senders.map(toHex)).toEqual(expected.senders.map(toHex));
    expect(toHex(got.block.header.stateRoot)).toBe(toHex(expected.block.header.stateRoot));
    expect(got.block.transactions).toHaveLength(5);
  });

  it('gives the block up when more throws: the error is passed on and no state is left behind', async () => {
    const h = await harness();
    const counter = await h.deploy(0, 'Counter');
    const rootBefore = h.state.root;
    const list = [h.tx(0, counter, h.callData('increment()'))];
    await expect(
      h.executor.execute(draftAt(h.number + 1), list, {
        more: async () => {
          throw new Error('the rest cannot be read');
        },
      }),
    ).rejects.toThrowError('the rest cannot be read');
    expect(toHex(h.state.root)).toBe(toHex(rootBefore));
    expect(h.state.inBlock).toBe(false);
    expect(await h.call(counter, 'get()', [], 'uint256')).toEqual([0n]);
    // the same height executes cleanly afterwards
    const again = await h.executor.execute(draftAt(h.number + 1), [h.tx(0, counter, h.callData('increment()'))]);
    expect(again.block.receipts[0]!.status).toBe(TX_STATUS.None);
  });

  it('a transaction that comes later and whose sender cannot be recovered fails the block, naming its index', async () => {
    const h = await harness();
    const counter = await h.deploy(0, 'Counter');
    const sm = getSuite('sm');
    const forged = new TransactionBuilder({ suite: sm, generation: 'rc2', key: sm.generateKeyPair(seeded(9)), random: seeded(10) }).build({ to: counter, data: h.callData('increment()'), blockLimit: 100n });
    const list = [h.tx(0, counter, h.callData('increment()'))];
    let given = false;
    const more = async () => {
      if (given) return false;
      given = true;
      list.push(forged);
      return true;
    };
    await expect(h.executor.execute(draftAt(h.number + 1), list, { more })).rejects.toThrowError('transaction 1');
    expect(h.state.inBlock).toBe(false);
    expect(await h.call(counter, 'get()', [], 'uint256')).toEqual([0n]);
  });
});

describe('a block whose receipts are expected (execute with expectedReceipts)', () => {
  const draftAt = (number: number) => ({ number, parentHash: new Uint8Array(32), timestamp: 0, sealer: 0, sealerList: [] });
  /** The same block executed on two fresh chains: once without expectations, once with those `expect` makes of the first one's receipts. */
  const twice = async (expect_: (receipts: readonly Receipt[], h: Harness) => Array<ExpectedReceipt | undefined>, version?: string) => {
    const chains = [await harness(version ? { version } : {}), await harness(version ? { version } : {})];
    const counters = [await chains[0]!.deploy(0, 'Counter'), await chains[1]!.deploy(0, 'Counter')];
    // events with an indexed topic (CountChanged), one reverted call (no logs), from two senders
    const txsOf = (i: number) => [
      ...[1n, 2n, 3n].map((n) => chains[i]!.tx(Number(n % 2n), counters[i]!, chains[i]!.callData('incrementBy(uint256)', [n]))),
      chains[i]!.tx(0, counters[i]!, chains[i]!.callData('nonexistent()')),
      chains[i]!.tx(1, counters[i]!, chains[i]!.callData('increment()')),
    ];
    const plain = await chains[0]!.executor.execute(draftAt(chains[0]!.number + 1), txsOf(0));
    const given = expect_(plain.block.receipts, chains[1]!);
    let asked = 0;
    const got = await chains[1]!.executor.execute(draftAt(chains[1]!.number + 1), txsOf(1), {
      expectedReceipts: async () => {
        asked++;
        return (i) => given[i];
      },
    });
    expect(asked).toBe(1);
    return { plain, got };
  };
  const exactly = (h: Harness) => (r: Receipt): ExpectedReceipt => {
    const encoding = encodeReceipt({ ...r }, h.version.receiptHasRemainGas);
    return { encoding, bloom: logsBloom(r.logs, h.suite), hash: h.suite.hash(encoding) };
  };
  const sameBlock = (a: ExecutedBlock, b: ExecutedBlock) => {
    expect(toHex(b.hash)).toBe(toHex(a.hash));
    expect(toHex(b.block.header.receiptsRoot)).toBe(toHex(a.block.header.receiptsRoot));
    expect(toHex(b.block.header.logsBloom)).toBe(toHex(a.block.header.logsBloom));
    expect(b.block.receipts.map((r) => toHex(encodeReceipt(r, true)))).toEqual(a.block.receipts.map((r) => toHex(encodeReceipt(r, true))));
    // each receipt's encoding as the receipts root took it, given with the block
    for (const e of [a, b]) expect(e.receiptEncodings!.map(toHex)).toEqual(e.block.receipts.map((r) => toHex(encodeReceipt(r, r.remainGas !== undefined))));
  };

  it('gives the block it gives without them, where every receipt is as expected', async () => {
    const { plain, got } = await twice((receipts, h) => receipts.map(exactly(h)));
    expect(plain.block.receipts.some((r) => r.logs.length > 0) && plain.block.receipts.some((r) => r.status !== 0)).toBe(true);
    sameBlock(plain, got);
    // which receipts encoded as expected is said only where receipts were expected
    expect(plain.asExpected).toBeUndefined();
    expect([...got.asExpected!]).toEqual([1, 1, 1, 1, 1]);
  });

  it('takes the expected hashes where the encodings match, without hashing (a wrong one gives a wrong root: computing them right is the caller\'s part)', async () => {
    const { plain, got } = await twice((receipts, h) => receipts.map((r, i) => ({ ...exactly(h)(r), ...(i === 2 ? { hash: new Uint8Array(32).fill(1) } : {}) })));
    expect(toHex(got.block.header.receiptsRoot)).not.toBe(toHex(plain.block.header.receiptsRoot));
  });

  it('computes in full any receipt that differs from the one expected (another receipt, a wrong bloom), and where none is expected', async () => {
    const { plain, got } = await twice((receipts, h) => {
      const e = receipts.map(exactly(h));
      // 0: another transaction's receipt; 1: a bloom that is not of its logs (its encoding then differs); 3: none
      return [e[2]!, { ...e[1]!, bloom: new Uint8Array(256).fill(0xff) }, e[2]!, undefined, e[4]!];
    });
    sameBlock(plain, got);
    expect([...got.asExpected!]).toEqual([0, 0, 1, 0, 1]);
  });

  it('also before 2.9.0 (receipts without remainGas, with the running gas total) and on the older root schemes', async () => {
    for (const version of ['2.4.0', '2.1.0']) {
      const { plain, got } = await twice((receipts, h) => receipts.map(exactly(h)), version);
      expect(toHex(got.hash)).toBe(toHex(plain.hash));
      expect(toHex(got.block.header.receiptsRoot)).toBe(toHex(plain.block.header.receiptsRoot));
    }
  });
});

describe('read-only call', () => {
  it('returns {status, output} against committed state and changes nothing', async () => {
    const h = await harness();
    const counter = await h.deploy(0, 'Counter');
    const root = h.state.root;
    const r = await h.executor.call({ from: h.account(0).address, to: counter, data: h.callData('increment()') }, h.number);
    expect(r.status).toBe(0);
    expect(decodeAbi('uint256', r.output)).toEqual([1n]);
    expect(await h.call(counter, 'get()', [], 'uint256')).toEqual([0n]);
    expect(toHex(h.state.root)).toBe(toHex(root));
    const reverted = await h.executor.call({ from: h.account(0).address, to: await h.deploy(0, 'Reverter'), data: h.callData('revertWithReason(string)', ['no']) }, h.number);
    expect(reverted.status).toBe(22);
  });

  it('never sees a pending (executed, uncommitted) block', async () => {
    const h = await harness();
    const counter = await h.deploy(0, 'Counter');
    await h.executor.execute(
      { number: h.number + 1, parentHash: new Uint8Array(32), timestamp: 0, sealer: 0, sealerList: [] },
      [h.tx(0, counter, h.callData('incrementBy(uint256)', [9n]))],
    );
    expect(await h.call(counter, 'get()', [], 'uint256')).toEqual([0n]);
  });
});

describe('logs and bloom', () => {
  it('records every log with topics and data, and the blooms contain them', async () => {
    const h = await harness();
    const emitter = await h.deploy(0, 'EventEmitter');
    const receipt = await h.run(0, emitter, h.callData('emitMany(uint256)', [3n]));
    expect(receipt.status).toBe(0);
    expect(receipt.logs).toHaveLength(3);
    expect(receipt.logs[2]!.topics[1]).toEqual(encodeAbi('uint256', [2n]));
    const all = await h.run(0, emitter, h.callData('emitAll(uint256,string,string)', [1n, 'label', 'text']));
    expect(all.logs.map((l) => l.topics.length)).toEqual([1, 2, 3, 4, 0, 4]);
    const bloomHas = (item: Uint8Array) => {
      const hh = h.suite.hash(item);
      return [0, 2, 4].every((i) => {
        const bit = ((hh[i]! << 8) | hh[i + 1]!) & 2047;
        return (all.logsBloom[255 - (bit >> 3)]! & (1 << (bit & 7))) !== 0;
      });
    };
    expect(bloomHas(emitter)).toBe(true);
    expect(all.logs.every((l) => l.topics.every(bloomHas))).toBe(true);
    expect(bytesEqual(all.logsBloom, new Uint8Array(256))).toBe(false);
  });
});
