import { describe, expect, it } from 'vitest';
import { formatLogLine } from './log-line.js';

describe('formatLogLine', () => {
  it('writes FISCO columns', () => {
    expect(formatLogLine('info', Date.UTC(2019, 0, 21, 17, 30, 58, 316), ' [P2P][Service] heartBeat,connected count=3')).toBe(
      'info|2019-01-21 17:30:58.316000| [P2P][Service] heartBeat,connected count=3',
    );
  });
});
