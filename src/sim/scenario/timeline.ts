import { encodeFunctionCall } from '../../abi/index.js';
import { precompileAddress, PRECOMPILE_ADDRESSES } from '../../exec/index.js';
import type { LinkConfig, MessageFault, Partition } from '../../runtime/index.js';
import type { SimChain } from '../sim-chain.js';
import { linkConfigOf } from './scenario-chain.js';
import { durationMs } from './scenario-loader.js';
import { namesOf, type LinkSettings, type Scenario, type TimelineEntry } from './scenario-schema.js';
import type { NodeRpc } from '../node-rpc.js';
import type { TxClient } from './tx-client.js';
import type { TxRecord } from './tx-tracker.js';

/** A fault or change of the run, for the report: an interval, or an instant when untilMs = fromMs. */
export interface FaultInterval {
  readonly fromMs: number;
  untilMs: number | undefined;
  readonly kind: string;
  readonly description: string;
  readonly nodes: string[];
  /** The index of the timeline entry that began it (absent for the byzantine intervals): which node a crashLeader crashed, say. */
  entry?: number;
}

/** What an administrative transaction should have changed, checked on every live honest node at the end. */
export type AdminEffect =
  | { readonly kind: 'config'; readonly group: number; readonly key: string; readonly value: string }
  | { readonly kind: 'member'; readonly group: number; readonly node: string; readonly role: 'sealer' | 'observer' | 'none' };

/** An administrative transaction of the timeline (membership, system config) and its outcome. */
export interface AdminAction {
  readonly atMs: number;
  readonly description: string;
  readonly effect: AdminEffect;
  record: TxRecord | undefined;
}

const CONSENSUS = precompileAddress(PRECOMPILE_ADDRESSES.Consensus).bytes;
const SYSTEM_CONFIG = precompileAddress(PRECOMPILE_ADDRESSES.SystemConfig).bytes;

function describeLink(settings: LinkSettings): string {
  const parts: string[] = [];
  if (settings.latency) {
    const l = settings.latency;
    parts.push(
      l.kind === 'constant' ? `latency ${l.ms} ms` : l.kind === 'uniform' ? `latency ${l.minMs}–${l.maxMs} ms` : l.kind === 'exponential' ? `latency ≥${l.minMs} ms, mean ${l.meanMs} ms` : `latency ${l.meanMs}±${l.stdDevMs} ms`,
    );
  }
  if (settings.loss !== undefined) parts.push(`loss ${settings.loss * 100}%`);
  if (settings.duplicate !== undefined) parts.push(`duplication ${settings.duplicate * 100}%`);
  if (settings.reorder !== undefined) parts.push(`reordering ${settings.reorder * 100}%`);
  if (settings.jitterMs !== undefined) parts.push(`jitter ${settings.jitterMs} ms`);
  if (settings.queueCapacity !== undefined) parts.push(`queue ${settings.queueCapacity}`);
  return parts.join(', ') || 'no change';
}

/**
 * Plays the scenario's timeline on the simulation (faults, network changes, membership and
 * config transactions) and keeps the intervals for the report. `freeze` ends every network fault
 * for the liveness phase.
 */
export class TimelinePlayer {
  readonly faults: FaultInterval[] = [];
  readonly admin: AdminAction[] = [];
  private readonly open = new Map<string, FaultInterval>();
  private readonly partitions: Array<{ partition: Partition; interval: FaultInterval }> = [];
  private readonly messageFaults: Array<{ fault: MessageFault; interval: FaultInterval }> = [];
  private readonly baseNetwork: Partial<LinkConfig>;

  constructor(
    private readonly scenario: Scenario,
    private readonly chain: SimChain,
    private readonly client: TxClient,
  ) {
    const { links: _links, ...defaults } = scenario.network;
    this.baseNetwork = linkConfigOf(defaults);
  }

