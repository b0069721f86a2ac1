import type { Clock, TimerHandle } from '../runtime/index.js';

/** One-off actions a driver's mutator schedules ("send this again later"), all cancelled when the driver stops. */
export class LaterTimers {
  private readonly handles = new Set<TimerHandle>();
  private cancelled = false;

  constructor(private readonly clock: Clock) {}

  /** Runs `action` after `ms`, unless cancelAll() came first. */
  readonly later = (ms: number, action: () => void): void => {
    if (this.cancelled) return;
    const handle = this.clock.setTimer(ms, () => {
      this.handles.delete(handle);
      if (!this.cancelled) action();
    });
    this.handles.add(handle);
  };

  cancelAll(): void {
    this.cancelled = true;
    for (const handle of this.handles) this.clock.cancelTimer(handle);
    this.handles.clear();
  }
}
