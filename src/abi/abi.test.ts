import { keccak_256 } from '@noble/hashes/sha3.js';
import { describe, expect, it } from 'vitest';
import { fromHex, toHex } from '../codec/index.js';
import { decodeAbi, decodeErrorString, encodeAbi, encodeErrorString, encodeFunctionCall, functionSelector } from './index.js';

describe('abi', () => {
  it('computes keccak selectors', () => {
    expect(toHex(functionSelector('set(string)', keccak_256))).toBe('0x4ed3885e');
    expect(toHex(functionSelector('transfer(address,uint256)', keccak_256))).toBe('0xa9059cbb');
  });

  it('encodes calls like the FISCO documentation example', () => {
    // input of the getTransactionByHash example: set("FISCO BCOS")
    expect(toHex(encodeFunctionCall('set(string)', ['FISCO BCOS'], keccak_256))).toBe(
      '0x4ed3885e0000000000000000000000000000000000000000000000000000000000000020000000000000000000000000000000000000000000000000000000000000000a464953434f2042434f5300000000000000000000000000000000000000000000',
    );
  });

  it('round-trips values and rejects short data with the types named', () => {
    const data = encodeAbi('string,int256,address', ['x', -7n, '0x0000000000000000000000000000000000001000']);
    expect(decodeAbi('string,int256,address', data)).toEqual(['x', -7n, '0x0000000000000000000000000000000000001000']);
    expect(() => decodeAbi('string', fromHex('1234'))).toThrowError('abi(string)');
  });

  it('builds and reads Error(string)', () => {
    const payload = encodeErrorString('Error address:8c17cf316c1063ab6c89df875e96c9f0f5b2f744');
    // the output of the revert receipt in vectors.json
    expect(toHex(payload)).toBe(
      '0x08c379a0000000000000000000000000000000000000000000000000000000000000002000000000000000000000000000000000000000000000000000000000000000364572726f7220616464726573733a3863313763663331366331303633616236633839646638373565393663396630663562326637343400000000000000000000',
    );
    expect(decodeErrorString(payload)).toBe('Error address:8c17cf316c1063ab6c89df875e96c9f0f5b2f744');
    expect(decodeErrorString(Uint8Array.of(1, 2, 3, 4))).toBeUndefined();
  });
});
