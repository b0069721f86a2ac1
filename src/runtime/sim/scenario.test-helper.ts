import type { Env } from '../env.js';
import { Simulation, type SimulationOptions } from './simulation.js';

/** How a node of the test scenario behaves on each message; the default is deterministic. */
export type Reaction = (env: Env, payload: Uint8Array) => void;

/**
 * A small but busy scenario exercising every fault: four nodes gossiping counters over lossy,
 * duplicating, reordering links, writing to storage, with a partition, a crash and restart, a
 * pause and a clock skew scripted in.
 */
export function busyScenario(seed: string, options: { react?: Reaction; trace?: SimulationOptions['trace'] } = {}): Simulation {
  const sim = new Simulation({
    seed,
    trace: options.trace,
    network: { latency: { kind: 'exponential', minMs: 1, meanMs: 4 }, jitterMs: 2, lossRate: 0.05, duplicateRate: 0.05, reorderRate: 0.05 },
  });
  const names = ['n0', 'n1', 'n2', 'n3'];
  const ids: string[] = [];
  for (const name of names) {
    const info = sim.addNode(name, async (env) => {
      const store = await env.storage.open('state');
      let counter = 0;
      const rng = env.random.stream('gossip');
      env.transport.onReceive(async (_from, payload) => {
        counter += payload[0]!;
        await store.put(new Uint8Array([counter & 0xff]), payload);
        options.react?.(env, payload);
        if (counter % 7 === 0) env.trace.event('lucky', { counter });
      });
      const tick = () => {
        const peers = env.transport.connectedPeers();
        if (peers.length > 0) env.transport.send(peers[rng.int(peers.length)]!, new Uint8Array([1 + rng.int(5), counter & 0xff]));
        if (counter % 5 === 0) void store.sync();
        env.clock.setTimer(20 + rng.int(20), tick);
      };
      env.clock.setTimer(rng.int(20), tick);
      env.log.write('info', env.clock.now(), `[NODE] started,id=${info.nodeId.slice(0, 8)}`);
      return undefined;
    });
    ids.push(info.nodeId);
  }
  sim.setClockSkew('n3', { offsetMs: 30, drift: 0.001 });
  sim.at(300, () => void sim.network.partition([['n0', 'n1'], ['n2', 'n3']]));
  sim.at(600, () => sim.network.heal());
  sim.at(700, () => sim.crash('n1'));
  sim.at(800, () => sim.restart('n1'));
  sim.at(900, () => sim.pause('n2'));
  sim.at(1000, () => sim.resume('n2'));
  sim.at(1100, () => sim.network.clog('n0', 'n3', 100));
  return sim;
}
