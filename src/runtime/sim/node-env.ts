import type { Clock, Env, LogLevel, LogSink, NodeId, TimerHandle, Tracer, Transport } from '../env.js';
import { IncarnationStorage } from './incarnation-storage.js';
import { SeededRandomness } from './seeded-rng.js';
import type { SimEvent } from './sim-event.js';
import type { Incarnation, SimNode } from './sim-node.js';

/** What a node's Env needs from the simulation. */
export interface EnvHost {
  readonly seed: string;
  readonly epochMs: number;
  /** Current virtual time in µs. */
  nowUs(): number;
  setTimer(node: SimNode, life: Incarnation, delayMs: number, callback: () => void | Promise<void>): SimEvent;
  cancelTimer(node: SimNode, timer: TimerHandle): void;
  send(node: SimNode, to: NodeId, payload: Uint8Array): void;
  connectedPeers(node: SimNode): NodeId[];
  log(node: SimNode, level: LogLevel, time: number, message: string): void;
  traceEvent(node: SimNode, kind: string, fields: Readonly<Record<string, unknown>>): void;
  probeEvent(node: SimNode, kind: string, fields: Readonly<Record<string, unknown>>): void;
}

/** A no-op timer handle for timers asked of a dead incarnation. */
const DEAD_TIMER: TimerHandle = Object.freeze({ timerId: 0 });

/**
 * The Env of one incarnation of a simulated node. After a crash it is inert: sends, logs and
 * trace events are ignored, timers are never armed, and storage handles refuse use.
 */
export function createNodeEnv(host: EnvHost, node: SimNode, life: Incarnation): Env {
  const clock: Clock = {
    now: () => host.epochMs + Math.floor(node.clockUs(host.nowUs()) / 1000),
    setTimer: (delayMs, callback) => (life.alive ? host.setTimer(node, life, delayMs, callback) : DEAD_TIMER),
    cancelTimer: (timer) => {
      if (life.alive) host.cancelTimer(node, timer);
    },
  };
  const transport: Transport = {
    send: (to, payload) => {
      if (life.alive) host.send(node, to, payload);
    },
    onReceive: (handler) => {
      if (typeof handler !== 'function') throw new TypeError(`${node.name}: onReceive needs a function`);
      if (life.alive) node.receive = handler;
    },
    connectedPeers: () => (life.alive ? host.connectedPeers(node) : []),
  };
  const log: LogSink = {
    write: (level, time, message) => {
      if (life.alive) host.log(node, level, time, message);
    },
  };
  const trace: Tracer = {
    event: (kind, fields) => {
      if (life.alive) host.traceEvent(node, kind, fields);
    },
    probe: (kind, fields) => {
      if (life.alive) host.probeEvent(node, kind, fields);
    },
  };
  return Object.freeze({
    nodeName: node.name,
    clock,
    transport,
    random: new SeededRandomness(host.seed, ['node', node.name, 'incarnation', String(life.number)]),
    storage: new IncarnationStorage(node.storage, life, node.name),
    log,
    trace,
  });
}
