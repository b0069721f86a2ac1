import { describe, expect, it } from 'vitest';
import { RealRandomness } from './real-randomness.js';

describe('RealRandomness', () => {
  it('gives named streams of operating-system randomness within range', () => {
    const random = new RealRandomness();
    const rng = random.stream('keys');
    expect(random.stream('keys')).toBe(rng);
    for (let i = 0; i < 200; i++) {
      const u = rng.next();
      expect(u >= 0 && u < 1).toBe(true);
      expect(rng.int(7)).toBeLessThan(7);
      expect(rng.int(2 ** 50)).toBeLessThan(2 ** 50);
    }
    expect(rng.bytes(32)).toHaveLength(32);
    expect(rng.bytes(32)).not.toEqual(rng.bytes(32));
    expect(() => rng.int(-3)).toThrow('maxExclusive must be a positive safe integer');
    expect(() => random.stream('')).toThrow('name must be a non-empty string');
  });
});