  /** Schedules every timeline entry, the static per-link settings, and the byzantine intervals for the report. */
  schedule(): void {
    const { sim } = this.chain;
    for (const link of this.scenario.network.links ?? []) {
      const { from, to, ...settings } = link;
      sim.network.setLink(from, to, linkConfigOf(settings));
    }
    this.scenario.timeline.forEach((entry, index) => {
      const at = durationMs(entry.at);
      sim.at(at, () => {
        // play records its intervals before its first await
        const before = this.faults.length;
        const played = this.play(entry, at);
        for (const interval of this.faults.slice(before)) interval.entry = index;
        return played;
      }, entry.label ?? 'timeline');
    });
    for (const b of this.scenario.byzantine) {
      if ('twins' in b) this.faults.push({ fromMs: 0, untilMs: undefined, kind: 'twins', description: `${b.twins} has a twin (${b.twins}-twin) with its identity`, nodes: [b.twins, `${b.twins}-twin`] });
      else {
        this.faults.push({
          fromMs: b.from === undefined ? 0 : durationMs(b.from),
          untilMs: b.until === undefined ? undefined : durationMs(b.until),
          kind: b.behaviour,
          description: `${b.node} ${behaviourText(b)} (group ${b.group})`,
          nodes: [b.node],
        });
      }
    }
  }

  private begin(key: string, interval: Omit<FaultInterval, 'untilMs'>): void {
    this.end(key, interval.fromMs);
    const full: FaultInterval = { ...interval, untilMs: undefined };
    this.faults.push(full);
    this.open.set(key, full);
  }

  private end(key: string, at: number): void {
    const interval = this.open.get(key);
    if (interval) {
      interval.untilMs = at;
      this.open.delete(key);
    }
  }

  private instant(at: number, kind: string, description: string, nodes: string[]): void {
    this.faults.push({ fromMs: at, untilMs: at, kind, description, nodes });
  }

