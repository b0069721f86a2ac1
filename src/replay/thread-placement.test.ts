import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { availableParallelism } from 'node:os';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { loadThreadAffinity, placeThreads } from './thread-placement.js';

/** A kernel that records what it is asked; threads 77 and 78 exist, 99 is gone. */
function fakeAffinity(allowed: number[], current: number) {
  const sets = new Map<number, number[]>([[0, allowed], [77, allowed], [78, [0]]]);
  const calls: Array<[number, number[]]> = [];
  return {
    calls,
    sets,
    getAffinity(tid: number) {
      const set = sets.get(tid);
      if (!set) throw new Error('sched_getaffinity: No such process');
      return set;
    },
    setAffinity(tid: number, cores: number[]) {
      if (!sets.has(tid)) throw new Error('sched_setaffinity: No such process');
      calls.push([tid, cores]);
      sets.set(tid, cores);
    },
    currentCore: () => current,
  };
}

describe('placeThreads', () => {
  it.runIf(process.platform === 'linux')("has its addon wherever the build found Node's headers (so that the test below does not skip unseen)", () => {
    const headers = [path.join(path.dirname(path.dirname(process.execPath)), 'include', 'node'), '/usr/include/node'].some((dir) => existsSync(path.join(dir, 'node_api.h')));
    expect(loadThreadAffinity() !== undefined).toBe(headers);
  });

  it.runIf(loadThreadAffinity() !== undefined)('has an addon that says what was wrong with its arguments', () => {
    const affinity = loadThreadAffinity()!;
    expect(affinity.getAffinity(0).length).toBeGreaterThan(0);
    expect(() => affinity.getAffinity(-1)).toThrowError('the thread id must be a non-negative integer (0: this thread)');
    expect(() => affinity.setAffinity(0, [])).toThrowError('the cores must be a non-empty array of core numbers');
    expect(() => affinity.setAffinity(0, [100_000])).toThrowError('each core must be an integer from 0 to CPU_SETSIZE - 1');
    // a thread id no thread has (above the kernel's pid_max)
    expect(() => affinity.setAffinity(2 ** 30, [0])).toThrowError('sched_setaffinity: No such process');
    expect(affinity.currentCore()).toBeGreaterThanOrEqual(0);
  });

  it('keeps the calling thread on its core and the helpers on the others, then puts them back', () => {
    const kernel = fakeAffinity([0, 1, 2, 3], 2);
    const restore = placeThreads([77, 78, 99, 77], kernel)!;
    // the gone thread is skipped, the repeated one moved once
    expect(kernel.calls).toEqual([[0, [2]], [77, [0, 1, 3]], [78, [0, 1, 3]]]);
    restore();
    expect(kernel.sets.get(0)).toEqual([0, 1, 2, 3]);
    expect(kernel.sets.get(77)).toEqual([0, 1, 2, 3]);
    expect(kernel.sets.get(78)).toEqual([0]);
  });

  it('moves nothing with one core allowed, without helpers, or without the addon', () => {
    const one = fakeAffinity([3], 3);
    expect(placeThreads([77], one)).toBeUndefined();
    expect(one.calls).toEqual([]);
    const two = fakeAffinity([0, 1], 0);
    expect(placeThreads([], two)).toBeUndefined();
    expect(two.calls).toEqual([]);
    const absent = null as unknown as undefined;
    expect(placeThreads([77], absent)).toBeUndefined();
  });

  it.runIf(process.platform === 'linux' && loadThreadAffinity() !== undefined && availableParallelism() >= 2)(
    "keeps a prioritized replay's thread on one core and its reader and crypto workers off it, until it ends",
    async () => {
      const script = new URL('./thread-placement.test-helper.ts', import.meta.url).pathname;
      const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', script], { cwd: process.cwd(), timeout: 60_000 });
      const seen = JSON.parse(stdout.trim().split('\n').pop()!) as {
        pid: number;
        verdict: string;
        before: Record<string, number[]>;
        during: Array<Record<string, number[]>>;
        after: Record<string, number[]>;
      };
      expect(seen.verdict).toBe('pass');
      expect(seen.during.length).toBeGreaterThan(0);
      const allowed = seen.before[seen.pid]!;
      for (const threads of seen.during) {
        const own = threads[seen.pid]!;
        expect(own).toHaveLength(1);
        // the crypto worker (one for ECDSA on two cores, or more) and the reader: every core allowed but the replay's
        const others = allowed.filter((core) => core !== own[0]);
        const kept = Object.entries(threads).filter(([tid, cores]) => Number(tid) !== seen.pid && cores.join() === others.join());
        expect(kept.length).toBeGreaterThanOrEqual(2);
      }
      // afterwards every thread may run where it could before
      for (const [tid, cores] of Object.entries(seen.before)) if (seen.after[tid]) expect([tid, seen.after[tid]]).toEqual([tid, cores]);
    },
  );
});
