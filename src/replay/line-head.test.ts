import { describe, expect, it } from 'vitest';
import { lineHead } from './line-head.js';

const tx = (i: number, extra: Record<string, unknown> = {}) => ({ hash: `0x${i.toString(16).padStart(64, '0')}`, input: '0x1234', nonce: `0x${i}`, ...extra });
const line = (n: number, txs: unknown[], extra: Record<string, unknown> = {}) => ({
  number: 2,
  block: { hash: '0xab', number: '0x2', sealerList: ['aa', 'bb'], extraData: [], transactions: txs, transactionsRoot: '0xcd', signatureList: [{ index: '0x0', signature: '0xee' }], ...extra },
  receipts: Array.from({ length: n }, (_, i) => ({ transactionHash: tx(i).hash, logs: [{ topics: [] }] })),
});
const text = (value: unknown) => JSON.stringify(value);

describe('lineHead', () => {
  it('gives the block with its first transactions and every other block field, and counts the list', () => {
    const value = line(5, [0, 1, 2, 3, 4].map((i) => tx(i)));
    const head = lineHead(text(value), 3)!;
    expect([head.count, head.most]).toEqual([5, 3]);
    for (const taken of [1, 2, 3]) {
      expect(JSON.parse(head.text(taken))).toEqual({ number: 2, block: { ...value.block, transactions: value.block.transactions.slice(0, taken) } });
    }
    // a list shorter than wanted: as many as it holds
    expect(lineHead(text(value), 9)).toMatchObject({ count: 5, most: 5 });
  });

  it('reads strings whole: brackets, braces, colons and escaped quotes inside them change nothing', () => {
    const odd = ['{"a":[1,2]}', 'x\\"}]', '\\', '"', 'transactions":[', '{', ']'];
    const value = line(3, [tx(0, { note: odd[0], odd }), tx(1, { '}"]': odd[1] }), tx(2)], { 'weird "key"': '}}]]' });
    const head = lineHead(text(value), 2)!;
    expect(head.count).toBe(3);
    expect(JSON.parse(head.text(2))).toEqual({ number: 2, block: { ...value.block, transactions: value.block.transactions.slice(0, 2) } });
  });

  it('takes the keys in any order: the receipts before the block, the transactions last', () => {
    const { number, block, receipts } = line(4, [0, 1, 2, 3].map((i) => tx(i)));
    const { transactions, ...rest } = block;
    const reordered = `{"receipts":${text(receipts)},"number":${number},"block":${text({ ...rest, transactions })}}`;
    const head = lineHead(reordered, 2)!;
    expect(head.count).toBe(4);
    expect(JSON.parse(head.text(2))).toEqual({ receipts, number, block: { ...rest, transactions: transactions.slice(0, 2) } });
  });

  it('gives no head where JSON.parse of the whole line might read the block otherwise, or where there is none', () => {
    const txs = [0, 1, 2].map((i) => tx(i));
    const whole = text(line(3, txs));
    // a key repeated in the block, or in the line before the block: JSON.parse keeps the last
    expect(lineHead(whole.replace('"hash":"0xab",', '"transactions":[{"hash":"0x01"},{}],"hash":"0xab",'), 2)).toBeUndefined();
    expect(lineHead(whole.replace('{"number":2,', '{"number":2,"number":3,'), 2)).toBeUndefined();
    // anything but objects in the list
    for (const item of ['"0x1"', '7', 'null', '[1]']) expect(lineHead(text(line(3, txs)).replace('"transactions":[', `"transactions":[${item},`), 2), item).toBeUndefined();
    // no list, an empty one, no block, not an object, cut short
    expect(lineHead(text({ number: 2, block: { hash: '0xab' }, receipts: [] }), 2)).toBeUndefined();
    expect(lineHead(text(line(0, [])), 2)).toBeUndefined();
    expect(lineHead(text({ number: 2, receipts: [] }), 2)).toBeUndefined();
    expect(lineHead(text([line(3, txs)]), 2)).toBeUndefined();
    expect(lineHead(whole.slice(0, whole.indexOf('"transactionsRoot"')), 2)).toBeUndefined();
    expect(lineHead(whole.slice(0, whole.indexOf('"input"') + 5), 2)).toBeUndefined();
    expect(lineHead(whole, 0)).toBeUndefined();
  });
});
