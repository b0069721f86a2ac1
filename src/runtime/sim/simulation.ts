import { createHash } from 'node:crypto';
import { canonicalJson } from '../../codec/index.js';
import type { LogLevel, NodeId, Rng, TimerHandle } from '../env.js';
import { formatLogLine } from '../log-line.js';
import { realWallClock } from '../real/real-wall-clock.js';
import { EventQueue } from './event-queue.js';
import { createNodeEnv, type EnvHost } from './node-env.js';
import { SeededRandomness } from './seeded-rng.js';
import { ACTION, BOOT, DELIVER, EXTERNAL, SimEvent, TIMER, eventKindNames, type EventKindName } from './sim-event.js';
import { SimNode, type BootFunction, type Incarnation, type NodeState } from './sim-node.js';
import { SimulationError } from './simulation-error.js';
import { Trace } from './trace.js';
import { DEFERRED, VirtualNetwork, type Deferred, type NetworkHost } from './virtual-network.js';
import type { WallClock } from './wall-clock.js';
import type { SimulationOptions, AddNodeOptions, ClockSkew, SimNodeInfo, EventView, StopReason, RunOptions, PaceOptions, RunResult, InjectOptions } from './simulation-options.js';

export type { SimulationOptions, AddNodeOptions, ClockSkew, SimNodeInfo, EventView, StopReason, RunOptions, PaceOptions, RunResult, InjectOptions } from './simulation-options.js';

/** 2026-01-01T00:00:00Z: virtual time zero unless a scenario says otherwise. Never the wall clock. */
export const DEFAULT_EPOCH_MS = Date.UTC(2026, 0, 1);
/** See SimulationOptions.maxEventsPerInstant. */
export const DEFAULT_MAX_EVENTS_PER_INSTANT = 1_000_000;


const SKIPPED: Deferred = DEFERRED;
const LOG_RANK: Readonly<Record<LogLevel, number>> = { trace: 0, debug: 1, info: 2, warning: 3, error: 4 };
const RESERVED_KINDS = new Set(['add', 'boot', 'crash', 'pause', 'resume', 'skew', 'deliver', 'drop', 'timer', 'net', 'action', 'external', 'log']);
const NODE_ID = /^[0-9a-f]{128}$/;
const COMPACT_AT = 4096;
/** A paced run with nothing due sleeps in chunks of this many wall ms (injections wake it early). */
const IDLE_WAIT_MS = 60_000;

interface Pacing {
  readonly wall: WallClock;
  readonly rate: number;
  readonly wallAnchor: number;
  readonly virtualAnchorUs: number;
  readonly untilUs: number;
}

/** A FISCO-style node id (128 hex digits) derived from the seed and the node's name. */
export function deriveNodeId(seed: string, name: string): NodeId {
  return createHash('sha512').update(canonicalJson([seed, 'node-id', name])).digest('hex');
}

/**
 * The deterministic simulation kernel: a discrete-event loop over virtual time with a total order
 * on (time, sequence), nodes built from a simulated Env, the virtual network, node faults (crash,
 * restart, pause, clock skew) and the trace. Each event's handler runs to completion, its promise
 * awaited, before the next event starts. Same seed and scenario: same trace, byte for byte.
 *
 * Outside code must touch nodes only inside events (`at`, `inject`, hooks), never between them.
 */
export class Simulation<H = unknown> {
  readonly seed: string;
  readonly epochMs: number;
  readonly trace: Trace;
  readonly network: VirtualNetwork;
  private readonly queue = new EventQueue();
  private readonly nodeList: SimNode<H>[] = [];
  private readonly names: string[] = [];
  private readonly byName = new Map<string, SimNode<H>>();
  private readonly byId = new Map<NodeId, SimNode<H>>();
  /** Replaced, never mutated, so a hook can remove itself while the hooks run. */
  private hooks: ReadonlyArray<(event: EventView) => void | Promise<void>> = [];
  private crashHooks: ReadonlyArray<(node: string) => void> = [];
  private readonly scenarioRandom: SeededRandomness;
  private readonly logThreshold: number;
  private readonly onLog: ((node: string, line: string) => void) | undefined;
  private readonly onNodeEvent: SimulationOptions['onNodeEvent'];
  private readonly view = { index: -1, time: 0, kind: 'boot' as EventKindName, node: null as string | null };
  private readonly host: EnvHost & NetworkHost;
  private nowUs = 0;
  private seq = 0;
  private events = 0;
  private readonly maxEventsPerInstant: number;
  /** Events run at nowUs so far, after the first one. */
  private eventsThisInstant = 0;
  private cancelledTimers = 0;
  private running = false;
  private stopRequested = false;
  private failure: SimulationError | undefined;
  private pacing: Pacing | null = null;
  private wake: (() => void) | null = null;

