import { describe, expect, it } from 'vitest';
import { PLAIN_PROGRESS_LINE, plainProgressLine, progressText } from './progress-text.js';

describe('progress text', () => {
  it('writes the plain line without the bar, and PLAIN_PROGRESS_LINE knows it (readers drop it by that pattern)', () => {
    const text = progressText({ blocks: 120, total: 1000, transactions: 1503, blocksPerSecond: 85.3, etaSeconds: 10.4 });
    expect(text).toBe('[###---------------------] 120/1000 blocks  12%  1503 tx  85.3 blocks/s  ETA 11s');
    for (const verb of ['replayed', 'recorded'] as const) {
      const line = plainProgressLine(verb, text);
      expect(line).toBe(`${verb} 120/1000 blocks  12%  1503 tx  85.3 blocks/s  ETA 11s`);
      expect(line).toMatch(PLAIN_PROGRESS_LINE);
    }
    expect('replay x.jsonl: PASS, 428 blocks (blocks 1–428)').not.toMatch(PLAIN_PROGRESS_LINE);
  });
});
