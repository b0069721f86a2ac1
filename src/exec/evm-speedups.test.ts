import { createEVM } from '@ethereumjs/evm';
import { describe, expect, it } from 'vitest';
import { createFiscoCommon } from '../state/index.js';
import { installEvmSpeedups, speedUpOpcodes } from './evm-speedups.js';

/** PUSH32 word, PUSH1 offset, MSTORE for each (word, offset), then RETURN memory[0, size). */
function mstoreProgram(stores: Array<[bigint, number]>, size: number): Uint8Array {
  const code: number[] = [];
  for (const [word, offset] of stores) {
    code.push(0x7f, ...Buffer.from(word.toString(16).padStart(64, '0'), 'hex'), 0x60, offset, 0x52);
  }
  code.push(0x60, size, 0x60, 0x00, 0xf3);
  return Uint8Array.from(code);
}

describe('EVM speed-ups', () => {
  it('find the interpreter internals they expect (a dependency upgrade must revisit them)', async () => {
    expect(await installEvmSpeedups()).toBe(true);
    expect(await installEvmSpeedups()).toBe(true);
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
    expect((fast.common.isActivatedEIP as { fast?: boolean }).fast).toBe(true);
    for (const eip of [0, 145, 1014, 1052, 1283, 2929, 3540, 6800, 7864]) expect(fast.common.isActivatedEIP(eip)).toBe(plain.common.isActivatedEIP(eip));
    expect(b.executionGasUsed).toBe(a.executionGasUsed);
    expect(Buffer.from(b.returnValue.subarray(40, 72)).toString('hex')).toBe('ff'.repeat(32));
  });
});