  constructor(options: SimulationOptions) {
    if (typeof options !== 'object' || options === null) throw new SimulationError('new Simulation: options with a seed are required');
    const { seed, epochMs = DEFAULT_EPOCH_MS, logLevel = 'info', maxEventsPerInstant = DEFAULT_MAX_EVENTS_PER_INSTANT } = options;
    if (!((typeof seed === 'string' && seed !== '') || (typeof seed === 'number' && Number.isFinite(seed)))) {
      throw new SimulationError(`new Simulation: seed must be a non-empty string or a finite number (got ${JSON.stringify(seed)})`);
    }
    if (!Number.isSafeInteger(epochMs)) throw new SimulationError(`new Simulation: epochMs must be an integer (Unix ms), got ${String(epochMs)}`);
    if (!(logLevel in LOG_RANK)) throw new SimulationError(`new Simulation: logLevel must be one of ${Object.keys(LOG_RANK).join(', ')}`);
    if (!Number.isSafeInteger(maxEventsPerInstant) || maxEventsPerInstant < 1) {
      throw new SimulationError(`new Simulation: maxEventsPerInstant must be an integer ≥ 1, got ${String(maxEventsPerInstant)}`);
    }
    this.maxEventsPerInstant = maxEventsPerInstant;
    this.seed = String(seed);
    this.epochMs = epochMs;
    this.logThreshold = LOG_RANK[logLevel];
    this.onLog = options.onLog;
    this.onNodeEvent = options.onNodeEvent;
    this.scenarioRandom = new SeededRandomness(this.seed, ['scenario']);
    this.trace = new Trace(this.names, options.trace);
    this.host = this.createHost();
    this.network = new VirtualNetwork(this.host, options.network);
    this.trace.header({
      seed: this.seed,
      epochMs,
      epoch: new Date(epochMs).toISOString(),
      logLevel,
      network: this.network.defaults,
      random: 'seedrandom alea; stream seed = sha256(canonicalJson([seed, ...path])); links: ["network", from, to]; nodes: ["node", name, "incarnation", n, stream]; scenario: ["scenario", name]',
      nodeIds: 'sha512(canonicalJson([seed, "node-id", name])) unless given',
    });
  }

  /** Virtual time in ms since the start. */
  get now(): number {
    return this.nowUs / 1000;
  }

  /** Events run so far. */
  get eventCount(): number {
    return this.events;
  }

  /** Events waiting in the queue (including cancelled timers not yet discarded). */
  get pendingEvents(): number {
    return this.queue.size;
  }

  /** The event that ran last (the same object every time). */
  get lastEvent(): EventView {
    return this.view;
  }

  /**
   * Adds a node; `boot` runs as an event at the current virtual time (and again, with a fresh Env,
   * after each restart) and returns the node's handle.
   */
  addNode(name: string, boot: BootFunction<H>, options: AddNodeOptions = {}): SimNodeInfo<H> {
    if (typeof name !== 'string' || name === '') throw new SimulationError(`addNode: name must be a non-empty string (got ${JSON.stringify(name)})`);
    if (this.byName.has(name)) throw new SimulationError(`addNode: there is already a node named "${name}"`);
    if (typeof boot !== 'function') throw new SimulationError(`addNode("${name}"): boot must be a function (env) => handle`);
    const original = options.twinOf === undefined ? undefined : this.get(options.twinOf, `addNode("${name}"): twinOf`);
    if (original && options.nodeId !== undefined && options.nodeId !== original.nodeId) {
      throw new SimulationError(`addNode("${name}"): a twin of "${original.name}" has its node id; give nodeId or twinOf, not two different ids`);
    }
    const nodeId = original?.nodeId ?? options.nodeId ?? deriveNodeId(this.seed, name);
    if (typeof nodeId !== 'string' || !NODE_ID.test(nodeId)) {
      throw new SimulationError(`addNode("${name}"): nodeId must be 128 lower-case hex digits (a FISCO node id), got ${JSON.stringify(nodeId)}`);
    }
    const twin = this.byId.get(nodeId);
    if (twin && !original) {
      throw new SimulationError(`addNode("${name}"): node id ${nodeId.slice(0, 16)}… is already used by "${twin.name}" (use twinOf to add a twin on purpose)`);
    }
    const node = new SimNode<H>(this.nodeList.length, name, nodeId, boot);
    this.nodeList.push(node);
    this.names.push(name);
    this.byName.set(name, node);
    if (original) {
      const instances = original.instances ?? [original];
      instances.push(node);
      for (const instance of instances) instance.instances = instances;
      this.network.topologyChanged();
    } else this.byId.set(nodeId, node);
    this.trace.entry(this.nowUs, node.index, 'add', original ? { nodeId, twinOf: original.name } : { nodeId });
    if (options.clockSkew) this.setClockSkew(name, options.clockSkew);
    this.scheduleBoot(node);
    return this.node(name);
  }

