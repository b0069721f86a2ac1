import type { LinkConfig } from './link-config.js';
import type { SeededRng } from './seeded-rng.js';
import type { SimNode } from './sim-node.js';

/** Traffic counters of one directed link. */
export interface LinkStats {
  readonly from: string;
  readonly to: string;
  /** Messages handed to the link (duplicates not counted). */
  readonly sent: number;
  /** Messages handed to the receiver's handler (duplicates included). */
  readonly delivered: number;
  /** Extra copies the link created. */
  readonly duplicated: number;
  /** Messages (or copies) on the wire now. */
  readonly inFlight: number;
  readonly dropped: DropCounts;
}

export interface DropCounts {
  /** Lost by the link's loss rate. */
  readonly loss: number;
  /** Sent across, or in flight when a partition cut the link. */
  readonly partition: number;
  /** The link already held `queueCapacity` messages. */
  readonly queueFull: number;
  /** The receiver was down, or crashed or restarted while the message was in flight. */
  readonly nodeDown: number;
  /** The receiver had not registered a receive handler. */
  readonly noHandler: number;
  /** A message-kind fault (VirtualNetwork.messageFault) dropped it. */
  readonly kind: number;
  readonly total: number;
}

/** State and counters of one directed link (created on first use). */
export class Link {
  /** Resolved settings; refreshed when `configVersion` falls behind the network's. */
  config!: LinkConfig;
  configVersion = -1;
  /** This link's own settings on top of the network default, or null. */
  override: Partial<LinkConfig> | null = null;
  /** Number of partitions currently cutting this direction. */
  blocked = 0;
  /** Deliveries wait until this virtual time (µs). */
  clogUntil = 0;
  /** The latest in-order delivery time so far (µs): later in-order messages never arrive earlier. */
  fifoUntil = 0;
  inFlight = 0;
  sent = 0;
  delivered = 0;
  duplicated = 0;
  droppedLoss = 0;
  droppedPartition = 0;
  droppedQueueFull = 0;
  droppedNodeDown = 0;
  droppedNoHandler = 0;
  droppedKind = 0;
  /** Draws of message-kind faults that drop with a probability: a stream of its own, so the link's nine draws per message stay as they are. */
  kindRng: SeededRng | null = null;

  constructor(
    readonly from: SimNode,
    readonly to: SimNode,
    readonly rng: SeededRng,
  ) {}

  stats(): LinkStats {
    return {
      from: this.from.name,
      to: this.to.name,
      sent: this.sent,
      delivered: this.delivered,
      duplicated: this.duplicated,
      inFlight: this.inFlight,
      dropped: {
        loss: this.droppedLoss,
        partition: this.droppedPartition,
        queueFull: this.droppedQueueFull,
        nodeDown: this.droppedNodeDown,
        noHandler: this.droppedNoHandler,
        kind: this.droppedKind,
        total: this.droppedLoss + this.droppedPartition + this.droppedQueueFull + this.droppedNodeDown + this.droppedNoHandler + this.droppedKind,
      },
    };
  }
}
