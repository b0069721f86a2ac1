import { describe, expect, it } from 'vitest';
import { encodeReceipt, ProtocolVersion, type Receipt } from '../chain/index.js';
import { toHex, toQuantity } from '../codec/index.js';
import { receiptEncoding } from './block-prep.js';

const version = ProtocolVersion.parse('2.11.0');
const txHash = new Uint8Array(32).fill(7);
const receipt: Receipt = {
  stateRoot: new Uint8Array(32).fill(1),
  gasUsed: 21_000n,
  contractAddress: new Uint8Array(20),
  logsBloom: new Uint8Array(256).fill(0x40),
  status: 0,
  output: Uint8Array.of(0xab, 0xcd),
  remainGas: 5n,
  logs: [{ address: new Uint8Array(20).fill(9), topics: [new Uint8Array(32).fill(3)], data: Uint8Array.of(1, 2, 3) }],
};
/** The receipt as a node prints it. */
const json = (): Record<string, unknown> => ({
  transactionHash: toHex(txHash),
  root: toHex(receipt.stateRoot),
  gasUsed: toQuantity(receipt.gasUsed),
  contractAddress: toHex(receipt.contractAddress),
  logsBloom: toHex(receipt.logsBloom),
  status: '0x0',
  output: toHex(receipt.output),
  remainGas: '0x5',
  logs: receipt.logs.map((l) => ({ address: toHex(l.address), topics: l.topics.map(toHex), data: toHex(l.data) })),
});

describe('receiptEncoding', () => {
  it('encodes a recorded receipt as FISCO encodes receipts, upper-case hex digits too', () => {
    const encoded = receiptEncoding(json(), txHash, version);
    expect(encoded).toEqual({ bytes: encodeReceipt(receipt, true), logs: 1 });
    const upper = { ...json(), output: '0xABCD', logsBloom: `0x${'40'.repeat(256)}`.toUpperCase().replace('0X', '0x') };
    expect(receiptEncoding(upper, txHash, version)).toEqual(encoded);
  });

  it.each([
    ['a digit that is not hex', { output: '0xabcg' }, 'a malformed field'],
    ['an odd number of digits', { output: '0xabc' }, 'a malformed field'],
    ['no 0x', { output: 'abcd' }, 'a malformed field'],
    ['0X', { output: '0XABCD' }, 'a malformed field'],
    ['a short logsBloom', { logsBloom: `0x${'40'.repeat(255)}` }, 'no root or logsBloom'],
    ['a logsBloom digit that is not hex', { logsBloom: `0x${'40'.repeat(255)}4g` }, 'no root or logsBloom'],
    ['a number for output', { output: 12 }, 'a malformed field'],
    ['another transactionHash', { transactionHash: toHex(new Uint8Array(32).fill(8)) }, 'another or no transactionHash'],
    ['a log topic that is not hex', { logs: [{ address: toHex(new Uint8Array(20)), topics: [`0x${'zz'.repeat(32)}`], data: '0x' }] }, 'a malformed log'],
  ])('%s: not encoded, and why', (_name, change, why) => {
    expect(receiptEncoding({ ...json(), ...change }, txHash, version)).toBe(why);
  });
});
