import { describe, expect, it } from 'vitest';
import { encodeReceipt, logsBloom, ProtocolVersion, type Receipt } from '../chain/index.js';
import { toHex, toQuantity } from '../codec/index.js';
import { getSuite } from '../crypto/index.js';
import { receiptEncoding } from './block-prep.js';

const version = ProtocolVersion.parse('2.11.0');
const suite = getSuite('ecdsa');
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

/** An encoding with its bytes as hex: vitest compares typed arrays element by element, slowly (3 s for the 400 below). */
const hexed = (e: ReturnType<typeof receiptEncoding>) => (typeof e === 'string' ? e : { bytes: toHex(e.bytes), logs: e.logs, bloom: toHex(e.bloom) });

describe('receiptEncoding', () => {
  it('encodes a recorded receipt as FISCO encodes receipts, with the bloom of its logs (not the recorded one), upper-case hex digits too', () => {
    const encoded = receiptEncoding(json(), txHash, version, suite);
    expect(encoded).toEqual({ bytes: encodeReceipt(receipt, true), logs: 1, bloom: logsBloom(receipt.logs, suite) });
    const upper = { ...json(), output: '0xABCD', logsBloom: `0x${'40'.repeat(256)}`.toUpperCase().replace('0X', '0x') };
    expect(receiptEncoding(upper, txHash, version, suite)).toEqual(encoded);
    const upperLogs = { ...json(), logs: [{ address: toHex(receipt.logs[0]!.address).toUpperCase().replace('0X', '0x'), topics: receipt.logs[0]!.topics.map((t) => toHex(t).toUpperCase().replace('0X', '0x')), data: '0x010203' }] };
    expect(receiptEncoding(upperLogs, txHash, version, suite)).toEqual(encoded);
    // the SM suite's bloom hashes with SM3
    const sm = getSuite('sm');
    expect(receiptEncoding(json(), txHash, version, sm)).toEqual({ ...(encoded as object), bloom: logsBloom(receipt.logs, sm) });
  });

  it('encodes receipts of every shape as encodeReceipt does: outputs and log data around the RLP edges, many logs or none, with and without remainGas', () => {
    let seed = 5;
    const next = () => (seed = (seed * 48271) % 2147483647);
    const bytes = (length: number) => Uint8Array.from({ length }, () => next() & 0xff);
    for (const v of [ProtocolVersion.parse('2.11.0'), ProtocolVersion.parse('2.4.0')]) {
      for (let i = 0; i < 200; i++) {
        const length = () => [0, 1, 1, 31, 32, 55, 56, 200, 1500][next() % 9]!;
        const oneByte = (b: Uint8Array) => (b.length === 1 && next() % 2 === 0 ? Uint8Array.of(next() % 0x80) : b);
        const r: Receipt = {
          stateRoot: bytes(32),
          gasUsed: BigInt(next() % 3 === 0 ? 0 : next()) * BigInt(next() % 1000),
          contractAddress: next() % 2 === 0 ? new Uint8Array(20) : bytes(20),
          logsBloom: bytes(256),
          status: [0, 16, 22, 127, 128, 200][next() % 6]!,
          output: oneByte(bytes(length())),
          ...(v.receiptHasRemainGas ? { remainGas: BigInt(next()) } : {}),
          logs: Array.from({ length: next() % 4 }, () => ({ address: bytes(20), topics: Array.from({ length: next() % 5 }, () => bytes(32)), data: oneByte(bytes(length())) })),
        };
        const recorded = {
          transactionHash: toHex(txHash),
          root: toHex(r.stateRoot),
          gasUsed: toQuantity(r.gasUsed),
          contractAddress: toHex(r.contractAddress),
          logsBloom: toHex(r.logsBloom),
          status: toQuantity(BigInt(r.status)),
          output: toHex(r.output),
          ...(r.remainGas === undefined ? {} : { remainGas: toQuantity(r.remainGas) }),
          logs: r.logs.map((l) => ({ address: toHex(l.address), topics: l.topics.map(toHex), data: toHex(l.data) })),
        };
        expect(hexed(receiptEncoding(recorded, txHash, v, suite))).toEqual({ bytes: toHex(encodeReceipt(r, v.receiptHasRemainGas)), logs: r.logs.length, bloom: toHex(logsBloom(r.logs, suite)) });
      }
    }
  });

  it('gives each receipt the bloom of its own logs when logs repeat addresses and topics across receipts, in either case of hex digits, under both suites', () => {
    const address = new Uint8Array(20).fill(0xab);
    const event = new Uint8Array(32).fill(0xcd);
    for (const s of [suite, getSuite('sm')]) {
      for (let i = 0; i < 6; i++) {
        const own = new Uint8Array(32).fill(i);
        const logs = [
          { address, topics: [event, own], data: new Uint8Array(0) },
          { address: new Uint8Array(20).fill(i), topics: i % 2 === 0 ? [event] : [], data: new Uint8Array(0) },
        ];
        const hex = (b: Uint8Array) => (i % 3 === 0 ? toHex(b).toUpperCase().replace('0X', '0x') : toHex(b));
        const recorded = { ...json(), logs: logs.map((l) => ({ address: hex(l.address), topics: l.topics.map(hex), data: '0x' })) };
        const encoded = receiptEncoding(recorded, txHash, version, s);
        expect(typeof encoded === 'string' ? encoded : encoded.bloom).toEqual(logsBloom(logs, s));
      }
    }
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
    ['a one-byte log data that is not hex', { logs: [{ address: toHex(new Uint8Array(20)), topics: [], data: '0xg1' }] }, 'a malformed log'],
    ['a root digit that is not hex', { root: `0x${'11'.repeat(31)}x1` }, 'no root or logsBloom'],
    ['a contractAddress digit that is not hex', { contractAddress: `0x${'00'.repeat(19)}0q` }, 'a malformed field'],
    ['a one-byte output that is not hex', { output: '0x-1' }, 'a malformed field'],
  ])('%s: not encoded, and why', (_name, change, why) => {
    expect(receiptEncoding({ ...json(), ...change }, txHash, version, suite)).toBe(why);
  });
});
