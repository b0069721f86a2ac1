// Entry of a shrink worker thread when the CLI runs from the sources (compiled, shrink-pool.ts
// starts dist/cli/shrink-worker.js directly). Like bin/twinchain.js it runs the TypeScript sources
// through tsx, which a worker must register for itself (also when the parent runs under vitest).
import { register } from 'tsx/esm/api';

register();
await import('./shrink-worker.ts');