  node(name: string): SimNodeInfo<H> {
    const node = this.get(name, 'node');
    const clockNow = () => this.epochMs + Math.floor(node.clockUs(this.nowUs) / 1000);
    return {
      name: node.name,
      nodeId: node.nodeId,
      state: node.state,
      incarnation: node.incarnation,
      handle: node.handle,
      storage: node.storage,
      get clockNow() {
        return clockNow();
      },
    };
  }

  /** Every node, in the order they were added. */
  nodes(): SimNodeInfo<H>[] {
    return this.nodeList.map((n) => this.node(n.name));
  }

  /** The running incarnation's handle, or undefined while the node is down or booting. */
  handle(name: string): H | undefined {
    return this.get(name, 'handle').handle;
  }

  /** A node's state now (cheaper than `node(name).state` in per-event hooks). */
  stateOf(name: string): NodeState {
    return this.get(name, 'stateOf').state;
  }

  /**
   * Crashes a node now: it receives nothing more, its timers and the messages in flight to it are
   * dropped, writes it had not synced are lost, and its Env goes inert. Messages it already sent
   * stay on the wire.
   */
  crash(name: string): void {
    const node = this.get(name, 'crash');
    if (node.state === 'down') throw new SimulationError(`crash("${name}"): the node is already down`);
    let lostWrites = 0;
    for (const store of node.storage.names) lostWrites += node.storage.openSync(store).unsyncedWrites;
    this.trace.entry(this.nowUs, node.index, 'crash', { lostWrites });
    if (node.life) node.life.alive = false;
    if (node.pendingBoot) node.pendingBoot.cancelled = true;
    node.life = null;
    node.pendingBoot = null;
    node.state = 'down';
    node.receive = null;
    node.handle = undefined;
    const deferred = node.deferred;
    node.deferred = [];
    for (const event of deferred) {
      event.time = this.nowUs;
      if (event.kind === DELIVER) this.network.dropArrival(event, 'node-down');
      else if (event.kind === EXTERNAL) event.settle!(new SimulationError(`inject (${event.label}): node "${name}" crashed before it could run the work`));
    }
    node.storage.crash();
    this.network.topologyChanged();
    for (const hook of this.crashHooks) hook(name);
  }

  /**
   * Calls `hook` right after a node crashed (its unsynced writes already lost), e.g. for a monitor
   * that checks what the node's disk kept. Returns a function that removes it.
   */
  onCrash(hook: (node: string) => void): () => void {
    this.crashHooks = [...this.crashHooks, hook];
    return () => {
      this.crashHooks = this.crashHooks.filter((h) => h !== hook);
    };
  }

  /** Boots a crashed node again (as an event now), from what its disk held durably. */
  restart(name: string): void {
    const node = this.get(name, 'restart');
    if (node.state !== 'down') throw new SimulationError(`restart("${name}"): the node is ${node.state}; only a crashed node can restart`);
    this.scheduleBoot(node);
  }

  /** Stops a node like SIGSTOP: its deliveries and timers wait (not lost) until `resume`. */
  pause(name: string): void {
    const node = this.get(name, 'pause');
    if (node.state !== 'up') throw new SimulationError(`pause("${name}"): the node is ${node.state}; only a running node can pause`);
    node.state = 'paused';
    this.trace.entry(this.nowUs, node.index, 'pause', {});
  }

  /** Lets a paused node run again: everything that came due meanwhile runs now, in order. */
  resume(name: string): void {
    const node = this.get(name, 'resume');
    if (node.state !== 'paused') throw new SimulationError(`resume("${name}"): the node is ${node.state}, not paused`);
    node.state = 'up';
    const deferred = node.deferred;
    node.deferred = [];
    for (const event of deferred) {
      event.time = this.nowUs;
      this.schedule(event);
    }
    this.trace.entry(this.nowUs, node.index, 'resume', { deferred: deferred.length });
  }

