import { describe, expect, it } from 'vitest';
import { progressLine } from './run-summary.js';

describe('progressLine', () => {
  const at = { minHeight: 3, maxHeight: 4, committed: 40, violations: 0 };

  it('fills the bar by virtual time while the run goes on', () => {
    expect(progressLine({ ...at, virtualMs: 5_000, totalMs: 20_000, phase: 'faults' }, 8)).toBe('[##......] 5.0 s / 20.0 s  faults  heights 3–4  40 tx');
  });

  // issue 44: a run ends when its liveness phase settles, before the bound; its last line said 65%
  it('ends full, at 100%, when the run is done before its bound', () => {
    const line = progressLine({ ...at, virtualMs: 13_000, totalMs: 20_000, phase: 'done' }, 8);
    expect(line).toBe('[########] 13.0 s 100%  done  heights 3–4  40 tx');
  });
});
