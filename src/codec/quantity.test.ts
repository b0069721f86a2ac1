import { describe, expect, it } from 'vitest';
import { CodecError } from './codec-error.js';
import { parseBlockNumber, parseDecimal, parseDecimalOrHex, parseQuantity, parseQuantityParam, toQuantity } from './quantity.js';

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
    expect(() => parseBlockNumber('15', 'earlier')).toThrowError('must be a 0x-prefixed hex string in the earlier interface variant');
  });

  it('names the offending value', () => {
    expect(() => parseBlockNumber('-1', 'later')).toThrowError('blockNumber: not a decimal number nor 0x followed by hex digits (got "-1")');
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

describe('parseDecimalOrHex (FISCO jsToInt / jsToU256)', () => {
  it('reads decimal and 0x hex (either digit case, leading zero digits after 0x)', () => {
    expect(parseDecimalOrHex('0')).toBe(0n);
    expect(parseDecimalOrHex('15')).toBe(15n);
    expect(parseDecimalOrHex('0xF')).toBe(15n);
    expect(parseDecimalOrHex('0x000f')).toBe(15n);
  });

  it('takes a leading-zero decimal only where its octal reading (FISCO\'s) is the same number', () => {
    expect(parseDecimalOrHex('00')).toBe(0n);
    expect(parseDecimalOrHex('07')).toBe(7n);
    expect(() => parseDecimalOrHex('010', 'n')).toThrowError('FISCO 2.x reads it as octal, 8, the interface reference as decimal 10');
    expect(() => parseDecimalOrHex('08', 'n')).toThrowError('FISCO 2.x refuses it');
  });

  it.each([
    ['', 'empty'],
    ['0x', 'no digits'],
    ['0X1', 'lower-case 0x'],
    ['-1', 'not a decimal number'],
    [' 1', 'not a decimal number'],
    ['1e3', 'not a decimal number'],
    ['latest', 'not a decimal number'],
  ])('refuses %j (%s)', (value, reason) => {
    expect(() => parseDecimalOrHex(value, 'index')).toThrowError(reason);
  });

  it('refuses what does not fit the maximum', () => {
    expect(() => parseDecimalOrHex('256', 'n', { max: 255n })).toThrowError('exceeds the maximum');
  });

  it('per variant: decimal only in the later one', () => {
    expect(parseQuantityParam('3', 'later', 'i')).toBe(3n);
    expect(parseQuantityParam('0x03', 'earlier', 'i')).toBe(3n);
    expect(() => parseQuantityParam('3', 'earlier', 'i')).toThrowError('earlier interface variant');
  });
});
