import { parentPort, workerData } from 'node:worker_threads';
import { errorOutcome, runSwarmSeed, type SeedOutcome, type SwarmTask } from './swarm-seed.js';

/**
 * A swarm worker thread (started through swarm-worker-boot.js): runs the seeds the parent
 * sends, one at a time, and posts back each seed's outcome.
 */
const task = workerData as SwarmTask;
const port = parentPort;
if (!port) throw new Error('swarm-worker must run in a worker thread');

port.on('message', (message: { seed: number }) => {
  const reply = (outcome: SeedOutcome) => port.postMessage(outcome);
  runSwarmSeed(task, message.seed).then(reply, (e: unknown) => reply(errorOutcome(task, message.seed, e instanceof Error ? e.message : String(e))));
});
