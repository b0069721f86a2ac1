import type { Abi, AbiParameter } from 'viem';
import { encodeAbiParameters, encodeEventTopics } from 'viem';
import { describe, expect, it } from 'vitest';
import { decodeLogs, decodeOutputs, findFunction, formatValues, revertReason, toAbiArguments, toAbiValue } from './abi-values.js';

const p = (type: string, extra: object = {}) => ({ type, name: 'x', ...extra }) as AbiParameter;

describe('console words to ABI values', () => {
  it('converts integers (decimal, hex, negative), bools, addresses, strings, bytes and arrays', () => {
    expect(toAbiValue(p('uint256'), '42', 'a')).toBe(42n);
    expect(toAbiValue(p('uint8'), '0xff', 'a')).toBe(255n);
    expect(toAbiValue(p('int16'), '-32768', 'a')).toBe(-32768n);
    expect(toAbiValue(p('bool'), 'true', 'a')).toBe(true);
    expect(toAbiValue(p('address'), '0xAbCdEf0123456789abcdef0123456789ABCDEF01', 'a')).toBe('0xabcdef0123456789abcdef0123456789abcdef01');
    expect(toAbiValue(p('string'), 'hi there', 'a')).toBe('hi there');
    expect(toAbiValue(p('bytes2'), '0x0aFF', 'a')).toBe('0x0aff');
    expect(toAbiValue(p('uint256[]'), '[1, "2", "0x3"]', 'a')).toEqual([1n, 2n, 3n]);
    expect(toAbiValue(p('string[2]'), '["a","b"]', 'a')).toEqual(['a', 'b']);
    expect(toAbiValue(p('tuple', { components: [p('uint8'), p('string')] }), '[7,"x"]', 'a')).toEqual([7n, 'x']);
  });

  it('refuses what does not fit, naming the argument and the type', () => {
    const sig = 'set(uint8)';
    expect(() => toAbiArguments([p('uint8')], ['256'], sig)).toThrow('argument 1 (x) of set(uint8): "256" is not within uint8 (0..255)');
    expect(() => toAbiValue(p('uint256'), '-1', 'a')).toThrow(/not within uint256/);
    expect(() => toAbiValue(p('int8'), 'abc', 'a')).toThrow(/"abc" is not an integer for int8/);
    expect(() => toAbiValue(p('bool'), 'yes', 'a')).toThrow(/true or false/);
    expect(() => toAbiValue(p('address'), '0x12', 'a')).toThrow(/an address/);
    expect(() => toAbiValue(p('bytes2'), '0x00', 'a')).toThrow(/2 bytes for bytes2/);
    expect(() => toAbiValue(p('uint256[2]'), '[1]', 'a')).toThrow(/an array of 2 items/);
    expect(() => toAbiValue(p('uint256[]'), '1,2', 'a')).toThrow(/a JSON array/);
  });
});

const abi = [
  { type: 'function', name: 'get', inputs: [], outputs: [p('string')], stateMutability: 'view' },
  { type: 'function', name: 'set', inputs: [p('string')], outputs: [], stateMutability: 'nonpayable' },
  { type: 'function', name: 'f', inputs: [p('uint256')], outputs: [], stateMutability: 'nonpayable' },
  { type: 'function', name: 'f', inputs: [p('string')], outputs: [], stateMutability: 'nonpayable' },
  {
    type: 'event',
    name: 'NameChanged',
    inputs: [p('address', { name: 'by', indexed: true }), p('string', { name: 'oldName' }), p('string', { name: 'newName' })],
  },
] as const satisfies Abi;

describe('functions, results and logs', () => {
  it('finds a function by name and argument count, and explains a miss', () => {
    expect(findFunction(abi, 'HelloWorld', 'set', 1).name).toBe('set');
    expect(() => findFunction(abi, 'HelloWorld', 'sett', 1)).toThrow('HelloWorld has no function sett; it has get, set, f');
    expect(() => findFunction(abi, 'HelloWorld', 'set', 0)).toThrow('HelloWorld.set takes 1 argument(s), got 0: set(string)');
    expect(() => findFunction(abi, 'HelloWorld', 'f', 1)).toThrow(/overloaded with 1 argument\(s\): f\(uint256\) or f\(string\)/);
  });

  it('decodes return values and prints them as FISCO does, addresses in lower case', () => {
    const data = encodeAbiParameters([{ type: 'uint256' }, { type: 'address' }, { type: 'string[]' }], [5n, '0xabcdef0123456789abcdef0123456789abcdef01', ['a', 'b']]);
    const values = decodeOutputs([p('uint256'), p('address'), p('string[]')], data);
    expect(formatValues(values)).toBe('(5, 0xabcdef0123456789abcdef0123456789abcdef01, [a, b])');
  });

  it('reads an Error(string) revert reason and nothing else', () => {
    const reason = `0x08c379a0${encodeAbiParameters([{ type: 'string' }], ['no way']).slice(2)}`;
    expect(revertReason(reason)).toBe('no way');
    expect(revertReason('0x4e487b710000000000000000000000000000000000000000000000000000000000000001')).toBeUndefined();
    expect(revertReason(undefined)).toBeUndefined();
  });

  it('decodes event logs with the ABI and shows unknown ones raw', () => {
    const by = '0x00000000000000000000000000000000000000aa';
    const topics = encodeEventTopics({ abi, eventName: 'NameChanged', args: { by } }) as string[];
    const data = encodeAbiParameters([{ type: 'string' }, { type: 'string' }], ['Hello, World!', 'hi']);
    expect(decodeLogs(abi, [{ address: '0x1', topics, data }])).toEqual([`NameChanged(${by}, Hello, World!, hi)`]);
    expect(decodeLogs(abi, [{ address: '0x1', topics: ['0x01'], data: '0x' }])).toEqual(['log of 0x1: topics 0x01 data 0x']);
  });

  it('shows an indexed string, bytes or array as the hash its topic holds, and decodes an indexed value type', () => {
    const tagged = [
      {
        type: 'event',
        name: 'Tagged',
        inputs: [p('string', { name: 'tag', indexed: true }), p('bytes', { name: 'blob', indexed: true }), p('uint8[]', { name: 'list', indexed: true }), p('uint256', { name: 'n' })],
      },
      { type: 'event', name: 'Counted', inputs: [p('uint256', { name: 'count', indexed: true }), p('string', { name: 'note' })] },
    ] as const satisfies Abi;
    // viem encodes no array filter: the array's topic is any 32 bytes here (the console shows it as it is)
    const topics = (encodeEventTopics({ abi: tagged, eventName: 'Tagged', args: { tag: 'red', blob: '0x0102' } }) as Array<string | null>).map((x) => x ?? `0x${'ab'.repeat(32)}`);
    const data = encodeAbiParameters([{ type: 'uint256' }], [9n]);
    expect(decodeLogs(tagged, [{ address: '0x1', topics, data }])).toEqual([`Tagged(${topics[1]}, ${topics[2]}, ${topics[3]}, 9)`]);
    const counted = encodeEventTopics({ abi: tagged, eventName: 'Counted', args: { count: 300n } }) as string[];
    expect(decodeLogs(tagged, [{ address: '0x1', topics: counted, data: encodeAbiParameters([{ type: 'string' }], ['ok']) }])).toEqual(['Counted(300, ok)']);
  });
});