  /** Skews a node's clock from now on (see ClockSkew); timers already armed keep their time. */
  setClockSkew(name: string, skew: ClockSkew): void {
    const node = this.get(name, 'setClockSkew');
    const { offsetMs = 0, drift = 0 } = skew ?? {};
    if (typeof offsetMs !== 'number' || !Number.isFinite(offsetMs)) {
      throw new SimulationError(`setClockSkew("${name}"): offsetMs must be a finite number (got ${String(offsetMs)})`);
    }
    if (typeof drift !== 'number' || !Number.isFinite(drift) || drift <= -1) {
      throw new SimulationError(`setClockSkew("${name}"): drift must be a finite number > -1 (got ${String(drift)})`);
    }
    node.offsetUs = Math.round(offsetMs * 1000);
    node.drift = drift;
    node.skewSinceUs = this.nowUs;
    this.trace.entry(this.nowUs, node.index, 'skew', { offsetMs, drift });
  }

  /** Runs `action` as an event at virtual time `timeMs` (≥ now). */
  at(timeMs: number, action: () => void | Promise<void>, label = 'action'): void {
    if (typeof timeMs !== 'number' || !Number.isFinite(timeMs) || timeMs < this.now) {
      throw new SimulationError(`at(${String(timeMs)}): the time must be a finite number of virtual ms ≥ now (${this.now})`);
    }
    if (typeof action !== 'function') throw new SimulationError(`at(${timeMs}): the action must be a function`);
    const event = new SimEvent();
    event.kind = ACTION;
    event.time = Math.max(this.nowUs, Math.round(timeMs * 1000));
    event.work = action;
    event.label = String(label);
    this.schedule(event);
  }

  /** Runs `action` as an event `delayMs` virtual ms from now. */
  after(delayMs: number, action: () => void | Promise<void>, label = 'action'): void {
    if (typeof delayMs !== 'number' || !Number.isFinite(delayMs) || delayMs < 0) {
      throw new SimulationError(`after(${String(delayMs)}): the delay must be a finite number of ms ≥ 0`);
    }
    this.at(this.now + delayMs, action, label);
  }

  /**
   * Runs outside work (say, a real HTTP request) as an event, awaited like any other, and returns
   * its result. During a paced run it happens at the virtual time matching the wall clock now;
   * otherwise at the current virtual time, when the loop next runs. Errors go to the caller, not
   * the simulation.
   */
  inject<T>(work: () => T | Promise<T>, options: InjectOptions = {}): Promise<T> {
    if (typeof work !== 'function') return Promise.reject(new SimulationError('inject: work must be a function'));
    const node = options.node === undefined ? null : this.get(options.node, 'inject');
    return new Promise<T>((resolve, reject) => {
      const event = new SimEvent();
      event.kind = EXTERNAL;
      event.time = this.injectionTimeUs();
      event.node = node;
      event.work = work;
      event.label = options.label ?? 'external';
      event.settle = (error, value) => (error === undefined ? resolve(value as T) : reject(error as Error));
      this.schedule(event);
      this.wake?.();
    });
  }

  /**
   * Adds a scenario-level entry to the trace (a workload step, an invariant verdict), about a node
   * or about nothing in particular. Fields must be encodable as canonical JSON.
   */
  traceEvent(kind: string, fields: Readonly<Record<string, unknown>>, node?: string): void {
    const index = node === undefined ? -1 : this.get(node, 'traceEvent').index;
    if (typeof kind !== 'string' || kind === '' || RESERVED_KINDS.has(kind)) {
      throw new SimulationError(`traceEvent: kind must be a non-empty string not reserved by the simulator (got ${JSON.stringify(kind)})`);
    }
    if (typeof fields !== 'object' || fields === null || Array.isArray(fields)) throw new SimulationError(`traceEvent("${kind}"): fields must be an object`);
    try {
      this.trace.entry(this.nowUs, index, kind, fields);
    } catch (error) {
      throw new SimulationError(`traceEvent("${kind}"): ${messageOf(error)}`);
    }
  }

  /** A scenario-level random stream (workloads, fault schedules), derived from (seed, "scenario", name). */
  random(name: string): Rng {
    return this.scenarioRandom.stream(name);
  }

  /**
   * Calls `hook` after every event (its promise awaited), e.g. an invariant checker; a throw stops
   * the run with an error naming the event. Returns a function that removes the hook.
   */
  afterEvent(hook: (event: EventView) => void | Promise<void>): () => void {
    if (typeof hook !== 'function') throw new SimulationError('afterEvent: hook must be a function');
    this.hooks = [...this.hooks, hook];
    return () => {
      this.hooks = this.hooks.filter((h) => h !== hook);
    };
  }

  /** Asks a run in progress to stop after the current event (and wakes a paced run that waits). */
  stop(): void {
    this.stopRequested = true;
    this.wake?.();
  }

