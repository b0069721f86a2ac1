// Entry of the line-reader-worker thread when its parent runs from the sources (block-feed.ts starts the compiled
// line-reader-worker.js directly): the bundled worker where the build is fresh, else the sources through tsx.
import { bootWorker } from '../runtime/real/worker-boot.js';

await bootWorker('line-reader-worker', new URL('./line-reader-worker.ts', import.meta.url));
