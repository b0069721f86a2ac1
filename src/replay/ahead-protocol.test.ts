import { describe, expect, it } from 'vitest';
import { MAX_PARTS, PART_BYTES, planParts, SPLIT_BYTES } from './ahead-protocol.js';

describe('planParts', () => {
  it('keeps a short line whole, and cuts a long one into parts of about PART_BYTES, at most MAX_PARTS, one per worker at least', () => {
    expect(planParts(SPLIT_BYTES - 1, 1, 0)).toHaveLength(1);
    expect(planParts(SPLIT_BYTES - 1, 2, 0)).toHaveLength(1);
    expect(planParts(SPLIT_BYTES, 1, 0)).toHaveLength(1);
    expect(planParts(SPLIT_BYTES, 2, 0)).toHaveLength(2);
    expect(planParts(PART_BYTES + 1, 1, 0)).toHaveLength(2);
    expect(planParts(3 * PART_BYTES, 1, 0)).toHaveLength(3);
    expect(planParts(3 * PART_BYTES + 1, 1, 0)).toHaveLength(4);
    expect(planParts(100 * PART_BYTES, 1, 0)).toHaveLength(MAX_PARTS);
    expect(planParts(100 * PART_BYTES, MAX_PARTS + 2, 0)).toHaveLength(MAX_PARTS + 2);
  });

  it('numbers the parts in order, gives them to the workers in turn from `turn`, each with a claim of its own at 0', () => {
    const plan = planParts(4 * PART_BYTES, 3, 2);
    expect(plan.map((p) => [p.part, p.parts, p.worker])).toEqual([
      [0, 4, 2],
      [1, 4, 0],
      [2, 4, 1],
      [3, 4, 2],
    ]);
    expect(plan.every((p) => p.claim.length === 1 && p.claim[0] === 0)).toBe(true);
    expect(new Set(plan.map((p) => p.claim.buffer)).size).toBe(4);
    // one worker does every part
    expect(planParts(4 * PART_BYTES, 1, 5).map((p) => p.worker)).toEqual([0, 0, 0, 0]);
  });
});
