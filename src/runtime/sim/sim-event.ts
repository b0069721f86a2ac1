import type { TimerHandle } from '../env.js';
import type { Link } from './link.js';
import type { SimNode } from './sim-node.js';

export const BOOT = 0;
export const DELIVER = 1;
export const TIMER = 2;
export const ACTION = 3;
export const EXTERNAL = 4;

/** Names of the event kinds, by code. */
export const eventKindNames = ['boot', 'deliver', 'timer', 'action', 'external'] as const;
export type EventKindName = (typeof eventKindNames)[number];

/**
 * One scheduled event. A single class with every field, so the heap and the dispatcher see one
 * object shape; a timer event doubles as the TimerHandle given to the node.
 */
export class SimEvent implements TimerHandle {
  /** Virtual time in whole microseconds. */
  time = 0;
  /** Tie-breaker: the order events were scheduled in. */
  seq = 0;
  kind = BOOT;
  /** The node the event runs on, or null for scripted and unbound external work. */
  node: SimNode | null = null;
  /** The node incarnation this event belongs to (timers, deliveries, boots). */
  incarnation = 0;
  cancelled = false;

  // deliveries
  from: SimNode | null = null;
  link: Link | null = null;
  payload: Uint8Array | null = null;
  payloadHash = 0;
  sentAt = 0;
  duplicate = false;

  // timers
  timerId = 0;
  callback: (() => void | Promise<void>) | null = null;

  // actions and external work
  work: (() => unknown) | null = null;
  label = '';
  settle: ((error: unknown, value?: unknown) => void) | null = null;
}
