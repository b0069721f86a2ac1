import { describe, expect, it } from 'vitest';
import { rowMatches, type Condition, type ConditionOp } from './user-tables.js';

const row = (score: string) => ({ name: 'k', score });
const matches = (score: string, op: ConditionOp, value: string) => rowMatches(row(score), [{ field: 'score', op, value }]);

describe('rowMatches (a Condition over one row)', () => {
  it('compares integers as integers, negative ones and different lengths included (FISCO casts both sides to int64)', () => {
    // pairs where the text order and the numeric order differ, or could be confused
    const pairs: Array<[string, string]> = [['-50', '-5'], ['-5', '-50'], ['9', '10'], ['-1', '0'], ['0', '-1'], ['-10', '-9'], ['100', '99'], ['-3', '2'], ['7', '7']];
    for (const [a, b] of pairs) {
      const x = BigInt(a);
      const y = BigInt(b);
      const expected: Record<ConditionOp, boolean> = { eq: x === y, ne: x !== y, gt: x > y, ge: x >= y, lt: x < y, le: x <= y };
      for (const op of Object.keys(expected) as ConditionOp[]) expect(matches(a, op, b), `${a} ${op} ${b}`).toBe(expected[op]);
    }
  });

  it('eq and ne compare the text exactly', () => {
    expect(matches('01', 'eq', '1')).toBe(false);
    expect(matches('01', 'ne', '1')).toBe(true);
    expect(matches('abc', 'eq', 'abc')).toBe(true);
  });

  it('an absent field reads as the empty string', () => {
    expect(rowMatches({ name: 'k' }, [{ field: 'score', op: 'eq', value: '' }])).toBe(true);
    expect(rowMatches({ name: 'k' }, [{ field: 'score', op: 'ne', value: '' }])).toBe(false);
  });

  it('every condition must hold; none at all matches every row', () => {
    const both: Condition[] = [
      { field: 'score', op: 'ge', value: '10' },
      { field: 'score', op: 'lt', value: '20' },
    ];
    expect(rowMatches(row('10'), both)).toBe(true);
    expect(rowMatches(row('19'), both)).toBe(true);
    expect(rowMatches(row('20'), both)).toBe(false);
    expect(rowMatches(row('9'), both)).toBe(false);
    expect(rowMatches(row('9'), [])).toBe(true);
  });
});
