import type { NodeId } from '../env.js';
import { hashBytes } from './fold-hash.js';
import { Link, type DropCounts, type LinkStats } from './link.js';
import { defaultLinkConfig, patchLinkConfig, sampleLatencyUs, type LinkConfig } from './link-config.js';
import { SeededRng, deriveSeed } from './seeded-rng.js';
import { DELIVER, SimEvent } from './sim-event.js';
import type { SimNode } from './sim-node.js';
import { SimulationError } from './simulation-error.js';
import type { Trace } from './trace.js';

/** What the network needs from the simulation. */
export interface NetworkHost {
  readonly seed: string;
  readonly trace: Trace;
  nowUs(): number;
  schedule(event: SimEvent): void;
  nodeByName(name: string, where: string): SimNode;
  nodeById(id: NodeId): SimNode | undefined;
  allNodes(): readonly SimNode[];
}

/** One node name or several. */
export type NodeNames = string | readonly string[];

/** A partition in force; give it to `heal` to lift it alone. */
export interface Partition {
  readonly id: number;
  /** For traces and messages, e.g. "node0,node1 | node2,node3" or "node0 -> node1". */
  readonly description: string;
}

/** Traffic of one node, summed over its links. */
export interface NodeTrafficStats {
  readonly name: string;
  /** Messages it sent, to any known node. */
  readonly sent: number;
  /** Messages (and copies) its receive handler got. */
  readonly received: number;
  /** Its messages dropped, by cause. */
  readonly droppedOutbound: DropCounts;
  /** Messages to it dropped, by cause. */
  readonly droppedInbound: DropCounts;
  /** Sends to an address no node has. */
  readonly unroutable: number;
}

/** Traffic of the whole network. */
export interface TrafficTotals {
  readonly sent: number;
  readonly delivered: number;
  readonly duplicated: number;
  readonly inFlight: number;
  readonly dropped: DropCounts;
  readonly unroutable: number;
}

/**
 * Watches the wire from outside the nodes (invariant monitors): every message a node hands to the
 * network (`sent`, before any fault acts on it) and every message a receive handler gets
 * (`delivered`). Observers must not change the payload; they see it, they do not steer it.
 */
export interface WireObserver {
  sent?(from: string, to: string, payload: Uint8Array, timeMs: number): void;
  delivered?(from: string, to: string, payload: Uint8Array, timeMs: number): void;
}

/**
 * Names the kind of a message from its bytes (e.g. "pbft.commit"), or undefined when it has none.
 * The node layer supplies it (the network itself carries opaque bytes); it must be pure and cheap.
 */
export type MessageClassifier = (payload: Uint8Array) => string | undefined;

/** A message-kind fault: drop or delay the messages of some kinds on some links for a while. */
export interface MessageFaultSpec {
  /** Kind names as the classifier gives them; a message of any of them is affected. */
  readonly kinds: readonly string[];
  /** Senders (default: every node). */
  readonly from?: NodeNames;
  /** Receivers (default: every node). */
  readonly to?: NodeNames;
  /** Drop every such message (true), or each with this probability (0 < p ≤ 1). */
  readonly drop?: true | number;
  /** Add this many ms to each such message's latency. */
  readonly delayMs?: number;
  /** How long the fault lasts from now, in virtual ms. */
  readonly durationMs: number;
}

/** A message-kind fault in force; give it to `liftMessageFault` to end it early. */
export interface MessageFault {
  readonly id: number;
  /** For traces and messages, e.g. "drop pbft.commit * -> node2". */
  readonly description: string;
}

interface MessageFaultState extends MessageFault {
  readonly kinds: ReadonlySet<string>;
  /** Node indexes, or null for every node. */
  readonly from: ReadonlySet<number> | null;
  readonly to: ReadonlySet<number> | null;
  /** Drop probability (1 = always; 0 = none, a delay). */
  readonly drop: number;
  readonly delayUs: number;
  readonly untilUs: number;
}

/** Returned by `arrive` when the delivery was put off (clog, paused receiver): not an event yet. */
export const DEFERRED: unique symbol = Symbol('deferred');
export type Deferred = typeof DEFERRED;

