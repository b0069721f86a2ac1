// Entry of the crypto-worker thread when its parent runs from the sources (crypto-ahead.ts starts the compiled
// crypto-worker.js directly): the bundled worker where the build is fresh, else the sources through tsx.
import { bootWorker } from '../runtime/real/worker-boot.js';

await bootWorker('crypto-worker', new URL('./crypto-worker.ts', import.meta.url));
