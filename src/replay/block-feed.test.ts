import { describe, expect, it } from 'vitest';
import { readAheadFull } from './block-feed.js';

describe('readAheadFull: how far both feeds read ahead', () => {
  const limits = { lines: 32, bytes: 4_000_000 };

  it('two lines are always read, however long: the block being replayed and the next', () => {
    expect(readAheadFull(0, 0, limits)).toBe(false);
    expect(readAheadFull(1, 9_000_000, limits)).toBe(false);
    expect(readAheadFull(2, 9_000_000, limits)).toBe(true);
  });

  it('full at the line limit or the byte limit', () => {
    expect(readAheadFull(31, 3_999_999, limits)).toBe(false);
    expect(readAheadFull(32, 10, limits)).toBe(true);
    expect(readAheadFull(5, 4_000_000, limits)).toBe(true);
  });

  it('a share of the limits: the replay thread refills once half is used', () => {
    expect(readAheadFull(15, 1_000_000, limits, 0.5)).toBe(false);
    expect(readAheadFull(16, 1_000_000, limits, 0.5)).toBe(true);
    expect(readAheadFull(3, 2_000_000, limits, 0.5)).toBe(true);
  });
});
