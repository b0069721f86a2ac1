// Run by thread-placement.test.ts in a process of its own (a prioritized replay lowers every other
// thread of its process for good): replays a fixture chain with `prioritize`, and prints where the
// process's threads were allowed to run before, during (at each block) and after the replay.
import { readdirSync } from 'node:fs';
import { replayRecording } from './replayer.js';
import { loadThreadAffinity } from './thread-placement.js';

const affinity = loadThreadAffinity()!;
const threads = () => readdirSync('/proc/self/task').map(Number);
const where = () => Object.fromEntries(threads().flatMap((tid) => {
  try {
    return [[tid, affinity.getAffinity(tid)]];
  } catch {
    return [];
  }
}));
const file = new URL('../../fixtures/chains/pbft-ecdsa-later.jsonl.gz', import.meta.url).pathname;
// once first, so that the workers and the reader are up before the threads are listed
await replayRecording(file, { to: 2 });
const before = where();
const during: Array<Record<number, number[]>> = [];
const report = await replayRecording(file, { prioritize: true, to: 40, onProgress: () => during.push(where()) });
const after = where();
console.log(JSON.stringify({ pid: process.pid, verdict: report.verdict, before, during, after }));
