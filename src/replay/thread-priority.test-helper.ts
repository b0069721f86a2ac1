// Run by thread-priority.test.ts in a process of its own (lowering priorities is not undone):
// a worker that lowers itself, one that does not, then yieldToThisThread on the main thread.
// Prints what each thread's niceness was before and after, as JSON.
import { getPriority } from 'node:os';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { currentThreadId, lowerThisThread, yieldToThisThread } from './thread-priority.js';

if (isMainThread) {
  const start = (mode: 'lower' | 'stay') =>
    new Promise<{ worker: Worker; tid: number }>((resolve, reject) => {
      // a worker registers tsx for itself before it loads this file
      const boot = `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(import.meta.url)}); })`;
      const worker = new Worker(boot, { eval: true, workerData: mode });
      worker.once('message', (tid: number) => resolve({ worker, tid }));
      worker.once('error', reject);
    });
  const lowering = await start('lower');
  const staying = await start('stay');
  const self = currentThreadId()!;
  const before = { self: getPriority(self), lowering: getPriority(lowering.tid), staying: getPriority(staying.tid) };
  const lowered = yieldToThisThread();
  const after = { self: getPriority(self), lowering: getPriority(lowering.tid), staying: getPriority(staying.tid) };
  const again = yieldToThisThread();
  await Promise.all([lowering.worker.terminate(), staying.worker.terminate()]);
  console.log(JSON.stringify({ self, pid: process.pid, before, after, lowered, again }));
} else {
  if (workerData === 'lower') lowerThisThread();
  parentPort!.postMessage(currentThreadId());
  // stays alive until terminated
  setInterval(() => undefined, 1000);
}
