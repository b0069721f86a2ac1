// Where the replay's threads run. Niceness (thread-priority.ts) decides who goes first on a busy
// core, but the kernel still puts a crypto worker woken by the replay's thread on the replay's own
// core now and then, and moves the replay's thread between cores, so that the two take turns on
// one core and its caches. Under `twinchain replay` the replay's thread is kept on the core it is
// on and the reader and crypto workers on the others. Measured on the exec-bench workload, two
// cores, alternating with the same code unplaced: the replay / executor ratio +2.7 ± 1.5 points
// paired over 170 rounds (the two arms' medians 3.6–4.9 points apart in each of three runs), and
// its thread's time waiting for a core about 22 → 9–18 ms per replay. V8's and libuv's threads
// are left free: they run on the replay's core while it waits.
// Linux only, through native/thread-affinity.c; elsewhere, or without the addon, nothing moves.
import { createRequire } from 'node:module';

interface ThreadAffinity {
  getAffinity(tid: number): number[];
  setAffinity(tid: number, cores: number[]): void;
  currentCore(): number;
}

let addon: ThreadAffinity | null | undefined;

/** native/build/thread-affinity.node where it was built (scripts/build-native.js), else undefined. */
export function loadThreadAffinity(): ThreadAffinity | undefined {
  if (addon === undefined) {
    try {
      // the same path from src/replay/ and dist/replay/
      addon = createRequire(import.meta.url)('../../native/build/thread-affinity.node') as ThreadAffinity;
    } catch {
      addon = null;
    }
  }
  return addon ?? undefined;
}

/**
 * Keep the calling thread on the core it runs on and the `helpers` (thread ids) on the other
 * cores it may use. Returns what puts every thread back where it was allowed before (threads gone
 * meanwhile are skipped), or undefined where nothing was moved: no addon, fewer than two cores
 * allowed, or no helper to move.
 */
export function placeThreads(helpers: readonly number[], affinity: ThreadAffinity | undefined = loadThreadAffinity()): (() => void) | undefined {
  if (!affinity || helpers.length === 0) return undefined;
  let allowed: number[];
  let own: number;
  try {
    allowed = affinity.getAffinity(0);
    own = affinity.currentCore();
  } catch {
    return undefined;
  }
  const others = allowed.filter((core) => core !== own);
  if (!allowed.includes(own) || others.length === 0) return undefined;
  const before = new Map<number, number[]>();
  const move = (tid: number, cores: number[]) => {
    try {
      const was = affinity.getAffinity(tid);
      affinity.setAffinity(tid, cores);
      before.set(tid, was);
    } catch {
      // gone meanwhile, or not allowed: it stays where it was
    }
  };
  move(0, [own]);
  for (const tid of new Set(helpers)) if (tid > 0) move(tid, others);
  return () => {
    for (const [tid, cores] of before) {
      try {
        affinity.setAffinity(tid, cores);
      } catch {
        // gone meanwhile
      }
    }
  };
}
