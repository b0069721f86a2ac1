// The simulation kernel: four nodes of a tiny gossip protocol over virtual time, with a
// partition, a crash and a restart, an invariant checked after every event, and the determinism
// check. Run: npx tsx examples/simulation.ts
import { checkDeterminism, Simulation, type Env } from 'twinchain/simulation';

const NAMES = ['node0', 'node1', 'node2', 'node3'];

/** A node that sends a ping to every connected peer each second and counts the pings it gets. */
function startNode(env: Env): { received: number } {
  const state = { received: 0 };
  env.transport.onReceive(() => void state.received++);
  const tick = (): void => {
    for (const peer of env.transport.connectedPeers()) env.transport.send(peer, new TextEncoder().encode('ping'));
    env.clock.setTimer(1_000, tick);
  };
  env.clock.setTimer(1_000, tick);
  return state;
}

function buildScenario(seed: string): Simulation {
  const sim = new Simulation({ seed, network: { latency: { kind: 'exponential', minMs: 1, meanMs: 5 }, lossRate: 0.01 } });
  for (const name of NAMES) sim.addNode(name, (env) => startNode(env));
  sim.at(5_000, () => void sim.network.partition([['node0', 'node1'], ['node2', 'node3']]));
  sim.at(9_000, () => sim.network.heal());
  sim.at(12_000, () => sim.crash('node2'));
  sim.at(15_000, () => sim.restart('node2'));
  return sim;
}

/** Fails the run if a node is neither up nor down for a reason the timeline gave. */
function checkInvariants(sim: Simulation): void {
  if (sim.now > 12_000 && sim.now < 15_000 && sim.node('node2').state === 'up') throw new Error('node2 should be down');
}

const sim = buildScenario('issue-42');
sim.afterEvent(() => checkInvariants(sim)); // after every event
const result = await sim.run({ until: 60_000 }); // { reason, events, now, digest }
console.log(`${result.reason} after ${result.events} events at ${result.now} ms, digest ${result.digest}`);
const report = await checkDeterminism(buildScenario, { seed: 'issue-42', until: 60_000 });
console.log(`deterministic: ${report.deterministic}`);
