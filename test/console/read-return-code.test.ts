import { describe, expect, it } from 'vitest';
import { encodeReturnCode } from '../../src/exec/precompile.js';
import { readReturnCode } from '../../src/console/console-commands.js';

describe('the console reads a return code as the node wrote it', () => {
  it.each(['int256', 'rc2', 'rc1'] as const)('%s: success counts and the codes it names come back as written', (encoding) => {
    for (const code of [0, 1, 2, -50000, -51100, -51101, -51300, -50100, -50101]) {
      expect(readReturnCode(encodeReturnCode(BigInt(code), encoding), encoding), String(code)).toBe(code);
    }
  });

  it('reads FISCO SDKs’ rc1 and rc2 numbers for permission denied (80, 50000) as -50000', () => {
    const word = (n: number) => Uint8Array.from({ length: 32 }, (_, i) => (i < 28 ? 0 : (n >>> (8 * (31 - i))) & 0xff));
    expect(readReturnCode(word(80), 'rc1')).toBe(-50000);
    expect(readReturnCode(word(50000), 'rc2')).toBe(-50000);
    expect(readReturnCode(word(50000), 'int256')).toBe(50000);
  });
});
