// The package's main entry point, `twinchain`: everything of its four public entry points,
// which can also be imported on their own (package.json "exports"):
//   twinchain/simulation    the simulation kernel and simulated chains (src/simulation.ts)
//   twinchain/rpc           the JSON-RPC service, its HTTP server and a client (src/rpc)
//   twinchain/scenario      the scenario loader and runner, summaries and reports (src/sim/scenario)
//   twinchain/conformance   the conformance suite against any endpoint (src/conformance)
export * from './simulation.js';
export * from './rpc/index.js';
export * from './sim/scenario/index.js';
export * from './conformance/index.js';
