// FISCO 2.x's getErrorCodeOut (libprecompiled/Common.cpp) writes a precompiled contract's return
// code by the chain's supported_version: 1–127 as that number; anything else as an int256 from
// 2.0.0-rc3 on, as u256(-code) in rc2, and in rc1 as `abiIn("", -code)` with an `int`, which takes
// ContractABI's `byte` overload: 31 zero bytes and (-code) mod 256 (FISCO's Java and Go SDKs
// read rc1's permission denied as 80, a permission entry that exists as 56 and one that does not
// as 57; rc2's as 50000, 51000 and 51001). The receipt's output, and so the receipts root, carry it.
import { describe, expect, it } from 'vitest';
import { ProtocolVersion } from '../chain/index.js';
import { fromHex, toHex } from '../codec/index.js';
import { harness } from './exec-harness.test-helper.js';
import { encodeReturnCode } from './precompile.js';

const word = (hex: string) => `0x${hex.padStart(64, '0')}`;
const ones = (tail: string) => `0x${tail.padStart(64, 'f')}`;
const at = (n: number) => fromHex(n.toString(16).padStart(40, '0'));

describe('return codes of precompiled contracts by supported_version', () => {
  it('maps each version to its encoding', () => {
    expect(['2.0.0-rc1', '2.0.0-rc2', '2.0.0-rc3', '2.11.0'].map((v) => ProtocolVersion.parse(v).returnCodes)).toEqual(['rc1', 'rc2', 'int256', 'int256']);
  });

  it.each([
    [1n, word('1'), word('1'), word('1')],
    [127n, word('7f'), word('7f'), word('7f')],
    [0n, word('0'), word('0'), word('0')],
    [-50000n, ones('3cb0'), word('c350'), word('50')],
    [-51300n, ones('379c'), word('c864'), word('64')],
    [-51000n, ones('38c8'), word('c738'), word((56).toString(16))],
    [-51001n, ones('38c7'), word('c739'), word((57).toString(16))],
    // a count past 127 takes the same path: -count, which rc2 wraps and rc1 cuts to a byte
    [200n, word('c8'), ones('38'), word('38')],
  ])('%s: int256 %s, rc2 %s, rc1 %s', (value, int256, rc2, rc1) => {
    expect([toHex(encodeReturnCode(value, 'int256')), toHex(encodeReturnCode(value, 'rc2')), toHex(encodeReturnCode(value, 'rc1'))]).toEqual([int256, rc2, rc1]);
  });

  it.each([
    ['2.11.0', ones('379c'), word('0'), ones('3caf')],
    ['2.0.0-rc3', ones('379c'), word('0'), ones('3caf')],
    ['2.0.0-rc2', word('c864'), word('0'), word('c351')],
    // rc1 also answered createTable with 1 when it created the table and 0 when it existed
    ['2.0.0-rc1', word('64'), word('1'), word('0')],
  ])('a chain at %s: a refused setValueByKey, then createTable of a new table and of the same again, as FISCO writes them', async (version, refused, created, exists) => {
    const h = await harness({ version });
    const output = async (to: Uint8Array, signature: string, args: unknown[]) => {
      const receipt = await h.run(0, to, h.callData(signature, args));
      expect(receipt.status, signature).toBe(0);
      return toHex(receipt.output);
    };
    expect(await output(at(0x1000), 'setValueByKey(string,string)', ['tx_count_limit', '0'])).toBe(refused);
    expect(await output(at(0x1001), 'createTable(string,string,string)', ['t_codes', 'name', 'item'])).toBe(created);
    expect(await output(at(0x1001), 'createTable(string,string,string)', ['t_codes', 'name', 'item'])).toBe(exists);
  });
});