interface PartitionState extends Partition {
  readonly links: Link[];
}

const NO_DROPS: DropCounts = Object.freeze({ loss: 0, partition: 0, queueFull: 0, nodeDown: 0, noHandler: 0, kind: 0, total: 0 });
const DROP_KIND: unique symbol = Symbol('drop-kind');

/**
 * The virtual network: directed links with latency, jitter, loss, duplication, reordering and
 * queue limits, plus partitions (symmetric and one-way) and clogs, all changeable at any virtual
 * time. Each link draws from its own random stream (seed, "network", from, to), a fixed nine
 * draws per message, so changing one link's settings or adding a node never shifts another
 * link's draws.
 *
 * Settings changes apply to messages sent afterwards; partitions and clogs also act on messages
 * already in flight (a partition drops them at arrival, a clog holds them until it ends).
 */
export class VirtualNetwork {
  private defaultConfig: LinkConfig = defaultLinkConfig;
  private version = 0;
  private topology = 0;
  private readonly active: PartitionState[] = [];
  private nextPartitionId = 1;
  private lastPayload: Uint8Array | null = null;
  private lastHash = 0;
  private observers: WireObserver[] = [];
  private classifier: MessageClassifier | null = null;
  private kindFaults: MessageFaultState[] = [];
  private nextKindFaultId = 1;

  /** @internal created by the Simulation */
  constructor(
    private readonly host: NetworkHost,
    defaults?: Partial<LinkConfig>,
  ) {
    if (defaults) this.defaultConfig = patchLinkConfig(defaultLinkConfig, defaults, 'network defaults');
  }

  /** Adds a wire observer (see WireObserver); returns the function that removes it. */
  observe(observer: WireObserver): () => void {
    this.observers = [...this.observers, observer];
    return () => {
      this.observers = this.observers.filter((o) => o !== observer);
    };
  }

  /** Installs the function that names message kinds for message-kind faults (see MessageClassifier). */
  setClassifier(classifier: MessageClassifier | null): void {
    this.classifier = classifier;
  }

  /**
   * Drops or delays, for `durationMs` from now, the messages of the given kinds that go from
   * each of `from` to each of `to` (default: all nodes). It acts on a message when it is sent: a
   * dropped one is counted and traced under the cause "kind"; a delayed one arrives `delayMs`
   * later than it would have, without holding back the link's other messages (messages of one
   * delayed kind keep their order among themselves). Probabilistic drops draw from a stream of
   * their own per link (seed, "network-kind", from, to), so the links' own draws do not move.
   * Messages are classified only while some message-kind fault is in force.
   */
  messageFault(spec: MessageFaultSpec): MessageFault {
    const where = 'network.messageFault';
    if (this.classifier === null) throw new SimulationError(`${where}: no message classifier is installed (setClassifier)`);
    if (!Array.isArray(spec.kinds) || spec.kinds.length === 0 || spec.kinds.some((k) => typeof k !== 'string')) {
      throw new SimulationError(`${where}: kinds must be a non-empty list of kind names`);
    }
    const hasDrop = spec.drop !== undefined;
    const hasDelay = spec.delayMs !== undefined;
    if (hasDrop === hasDelay) throw new SimulationError(`${where}: give exactly one of drop and delayMs`);
    const drop = spec.drop === true ? 1 : (spec.drop ?? 0);
    if (hasDrop && (typeof drop !== 'number' || !(drop > 0 && drop <= 1))) throw new SimulationError(`${where}: drop must be true or a probability in (0, 1] (got ${String(spec.drop)})`);
    const delayMs = spec.delayMs ?? 0;
    if (typeof delayMs !== 'number' || !Number.isFinite(delayMs) || delayMs < 0) throw new SimulationError(`${where}: delayMs must be a finite number ≥ 0 (got ${String(spec.delayMs)})`);
    if (typeof spec.durationMs !== 'number' || !Number.isFinite(spec.durationMs) || spec.durationMs < 0) {
      throw new SimulationError(`${where}: durationMs must be a finite number ≥ 0 (got ${String(spec.durationMs)})`);
    }
    const indexes = (names: NodeNames | undefined) => (names === undefined ? null : new Set(this.resolve(names, where).map((n) => n.index)));
    const kinds = [...new Set(spec.kinds)];
    const action = hasDrop ? (drop === 1 ? 'drop' : `drop ${drop}`) : `delay ${delayMs} ms`;
    const side = (names: NodeNames | undefined) => (names === undefined ? '*' : [names].flat().join(','));
    const state: MessageFaultState = {
      id: this.nextKindFaultId++,
      description: `${action} ${kinds.join(',')} ${side(spec.from)} -> ${side(spec.to)}`,
      kinds: new Set(kinds),
      from: indexes(spec.from),
      to: indexes(spec.to),
      drop,
      delayUs: Math.round(delayMs * 1000),
      untilUs: this.host.nowUs() + Math.round(spec.durationMs * 1000),
    };
    this.kindFaults = [...this.kindFaults.filter((f) => f.untilUs > this.host.nowUs()), state];
    this.traceChange({ op: 'message-fault', id: state.id, kinds, from: spec.from ?? null, to: spec.to ?? null, drop: hasDrop ? drop : null, delayMs: hasDelay ? delayMs : null, durationMs: spec.durationMs });
    return { id: state.id, description: state.description };
  }

