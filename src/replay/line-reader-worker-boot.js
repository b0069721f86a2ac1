// Entry of replay's reader thread when running from the sources (compiled, block-feed.ts starts
// dist/replay/line-reader-worker.js directly). Like bin/twinchain.js it runs the TypeScript
// sources through tsx, which a worker must register for itself (also when the parent runs under
// vitest).
import { register } from 'tsx/esm/api';

register();
await import('./line-reader-worker.ts');