  private async play(entry: TimelineEntry, at: number): Promise<void> {
    const { sim } = this.chain;
    const net = sim.network;
    const why = entry.label ? ` (${entry.label})` : '';
    if (entry.crash !== undefined) {
      for (const n of namesOf(entry.crash)) {
        if (sim.node(n).state === 'down') continue;
        sim.crash(n);
        this.begin(`down:${n}`, { fromMs: at, kind: 'crash', description: `${n} crashed${why}`, nodes: [n] });
      }
    } else if (entry.crashLeader !== undefined) {
      const { group } = entry.crashLeader;
      const leader = this.leaderOf(group);
      if (leader === undefined) {
        this.instant(at, 'crash', `no leader of group ${group} to crash${why}`, []);
        return;
      }
      sim.crash(leader);
      this.begin(`down:${leader}`, { fromMs: at, kind: 'crash', description: `${leader}, the leader of group ${group}, crashed${why}`, nodes: [leader] });
      if (entry.crashLeader.for !== undefined) {
        const back = at + durationMs(entry.crashLeader.for);
        sim.at(back, () => {
          // something else may have restarted it meanwhile
          if (sim.node(leader).state !== 'down') return;
          sim.restart(leader);
          this.end(`down:${leader}`, back);
        }, `restart ${leader}`);
      }
    } else if (entry.restart !== undefined) {
      // like crashing a crashed node, restarting a running one does nothing; a paused one resumes
      for (const n of namesOf(entry.restart)) {
        const state = sim.node(n).state;
        if (state === 'down') sim.restart(n);
        else if (state === 'paused') sim.resume(n);
        else continue;
        this.end(`down:${n}`, at);
        this.end(`paused:${n}`, at);
      }
    } else if (entry.pause !== undefined) {
      for (const n of namesOf(entry.pause)) {
        if (sim.node(n).state !== 'up') continue;
        sim.pause(n);
        this.begin(`paused:${n}`, { fromMs: at, kind: 'pause', description: `${n} paused${why}`, nodes: [n] });
      }
    } else if (entry.resume !== undefined) {
      for (const n of namesOf(entry.resume)) {
        if (sim.node(n).state !== 'paused') continue;
        sim.resume(n);
        this.end(`paused:${n}`, at);
      }
    } else if (entry.partition !== undefined) {
      const partition = net.partition(entry.partition);
      this.addPartition(partition, at, 'partition', `partition ${entry.partition.map((side) => `[${side.join(', ')}]`).join(' | ')}${why}`, entry.partition.flat());
    } else if (entry.partitionOneWay !== undefined) {
      const { from, to } = entry.partitionOneWay;
      const partition = net.partitionOneWay(from, to);
      this.addPartition(partition, at, 'one-way partition', `${namesOf(from).join(', ')} cannot reach ${namesOf(to).join(', ')}${why}`, [...namesOf(from), ...namesOf(to)]);
    } else if (entry.isolate !== undefined) {
      const partition = net.isolate(entry.isolate);
      this.addPartition(partition, at, 'isolation', `${entry.isolate} isolated${why}`, [entry.isolate]);
    } else if (entry.isolateLeader !== undefined) {
      this.isolateLeader(entry.isolateLeader, at, why);
    } else if (entry.heal !== undefined) {
      this.healAll(at);
    } else if (entry.clog !== undefined) {
      const { between, oneWay } = entry.clog;
      const ms = durationMs(entry.clog.for);
      if (oneWay) net.clogOneWay(between[0], between[1], ms);
      else net.clog(between[0], between[1], ms);
      this.faults.push({ fromMs: at, untilMs: at + ms, kind: 'clog', description: `${between[0]} ${oneWay ? '→' : '↔'} ${between[1]} clogged for ${ms} ms${why}`, nodes: [...between] });
    } else if (entry.network !== undefined) {
      net.setDefaults(linkConfigOf(entry.network));
      this.begin('network', { fromMs: at, kind: 'network', description: `network: ${describeLink(entry.network)}${why}`, nodes: [] });
    } else if (entry.link !== undefined) {
      const { from, to, reset, ...settings } = entry.link;
      const key = `link:${namesOf(from).join(',')}>${namesOf(to).join(',')}`;
      if (reset) {
        net.setLink(from, to, null);
        this.end(key, at);
      } else {
        net.setLink(from, to, linkConfigOf(settings));
        this.begin(key, { fromMs: at, kind: 'link', description: `links ${namesOf(from).join(', ')} → ${namesOf(to).join(', ')}: ${describeLink(settings)}${why}`, nodes: [...namesOf(from), ...namesOf(to)] });
      }
    } else if (entry.clockSkew !== undefined) {
      const { node, offsetMs, drift } = entry.clockSkew;
      sim.setClockSkew(node, { offsetMs, drift });
      if (offsetMs === 0 && drift === 0) this.end(`skew:${node}`, at);
      else this.begin(`skew:${node}`, { fromMs: at, kind: 'clock skew', description: `${node} clock ${offsetMs >= 0 ? '+' : ''}${offsetMs} ms, drift ${drift}${why}`, nodes: [node] });
    } else if (entry.messages !== undefined) {
      const { kinds, from, to, drop, delay } = entry.messages;
      const ms = durationMs(entry.messages.for);
      const delayMs = delay === undefined ? undefined : durationMs(delay);
      const fault = net.messageFault({ kinds, ...(from !== undefined ? { from } : {}), ...(to !== undefined ? { to } : {}), ...(drop !== undefined ? { drop } : { delayMs: delayMs! }), durationMs: ms });
      const action = drop === true ? 'dropped' : drop !== undefined ? `dropped with probability ${drop}` : `delayed by ${delayMs} ms`;
      const links = `${from === undefined ? 'every node' : namesOf(from).join(', ')} → ${to === undefined ? 'every node' : namesOf(to).join(', ')}`;
      const interval: FaultInterval = { fromMs: at, untilMs: at + ms, kind: 'messages', description: `${kinds.join(', ')} ${links} ${action} for ${ms} ms${why}`, nodes: [...new Set([...namesOf(from ?? []), ...namesOf(to ?? [])])] };
      this.faults.push(interval);
      this.messageFaults.push({ fault, interval });
    } else if (entry.addSealer !== undefined || entry.addObserver !== undefined || entry.removeNode !== undefined) {
      const [method, change] = entry.addSealer ? ['addSealer', entry.addSealer] as const : entry.addObserver ? ['addObserver', entry.addObserver] as const : ['remove', entry.removeNode!] as const;
      const data = encodeFunctionCall(`${method}(string)`, [this.chain.idOf(change.node)], (d) => this.chain.suite.hash(d));
      const description = `${method}(${change.node}) in group ${change.group}${why}`;
      this.instant(at, 'membership', description, [change.node]);
      const role = method === 'addSealer' ? 'sealer' : method === 'addObserver' ? 'observer' : 'none';
      await this.adminTransaction(at, description, { kind: 'member', group: change.group, node: change.node, role }, CONSENSUS, data);
    } else if (entry.setConfig !== undefined) {
      const { group, key, value } = entry.setConfig;
      const data = encodeFunctionCall('setValueByKey(string,string)', [key, String(value)], (d) => this.chain.suite.hash(d));
      const description = `setValueByKey(${key}, ${value}) in group ${group}${why}`;
      this.instant(at, 'system config', description, []);
      await this.adminTransaction(at, description, { kind: 'config', group, key, value: String(value) }, SYSTEM_CONFIG, data);
    }
  }

