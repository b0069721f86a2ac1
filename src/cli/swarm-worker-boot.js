// Entry of the swarm-worker thread when its parent runs from the sources (swarm-pool.ts starts the compiled
// swarm-worker.js directly): the bundled worker where the build is fresh, else the sources through tsx.
import { bootWorker } from '../runtime/real/worker-boot.js';

await bootWorker('swarm-worker', new URL('./swarm-worker.ts', import.meta.url));
