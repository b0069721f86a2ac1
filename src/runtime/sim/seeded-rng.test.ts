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