  /** Ends one message-kind fault, or all of them when none is given. Lifting an ended fault does nothing. */
  liftMessageFault(fault?: MessageFault): void {
    const now = this.host.nowUs();
    const lifted = this.kindFaults.filter((f) => f.untilUs > now && (fault === undefined || f.id === fault.id));
    this.kindFaults = this.kindFaults.filter((f) => f.untilUs > now && !lifted.includes(f));
    if (lifted.length > 0) this.traceChange({ op: 'lift-message-fault', ids: lifted.map((f) => f.id) });
  }

  /** Message-kind faults in force. */
  get messageFaults(): readonly MessageFault[] {
    const now = this.host.nowUs();
    return this.kindFaults.filter((f) => f.untilUs > now).map(({ id, description }) => ({ id, description }));
  }

  /** The settings of links without their own. */
  get defaults(): LinkConfig {
    return this.defaultConfig;
  }

  /** Changes the default settings (merged into the current ones) for every link without its own. */
  setDefaults(patch: Partial<LinkConfig>): void {
    this.defaultConfig = patchLinkConfig(this.defaultConfig, patch, 'network.setDefaults');
    this.version++;
    this.traceChange({ op: 'defaults', settings: patch });
  }

  /**
   * Gives the links from each of `from` to each of `to` their own settings, merged into what they
   * already had; `null` returns them to the defaults.
   */
  setLink(from: NodeNames, to: NodeNames, patch: Partial<LinkConfig> | null): void {
    const where = 'network.setLink';
    for (const link of this.linksBetween(from, to, where)) {
      if (patch === null) link.override = null;
      else {
        const merged = { ...link.override, ...patch };
        patchLinkConfig(this.defaultConfig, merged, `${where}(${link.from.name} -> ${link.to.name})`);
        link.override = merged;
      }
      link.configVersion = -1;
    }
    this.traceChange({ op: 'link', from, to, settings: patch });
  }

  /** The settings a message from `from` to `to` would get now. */
  linkConfig(from: string, to: string): LinkConfig {
    return this.refresh(this.link(this.host.nodeByName(from, 'network.linkConfig'), this.host.nodeByName(to, 'network.linkConfig')));
  }

  /**
   * Cuts every link between nodes of different groups, both ways. Nodes in no group keep all
   * their links. Messages across the cut are dropped, including those already in flight.
   */
  partition(groups: readonly (readonly string[])[]): Partition {
    const where = 'network.partition';
    if (!Array.isArray(groups) || groups.length < 2) throw new SimulationError(`${where}: needs at least two groups of node names`);
    const members = groups.map((g) => this.resolve(g, where));
    const seen = new Set<SimNode>();
    for (const node of members.flat()) {
      if (seen.has(node)) throw new SimulationError(`${where}: node "${node.name}" is in more than one group`);
      seen.add(node);
    }
    const links: Link[] = [];
    members.forEach((a, i) =>
      members.forEach((b, j) => {
        if (i !== j) for (const x of a) for (const y of b) links.push(this.link(x, y));
      }),
    );
    const description = members.map((g) => g.map((n) => n.name).join(',')).join(' | ');
    return this.cut(links, description, { op: 'partition', groups });
  }

