import { describe, expect, it } from 'vitest';
import { cpuNow, cpuSince } from './thread-cpu.js';

describe('thread CPU samples', () => {
  it('count the main thread\'s own busy work, within the whole process\'s', () => {
    const before = cpuNow();
    const until = Date.now() + 300;
    let x = 0;
    while (Date.now() < until) x += Math.sqrt(x + 1);
    const used = cpuSince(before);
    expect(x).toBeGreaterThan(0);
    expect(used.process).toBeGreaterThan(0.15);
    if (process.platform === 'linux') {
      expect(used.main).toBeGreaterThan(0.15);
      // the main thread's ticks are whole hundredths; it cannot have used more than the process
      expect(used.main!).toBeLessThanOrEqual(used.process + 0.02);
    }
  });
});
