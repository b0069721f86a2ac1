import { durationMs } from '../scenario/scenario-loader.js';
import { ACTION_KEYS, namesOf, type ByzantineEntry, type Scenario, type TimelineEntry, type Workload } from '../scenario/scenario-schema.js';

/** A per-link override of the scenario's network section. */
export type NetworkLink = NonNullable<Scenario['network']['links']>[number];

/** An item of a unit, with its place in its section of the original scenario (assembled scenarios keep that order). */
export interface Placed<T> {
  readonly value: T;
  readonly order: number;
}

/**
 * One event of a failing run's plan, the unit the shrinker keeps or drops: the timeline entries
 * that go together (a crash and the restart that undoes it, a pause and its resume, partitions and
 * the heal that lifts them, a link change and its reset, a clock skew and its reset; any other entry
 * alone), one byzantine entry, one workload, one default network setting (loss, latency, …) or one
 * per-link override. `id` numbers the events of the original plan, for people.
 */
export type ShrinkUnit =
  | { readonly id: number; readonly section: 'timeline'; readonly items: ReadonlyArray<Placed<TimelineEntry>> }
  | { readonly id: number; readonly section: 'byzantine'; readonly items: ReadonlyArray<Placed<ByzantineEntry>> }
  | { readonly id: number; readonly section: 'workloads'; readonly items: ReadonlyArray<Placed<Workload>> }
  | { readonly id: number; readonly section: 'links'; readonly items: ReadonlyArray<Placed<NetworkLink>> }
  | { readonly id: number; readonly section: 'network'; readonly key: string; readonly value: unknown };

/**
 * Whether a unit is an event of the run (a fault, message fault, churn step, byzantine window,
 * workload, membership or config change) rather than a network setting (default loss, latency,
 * …, or a per-link override). Both are shrunk; "events" counts the first.
 */
export function isEvent(unit: ShrinkUnit): boolean {
  return unit.section !== 'network' && unit.section !== 'links';
}

/** A scenario split into what stays (chain, groups, expectations, …) and its events. */
export interface Plan {
  /** The scenario without its events: no timeline, byzantine entries, workloads or network settings. */
  readonly base: Scenario;
  readonly units: readonly ShrinkUnit[];
}

/** The action key of a timeline entry (crash, partition, messages, …). */
export function actionOf(entry: TimelineEntry): string {
  return ACTION_KEYS.find((k) => entry[k] !== undefined) ?? Object.keys(entry).find((k) => k !== 'at' && k !== 'label') ?? 'at';
}

/** Virtual ms an entry's action lasts when it says so itself (crashLeader, clog and messages `for`). */
export function entryLength(entry: TimelineEntry): number {
  const value = entry[actionOf(entry) as keyof TimelineEntry] as unknown;
  if (value !== null && typeof value === 'object' && !Array.isArray(value) && 'for' in value && value.for !== undefined) return durationMs(value.for as string);
  return 0;
}

class UnionFind {
  private readonly parent: number[];
  constructor(n: number) {
    this.parent = Array.from({ length: n }, (_, i) => i);
  }
  find(i: number): number {
    while (this.parent[i] !== i) i = this.parent[i] = this.parent[this.parent[i]!]!;
    return i;
  }
  union(a: number, b: number): void {
    const [x, y] = [this.find(a), this.find(b)];
    if (x !== y) this.parent[Math.max(x, y)] = Math.min(x, y);
  }
}

/**
 * Groups the timeline into the entries that go together: each entry that begins something joins
 * the entries that end it. Crashed nodes join their next restart, paused ones their next resume
 * (or restart), partitions, one-way partitions and isolations the next heal, a link change the
 * next reset of the same links, a clock skew the next zero skew of its node. Other entries (and
 * any a later schema adds) stand alone; those with a `for` end by themselves.
 */
