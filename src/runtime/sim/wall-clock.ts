/** The wall clock a paced run follows; the real one is `realWallClock`, tests give a fake. */
export interface WallClock {
  /** Milliseconds on a monotonic clock. */
  now(): number;
  /** Resolves after `ms`, or as soon as `signal` aborts. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}
