import { parentPort, workerData } from 'node:worker_threads';
import { errorOutcome, runCandidate, type CandidateJob, type CandidateOutcome } from '../sim/index.js';

/**
 * A shrink worker thread (started through shrink-worker-boot.js): runs the candidates the parent
 * sends, one at a time, and posts back each outcome (null when the parent cancelled it, by
 * setting the shared flag it checks after every simulation event).
 */
const { file, cancel } = workerData as { file: string; cancel: SharedArrayBuffer };
const flag = new Int32Array(cancel);
const port = parentPort;
if (!port) throw new Error('shrink-worker must run in a worker thread');

port.on('message', (job: CandidateJob) => {
  const reply = (outcome: CandidateOutcome | undefined) => port.postMessage(outcome ?? null);
  runCandidate(job, { file, cancelled: () => Atomics.load(flag, 0) === 1 }).then(reply, (e: unknown) => reply(errorOutcome(e)));
});
