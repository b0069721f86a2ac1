// Entry of replay's signature worker thread when running from the sources (compiled,
// crypto-ahead.ts starts dist/replay/crypto-worker.js directly). Like bin/twinchain.js it runs
// the TypeScript sources through tsx, which a worker must register for itself (also when the
// parent runs under vitest).
import { register } from 'tsx/esm/api';

register();
await import('./crypto-worker.ts');
