import type { Clock, TimerHandle } from '../env.js';

/** Node's setTimeout can wait at most this long; longer timers re-arm in steps. */
const MAX_TIMEOUT_MS = 0x7fffffff;

class RealTimer implements TimerHandle {
  timeout: ReturnType<typeof setTimeout> | undefined;
  constructor(readonly timerId: number) {}
}

/**
 * The wall clock and real timers, for a node process. An async callback's rejection goes to
 * `onError` (default: rethrown so the process fails loudly, as a real node should on a bug).
 * `stop()` cancels every timer: timers die with the node.
 */
export class RealClock implements Clock {
  private readonly timers = new Map<number, RealTimer>();
  private nextId = 1;
  private stopped = false;

  constructor(private readonly onError: (error: unknown) => void = rethrow) {}

  now(): number {
    return Date.now();
  }

  setTimer(delayMs: number, callback: () => void | Promise<void>): TimerHandle {
    if (typeof delayMs !== 'number' || !(delayMs >= 0) || delayMs === Infinity) {
      throw new RangeError(`setTimer: delay must be a finite number of ms ≥ 0 (got ${String(delayMs)})`);
    }
    if (typeof callback !== 'function') throw new TypeError('setTimer: callback must be a function');
    const timer = new RealTimer(this.nextId++);
    if (this.stopped) return timer;
    this.timers.set(timer.timerId, timer);
    const arm = (remaining: number) => {
      timer.timeout = setTimeout(() => {
        if (remaining > MAX_TIMEOUT_MS) {
          arm(remaining - MAX_TIMEOUT_MS);
          return;
        }
        this.timers.delete(timer.timerId);
        this.fire(callback);
      }, Math.min(remaining, MAX_TIMEOUT_MS));
    };
    arm(delayMs);
    return timer;
  }

  cancelTimer(timer: TimerHandle): void {
    const live = this.timers.get(timer?.timerId);
    if (live === undefined || live !== timer) return;
    clearTimeout(live.timeout);
    this.timers.delete(live.timerId);
  }

  /** Timers armed and not yet fired or cancelled. */
  get pendingTimers(): number {
    return this.timers.size;
  }

  /** Cancels every timer; later setTimer calls arm nothing. */
  stop(): void {
    this.stopped = true;
    for (const timer of this.timers.values()) clearTimeout(timer.timeout);
    this.timers.clear();
  }

  private fire(callback: () => void | Promise<void>): void {
    try {
      const result = callback();
      if (result !== undefined && typeof (result as PromiseLike<void>).then === 'function') {
        (result as Promise<void>).then(undefined, this.onError);
      }
    } catch (error) {
      this.onError(error);
    }
  }
}

function rethrow(error: unknown): void {
  queueMicrotask(() => {
    throw error;
  });
}
