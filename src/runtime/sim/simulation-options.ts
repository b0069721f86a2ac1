// The simulation kernel's options, the views it gives of its nodes and events, and what a run returns (simulation.ts).
import type { MemoryStoreFactory } from '../../storage/index.js';
import type { LogLevel, NodeId } from '../env.js';
import type { LinkConfig } from './link-config.js';
import type { EventKindName } from './sim-event.js';
import type { NodeState } from './sim-node.js';
import type { TraceOptions } from './trace.js';
import type { WallClock } from './wall-clock.js';

export interface SimulationOptions {
  /** The scenario seed; every random draw of the run derives from it. */
  readonly seed: string | number;
  /** Unix ms that virtual time 0 stands for (default 2026-01-01T00:00:00Z). */
  readonly epochMs?: number;
  /** Default settings of every link (merged into `defaultLinkConfig`). */
  readonly network?: Partial<LinkConfig>;
  readonly trace?: TraceOptions;
  /** Lowest log level captured into the trace (default "info"). */
  readonly logLevel?: LogLevel;
  /** Also receives every captured log line, FISCO-formatted, with the node's name. */
  readonly onLog?: (node: string, line: string) => void;
  /**
   * Also receives every event a node reports through its Env tracer, as it happens (virtual ms),
   * e.g. for invariant checkers and reports that must not re-parse the trace; probes
   * (Tracer.probe) come here only, never into the trace.
   */
  readonly onNodeEvent?: (node: string, kind: string, fields: Readonly<Record<string, unknown>>, timeMs: number) => void;
  /**
   * Events at one virtual instant before the run stops as stuck (default 1,000,000): a handler
   * that keeps scheduling work for "now" would otherwise spin for ever without the clock moving.
   */
  readonly maxEventsPerInstant?: number;
}

export interface AddNodeOptions {
  /** 128 lower-case hex digits; default derived from (seed, "node-id", name). */
  readonly nodeId?: NodeId;
  /**
   * Twins (BFT testing): the name of a node already added whose identity this one shares. The
   * new node gets that node's id (`nodeId`, if also given, must be the same); see
   * VirtualNetwork.transmit for how messages to a shared id are delivered.
   */
  readonly twinOf?: string;
  readonly clockSkew?: ClockSkew;
}

/** From the moment it is set, a node's clock reads true time + offsetMs and runs at rate 1 + drift. */
export interface ClockSkew {
  readonly offsetMs?: number;
  /** e.g. 0.001: the clock gains 1 ms per virtual second; timers fire that much sooner. Must be > -1. */
  readonly drift?: number;
}

/** A snapshot of one node. */
export interface SimNodeInfo<H> {
  readonly name: string;
  readonly nodeId: NodeId;
  readonly state: NodeState;
  /** Boots so far (the running incarnation while up or paused). */
  readonly incarnation: number;
  /** What boot returned for the running incarnation; undefined while down or booting. */
  readonly handle: H | undefined;
  /** The node's simulated disk. */
  readonly storage: MemoryStoreFactory;
  /** The node's clock reading now (Unix ms, skew applied). */
  readonly clockNow: number;
}

/** The event that just ran; one object reused for every event, valid during the callback only. */
export interface EventView {
  /** Events run so far minus one: 0 for the first event. */
  readonly index: number;
  /** Virtual ms. */
  readonly time: number;
  readonly kind: EventKindName;
  readonly node: string | null;
}

export type StopReason = 'until' | 'max-events' | 'stop-when' | 'idle' | 'stopped';

export interface RunOptions {
  /** Stop at this virtual time (ms): events at it run, later ones wait, and `now` becomes it. */
  readonly until?: number;
  /** Same as `until: now + forMs`. */
  readonly forMs?: number;
  /** Stop after this many events. */
  readonly maxEvents?: number;
  /** Checked after every event (after the afterEvent hooks). */
  readonly stopWhen?: (event: EventView) => boolean;
  /** Follow the wall clock instead of running as fast as possible. */
  readonly pace?: PaceOptions;
}

export interface PaceOptions {
  /** Virtual ms per wall ms (default 1: real time). */
  readonly rate?: number;
  /** Default: the real monotonic clock. */
  readonly wall?: WallClock;
}

export interface RunResult {
  readonly reason: StopReason;
  /** Events run by this call. */
  readonly events: number;
  /** Virtual ms at the end. */
  readonly now: number;
  readonly digest: string;
}

export interface InjectOptions {
  /** The node the work is for: it waits while the node is paused and fails if the node is down. */
  readonly node?: string;
  /** Shown in the trace (default "external"). */
  readonly label?: string;
}