  /**
   * Runs events until a stop condition: `until`/`forMs` (virtual time), `maxEvents`, `stopWhen`,
   * `stop()`, or an empty queue. At least one condition is required, since a node with a periodic
   * timer never lets the queue empty. With `pace`, virtual time follows the wall clock and an empty
   * queue waits for injected work instead of ending the run.
   */
  async run(options: RunOptions): Promise<RunResult> {
    const { untilUs, maxEvents, stopWhen } = this.checkRunOptions(options);
    this.enter('run');
    const first = this.events;
    let reason: StopReason;
    try {
      reason = options.pace ? await this.runPaced(options.pace, untilUs, first + maxEvents, stopWhen) : await this.runFast(untilUs, first + maxEvents, stopWhen);
    } finally {
      this.running = false;
      this.trace.flush();
    }
    return { reason, events: this.events - first, now: this.now, digest: this.trace.digest };
  }

  /** Runs the next event with time ≤ `until` (default: any); false when there is none. */
  async step(options: { until?: number } = {}): Promise<boolean> {
    const untilUs = options.until === undefined ? Infinity : this.checkTime(options.until, 'step: until');
    this.enter('step');
    try {
      for (;;) {
        const event = this.queue.peek();
        if (event === undefined || event.time > untilUs) return false;
        this.queue.pop();
        const result = this.begin(event);
        if (result === SKIPPED) continue;
        if (result !== undefined) await this.settle(event, result);
        if (this.hooks.length > 0) await this.runHooks();
        return true;
      }
    } finally {
      this.running = false;
    }
  }

  /** Everything the seed expanded to, and the nodes now: print it at the start of a run. */
  describe(): Record<string, unknown> {
    return {
      seed: this.seed,
      epochMs: this.epochMs,
      epoch: new Date(this.epochMs).toISOString(),
      now: this.now,
      network: this.network.defaults,
      nodes: this.nodeList.map((n) => ({
        name: n.name,
        nodeId: n.nodeId,
        state: n.state,
        incarnation: n.incarnation,
        clockSkew: { offsetMs: n.offsetUs / 1000, drift: n.drift },
        ...(n.instances !== null && n.instances[0] !== n ? { twinOf: n.instances[0]!.name } : {}),
      })),
      partitions: this.network.partitions,
    };
  }

  private async runFast(untilUs: number, lastEvent: number, stopWhen: RunOptions['stopWhen']): Promise<StopReason> {
    const queue = this.queue;
    for (;;) {
      if (this.stopRequested) return 'stopped';
      if (this.events >= lastEvent) return 'max-events';
      const event = queue.peek();
      if (event === undefined || event.time > untilUs) {
        if (untilUs === Infinity) return 'idle';
        this.nowUs = untilUs;
        return 'until';
      }
      queue.pop();
      const result = this.begin(event);
      if (result === SKIPPED) continue;
      if (result !== undefined) await this.settle(event, result);
      if (this.hooks.length > 0) {
        const pending = this.runHooks();
        if (pending !== undefined) await pending;
      }
      if (stopWhen !== undefined && stopWhen(this.view)) return 'stop-when';
    }
  }

  private async runPaced(pace: PaceOptions, untilUs: number, lastEvent: number, stopWhen: RunOptions['stopWhen']): Promise<StopReason> {
    const wall = pace.wall ?? realWallClock;
    const rate = pace.rate ?? 1;
    if (typeof rate !== 'number' || !Number.isFinite(rate) || rate <= 0) {
      throw new SimulationError(`run: pace.rate must be a finite number > 0 (virtual ms per wall ms), got ${String(rate)}`);
    }
    const pacing: Pacing = { wall, rate, wallAnchor: wall.now(), virtualAnchorUs: this.nowUs, untilUs };
    this.pacing = pacing;
    try {
      for (;;) {
        if (this.stopRequested) return 'stopped';
        if (this.events >= lastEvent) return 'max-events';
        const event = this.queue.peek();
        const targetUs = event === undefined ? untilUs : Math.min(event.time, untilUs);
        const dueWall = pacing.wallAnchor + (targetUs - pacing.virtualAnchorUs) / 1000 / rate;
        const wait = dueWall - wall.now();
        if (wait >= 1) {
          await this.sleep(wall, Math.min(wait, IDLE_WAIT_MS));
          continue;
        }
        if (event === undefined || event.time > untilUs) {
          this.nowUs = untilUs;
          return 'until';
        }
        this.queue.pop();
        const result = this.begin(event);
        if (result === SKIPPED) continue;
        if (result !== undefined) await this.settle(event, result);
        if (this.hooks.length > 0) await this.runHooks();
        if (stopWhen !== undefined && stopWhen(this.view)) return 'stop-when';
      }
    } finally {
      this.pacing = null;
    }
  }

