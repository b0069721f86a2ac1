// The replay's own thread executes every block in order: everything else waits for it, so when the
// cores are busy it should be the one that runs. Its helpers (the reader thread, the workers,
// V8's garbage-collector threads, libuv's pool) are given a lower priority (a higher niceness)
// than it. Linux only: setpriority takes a thread id there, which /proc names; elsewhere nothing
// changes.
import { readdirSync, readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/** The niceness of the replay's helpers: they run on the cores the replay's thread leaves idle. */
export const HELPER_NICENESS = 19;

/** This thread's kernel id, where /proc tells it. */
export function currentThreadId(): number | undefined {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    return Number.isInteger(tid) && tid > 0 ? tid : undefined;
  } catch {
    return undefined;
  }
}

/** Lower the priority of the calling thread (a helper) to HELPER_NICENESS. */
export function lowerThisThread(): void {
  const tid = currentThreadId();
  if (tid !== undefined) lower(tid);
}

/**
 * Lower every other thread of the process to HELPER_NICENESS, so that the calling thread goes
 * first; how many were lowered. A thread already at that niceness or above is left as it is.
 * Threads started later inherit the niceness of the thread that starts them.
 */
export function yieldToThisThread(): number {
  const self = currentThreadId();
  if (self === undefined) return 0;
  let lowered = 0;
  let tasks: string[];
  try {
    tasks = readdirSync('/proc/self/task');
  } catch {
    return 0;
  }
  for (const task of tasks) {
    const tid = Number(task);
    if (tid !== self && lower(tid)) lowered++;
  }
  return lowered;
}

function lower(tid: number): boolean {
  try {
    if (getPriority(tid) >= HELPER_NICENESS) return false;
    setPriority(tid, HELPER_NICENESS);
    return true;
  } catch {
    // gone meanwhile, or not allowed: it keeps its priority
    return false;
  }
}

/** A helper thread's first message: it is up, with its kernel thread id where /proc tells it (for thread-placement.ts). */
export interface ThreadReady {
  readonly ready: true;
  readonly tid?: number;
}

export function readyMessage(): ThreadReady {
  const tid = currentThreadId();
  return tid === undefined ? { ready: true } : { ready: true, tid };
}

export function isReadyMessage(message: unknown): message is ThreadReady {
  return typeof message === 'object' && message !== null && (message as { ready?: unknown }).ready === true;
}
