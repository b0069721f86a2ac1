/** A misuse of the simulator (bad option, unknown node, wrong state) or a failure inside a simulated node. */
export class SimulationError extends Error {
  override readonly name = 'SimulationError';
}