  private async sleep(wall: WallClock, ms: number): Promise<void> {
    const controller = new AbortController();
    this.wake = () => controller.abort();
    try {
      await wall.sleep(ms, controller.signal);
    } finally {
      this.wake = null;
    }
  }

  /** Runs the synchronous part of an event: SKIPPED if it was not an event, else the handler's result. */
  private begin(event: SimEvent): unknown {
    if (event.time !== this.nowUs) this.eventsThisInstant = 0;
    else if (++this.eventsThisInstant >= this.maxEventsPerInstant) {
      const stuck = new SimulationError(`stuck: more than ${this.maxEventsPerInstant} events at this instant and the virtual clock has not moved (something keeps scheduling work for "now")`);
      throw this.fail(event, stuck);
    }
    this.nowUs = event.time;
    let result: unknown;
    try {
      result = this.dispatch(event);
    } catch (error) {
      throw this.fail(event, error);
    }
    if (result === SKIPPED) return SKIPPED;
    const view = this.view;
    view.index = this.events++;
    view.time = event.time / 1000;
    view.kind = eventKindNames[event.kind]!;
    view.node = event.node === null ? null : event.node.name;
    return isThenable(result) ? result : undefined;
  }

  private async settle(event: SimEvent, result: unknown): Promise<void> {
    try {
      await result;
    } catch (error) {
      throw this.fail(event, error);
    }
  }

  /** Runs the afterEvent hooks; returns a promise only if a hook was async. */
  private runHooks(): Promise<void> | undefined {
    const hooks = this.hooks;
    for (let i = 0; i < hooks.length; i++) {
      let result: unknown;
      try {
        result = hooks[i]!(this.view);
      } catch (error) {
        throw this.hookError(error);
      }
      if (isThenable(result)) return this.finishHooks(result, hooks, i + 1);
    }
    return undefined;
  }

  private async finishHooks(pending: unknown, hooks: ReadonlyArray<(event: EventView) => void | Promise<void>>, next: number): Promise<void> {
    try {
      await pending;
      for (let i = next; i < hooks.length; i++) await hooks[i]!(this.view);
    } catch (error) {
      throw this.hookError(error);
    }
  }

  private hookError(error: unknown): SimulationError {
    if (error instanceof SimulationError && error.message.startsWith('afterEvent hook failed')) return error;
    const v = this.view;
    return new SimulationError(
      `afterEvent hook failed after event #${v.index} (${v.kind}${v.node === null ? '' : ` on ${v.node}`} at t=${v.time} ms): ${messageOf(error)}`,
      { cause: error },
    );
  }

  private dispatch(event: SimEvent): unknown {
    switch (event.kind) {
      case DELIVER:
        return this.network.arrive(event);
      case TIMER:
        return this.fireTimer(event);
      case BOOT:
        return this.bootNode(event);
      case ACTION:
        this.trace.entry(event.time, -1, 'action', { label: event.label });
        return event.work!();
      case EXTERNAL:
        return this.runExternal(event);
      default:
        throw new SimulationError(`unknown event kind ${event.kind}`);
    }
  }

  private fireTimer(event: SimEvent): unknown {
    if (event.cancelled) {
      this.cancelledTimers--;
      return SKIPPED;
    }
    const node = event.node!;
    if (node.incarnation !== event.incarnation || (node.state !== 'up' && node.state !== 'paused')) return SKIPPED;
    if (node.state === 'paused') {
      node.deferred.push(event);
      return SKIPPED;
    }
    const callback = event.callback!;
    event.callback = null;
    this.trace.timer(event.time, node.index, event.timerId);
    return callback();
  }

  private bootNode(event: SimEvent): unknown {
    if (event.cancelled) return SKIPPED;
    const node = event.node as SimNode<H>;
    node.pendingBoot = null;
    node.incarnation++;
    const life: Incarnation = { number: node.incarnation, alive: true };
    node.life = life;
    node.state = 'up';
    node.receive = null;
    node.handle = undefined;
    node.deferred = [];
    this.network.topologyChanged();
    this.trace.entry(event.time, node.index, 'boot', { incarnation: life.number });
    const result = node.boot(createNodeEnv(this.host, node, life));
    if (isThenable(result)) {
      return (result as PromiseLike<H>).then((handle) => {
        if (life.alive) node.handle = handle;
      });
    }
    node.handle = result as H;
    return undefined;
  }

