import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { HELPER_NICENESS } from './thread-priority.js';

describe.runIf(process.platform === 'linux')('thread priorities', () => {
  it("lowers a helper thread that asks, and every other thread for the replay's own", async () => {
    const script = new URL('./thread-priority.test-helper.ts', import.meta.url).pathname;
    // a process of its own: niceness once raised stays raised
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', script], { cwd: process.cwd(), timeout: 30_000 });
    const seen = JSON.parse(stdout.trim().split('\n').pop()!) as {
      self: number;
      pid: number;
      before: { self: number; lowering: number; staying: number };
      after: { self: number; lowering: number; staying: number };
      lowered: number;
      again: number;
    };
    expect(seen.self).toBe(seen.pid);
    expect(seen.before).toEqual({ self: 0, lowering: HELPER_NICENESS, staying: 0 });
    // the caller keeps its priority; the worker that did not lower itself is lowered now
    expect(seen.after).toEqual({ self: 0, lowering: HELPER_NICENESS, staying: HELPER_NICENESS });
    // that worker and V8's and libuv's threads; the one already lowered is not counted
    expect(seen.lowered).toBeGreaterThanOrEqual(2);
    expect(seen.again).toBe(0);
  });
});