  /** Cuts the group's leader of the moment off (only its inbound links when oneWay), and heals that cut after `for`. */
  private isolateLeader(spec: NonNullable<TimelineEntry['isolateLeader']>, at: number, why: string): void {
    const { sim } = this.chain;
    const leader = this.leaderOf(spec.group);
    if (leader === undefined) {
      this.instant(at, 'isolation', `no leader of group ${spec.group} to cut off${why}`, []);
      return;
    }
    const others = sim.nodes().map((n) => n.name).filter((n) => n !== leader);
    const partition = spec.oneWay ? sim.network.partitionOneWay(others, leader) : sim.network.isolate(leader);
    const description = spec.oneWay ? `${leader}, the leader of group ${spec.group}, hears nobody (what it sends still goes out)${why}` : `${leader}, the leader of group ${spec.group}, isolated${why}`;
    this.addPartition(partition, at, 'isolation', description, [leader]);
    const back = at + durationMs(spec.for);
    sim.at(back, () => {
      const i = this.partitions.findIndex((p) => p.partition === partition);
      if (i < 0) return; // healed already (a heal, or the liveness phase)
      sim.network.heal(partition);
      this.partitions.splice(i, 1)[0]!.interval.untilMs = back;
    }, `heal ${leader}`);
  }

  /** Sends a precompile call as the chain's admin account; retried each second while no node takes it. */
  private async adminTransaction(at: number, description: string, effect: AdminEffect, to: Uint8Array, data: Uint8Array): Promise<void> {
    const action: AdminAction = { atMs: at, description, effect, record: undefined };
    this.admin.push(action);
    const attempt = async () => {
      action.record = await this.client.send('admin', effect.group, 'admin', { to, data });
      if (!action.record) this.chain.sim.after(1000, attempt, 'admin retry');
    };
    await attempt();
  }

  /** The node that leads the group now, as a live honest sealer sees it. */
  private leaderOf(group: number): string | undefined {
    for (const name of this.chain.names) {
      const g = this.chain.sim.node(name).state === 'up' ? this.chain.group(name, group) : undefined;
      if (!g || g.membership() !== 'sealer') continue;
      const status = g.consensusStatus();
      const id = status.kind === 'raft' ? status.leaderId : status.sealers[(status.currentView + g.blockNumber()) % status.nodeNum];
      if (!id) continue;
      const leader = this.chain.nameOf(id);
      if (leader !== undefined && this.chain.sim.node(leader).state === 'up') return leader;
    }
    return undefined;
  }

