// Dev/test doubles behind the real NodeApi, for RPC tests, conformance self-tests and benchmarks.
export { DevNode, seededRandom, type DevNodeOptions } from './dev-node.js';
export { DevGroup, type DevGroupOptions } from './dev-group.js';
