// Entry of a swarm worker thread when the CLI runs from the sources (compiled, swarm-pool.ts
// starts dist/cli/swarm-worker.js directly). Like bin/twinchain.js it runs the TypeScript sources
// through tsx, which a worker must register for itself (also when the parent runs under vitest).
import { register } from 'tsx/esm/api';

register();
await import('./swarm-worker.ts');