  /** Cuts the links from each of `from` to each of `to`, in that direction only. */
  partitionOneWay(from: NodeNames, to: NodeNames): Partition {
    const links = this.linksBetween(from, to, 'network.partitionOneWay');
    const description = `${[from].flat().join(',')} -> ${[to].flat().join(',')}`;
    return this.cut(links, description, { op: 'partition-one-way', from, to });
  }

  /** Cuts one node off from every other node, both ways. */
  isolate(name: string): Partition {
    const others = this.host.allNodes().filter((n) => n.name !== name).map((n) => n.name);
    this.host.nodeByName(name, 'network.isolate');
    if (others.length === 0) throw new SimulationError(`network.isolate: "${name}" is the only node`);
    return this.partition([[name], others]);
  }

  /** Lifts one partition, or all of them when none is given. Healing a healed partition does nothing. */
  heal(partition?: Partition): void {
    const lifted = partition === undefined ? [...this.active] : this.active.filter((p) => p.id === partition.id);
    for (const p of lifted) {
      for (const link of p.links) link.blocked--;
      this.active.splice(this.active.indexOf(p), 1);
    }
    if (lifted.length > 0) {
      this.topology++;
      this.traceChange({ op: 'heal', partitions: lifted.map((p) => p.id) });
    }
  }

  /** Partitions in force. */
  get partitions(): readonly Partition[] {
    return this.active.map(({ id, description }) => ({ id, description }));
  }

  /** Holds every message between `a` and `b` (both ways) for `durationMs`: nothing is lost, all arrive late. */
  clog(a: NodeNames, b: NodeNames, durationMs: number): void {
    this.clogLinks([...this.linksBetween(a, b, 'network.clog'), ...this.linksBetween(b, a, 'network.clog')], durationMs, 'network.clog');
    this.traceChange({ op: 'clog', a, b, durationMs });
  }

  /** Holds messages from each of `from` to each of `to` for `durationMs`. */
  clogOneWay(from: NodeNames, to: NodeNames, durationMs: number): void {
    this.clogLinks(this.linksBetween(from, to, 'network.clogOneWay'), durationMs, 'network.clogOneWay');
    this.traceChange({ op: 'clog-one-way', from, to, durationMs });
  }

  /** Whether a partition cuts `from` -> `to` now. */
  isCut(from: string, to: string): boolean {
    return (this.existingLink(from, to, 'network.isCut')?.blocked ?? 0) > 0;
  }

  /** Whether a clog holds `from` -> `to` now. */
  isClogged(from: string, to: string): boolean {
    const link = this.existingLink(from, to, 'network.isClogged');
    return link !== undefined && link.clogUntil > this.host.nowUs();
  }

  linkStats(from: string, to: string): LinkStats {
    const link = this.existingLink(from, to, 'network.linkStats');
    if (link) return link.stats();
    return { from, to, sent: 0, delivered: 0, duplicated: 0, inFlight: 0, dropped: NO_DROPS };
  }

  /** Counters of every link that has been used or configured. */
  allLinkStats(): LinkStats[] {
    const out: LinkStats[] = [];
    for (const node of this.host.allNodes()) for (const link of node.out) if (link) out.push(link.stats());
    return out;
  }

  nodeStats(name: string): NodeTrafficStats {
    const node = this.host.nodeByName(name, 'network.nodeStats');
    const outbound = node.out.filter((l): l is Link => l !== undefined).map((l) => l.stats());
    const inbound = this.host
      .allNodes()
      .map((n) => n.out[node.index])
      .filter((l): l is Link => l !== undefined)
      .map((l) => l.stats());
    return {
      name,
      sent: sum(outbound, (s) => s.sent),
      received: sum(inbound, (s) => s.delivered),
      droppedOutbound: sumDrops(outbound),
      droppedInbound: sumDrops(inbound),
      unroutable: node.unroutable,
    };
  }

