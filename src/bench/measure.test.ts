import { describe, expect, it } from 'vitest';
import { percentNear } from './measure.js';

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
