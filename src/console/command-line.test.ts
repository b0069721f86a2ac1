import { describe, expect, it } from 'vitest';
import { closest, splitCommandLine } from './command-line.js';

describe('splitCommandLine', () => {
  it('splits on blanks and keeps quoted blanks, the other quote and escapes inside one word', () => {
    expect(splitCommandLine('call HelloWorld latest set "hi there"')).toEqual(['call', 'HelloWorld', 'latest', 'set', 'hi there']);
    expect(splitCommandLine(`  set 'it"s'   "a \\"b\\"" ""  `)).toEqual(['set', 'it"s', 'a "b"', '']);
    expect(splitCommandLine('deploy\tToken 100')).toEqual(['deploy', 'Token', '100']);
    expect(splitCommandLine('   ')).toEqual([]);
  });

  it('refuses an unclosed quote, naming which', () => {
    expect(() => splitCommandLine('set "abc')).toThrow(/unclosed double quote/);
    expect(() => splitCommandLine("set 'abc")).toThrow(/unclosed single quote/);
  });
});

describe('closest', () => {
  const names = ['getBlockNumber', 'getBlockByNumber', 'getPeers', 'deploy', 'call', 'quit'];
  it('finds typos and prefixes, and nothing for unrelated words', () => {
    expect(closest('getBlockNumbr', names)).toBe('getBlockNumber');
    expect(closest('getpeers', names)).toBe('getPeers');
    expect(closest('deplyo', names)).toBe('deploy');
    expect(closest('getBlockByNum', names)).toBe('getBlockByNumber');
    expect(closest('frobnicate', names)).toBeUndefined();
  });
});

describe('closest, for short words', () => {
  it('takes two edits as a likely typo however short the word (a swapped pair in a 4-letter command)', () => {
    expect(closest('clal', ['call', 'deploy'])).toBe('call');
    expect(closest('ecal', ['call', 'deploy'])).toBe('call');
    expect(closest('xyzw', ['call', 'deploy'])).toBeUndefined();
  });
});
