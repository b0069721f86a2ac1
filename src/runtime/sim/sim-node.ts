import type { Env, NodeId } from '../env.js';
import { MemoryStoreFactory } from '../../storage/index.js';
import type { Link } from './link.js';
import type { SimEvent } from './sim-event.js';

/** booting: added or restarted, boot not run yet; up: running; paused: stopped like SIGSTOP; down: crashed. */
export type NodeState = 'booting' | 'up' | 'paused' | 'down';

/** Builds a node on an Env; called again with a fresh Env after every restart. */
export type BootFunction<H> = (env: Env) => H | Promise<H>;

/** Liveness token of one incarnation; its Env stops working when `alive` turns false. */
export interface Incarnation {
  readonly number: number;
  alive: boolean;
}

/** The simulator's record of one node across its incarnations. */
export class SimNode<H = unknown> {
  state: NodeState = 'booting';
  /** Boots so far; the running incarnation's number while up or paused. */
  incarnation = 0;
  life: Incarnation | null = null;
  handle: H | undefined = undefined;
  receive: ((from: NodeId, payload: Uint8Array) => void | Promise<void>) | null = null;
  /** Outgoing links by destination index. */
  readonly out: (Link | undefined)[] = [];
  /** Events that came due while paused, in order; rescheduled on resume. */
  deferred: SimEvent[] = [];
  pendingBoot: SimEvent | null = null;
  /** The disk: survives crashes, minus unsynced writes. */
  readonly storage = new MemoryStoreFactory();
  nextTimerId = 1;
  /** Sends to an address no node has. */
  unroutable = 0;
  offsetUs = 0;
  drift = 0;
  skewSinceUs = 0;
  peersCache: NodeId[] | null = null;
  peersVersion = -1;
  /**
   * Twins: every node sharing this node's id (itself included, in the order they were added), one
   * array shared by all of them; null while the id is this node's alone.
   */
  instances: SimNode<H>[] | null = null;

  constructor(
    readonly index: number,
    readonly name: string,
    readonly nodeId: NodeId,
    readonly boot: BootFunction<H>,
  ) {}

  /** This node's clock reading (µs since the epoch's zero) at virtual time `tUs`. */
  clockUs(tUs: number): number {
    return tUs + this.offsetUs + (tUs - this.skewSinceUs) * this.drift;
  }
}
