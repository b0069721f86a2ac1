import { describe, expect, it } from 'vitest';
import { installEvmSpeedups } from './evm-speedups.js';

describe('EVM speed-ups', () => {
  it('find the interpreter internals they expect (a dependency upgrade must revisit them)', async () => {
    expect(await installEvmSpeedups()).toBe(true);
    expect(await installEvmSpeedups()).toBe(true);
  });
});