  totals(): TrafficTotals {
    const all = this.allLinkStats();
    return {
      sent: sum(all, (s) => s.sent),
      delivered: sum(all, (s) => s.delivered),
      duplicated: sum(all, (s) => s.duplicated),
      inFlight: sum(all, (s) => s.inFlight),
      dropped: sumDrops(all),
      unroutable: sum(this.host.allNodes(), (n) => n.unroutable),
    };
  }

  /**
   * @internal Node ids `node` has a working connection to: live peers with neither direction cut.
   * A twinned id counts once if any of its instances is connected; a node's own id (its twin's)
   * is never its peer.
   */
  connectedPeers(node: SimNode): NodeId[] {
    const version = this.topology;
    if (node.peersCache === null || node.peersVersion !== version) {
      const peers: NodeId[] = [];
      for (const peer of this.host.allNodes()) {
        if (peer === node || (peer.state !== 'up' && peer.state !== 'paused')) continue;
        if ((node.out[peer.index]?.blocked ?? 0) > 0 || (peer.out[node.index]?.blocked ?? 0) > 0) continue;
        if (peer.instances !== null && (peer.nodeId === node.nodeId || peers.includes(peer.nodeId))) continue;
        peers.push(peer.nodeId);
      }
      node.peersCache = peers;
      node.peersVersion = version;
    }
    return node.peersCache.slice();
  }

  /**
   * @internal The hot path of Transport.send.
   *
   * Twins: a message to an id that several nodes share goes to every one of them except the
   * sender, each copy over its own link (own latency, loss and random draws, own counters), so
   * by default every twin hears the whole group and the group hears both twins. To confine
   * each twin to a part of the group, as the Twins paper does, partition the network: a cut
   * link drops that copy only, and `connectedPeers` lists the id while any instance is reachable.
   */
  transmit(from: SimNode, to: NodeId, payload: Uint8Array): void {
    if (!(payload instanceof Uint8Array)) {
      throw new TypeError(`${from.name}: Transport.send needs the payload as a Uint8Array (got ${describe(payload)})`);
    }
    const host = this.host;
    const now = host.nowUs();
    const dest = host.nodeById(to);
    if (dest === undefined) {
      from.unroutable++;
      host.trace.drop(now, from.index, -1, 'unknown-peer', payload.length, now, String(to));
      return;
    }
    if (dest.instances === null) return this.transmitTo(from, dest, payload, now);
    for (const instance of dest.instances) if (instance !== from) this.transmitTo(from, instance, payload, now);
  }

  private transmitTo(from: SimNode, dest: SimNode, payload: Uint8Array, now: number): void {
    const host = this.host;
    const link = from.out[dest.index] ?? this.link(from, dest);
    for (const o of this.observers) o.sent?.(from.name, dest.name, payload, now / 1000);
    const config = link.configVersion === this.version ? link.config : this.refresh(link);
    const rng = link.rng;
    const uLoss = rng.next();
    const u1 = rng.next();
    const u2 = rng.next();
    const uJitter = rng.next();
    const uReorder = rng.next();
    const uReorderDelay = rng.next();
    const uDuplicate = rng.next();
    const uCopy1 = rng.next();
    const uCopy2 = rng.next();
    link.sent++;
    const bytes = payload.length;
    if (link.blocked > 0) {
      link.droppedPartition++;
      host.trace.drop(now, from.index, dest.index, 'partition', bytes, now);
      return;
    }
    if (dest.state === 'down') {
      link.droppedNodeDown++;
      host.trace.drop(now, from.index, dest.index, 'node-down', bytes, now);
      return;
    }
    if (config.queueCapacity !== null && link.inFlight >= config.queueCapacity) {
      link.droppedQueueFull++;
      host.trace.drop(now, from.index, dest.index, 'queue-full', bytes, now);
      return;
    }
    if (uLoss < config.lossRate) {
      link.droppedLoss++;
      host.trace.drop(now, from.index, dest.index, 'loss', bytes, now);
      return;
    }
    let delayUs = 0;
    if (this.kindFaults.length > 0) {
      const effect = this.kindEffect(link, payload, now);
      if (effect === DROP_KIND) {
        link.droppedKind++;
        host.trace.drop(now, from.index, dest.index, 'kind', bytes, now);
        return;
      }
      delayUs = effect;
    }
    if (payload !== this.lastPayload) {
      this.lastPayload = payload;
      this.lastHash = hashBytes(payload);
    }
    // a message to a node that is still booting is for the incarnation about to start
    const incarnation = dest.state === 'booting' ? dest.incarnation + 1 : dest.incarnation;
    let at = now + sampleLatencyUs(config.latency, u1, u2) + Math.floor(uJitter * config.jitterMs * 1000);
    if (uReorder < config.reorderRate) {
      at += Math.floor(uReorderDelay * config.reorderDelayMs * 1000);
    } else {
      if (at < link.fifoUntil) at = link.fifoUntil;
      link.fifoUntil = at;
    }
    // a kind's delay comes after the FIFO rule: the delayed message does not hold back the others
    at += delayUs;
    this.scheduleDelivery(link, from, dest, incarnation, payload, now, at, false);
    if (uDuplicate < config.duplicateRate) {
      link.duplicated++;
      const copyAt = now + sampleLatencyUs(config.latency, uCopy1, uCopy2) + Math.floor(uJitter * config.jitterMs * 1000) + delayUs;
      this.scheduleDelivery(link, from, dest, incarnation, payload, now, copyAt, true);
    }
  }

