import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RealClock } from './real-clock.js';

describe('RealClock', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: Date.UTC(2026, 0, 1) });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('reads the wall clock and fires, cancels and stops timers', () => {
    const clock = new RealClock();
    expect(clock.now()).toBe(Date.UTC(2026, 0, 1));
    const fired: string[] = [];
    clock.setTimer(10, () => void fired.push('ten'));
    const doomed = clock.setTimer(5, () => void fired.push('doomed'));
    clock.cancelTimer(doomed);
    clock.cancelTimer(doomed);
    vi.advanceTimersByTime(10);
    expect(fired).toEqual(['ten']);
    expect(clock.now()).toBe(Date.UTC(2026, 0, 1) + 10);
    clock.setTimer(1, () => void fired.push('never'));
    expect(clock.pendingTimers).toBe(1);
    clock.stop();
    clock.setTimer(1, () => void fired.push('after stop'));
    vi.advanceTimersByTime(100);
    expect(fired).toEqual(['ten']);
  });

  it('waits longer than setTimeout allows by re-arming', () => {
    const clock = new RealClock();
    let fired = false;
    clock.setTimer(2 ** 31 + 5, () => {
      fired = true;
    });
    vi.advanceTimersByTime(2 ** 31);
    expect(fired).toBe(false);
    vi.advanceTimersByTime(10);
    expect(fired).toBe(true);
  });

  it('hands errors of timer callbacks, sync or async, to onError', async () => {
    const errors: unknown[] = [];
    const clock = new RealClock((e) => errors.push(e));
    clock.setTimer(1, () => {
      throw new Error('sync');
    });
    clock.setTimer(2, async () => {
      throw new Error('async');
    });
    await vi.advanceTimersByTimeAsync(5);
    expect(errors.map((e) => (e as Error).message)).toEqual(['sync', 'async']);
  });

  it('explains bad delays', () => {
    const clock = new RealClock();
    expect(() => clock.setTimer(-1, () => undefined)).toThrow('setTimer: delay must be a finite number of ms ≥ 0 (got -1)');
    expect(() => clock.setTimer(Infinity, () => undefined)).toThrow('(got Infinity)');
  });
});
