import type { KvStoreFactory } from '../storage/index.js';

/**
 * The ports through which a node touches the world (DESIGN.md, "The one rule"). Protocol code
 * gets an Env and nothing else: the simulator provides virtual implementations, a real node
 * process provides wall-clock, TCP/TLS, crypto randomness and LevelDB ones.
 */
export interface Env {
  /** Human label of this node, e.g. "node0"; used in logs and traces only. */
  readonly nodeName: string;
  readonly clock: Clock;
  readonly transport: Transport;
  readonly random: Randomness;
  readonly storage: KvStoreFactory;
  readonly log: LogSink;
  readonly trace: Tracer;
}

/** A FISCO node id: the 64-byte public key as 128 lower-case hex characters, no prefix. */
export type NodeId = string;

export interface Clock {
  /** This node's current time in ms since the Unix epoch (virtual and possibly skewed in simulation). */
  now(): number;
  /**
   * Run `callback` once after `delayMs` of this node's time. An async callback is awaited before
   * the simulator runs the next event. Timers die with the node (crash, stop).
   */
  setTimer(delayMs: number, callback: () => void | Promise<void>): TimerHandle;
  /** Cancel a timer; cancelling one that already fired or was cancelled does nothing. */
  cancelTimer(timer: TimerHandle): void;
}

/** Opaque timer reference. */
export interface TimerHandle {
  readonly timerId: number;
}

export interface Transport {
  /**
   * Send bytes to a peer. Fire and forget: a message can be lost, delayed, duplicated or
   * reordered, and sending to a disconnected peer is not an error.
   */
  send(to: NodeId, payload: Uint8Array): void;
  /** Set the one handler for incoming messages. An async handler is awaited (simulation) before the next event. */
  onReceive(handler: (from: NodeId, payload: Uint8Array) => void | Promise<void>): void;
  /** Peers this node has a working connection to right now. */
  connectedPeers(): NodeId[];
}

/** A deterministic random stream. */
export interface Rng {
  /** Uniform in [0, 1). */
  next(): number;
  /** Uniform integer in [0, maxExclusive). */
  int(maxExclusive: number): number;
  bytes(length: number): Uint8Array;
}

export interface Randomness {
  /**
   * The stream for a named subsystem of this node ("pbft", "txpool", "keys"...). In simulation it
   * is derived from (scenario seed, node, name), so adding a node or subsystem does not change
   * the draws of the others. The same name returns the same stream object.
   */
  stream(name: string): Rng;
}

export type LogLevel = 'trace' | 'debug' | 'info' | 'warning' | 'error';

/** Where FISCO-format log lines go (files under log/ for a real node, the trace in simulation). */
export interface LogSink {
  /**
   * `message` is everything after the timestamp column, e.g.
   * `[g:1][CONSENSUS][SEALER]++++++++++++++++ Generating seal on,blkNum=1,...`; `time` is the
   * node's clock reading (ms). The sink adds `level|timestamp|`.
   */
  write(level: LogLevel, time: number, message: string): void;
}

/** Structured events for the simulation trace and reports; a no-op on real nodes unless asked for. */
export interface Tracer {
  event(kind: string, fields: Readonly<Record<string, unknown>>): void;
  /**
   * An event for observers only (invariant monitors: say, which block hash a node's executor
   * computed), never written to the trace, so adding a probe changes no trace or digest.
   */
  probe(kind: string, fields: Readonly<Record<string, unknown>>): void;
}