  /**
   * What the message-kind faults in force do to this message: DROP_KIND, or the delay to add (µs,
   * the sum of the matching delays). Expired faults are removed on the way.
   */
  private kindEffect(link: Link, payload: Uint8Array, now: number): number | typeof DROP_KIND {
    if (this.kindFaults.some((f) => f.untilUs <= now)) {
      this.kindFaults = this.kindFaults.filter((f) => f.untilUs > now);
      if (this.kindFaults.length === 0) return 0;
    }
    let kind: string | undefined | null = null; // null: not classified yet
    let delayUs = 0;
    for (const f of this.kindFaults) {
      if ((f.from !== null && !f.from.has(link.from.index)) || (f.to !== null && !f.to.has(link.to.index))) continue;
      if (kind === null) kind = this.classifier!(payload);
      if (kind === undefined || !f.kinds.has(kind)) continue;
      if (f.drop === 0) delayUs += f.delayUs;
      else if (f.drop >= 1) return DROP_KIND;
      else {
        link.kindRng ??= new SeededRng(deriveSeed(this.host.seed, ['network-kind', link.from.name, link.to.name]));
        if (link.kindRng.next() < f.drop) return DROP_KIND;
      }
    }
    return delayUs;
  }

  /**
   * @internal A delivery event came due. Returns the receive handler's result, or DEFERRED when the
   * delivery was put off (clog, paused receiver) and is not an event yet.
   */
  arrive(event: SimEvent): void | Promise<void> | typeof DEFERRED {
    const link = event.link!;
    const dest = event.node!;
    const now = event.time;
    if (link.blocked > 0) return this.dropInFlight(event, link, 'partition');
    if (link.clogUntil > now) {
      event.time = link.clogUntil;
      this.host.schedule(event);
      return DEFERRED;
    }
    if (dest.incarnation !== event.incarnation || (dest.state !== 'up' && dest.state !== 'paused')) {
      return this.dropInFlight(event, link, 'node-down');
    }
    if (dest.state === 'paused') {
      dest.deferred.push(event);
      return DEFERRED;
    }
    const handler = dest.receive;
    if (handler === null) return this.dropInFlight(event, link, 'no-handler');
    link.inFlight--;
    link.delivered++;
    const payload = event.payload!;
    this.host.trace.deliver(now, dest.index, link.from.index, payload.length, event.payloadHash, event.sentAt, event.duplicate);
    for (const o of this.observers) o.delivered?.(link.from.name, dest.name, payload, now / 1000);
    return handler(link.from.nodeId, payload);
  }

  /** @internal A node changed state (booted, crashed): connected peers must be recomputed. */
  topologyChanged(): void {
    this.topology++;
  }

