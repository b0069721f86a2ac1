// The JSON-RPC parameter readers at the edges of what they take: the largest group id, a call
// value of 2^256 − 1, the smallest JSON integer.
import { describe, expect, it } from 'vitest';
import { callValueParam, groupIdParam, jsonIntParam, MAX_GROUP_ID } from './params.js';

const refusal = (read: () => unknown): string => {
  try {
    read();
  } catch (e) {
    return (e as Error).message;
  }
  return 'accepted';
};

describe('JSON-RPC parameters at their edges', () => {
  it('a group id is at most 2^31 − 1', () => {
    expect(groupIdParam(MAX_GROUP_ID)).toBe(2 ** 31 - 1);
    expect(refusal(() => groupIdParam(MAX_GROUP_ID + 1))).toBe('INVALID_PARAMS: groupID: a group id is at most 2147483647 (got 2147483648)');
    expect(refusal(() => groupIdParam(-1))).toMatch(/^INVALID_PARAMS: groupID: a group id is unsigned/);
  });

  it('a call value is at most 2^256 − 1, in hex or decimal', () => {
    const max = (1n << 256n) - 1n;
    expect(callValueParam(`0x${'f'.repeat(64)}`)).toBe(max);
    expect(callValueParam(max.toString())).toBe(max);
    expect(refusal(() => callValueParam(`0x1${'0'.repeat(64)}`))).toMatch(/^INVALID_PARAMS: request\.value: exceeds 2\^256 - 1/);
    expect(refusal(() => callValueParam((max + 1n).toString()))).toMatch(/exceeds 2\^256 - 1/);
  });

  it('a JSON integer parameter runs from −2^31 to 2^31 − 1', () => {
    expect(jsonIntParam(-(2 ** 31), 'n')).toBe(-2147483648);
    expect(jsonIntParam(2 ** 31 - 1, 'n')).toBe(2147483647);
    expect(refusal(() => jsonIntParam(-(2 ** 31) - 1, 'n'))).toMatch(/^INVALID_PARAMS: n: expected an integer in -2147483648 \.\. 2147483647/);
    expect(refusal(() => jsonIntParam(2 ** 31, 'n'))).toMatch(/^INVALID_PARAMS: n: expected an integer in/);
  });
});