  private runExternal(event: SimEvent): unknown {
    const node = event.node;
    const settle = event.settle!;
    if (node !== null) {
      if (node.state === 'paused') {
        node.deferred.push(event);
        return SKIPPED;
      }
      if (node.state !== 'up') {
        this.trace.entry(event.time, node.index, 'external', { label: event.label, refused: node.state });
        settle(new SimulationError(`inject (${event.label}): node "${node.name}" is ${node.state}`));
        return undefined;
      }
    }
    this.trace.entry(event.time, node === null ? -1 : node.index, 'external', { label: event.label });
    let result: unknown;
    try {
      result = event.work!();
    } catch (error) {
      settle(error ?? new Error('injected work threw undefined'));
      return undefined;
    }
    if (isThenable(result)) {
      return (result as PromiseLike<unknown>).then(
        (value) => settle(undefined, value),
        (error: unknown) => settle(error ?? new Error('injected work rejected')),
      );
    }
    settle(undefined, result);
    return undefined;
  }

  private scheduleBoot(node: SimNode<H>): void {
    const event = new SimEvent();
    event.kind = BOOT;
    event.time = this.nowUs;
    event.node = node;
    node.pendingBoot = event;
    node.state = 'booting';
    this.schedule(event);
  }

  private schedule(event: SimEvent): void {
    event.seq = this.seq++;
    this.queue.push(event);
  }

  private setTimer(node: SimNode, life: Incarnation, delayMs: number, callback: () => void | Promise<void>): SimEvent {
    if (typeof delayMs !== 'number' || !(delayMs >= 0) || delayMs === Infinity) {
      throw new RangeError(`${node.name}: setTimer delay must be a finite number of ms ≥ 0 (got ${String(delayMs)})`);
    }
    if (typeof callback !== 'function') throw new TypeError(`${node.name}: setTimer needs a callback function`);
    const event = new SimEvent();
    event.kind = TIMER;
    event.time = this.nowUs + Math.round((delayMs * 1000) / (1 + node.drift));
    event.node = node;
    event.incarnation = life.number;
    event.timerId = node.nextTimerId++;
    event.callback = callback;
    this.schedule(event);
    return event;
  }

  private cancelTimer(node: SimNode, timer: TimerHandle): void {
    if (typeof timer !== 'object' || timer === null) throw new TypeError(`${node.name}: cancelTimer needs the handle setTimer returned`);
    if (!(timer instanceof SimEvent) || timer.node !== node || timer.kind !== TIMER || timer.cancelled || timer.callback === null) return;
    timer.cancelled = true;
    timer.callback = null;
    if (++this.cancelledTimers > COMPACT_AT && this.cancelledTimers * 2 > this.queue.size) {
      this.queue.removeWhere((e) => e.cancelled && e.kind === TIMER);
      this.cancelledTimers = 0;
    }
  }

  private injectionTimeUs(): number {
    const pacing = this.pacing;
    if (pacing === null) return this.nowUs;
    const wallNowUs = pacing.virtualAnchorUs + Math.floor((pacing.wall.now() - pacing.wallAnchor) * pacing.rate * 1000);
    return Math.max(this.nowUs, Math.min(wallNowUs, pacing.untilUs));
  }

  private createHost(): EnvHost & NetworkHost {
    return {
      seed: this.seed,
      epochMs: this.epochMs,
      trace: this.trace,
      nowUs: () => this.nowUs,
      schedule: (event) => this.schedule(event),
      nodeByName: (name, where) => this.get(name, where),
      nodeById: (id) => this.byId.get(id),
      allNodes: () => this.nodeList,
      setTimer: (node, life, delayMs, callback) => this.setTimer(node, life, delayMs, callback),
      cancelTimer: (node, timer) => this.cancelTimer(node, timer),
      send: (node, to, payload) => this.network.transmit(node, to, payload),
      connectedPeers: (node) => this.network.connectedPeers(node),
      log: (node, level, time, message) => this.captureLog(node, level, time, message),
      traceEvent: (node, kind, fields) => this.traceNodeEvent(node, kind, fields),
      probeEvent: (node, kind, fields) => this.onNodeEvent?.(node.name, kind, fields, this.now),
    };
  }

  private captureLog(node: SimNode, level: LogLevel, time: number, message: string): void {
    const rank = LOG_RANK[level];
    if (rank === undefined) throw new TypeError(`${node.name}: unknown log level ${JSON.stringify(level)} (use ${Object.keys(LOG_RANK).join(', ')})`);
    if (rank < this.logThreshold) return;
    if (typeof message !== 'string') throw new TypeError(`${node.name}: a log message must be a string`);
    if (typeof time !== 'number' || !Number.isFinite(time)) throw new TypeError(`${node.name}: a log line needs the node's clock reading as its time`);
    this.trace.entry(this.nowUs, node.index, 'log', { level, message, clock: time });
    this.onLog?.(node.name, formatLogLine(level, time, message));
  }

