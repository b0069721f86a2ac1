import { createEVM, type EVM } from '@ethereumjs/evm';
import { Account, Address, createAddressFromString } from '@ethereumjs/util';
import { describe, expect, it } from 'vitest';
import { createFiscoCommon } from '../state/index.js';
import { installEvmSpeedups, speedUpOpcodes, withStockInterpreter } from './evm-speedups.js';

/** PUSH32 word, PUSH1 offset, MSTORE for each (word, offset), then RETURN memory[0, size). */
function mstoreProgram(stores: Array<[bigint, number]>, size: number): Uint8Array {
  const code: number[] = [];
  for (const [word, offset] of stores) {
    code.push(0x7f, ...Buffer.from(word.toString(16).padStart(64, '0'), 'hex'), 0x60, offset, 0x52);
  }
  code.push(0x60, size, 0x60, 0x00, 0xf3);
  return Uint8Array.from(code);
}

const hex = (s: string) => Uint8Array.from(Buffer.from(s.replace(/\s+/g, ''), 'hex'));

/** Programs covering the interpreter loop's exits: normal end, STOP, RETURN, REVERT, out of gas, invalid opcode and jump, stack underflow, storage. */
const PROGRAMS: Record<string, { code: Uint8Array; gas: bigint }> = {
  // sum 1..100 in a JUMPI loop, stored at slot 0 and returned
  loop: { code: hex('6000 6064 5b 80 15 6016 57 80 82 01 91 50 6001 90 03 6004 56 5b 50 80 6000 55 6000 52 6020 6000 f3'), gas: 1_000_000n },
  loopOutOfGas: { code: hex('6000 6064 5b 80 15 6016 57 80 82 01 91 50 6001 90 03 6004 56 5b 50 80 6000 55 6000 52 6020 6000 f3'), gas: 900n },
  stop: { code: hex('6001 6002 01 00 6003'), gas: 100_000n },
  fallsOffTheEnd: { code: hex('6001 6002 01'), gas: 100_000n },
  revert: { code: hex('60aa 6000 52 6020 6000 fd'), gas: 100_000n },
  invalidOpcode: { code: hex('6001 fe 6002'), gas: 100_000n },
  undefinedOpcode: { code: hex('6001 0c'), gas: 100_000n },
  badJump: { code: hex('6003 56 00'), gas: 100_000n },
  stackUnderflow: { code: hex('6001 01'), gas: 100_000n },
  storage: { code: hex('602a 6007 55 6007 54 6000 52 6020 6000 f3'), gas: 100_000n },
  sha3AndCalldata: { code: hex('36 6000 6000 37 36 6000 20 6000 52 6020 6000 f3'), gas: 100_000n },
};

async function runAll(evm: EVM) {
  const out: Record<string, unknown> = {};
  for (const [name, { code, gas }] of Object.entries(PROGRAMS)) {
    const address = new Address(new Uint8Array(20).fill(0x42));
    await evm.stateManager.putAccount(address, new Account());
    const r = await evm.runCode({ code, gasLimit: gas, to: address, data: hex('0102030405') });
    out[name] = { error: r.exceptionError?.error, used: r.executionGasUsed, left: r.gas, ret: Buffer.from(r.returnValue).toString('hex'), refund: r.gasRefund };
  }
  return out;
}

describe('EVM speed-ups', () => {
  it('find the interpreter internals they expect (a dependency upgrade must revisit them)', async () => {
    expect(await installEvmSpeedups()).toBe(true);
    expect(await installEvmSpeedups()).toBe(true);
  });

  it('the inline interpreter loop ends every way the stock one does, with the same gas and output', async () => {
    await installEvmSpeedups();
    const evm = await createEVM({ common: createFiscoCommon() });
    // the prototype of the interpreter, reached through a run that records it
    const proto = await interpreterPrototype();
    const fast = proto.run as ((...a: unknown[]) => unknown) & { fast?: boolean; original?: (...a: unknown[]) => unknown };
    expect(fast.fast).toBe(true);
    const withFast = await runAll(evm);
    const stock = await withStockInterpreter(async () => {
      expect(proto.run).toBe(fast.original);
      return runAll(await createEVM({ common: createFiscoCommon() }));
    });
    expect(proto.run).toBe(fast);
    expect(withFast).toEqual(stock);
    expect((withFast.loop as { ret: string }).ret).toBe((5050).toString(16).padStart(64, '0'));
    expect((withFast.loopOutOfGas as { error: string }).error).toBe('out of gas');
  });

  it('MSTORE writes the same bytes and charges the same gas', async () => {
    const program = mstoreProgram(
      [
        [0n, 0],
        [1n, 3],
        [(1n << 256n) - 1n, 40],
        [0x0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1fn, 77],
        [1n << 200n, 120],
      ],
      160,
    );
    const plain = await createEVM({ common: createFiscoCommon() });
    const fast = await createEVM({ common: createFiscoCommon() });
    speedUpOpcodes(fast);
    expect((fast as unknown as { _opcodeMap: Array<{ opHandler: { fast?: boolean } }> })._opcodeMap[0x52]!.opHandler.fast).toBe(true);
    const a = await plain.runCode({ code: program, gasLimit: 1_000_000n });
    const b = await fast.runCode({ code: program, gasLimit: 1_000_000n });
    expect(b.exceptionError).toBeUndefined();
    expect(b.returnValue).toEqual(a.returnValue);
    expect(b.executionGasUsed).toBe(a.executionGasUsed);
    expect((fast.common.isActivatedEIP as { fast?: boolean }).fast).toBe(true);
    for (const eip of [0, 145, 1014, 1052, 1283, 2929, 3540, 6800, 7864]) expect(fast.common.isActivatedEIP(eip)).toBe(plain.common.isActivatedEIP(eip));
    expect(Buffer.from(b.returnValue.subarray(40, 72)).toString('hex')).toBe('ff'.repeat(32));
  });
});

