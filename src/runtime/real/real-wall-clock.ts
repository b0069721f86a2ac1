import { performance } from 'node:perf_hooks';
import type { WallClock } from '../sim/wall-clock.js';

/** performance.now() and setTimeout: what a paced simulation follows when serving real clients. */
export const realWallClock: WallClock = Object.freeze({
  now: () => performance.now(),
  sleep: (ms: number, signal: AbortSignal) =>
    new Promise<void>((resolve) => {
      if (signal.aborted) {
        resolve();
        return;
      }
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      }
      signal.addEventListener('abort', done, { once: true });
    }),
});