  private traceNodeEvent(node: SimNode, kind: string, fields: Readonly<Record<string, unknown>>): void {
    if (typeof kind !== 'string' || kind === '') throw new TypeError(`${node.name}: a trace event needs a non-empty kind`);
    if (RESERVED_KINDS.has(kind)) throw new TypeError(`${node.name}: trace event kind "${kind}" is reserved by the simulator`);
    if (typeof fields !== 'object' || fields === null || Array.isArray(fields)) {
      throw new TypeError(`${node.name}: trace event "${kind}" needs its fields as an object`);
    }
    try {
      this.trace.entry(this.nowUs, node.index, kind, fields);
    } catch (error) {
      throw new TypeError(`${node.name}: trace event "${kind}": ${messageOf(error)}`);
    }
    this.onNodeEvent?.(node.name, kind, fields, this.now);
  }

  private get(name: string, where: string): SimNode<H> {
    const node = this.byName.get(name);
    if (node === undefined) {
      const known = this.names.length <= 8 ? this.names.join(', ') : `${this.names.slice(0, 8).join(', ')} … (${this.names.length} nodes)`;
      throw new SimulationError(`${where}: unknown node ${JSON.stringify(name)} (nodes: ${known || 'none yet'})`);
    }
    return node;
  }

  private enter(what: 'run' | 'step'): void {
    if (this.failure) throw new SimulationError(`${what}: the simulation failed earlier and cannot continue: ${this.failure.message}`);
    if (this.running) throw new SimulationError(`${what}: a run or step is already in progress`);
    this.running = true;
    this.stopRequested = false;
    this.trace.endSetup();
  }

  private fail(event: SimEvent, error: unknown): SimulationError {
    const what = eventKindNames[event.kind] ?? 'event';
    const where = event.node === null ? '' : `${event.node.name}: `;
    const detail = event.kind === DELIVER ? ` of a message from ${event.from!.name}` : event.kind === ACTION || event.kind === EXTERNAL ? ` "${event.label}"` : '';
    this.failure = new SimulationError(`${where}${what}${detail} failed at t=${event.time / 1000} ms: ${messageOf(error)}`, { cause: error });
    return this.failure;
  }

  private checkTime(ms: number, where: string): number {
    if (typeof ms !== 'number' || Number.isNaN(ms) || ms < this.now) {
      throw new SimulationError(`${where} must be a number of virtual ms ≥ now (${this.now}), got ${String(ms)}`);
    }
    return ms === Infinity ? Infinity : Math.round(ms * 1000);
  }

  private checkRunOptions(options: RunOptions): { untilUs: number; maxEvents: number; stopWhen: RunOptions['stopWhen'] } {
    if (typeof options !== 'object' || options === null) throw new SimulationError('run: options are required (until, forMs, maxEvents or stopWhen)');
    const { until, forMs, maxEvents, stopWhen, pace } = options;
    if (until === undefined && forMs === undefined && maxEvents === undefined && stopWhen === undefined && pace === undefined) {
      throw new SimulationError('run: give a stop condition (until, forMs, maxEvents or stopWhen); a node with a periodic timer would otherwise run forever');
    }
    if (until !== undefined && forMs !== undefined) throw new SimulationError('run: give until or forMs, not both');
    let untilUs = Infinity;
    if (until !== undefined) untilUs = this.checkTime(until, 'run: until');
    if (forMs !== undefined) {
      if (typeof forMs !== 'number' || Number.isNaN(forMs) || forMs < 0) throw new SimulationError(`run: forMs must be a number ≥ 0, got ${String(forMs)}`);
      untilUs = forMs === Infinity ? Infinity : this.nowUs + Math.round(forMs * 1000);
    }
    if (maxEvents !== undefined && (!Number.isSafeInteger(maxEvents) || maxEvents < 0)) {
      throw new SimulationError(`run: maxEvents must be a non-negative integer, got ${String(maxEvents)}`);
    }
    if (stopWhen !== undefined && typeof stopWhen !== 'function') throw new SimulationError('run: stopWhen must be a function (event) => boolean');
    if (pace !== undefined && (typeof pace !== 'object' || pace === null)) throw new SimulationError('run: pace must be an object { rate?, wall? }');
    return { untilUs, maxEvents: maxEvents ?? Infinity, stopWhen };
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return value !== undefined && value !== null && typeof (value as PromiseLike<unknown>).then === 'function';
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