describe('EVM speed-ups: message calls', () => {
  const A = new Address(new Uint8Array(20).fill(0xaa));
  const R = new Address(new Uint8Array(20).fill(0xbb));
  const C = new Address(new Uint8Array(20).fill(0xcc));
  const EMPTY = new Address(new Uint8Array(20).fill(0xdd));
  const SENDER = new Address(new Uint8Array(20).fill(0x11));
  const call = (to: Address, value = '6000') => hex(`6020 6000 6000 6000 ${value} 73${to.toString().slice(2)} 5a f1`);
  const CODE = {
    // stores 42 at slot 7, returns slot 7
    [A.toString()]: hex('602a 6007 55 6007 54 6000 52 6020 6000 f3'),
    // reverts with a word of data
    [R.toString()]: hex('60aa 6000 52 6020 6000 fd'),
    // calls A, R and A with a value it does not have, keeps the three flags, loads slots 0 and 2^256-1, returns it all
    [C.toString()]: Uint8Array.from([
      ...call(A), ...hex('6020 52'),
      ...call(R), ...hex('6040 52'),
      ...call(A, '6001'), ...hex('6060 52'),
      ...hex(`7f${'ff'.repeat(32)} 54 6080 52 6000 54 60a0 52 60c0 6000 f3`),
    ]),
  };
  const MESSAGES: Record<string, { to: Address; value?: bigint; gasLimit: bigint; data?: Uint8Array }> = {
    nested: { to: C, gasLimit: 1_000_000n },
    nestedOutOfGas: { to: C, gasLimit: 30_000n },
    stores: { to: A, gasLimit: 100_000n },
    reverts: { to: R, gasLimit: 100_000n },
    noCode: { to: EMPTY, gasLimit: 100_000n, data: hex('01020304') },
    valueWithoutBalance: { to: A, value: 5n, gasLimit: 100_000n },
  };

  async function runMessages(evm: EVM) {
    const out: Record<string, unknown> = {};
    for (const [name, m] of Object.entries(MESSAGES)) {
      for (const [address, code] of Object.entries(CODE)) {
        await evm.stateManager.putAccount(createAddressFromString(address), new Account(1n));
        await evm.stateManager.putCode(createAddressFromString(address), code);
      }
      await evm.stateManager.checkpoint();
      const r = await evm.runCall({ caller: SENDER, origin: SENDER, to: m.to, value: m.value ?? 0n, gasLimit: m.gasLimit, data: m.data ?? new Uint8Array(0), skipNonceIncrement: true });
      const e = r.execResult;
      const runState = e.runState as unknown as { gasLeft: bigint; programCounter: number; returnValue?: Uint8Array } | undefined;
      out[name] = {
        keys: Object.keys(e),
        error: e.exceptionError?.error,
        used: e.executionGasUsed,
        left: e.gas,
        refund: e.gasRefund,
        ret: Buffer.from(e.returnValue).toString('hex'),
        logs: e.logs?.length,
        selfdestruct: e.selfdestruct?.size,
        created: e.createdAddresses?.size,
        runState: runState && { gasLeft: runState.gasLeft, pc: runState.programCounter, ret: runState.returnValue && Buffer.from(runState.returnValue).toString('hex') },
        slot7: Buffer.from(await evm.stateManager.getStorage(A, hex(`${'00'.repeat(31)}07`))).toString('hex'),
      };
      await evm.stateManager.revert();
    }
    return out;
  }

  it('_executeCall and runInterpreter answer as ethereumjs does: results, gas, field order, runState', async () => {
    expect(await installEvmSpeedups()).toBe(true);
    const fast = await createEVM({ common: createFiscoCommon() });
    speedUpOpcodes(fast);
    const sload = (fast as unknown as { _opcodeMap: Array<{ opHandler: { fast?: boolean }; gasHandler: { fast?: boolean } }> })._opcodeMap[0x54]!;
    expect(sload.opHandler.fast).toBe(true);
    expect(sload.gasHandler.fast).toBe(true);
    const withFast = await runMessages(fast);
    const stock = await withStockInterpreter(async () => runMessages(await createEVM({ common: createFiscoCommon() })));
    expect(withFast).toEqual(stock);
    const nested = withFast.nested as { ret: string; error?: string };
    expect(nested.error).toBeUndefined();
    // R's revert data over A's 42, A succeeded, R reverted, A with a value C lacks failed, both slots empty
    expect(nested.ret).toBe(['aa', '01', '00', '00', '00', '00'].map((w) => w.padStart(64, '0')).join(''));
    expect((withFast.valueWithoutBalance as { error: string }).error).toBe('insufficient balance');
    expect((withFast.nestedOutOfGas as { error: string }).error).toBe('out of gas');
  });
});

async function interpreterPrototype(): Promise<{ run: unknown }> {
  const module = (await import(new URL('./interpreter.js', import.meta.resolve('@ethereumjs/evm')).href)) as { Interpreter: { prototype: { run: unknown } } };
  return module.Interpreter.prototype;
}