export function timelineGroups(timeline: readonly TimelineEntry[]): number[][] {
  const uf = new UnionFind(timeline.length);
  const order = timeline.map((_, i) => i).sort((a, b) => durationMs(timeline[a]!.at) - durationMs(timeline[b]!.at) || a - b);
  const open = new Map<string, number[]>();
  const begin = (key: string, i: number) => open.set(key, [...(open.get(key) ?? []), i]);
  const end = (key: string, i: number) => {
    for (const j of open.get(key) ?? []) uf.union(i, j);
    open.delete(key);
  };
  for (const i of order) {
    const e = timeline[i]!;
    for (const n of namesOf(e.crash ?? [])) begin(`down:${n}`, i);
    for (const n of namesOf(e.pause ?? [])) begin(`paused:${n}`, i);
    for (const n of namesOf(e.restart ?? [])) {
      end(`down:${n}`, i);
      end(`paused:${n}`, i);
    }
    for (const n of namesOf(e.resume ?? [])) end(`paused:${n}`, i);
    if (e.partition || e.partitionOneWay || e.isolate) begin('split', i);
    if (e.heal) end('split', i);
    if (e.link) {
      const key = `link:${namesOf(e.link.from).join(',')}>${namesOf(e.link.to).join(',')}`;
      if (e.link.reset) end(key, i);
      else begin(key, i);
    }
    if (e.clockSkew) {
      const key = `skew:${e.clockSkew.node}`;
      if (e.clockSkew.offsetMs === 0 && e.clockSkew.drift === 0) end(key, i);
      else begin(key, i);
    }
  }
  const groups = new Map<number, number[]>();
  for (const i of order) {
    const root = uf.find(i);
    groups.set(root, [...(groups.get(root) ?? []), i]);
  }
  // in the order of each group's first entry
  return [...groups.values()].sort((a, b) => order.indexOf(a[0]!) - order.indexOf(b[0]!));
}

/** Splits a scenario into its base and its events, numbered in file order: network settings, links, workloads, timeline, byzantine. */
export function splitScenario(scenario: Scenario): Plan {
  const units: ShrinkUnit[] = [];
  let id = 1;
  const { links, ...settings } = scenario.network;
  for (const [key, value] of Object.entries(settings)) if (value !== undefined) units.push({ id: id++, section: 'network', key, value });
  (links ?? []).forEach((value, order) => units.push({ id: id++, section: 'links', items: [{ value, order }] }));
  scenario.workloads.forEach((value, order) => units.push({ id: id++, section: 'workloads', items: [{ value, order }] }));
  for (const group of timelineGroups(scenario.timeline)) {
    units.push({ id: id++, section: 'timeline', items: group.map((order) => ({ value: scenario.timeline[order]!, order })) });
  }
  scenario.byzantine.forEach((value, order) => units.push({ id: id++, section: 'byzantine', items: [{ value, order }] }));
  const { swarm: _swarm, ...rest } = scenario;
  return { base: { ...rest, network: {}, workloads: [], timeline: [], byzantine: [] }, units };
}

function placed<T>(units: readonly ShrinkUnit[], section: ShrinkUnit['section']): T[] {
  const items = units.flatMap((u) => (u.section === section && 'items' in u ? (u.items as ReadonlyArray<Placed<T>>) : []));
  return [...items].sort((a, b) => a.order - b.order).map((p) => p.value);
}

/** The scenario of a base and some of its events: each section in its original order, the timeline by time (then original order). */
export function assemble(base: Scenario, units: readonly ShrinkUnit[]): Scenario {
  const network: Record<string, unknown> = { ...base.network };
  for (const u of units) if (u.section === 'network') network[u.key] = u.value;
  const links = placed<NetworkLink>(units, 'links');
  if (links.length > 0) network.links = links;
  const timeline = units
    .flatMap((u) => (u.section === 'timeline' ? u.items : []))
    .sort((a, b) => durationMs(a.value.at) - durationMs(b.value.at) || a.order - b.order)
    .map((p) => p.value);
  return {
    ...base,
    network: network as Scenario['network'],
    workloads: placed<Workload>(units, 'workloads'),
    timeline,
    byzantine: placed<ByzantineEntry>(units, 'byzantine'),
  };
}
