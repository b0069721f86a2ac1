import { describe, expect, it } from 'vitest';
import { formatCount, formatDuration, formatSpeed } from './format.js';

describe('report number formats', () => {
  it('formats durations from milliseconds to hours', () => {
    expect([0.5, 42, 850, 4_870, 12_345, 60_000, 90_000, 3_600_000, 3_725_000].map(formatDuration)).toEqual([
      '0.5 ms',
      '42 ms',
      '850 ms',
      '4.87 s',
      '12.3 s',
      '1 min',
      '1 min 30 s',
      '1 h',
      '1 h 2 min 5 s',
    ]);
    expect(formatDuration(Number.NaN)).toBe('—');
  });

  it('formats counts and the virtual/wall speed', () => {
    expect(formatCount(1_234_567.4)).toBe('1,234,567');
    expect(formatSpeed(60_000, 4_870)).toBe('12.3×');
    expect(formatSpeed(600_000, 2_000)).toBe('300×');
    expect(formatSpeed(1_000, 4_000)).toBe('0.25×');
    expect(formatSpeed(1_000, 0)).toBe('—');
  });
});
