import { describe, expect, it } from 'vitest';
import { medianInterval, percentNear } from './measure.js';

describe('percentNear', () => {
  it('gives whole percentages away from the target, and a decimal rounded down next to it', () => {
    expect(percentNear(0.934, 0.9)).toBe('93%');
    expect(percentNear(0.884, 0.9)).toBe('88%');
    // these would all print "90%"
    expect(percentNear(0.8951, 0.9)).toBe('89.5%');
    expect(percentNear(0.8999, 0.9)).toBe('89.9%');
    expect(percentNear(0.9, 0.9)).toBe('90.0%');
    expect(percentNear(0.9049, 0.9)).toBe('90.4%');
    expect(percentNear(0.16, 0.9)).toBe('16%');
  });
});

describe('medianInterval', () => {
  it('takes the order statistics whose binomial coverage reaches the confidence', () => {
    const eleven = [0.96, 0.92, 1.02, 0.91, 0.81, 0.88, 0.83, 1.08, 0.98, 0.81, 0.82];
    // n = 11: k = 3 covers 1 − 2·(1 + 11 + 55)/2048 = 93.5%; k = 4 only 77.3%
    const i = medianInterval(eleven)!;
    expect(i.k).toBe(3);
    expect(i.coverage).toBeCloseTo(1 - (2 * 67) / 2048, 10);
    expect([i.low, i.high]).toEqual([0.82, 0.98]);
    // a lower confidence allows a narrower interval
    expect(medianInterval(eleven, 0.7)).toMatchObject({ k: 4, low: 0.83, high: 0.96 });
    expect(medianInterval(eleven, 0.7)!.coverage).toBeCloseTo(1 - (2 * 232) / 2048, 10);
  });

  it('widens to the extremes, and gives none where even they do not reach the confidence', () => {
    // n = 5: the extremes cover 1 − 2/32 = 93.75%
    expect(medianInterval([5, 1, 4, 2, 3])).toMatchObject({ k: 1, low: 1, high: 5 });
    expect(medianInterval([1, 2, 3, 4])).toBeUndefined();
    expect(medianInterval([])).toBeUndefined();
  });

  it('covers the true median about as often as it says, for independent draws', () => {
    // a fixed pseudo-random sequence (no ambient randomness in tests)
    let seed = 12345;
    const next = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    let covered = 0;
    const trials = 4000;
    let claimed = 0;
    for (let t = 0; t < trials; t++) {
      const i = medianInterval(Array.from({ length: 11 }, next))!;
      claimed = i.coverage;
      if (i.low <= 0.5 && 0.5 <= i.high) covered++;
    }
    expect(Math.abs(covered / trials - claimed)).toBeLessThan(0.02);
  });
});