  /**
   * Whether each timeline transaction took effect: committed with status 0, and (the last change
   * of each setting or node) visible through JSON-RPC on every live honest member of the group.
   */
  async verify(rpc: NodeRpc, members: (group: number) => string[]): Promise<Array<{ name: string; ok: boolean; detail: string }>> {
    const last = new Map<string, AdminAction>();
    for (const a of this.admin) last.set(a.effect.kind === 'config' ? `c/${a.effect.group}/${a.effect.key}` : `m/${a.effect.group}/${a.effect.node}`, a);
    const out: Array<{ name: string; ok: boolean; detail: string }> = [];
    for (const action of this.admin) {
      const name = `timeline at ${action.atMs} ms: ${action.description} took effect`;
      const r = action.record;
      if (!r) out.push({ name, ok: false, detail: 'no node took the transaction' });
      else if (r.committedAt === undefined) out.push({ name, ok: false, detail: `${r.hash} was not committed` });
      else if (r.status !== 0) out.push({ name, ok: false, detail: `${r.hash} failed with status ${r.status} in block ${r.height}` });
      else {
        const problems: string[] = [];
        const effect = action.effect;
        const isLast = [...last.values()].includes(action);
        const nodes = members(effect.group);
        for (const node of isLast ? nodes : []) {
          if (effect.kind === 'config') {
            // SPEC lets getSystemConfigByKey answer tx_count_limit and tx_gas_limit only; other keys are read from the node
            const reply = await rpc.call(node, 'getSystemConfigByKey', [effect.group, effect.key]);
            const value = reply?.error?.code === -40008 ? await this.chain.group(node, effect.group)?.systemConfig(effect.key) : reply?.result;
            if (value !== effect.value) problems.push(`${node} reports ${JSON.stringify(value ?? reply?.error?.message)}`);
          } else {
            const id = this.chain.idOf(effect.node);
            const sealers = (await rpc.call(node, 'getSealerList', [effect.group]))?.result as string[] | undefined;
            const observers = (await rpc.call(node, 'getObserverList', [effect.group]))?.result as string[] | undefined;
            const role = sealers?.includes(id) ? 'sealer' : observers?.includes(id) ? 'observer' : 'none';
            if (role !== effect.role) problems.push(`${node} lists ${effect.node} as ${role}`);
          }
        }
        out.push({
          name,
          ok: problems.length === 0,
          detail: problems.length > 0 ? problems.join('; ') : `block ${r.height}${isLast ? `; seen by ${nodes.length} live honest member(s)` : '; a later change replaced it'}`,
        });
      }
    }
    return out;
  }

  private addPartition(partition: Partition, at: number, kind: string, description: string, nodes: string[]): void {
    const interval: FaultInterval = { fromMs: at, untilMs: undefined, kind, description, nodes: [...new Set(nodes)] };
    this.faults.push(interval);
    this.partitions.push({ partition, interval });
  }

  private healAll(at: number): void {
    this.chain.sim.network.heal();
    for (const { interval } of this.partitions.splice(0)) interval.untilMs ??= at;
  }

  /**
   * The liveness phase: no more network faults. Partitions healed, message-kind faults lifted,
   * per-link settings and lost or duplicated messages gone (latency kept), paused nodes resumed,
   * clocks set right. Crashed nodes
   * stay down and byzantine nodes stay byzantine: those are within the fault budget.
   */
  freeze(at: number): void {
    const { sim } = this.chain;
    this.healAll(at);
    sim.network.liftMessageFault();
    for (const { interval } of this.messageFaults.splice(0)) if (interval.untilMs! > at) interval.untilMs = at;
    const names = sim.nodes().map((n) => n.name);
    sim.network.setLink(names, names, null);
    sim.network.setDefaults({ ...this.baseNetwork, lossRate: 0, duplicateRate: 0 });
    for (const n of names) {
      if (sim.node(n).state === 'paused') sim.resume(n);
    }
    for (const [key, interval] of this.open) {
      if (key.startsWith('skew:')) sim.setClockSkew(interval.nodes[0]!, { offsetMs: 0, drift: 0 });
      if (!key.startsWith('down:')) this.end(key, at);
    }
  }
}

/** What a byzantine entry does, in words (the report's fault timeline). */
function behaviourText(b: Extract<Scenario['byzantine'][number], { node: string }>): string {
  switch (b.behaviour) {
    case 'equivocate':
      return 'equivocates as leader';
    case 'double-sign':
      return 'double-signs';
    case 'silent':
      return 'is silent';
    case 'mutate':
      return `mutates its messages (${b.mutations ? b.mutations.join(', ') : "swarm's set"}, rate ${b.rate ?? 0.3})`;
    default:
      return `is byzantine: ${b.behaviour}${b.variant ? ` (${b.variant})` : ''}`;
  }
}
