import { describe, expect, it } from 'vitest';
import { twinchain, said } from './real-chain.js';

describe('twinchain replay as a process', () => {
  it('exits when the replay is done, though its crypto workers are still up (they must not hold the process)', async () => {
    const started = Date.now();
    const result = await twinchain(['replay', 'fixtures/chains/workload-small.jsonl.gz'], { timeoutMs: 60_000 });
    expect(result.stderr).toBe('');
    expect(result.code, said(result)).toBe(0);
    expect(result.stdout).toMatch(/^replay fixtures\/chains\/workload-small\.jsonl\.gz: PASS, 11 blocks/);
    expect(Date.now() - started).toBeLessThan(60_000);
  }, 70_000);
});
