// Entry of the shrink-worker thread when its parent runs from the sources (shrink-pool.ts starts the compiled
// shrink-worker.js directly): the bundled worker where the build is fresh, else the sources through tsx.
import { bootWorker } from '../runtime/real/worker-boot.js';

await bootWorker('shrink-worker', new URL('./shrink-worker.ts', import.meta.url));
