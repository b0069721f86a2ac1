import type { Env } from '../env.js';
import { Simulation, type SimulationOptions } from './simulation.js';

/** What a probe node saw arrive. */
export interface Arrival {
  readonly from: string;
  /** Virtual ms. */
  readonly at: number;
  readonly seq: number;
}

/** A test node: records arrivals and timer firings, sends numbered messages on request. */
export interface Probe {
  readonly env: Env;
  readonly arrivals: Arrival[];
  readonly timerFirings: number[];
  /** Sends message `seq` (4 bytes big-endian, padded to `bytes`) to the node named `to`. */
  send(to: string, seq: number, bytes?: number): void;
  /** Sends `count` messages to `to`, one every `intervalMs`, starting now; numbered from 0. */
  stream(to: string, intervalMs: number, count: number): void;
  /** Arms a repeating timer that records its firings. */
  tick(intervalMs: number): void;
}

export function encodeSeq(seq: number, bytes = 4): Uint8Array {
  const payload = new Uint8Array(Math.max(4, bytes));
  new DataView(payload.buffer).setUint32(0, seq);
  return payload;
}

/** A simulation of probe nodes. */
export function probeSimulation(names: readonly string[], options: Partial<SimulationOptions> = {}): Simulation<Probe> {
  const sim = new Simulation<Probe>({ seed: 'probe', ...options });
  const idOf = new Map<string, string>();
  const nameOf = new Map<string, string>();
  for (const name of names) {
    const info = sim.addNode(name, (env) => probe(sim, env, idOf, nameOf));
    idOf.set(name, info.nodeId);
    nameOf.set(info.nodeId, name);
  }
  return sim;
}

function probe(sim: Simulation<Probe>, env: Env, idOf: Map<string, string>, nameOf: Map<string, string>): Probe {
  const self: Probe = {
    env,
    arrivals: [],
    timerFirings: [],
    send(to, seq, bytes = 4) {
      env.transport.send(idOf.get(to) ?? to, encodeSeq(seq, bytes));
    },
    stream(to, intervalMs, count) {
      let seq = 0;
      const next = () => {
        self.send(to, seq++);
        if (seq < count) env.clock.setTimer(intervalMs, next);
      };
      next();
    },
    tick(intervalMs) {
      const fire = () => {
        self.timerFirings.push(sim.now);
        env.clock.setTimer(intervalMs, fire);
      };
      env.clock.setTimer(intervalMs, fire);
    },
  };
  env.transport.onReceive((from, payload) => {
    self.arrivals.push({ from: nameOf.get(from) ?? from, at: sim.now, seq: new DataView(payload.buffer, payload.byteOffset).getUint32(0) });
  });
  return self;
}

/** Number of pairs received out of send order. */
export function inversions(seqs: readonly number[]): number {
  let count = 0;
  let highest = -1;
  for (const seq of seqs) {
    if (seq < highest) count++;
    else highest = seq;
  }
  return count;
}
