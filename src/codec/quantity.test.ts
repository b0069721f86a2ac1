import { describe, expect, it } from 'vitest';
import { CodecError } from './codec-error.js';
import { parseBlockNumber, parseDecimal, parseQuantity, toQuantity } from './quantity.js';

describe('parseQuantity', () => {
  it('accepts canonical hex quantities', () => {
    expect(parseQuantity('0x0')).toBe(0n);
    expect(parseQuantity('0x1a')).toBe(26n);
    expect(parseQuantity('0xABCDEF')).toBe(0xabcdefn);
  });

  it.each([
    ['0x', 'no digits'],
    ['0x01', 'leading zero'],
    ['1a', 'must start with 0x'],
    ['0xg1', 'not a hex quantity'],
    ['', 'must start with 0x'],
  ])('rejects %j (%s) and quotes the value', (value, reason) => {
    expect(() => parseQuantity(value, 'index')).toThrowError(CodecError);
    expect(() => parseQuantity(value, 'index')).toThrowError(reason);
    expect(() => parseQuantity(value, 'index')).toThrowError(`index: `);
    expect(() => parseQuantity(value, 'index')).toThrowError(`(got ${JSON.stringify(value)})`);
  });

  it('rejects non-strings and oversize values', () => {
    expect(() => parseQuantity(5, 'n')).toThrowError('expected a 0x-prefixed hex string (got 5)');
    expect(() => parseQuantity(`0x1${'0'.repeat(64)}`)).toThrowError('exceeds the maximum');
  });

  it('allows leading zeros on request', () => {
    expect(parseQuantity('0x01', '', { allowLeadingZeros: true })).toBe(1n);
  });
});

describe('parseBlockNumber', () => {
  it('takes decimal only in the later variant', () => {
    expect(parseBlockNumber('15', 'later')).toBe(15n);
    expect(parseBlockNumber('0xf', 'later')).toBe(15n);
    expect(parseBlockNumber('0xf', 'earlier')).toBe(15n);
    expect(() => parseBlockNumber('15', 'earlier')).toThrowError('must be a 0x-prefixed hex string in this interface version');
  });

  it('names the offending value', () => {
    expect(() => parseBlockNumber('-1', 'later')).toThrowError('blockNumber: not a decimal number (got "-1")');
    expect(() => parseBlockNumber('1.5', 'later')).toThrowError('(got "1.5")');
    expect(() => parseBlockNumber('99999999999999999999', 'later')).toThrowError('exceeds the maximum');
  });
});

describe('parseDecimal / toQuantity', () => {
  it('round-trips', () => {
    expect(parseDecimal('0')).toBe(0n);
    expect(() => parseDecimal('007')).toThrowError('leading zeros');
    expect(toQuantity(0)).toBe('0x0');
    expect(toQuantity(255n)).toBe('0xff');
    expect(() => toQuantity(-1)).toThrowError(CodecError);
    expect(() => toQuantity(1.5)).toThrowError(CodecError);
  });
});