  private scheduleDelivery(link: Link, from: SimNode, dest: SimNode, incarnation: number, payload: Uint8Array, now: number, at: number, copy: boolean): void {
    const event = new SimEvent();
    event.kind = DELIVER;
    event.time = at;
    event.node = dest;
    event.incarnation = incarnation;
    event.from = from;
    event.link = link;
    event.payload = payload;
    event.payloadHash = this.lastHash;
    event.sentAt = now;
    event.duplicate = copy;
    link.inFlight++;
    this.host.schedule(event);
  }

  /** @internal Drops a delivery that will never arrive (e.g. deferred for a node that then crashed). */
  dropArrival(event: SimEvent, cause: 'partition' | 'node-down' | 'no-handler'): void {
    this.dropInFlight(event, event.link!, cause);
  }

  private dropInFlight(event: SimEvent, link: Link, cause: 'partition' | 'node-down' | 'no-handler'): undefined {
    link.inFlight--;
    if (cause === 'partition') link.droppedPartition++;
    else if (cause === 'node-down') link.droppedNodeDown++;
    else link.droppedNoHandler++;
    this.host.trace.drop(event.time, link.from.index, link.to.index, cause, event.payload!.length, event.sentAt);
    return undefined;
  }

  private cut(links: Link[], description: string, fields: Record<string, unknown>): Partition {
    const state: PartitionState = { id: this.nextPartitionId++, description, links };
    for (const link of links) link.blocked++;
    this.active.push(state);
    this.topology++;
    this.traceChange({ ...fields, id: state.id });
    return { id: state.id, description };
  }

  private clogLinks(links: Link[], durationMs: number, where: string): void {
    if (typeof durationMs !== 'number' || !Number.isFinite(durationMs) || durationMs < 0) {
      throw new SimulationError(`${where}: durationMs must be a finite number ≥ 0 (got ${String(durationMs)})`);
    }
    const until = this.host.nowUs() + Math.round(durationMs * 1000);
    for (const link of links) if (link.clogUntil < until) link.clogUntil = until;
  }

  private refresh(link: Link): LinkConfig {
    link.config = link.override ? patchLinkConfig(this.defaultConfig, link.override, 'link settings') : this.defaultConfig;
    link.configVersion = this.version;
    return link.config;
  }

  private link(from: SimNode, to: SimNode): Link {
    let link = from.out[to.index];
    if (!link) {
      link = new Link(from, to, new SeededRng(deriveSeed(this.host.seed, ['network', from.name, to.name])));
      from.out[to.index] = link;
    }
    return link;
  }

  private existingLink(from: string, to: string, where: string): Link | undefined {
    return this.host.nodeByName(from, where).out[this.host.nodeByName(to, where).index];
  }

  private resolve(names: NodeNames, where: string): SimNode[] {
    const list = typeof names === 'string' ? [names] : names;
    if (!Array.isArray(list)) throw new SimulationError(`${where}: expected a node name or a list of names (got ${describe(names)})`);
    return list.map((name: string) => this.host.nodeByName(name, where));
  }

  private linksBetween(from: NodeNames, to: NodeNames, where: string): Link[] {
    const sources = this.resolve(from, where);
    const targets = this.resolve(to, where);
    const links: Link[] = [];
    for (const a of sources) for (const b of targets) if (a !== b) links.push(this.link(a, b));
    return links;
  }

  private traceChange(fields: Record<string, unknown>): void {
    this.host.trace.entry(this.host.nowUs(), -1, 'net', fields);
  }
}

function sum<T>(items: readonly T[], pick: (item: T) => number): number {
  let total = 0;
  for (const item of items) total += pick(item);
  return total;
}

function sumDrops(stats: readonly LinkStats[]): DropCounts {
  return {
    loss: sum(stats, (s) => s.dropped.loss),
    partition: sum(stats, (s) => s.dropped.partition),
    queueFull: sum(stats, (s) => s.dropped.queueFull),
    nodeDown: sum(stats, (s) => s.dropped.nodeDown),
    noHandler: sum(stats, (s) => s.dropped.noHandler),
    kind: sum(stats, (s) => s.dropped.kind),
    total: sum(stats, (s) => s.dropped.total),
  };
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return (value as object).constructor?.name ?? 'an object';
  return typeof value;
}
