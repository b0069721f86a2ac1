import { describe, expect, it } from 'vitest';
import { SeededRandomness, SeededRng, deriveSeed } from './seeded-rng.js';

describe('seeded streams', () => {
  it('a seed gives the same draws every time, and another seed other draws', () => {
    const draws = (seed: string) => {
      const rng = new SeededRng(seed);
      return [rng.next(), rng.int(1000), rng.int(2 ** 40), ...rng.bytes(7)];
    };
    expect(draws('a')).toEqual(draws('a'));
    expect(draws('a')).not.toEqual(draws('b'));
  });

  it('derives independent, stable stream seeds from (root, path)', () => {
    expect(deriveSeed('s', ['node', 'a'])).toBe(deriveSeed('s', ['node', 'a']));
    expect(deriveSeed('s', ['node', 'a'])).toMatch(/^[0-9a-f]{64}$/);
    expect(deriveSeed('s', ['node', 'a'])).not.toBe(deriveSeed('s', ['node', 'b']));
    expect(deriveSeed('s', ['a', 'b'])).not.toBe(deriveSeed('s', ['a,b']));
  });

  it('the same name returns the same stream, and using one stream does not move another', () => {
    const one = new SeededRandomness('root', ['node', 'n0']);
    const two = new SeededRandomness('root', ['node', 'n0']);
    expect(one.stream('pbft')).toBe(one.stream('pbft'));
    one.stream('txpool').bytes(100);
    expect(one.stream('pbft').next()).toBe(two.stream('pbft').next());
  });

  it('draws uniformly: every integer of a range as often as the others, every byte of a word its own', () => {
    const rng = new SeededRng('uniform');
    const counts = [0, 0, 0, 0];
    for (let i = 0; i < 40_000; i++) counts[rng.int(4)]!++;
    // 4 standard deviations of a fair draw: about 350 of 10,000
    for (const c of counts) expect(Math.abs(c - 10_000), counts.join(' ')).toBeLessThan(400);
    const bytes = rng.bytes(4000);
    const values = new Set(bytes);
    expect(values.size).toBe(256);
    // the four bytes of one 32-bit word are four draws: neighbours agree about once in 256
    let same = 0;
    for (let i = 0; i < bytes.length; i += 4) for (let k = 1; k < 4; k++) if (bytes[i + k] === bytes[i + k - 1]) same++;
    expect(same).toBeLessThan(30);
  });

  it('stays in range and explains bad arguments', () => {
    const rng = new SeededRng('range');
    for (let i = 0; i < 1000; i++) {
      const x = rng.int(3);
      expect(x === 0 || x === 1 || x === 2).toBe(true);
      const u = rng.next();
      expect(u >= 0 && u < 1).toBe(true);
    }
    expect(rng.bytes(0)).toEqual(new Uint8Array(0));
    expect(() => rng.int(0)).toThrow('Rng.int: maxExclusive must be a positive safe integer (got 0)');
    expect(() => rng.bytes(-1)).toThrow('Rng.bytes: length must be a non-negative safe integer (got -1)');
    expect(() => new SeededRandomness('r', []).stream('')).toThrow('name must be a non-empty string');
  });
});
