import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cpuNow, cpuSince, wallByState } from './thread-cpu.js';

const busy = (ms: number) => {
  const until = Date.now() + ms;
  let x = 0;
  while (Date.now() < until) x += Math.sqrt(x + 1);
  return x;
};

describe('thread CPU samples', () => {
  it('count the main thread\'s own busy work, within the whole process\'s', () => {
    const before = cpuNow();
    const started = performance.now();
    // 0.3 s of this thread's CPU (of the process's where the platform keeps no per-thread figure)
    // however busy the machine is (a wall-clock budget was not: 0.148 s in 300 ms on a loaded CI
    // machine), bounded by the wall clock all the same. Not of the process's alone: in a shared
    // test worker other threads (GC, workers another file left running) add to it, and CI once
    // stopped at 0.3 s of the process's with 0.138 s on this thread.
    const spent = () => {
      const used = cpuSince(before);
      return used.main ?? used.process;
    };
    while (spent() < 0.3 && performance.now() - started < 10_000) expect(busy(20)).toBeGreaterThan(0);
    const used = cpuSince(before);
    expect(used.process).toBeGreaterThan(0.15);
    if (process.platform === 'linux') {
      expect(used.main).toBeGreaterThan(0.15);
      // the main thread's ticks are whole hundredths; it cannot have used more than the process
      expect(used.main!).toBeLessThanOrEqual(used.process + 0.02);
    }
  });

  it.runIf(existsSync(`/proc/self/task/${process.pid}/schedstat`))('split the main thread\'s wall time into running, waiting for a core and waiting on others', async () => {
    const before = cpuNow();
    const started = performance.now();
    // 100 ms on a core however busy the machine is (bounded by the wall clock all the same)
    let x = 0;
    while (cpuSince(before).main! < 0.1 && performance.now() - started < 10_000) for (let k = 0; k < 100_000; k++) x += Math.sqrt(x + 1);
    expect(x).toBeGreaterThan(0);
    // blocked: this thread wants no core meanwhile
    await new Promise((resolve) => setTimeout(resolve, 200));
    const seconds = (performance.now() - started) / 1000;
    const used = cpuSince(before);
    const split = wallByState(used, seconds)!;
    expect(split.running).toBeGreaterThanOrEqual(0.1);
    expect(split.queued).toBeGreaterThanOrEqual(0);
    // seconds, like the wall clock: what ran or waited for a core fits in the window, and the sleep is counted as waiting
    expect(split.running + split.queued).toBeLessThan(seconds - 0.15);
    expect(split.waiting).toBeGreaterThan(0.15);
  });

  it('leave out what either sample lacks', () => {
    expect(cpuSince({ process: 1, main: 0.5 }, { process: 2, main: 0.75, mainQueued: 0.1 })).toEqual({ process: 1, main: 0.25 });
    expect(cpuSince({ process: 1, main: 0.5, mainQueued: 0.05 }, { process: 2, main: 0.75, mainQueued: 0.1 })).toEqual({ process: 1, main: 0.25, mainQueued: 0.05 });
    expect(wallByState({ process: 1, main: 0.5 }, 1)).toBeUndefined();
    expect(wallByState({ process: 1, main: 0.5, mainQueued: 0.1 }, 1)).toEqual({ running: 0.5, queued: 0.1, waiting: 0.4 });
    // a run timed a little inside the CPU window: never negative
    expect(wallByState({ process: 1, main: 0.5, mainQueued: 0.1 }, 0.55)!.waiting).toBe(0);
  });
});
