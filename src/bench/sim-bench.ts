import { performance } from 'node:perf_hooks';
import { Simulation, TraceFileSink, type Env, type TraceOptions } from '../runtime/index.js';
import type { BenchIo } from './bench-io.js';
import { formatRate, table, verdict } from './measure.js';

const ROUND_MS = 1000;
const PAYLOAD_BYTES = 64;
const TARGET_16 = 500_000;

/**
 * The null protocol: every node, once per virtual second, sends one message to every other node
 * and counts what it receives. Each round is n timer events and n(n-1) deliveries.
 */
function nullProtocolSimulation(nodes: number, trace?: TraceOptions): Simulation<{ received: () => number }> {
  const sim = new Simulation<{ received: () => number }>({ seed: `bench-${nodes}`, trace });
  const names = Array.from({ length: nodes }, (_, i) => `node${i}`);
  const ids: string[] = [];
  for (const name of names) {
    const info = sim.addNode(name, (env: Env) => {
      let received = 0;
      const peers = ids.filter((id) => id !== info.nodeId);
      const payload = env.random.stream('payload').bytes(PAYLOAD_BYTES);
      env.transport.onReceive(() => {
        received++;
      });
      const round = () => {
        for (const peer of peers) env.transport.send(peer, payload);
        env.clock.setTimer(ROUND_MS, round);
      };
      env.clock.setTimer(ROUND_MS, round);
      return { received: () => received };
    });
    ids.push(info.nodeId);
  }
  return sim;
}

interface Measured {
  readonly events: number;
  readonly wallMs: number;
  readonly virtualMs: number;
}

async function measure(nodes: number, minWallMs: number, trace?: TraceOptions, withHook = false): Promise<Measured> {
  const sim = nullProtocolSimulation(nodes, trace);
  if (withHook) {
    // the shape of an invariant checker: a cheap check after every event
    let expected = sim.eventCount;
    sim.afterEvent((event) => {
      if (event.index !== expected++) throw new Error(`event #${expected - 1} was skipped`);
    });
  }
  const roundsPerChunk = Math.max(1, Math.floor(20_000 / (nodes * nodes)));
  await sim.run({ forMs: ROUND_MS * roundsPerChunk + ROUND_MS / 2 }); // warm-up
  const events0 = sim.eventCount;
  const virtual0 = sim.now;
  const start = performance.now();
  let wallMs = 0;
  while (wallMs < minWallMs) {
    await sim.run({ forMs: ROUND_MS * roundsPerChunk });
    wallMs = performance.now() - start;
  }
  return { events: sim.eventCount - events0, wallMs, virtualMs: sim.now - virtual0 };
}

export async function run(io: BenchIo): Promise<void> {
  io.out(
    `sim: null protocol (all-to-all ${PAYLOAD_BYTES}-byte messages, one round per virtual second, uniform 1-5 ms links), ` +
      'digest-only trace unless noted, ~1.5 s per row\n',
  );
  const rows: string[][] = [];
  const row = (label: string, m: Measured, target?: number) => {
    const perSecond = m.events / (m.wallMs / 1000);
    rows.push([label, formatRate(perSecond), `${formatRate(m.virtualMs / m.wallMs)}×`, target === undefined ? '' : verdict(perSecond, target)]);
  };
  for (const nodes of [4, 16, 64, 256]) {
    row(`${nodes} nodes`, await measure(nodes, 1500), nodes === 16 ? TARGET_16 : undefined);
  }
  row('16 nodes, afterEvent hook', await measure(16, 1500, undefined, true));
  let bytes = 0;
  row('16 nodes, JSON lines to a sink', await measure(16, 1500, { sink: { write: (line) => void (bytes += line.length) } }));
  const file = new TraceFileSink('/dev/null');
  try {
    row('16 nodes, JSON lines to a file', await measure(16, 1500, { sink: file }));
  } finally {
    file.close();
  }
  io.out(table(['network', 'events per second', 'virtual : wall', 'target'], rows));
}
