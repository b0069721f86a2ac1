import { SWARM_MUTATIONS } from '../../node/index.js';
import { HOSTILE_BEHAVIOURS } from '../scenario/hostile-behaviours.js';
import { resolveGroups } from '../scenario/scenario-chain.js';
import { durationMs, nodeNames } from '../scenario/scenario-loader.js';
import { namesOf, type ByzantineEntry, type Scenario, type TimelineEntry, type Workload } from '../scenario/scenario-schema.js';
import { actionOf, entryLength, type Placed, type Plan, type ShrinkUnit } from './plan.js';

/** A duration as a file would write it: whole seconds as "12s", else seconds with up to three decimals ("12.34s"). */
export function msText(ms: number): string {
  const rounded = Math.max(0, Math.round(ms));
  return `${Number((rounded / 1000).toFixed(3))}s`;
}

/** Rounds down to a multiple of 10 ms (times the shrinker makes read as 12.34s, not 12.3456s). */
const round10 = (ms: number) => Math.round(ms / 10) * 10;

/** [from, until] of a unit in virtual ms, or undefined when it has no extent in time. */
export function unitWindow(unit: ShrinkUnit, endMs: number): [number, number] | undefined {
  switch (unit.section) {
    case 'timeline': {
      const starts = unit.items.map((p) => durationMs(p.value.at));
      const ends = unit.items.map((p) => durationMs(p.value.at) + entryLength(p.value));
      const [from, until] = [Math.min(...starts), Math.max(...ends)];
      return until > from ? [from, until] : undefined;
    }
    case 'byzantine': {
      const b = unit.items[0]!.value;
      if ('twins' in b) return undefined;
      return [b.from === undefined ? 0 : durationMs(b.from), b.until === undefined ? endMs : durationMs(b.until)];
    }
    case 'workloads': {
      const w = unit.items[0]!.value;
      return [w.start === undefined ? 0 : durationMs(w.start), w.stop === undefined ? endMs : durationMs(w.stop)];
    }
    default:
      return undefined;
  }
}

/** When a unit first acts (0 for settings that hold from the start). */
export function unitStart(unit: ShrinkUnit): number {
  if (unit.section === 'timeline') return Math.min(...unit.items.map((p) => durationMs(p.value.at)));
  if (unit.section === 'byzantine') {
    const b = unit.items[0]!.value;
    return 'twins' in b || b.from === undefined ? 0 : durationMs(b.from);
  }
  if (unit.section === 'workloads') {
    const w = unit.items[0]!.value;
    return w.start === undefined ? 0 : durationMs(w.start);
  }
  return 0;
}

/** A timeline entry with its time and its own `for` moved by `map` (a monotone map of virtual ms). */
function retimed(entry: TimelineEntry, map: (ms: number) => number): TimelineEntry {
  const at = durationMs(entry.at);
  const key = actionOf(entry) as keyof TimelineEntry;
  const value = entry[key] as unknown;
  const next = { ...entry, at: msText(map(at)) } as Record<string, unknown>;
  if (value !== null && typeof value === 'object' && !Array.isArray(value) && 'for' in value && value.for !== undefined) {
    const end = map(at + durationMs(value.for as string));
    next[key] = { ...value, for: msText(Math.max(0, end - map(at))) };
  }
  return next as TimelineEntry;
}

/**
 * The unit moved into [from, until]: a timeline unit's times (and `for`s) scaled linearly from its
 * window into the new one, a byzantine entry's from/until or a workload's start/stop set.
 */
export function rescaled(unit: ShrinkUnit, from: number, until: number, endMs: number): ShrinkUnit {
  const window = unitWindow(unit, endMs);
  if (!window) return unit;
  const [a, b] = window;
  const map = (t: number) => round10(from + ((t - a) * (until - from)) / (b - a));
  switch (unit.section) {
    case 'timeline':
      return { ...unit, items: unit.items.map((p) => ({ ...p, value: retimed(p.value, map) })) };
    case 'byzantine': {
      const b0 = unit.items[0]!.value as Extract<ByzantineEntry, { node: string }>;
      return { ...unit, items: [{ ...unit.items[0]!, value: { ...b0, from: msText(round10(from)), until: msText(round10(until)) } }] };
    }
    case 'workloads': {
      const w = unit.items[0]!.value;
      return { ...unit, items: [{ ...unit.items[0]!, value: { ...w, start: msText(round10(from)), stop: msText(round10(until)) } }] };
    }
    default:
      return unit;
  }
}

/**
 * The plan cut off at `endMs`: the duration set to it, events that start at or after it dropped,
 * and those that reach past it ended at it (a restart at the new end, a `for`, a byzantine
 * interval or a workload cut short).
 */
export function truncated(plan: Plan, endMs: number): Plan {
  const units: ShrinkUnit[] = [];
  for (const unit of plan.units) {
    if (unit.section === 'network' || unit.section === 'links') {
      units.push(unit);
      continue;
    }
    if (unitStart(unit) >= endMs) continue;
    if (unit.section === 'timeline') {
      const clamp = (t: number) => Math.min(t, endMs);
      units.push({ ...unit, items: unit.items.map((p) => (durationMs(p.value.at) + entryLength(p.value) > endMs ? { ...p, value: retimed(p.value, clamp) } : p)) });
    } else if (unit.section === 'byzantine') {
      const b = unit.items[0]!.value;
      units.push('twins' in b || b.until === undefined || durationMs(b.until) <= endMs ? unit : { ...unit, items: [{ ...unit.items[0]!, value: { ...b, until: msText(endMs) } }] });
    } else {
      const w = unit.items[0]!.value;
      units.push(w.stop === undefined || durationMs(w.stop) <= endMs ? unit : { ...unit, items: [{ ...unit.items[0]!, value: { ...w, stop: msText(endMs) } }] });
    }
  }
  return { base: { ...plan.base, duration: msText(endMs) }, units };
}

const NODE_NAME = /^node(\d+)(-twin)?$/;
/** Keys of free text, never node names. */
const TEXT_KEYS = new Set(['label', 'description', 'file', 'kind', 'behaviour', 'variant', 'key']);
const DROP = Symbol('drop');

/**
 * `value` with node names renamed by `rename` (null: the node is gone): lists lose the gone node
 * (a list left empty, or a single name that is gone, drops what holds it), and objects that lose
 * a name are dropped, except a workload's targets (gone: every member takes its transactions).
 */
function renamed(value: unknown, rename: (name: string) => string | null, key = ''): unknown {
  if (typeof value === 'string') {
    if (TEXT_KEYS.has(key) || !NODE_NAME.test(value)) return value;
    return rename(value) ?? DROP;
  }
  if (Array.isArray(value)) {
    const out = value.map((v) => renamed(v, rename, key)).filter((v) => v !== DROP);
    return out.length === 0 && value.length > 0 ? DROP : out;
  }
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const next = renamed(v, rename, k);
      if (next === DROP) {
        if (k === 'targets') continue;
        return DROP;
      }
      out[k] = next;
    }
    return out;
  }
  return value;
}

/** A unit with its values passed through `map`; undefined when any of them is dropped. */
function mapUnit(unit: ShrinkUnit, map: (value: unknown) => unknown): ShrinkUnit | undefined {
  if (unit.section === 'network') {
    const value = map(unit.value);
    return value === DROP ? undefined : { ...unit, value };
  }
  const items: Array<Placed<unknown>> = [];
  for (const p of unit.items as ReadonlyArray<Placed<unknown>>) {
    const value = map(p.value);
    if (value === DROP) return undefined;
    items.push({ ...p, value });
  }
  return { ...unit, items } as ShrinkUnit;
}

/**
 * The plan without node `name`: the nodes after it renamed down by one (node3 becomes node2, and
 * its twin too), the groups' member lists without it, and every event that names it alone (or in
 * a place a name cannot be left out of) dropped.
 */
export function withoutNode(plan: Plan, name: string): Plan | undefined {
  const gone = NODE_NAME.exec(name);
  if (!gone) return undefined;
  const k = Number(gone[1]);
  const n = plan.base.chain.nodes;
  if (n <= 1 || k >= n) return undefined;
  const rename = (node: string): string | null => {
    const m = NODE_NAME.exec(node)!;
    const i = Number(m[1]);
    if (i === k) return null;
    return i > k ? `node${i - 1}${m[2] ?? ''}` : node;
  };
  const resolved = resolveGroups(plan.base);
  const groups: Scenario['groups'] = [];
  for (const [i, g] of plan.base.groups.entries()) {
    const r = resolved[i]!;
    const names = (list: readonly string[]) => list.filter((x) => rename(x) !== null).map((x) => rename(x)!);
    const sealers = names(r.sealers);
    if (sealers.length === 0) return undefined;
    const first = nodeNames({ ...plan.base, chain: { ...plan.base.chain, nodes: n - 1 } }).slice(0, sealers.length);
    const counted = typeof g.sealers !== 'object' && sealers.every((s, j) => s === first[j]);
    const { sealers: _s, observers: _o, spare: _p, ...rest } = g;
    const observers = names(r.observers);
    const spare = names(r.spare);
    groups.push({
      ...rest,
      sealers: counted ? sealers.length : sealers,
      ...(observers.length > 0 || g.observers !== undefined ? { observers } : {}),
      ...(spare.length > 0 ? { spare } : {}),
    });
  }
  const units = plan.units.flatMap((u) => mapUnit(u, (v) => renamed(v, rename)) ?? []);
  return { base: { ...plan.base, chain: { ...plan.base.chain, nodes: n - 1 }, groups }, units };
}

function mentionsGroup(value: unknown, id: number): boolean {
  if (Array.isArray(value)) return value.some((v) => mentionsGroup(v, id));
  if (value !== null && typeof value === 'object') return Object.entries(value).some(([k, v]) => (k === 'group' && v === id) || mentionsGroup(v, id));
  return false;
}

/** The plan without group `id` and every event that names it (its workloads, byzantine entries, leader crashes, membership and config changes). */
export function withoutGroup(plan: Plan, id: number): Plan | undefined {
  const groups = plan.base.groups.filter((g) => g.id !== id);
  if (groups.length === 0 || groups.length === plan.base.groups.length) return undefined;
  const units = plan.units.filter((u) => (u.section === 'network' ? true : !u.items.some((p) => mentionsGroup(p.value, id))));
  return { base: { ...plan.base, groups }, units };
}

/** Count-like fields of a workload (of any kind) worth halving: fewer transactions, accounts, clients, a smaller burst (whole numbers but the rate). */
const COUNT_FIELDS = ['rate', 'accounts', 'clients', 'connections', 'senders', 'count', 'burst'] as const;

/** A list without each of its items in turn (nothing for a list of one: the schema wants at least one). */
function eachLeftOut<T>(list: readonly T[]): T[][] {
  return list.length > 1 ? list.map((_, i) => list.filter((__, j) => j !== i)) : [];
}

/**
 * Smaller variants of a workload unit, each one step: a count field halved (rate, accounts,
 * clients, burst, …; the schema refuses what goes below a minimum), one of its targets left out
 * (or, with none, one member alone), one of a mix's weights zeroed, one of a hostile workload's
 * behaviours left out (all of them when it lists none). A workload kind added later gets the same
 * treatment for the fields it has.
 */
export function workloadVariants(unit: ShrinkUnit, scenario: Scenario): ShrinkUnit[] {
  if (unit.section !== 'workloads') return [];
  const w = unit.items[0]!.value as Workload & Record<string, unknown>;
  const variants: Array<Record<string, unknown>> = [];
  for (const field of COUNT_FIELDS) {
    const v = w[field];
    if (typeof v !== 'number' || v <= 0) continue;
    // a rate goes down to 1 tx/s (below that a run sends next to nothing but the workload's setup); counts halve
    const half = field === 'rate' ? Math.max(1, Math.round((v / 2) * 100) / 100) : Math.floor(v / 2);
    if (half > 0 && half < v) variants.push({ ...w, [field]: half });
  }
  if (w.targets !== undefined) {
    const targets = namesOf(w.targets);
    if (targets.length > 1) for (const t of targets) variants.push({ ...w, targets: targets.filter((x) => x !== t) });
  } else {
    const g = resolveGroups(scenario).find((x) => x.id === w.group);
    for (const m of g?.sealers ?? []) variants.push({ ...w, targets: [m] });
  }
  if (w.kind === 'mix') {
    const positive = Object.entries(w.weights).filter(([, x]) => x > 0);
    if (positive.length > 1) for (const [k] of positive) variants.push({ ...w, weights: { ...w.weights, [k]: 0 } });
  }
  if (w.kind === 'hostile') for (const behaviours of eachLeftOut(w.behaviours ?? HOSTILE_BEHAVIOURS)) variants.push({ ...w, behaviours });
  return variants.map((value) => ({ ...unit, items: [{ ...unit.items[0]!, value: value as Workload }] }));
}

/**
 * Narrower variants of a byzantine unit, each one step: a mutating node with one of its mutations
 * left out (all that swarm draws for its group's consensus when it lists none), so that what is
 * kept names the mutations the violation needs.
 */
export function byzantineVariants(unit: ShrinkUnit, scenario: Scenario): ShrinkUnit[] {
  if (unit.section !== 'byzantine') return [];
  const b = unit.items[0]!.value;
  if ('twins' in b || b.behaviour !== 'mutate') return [];
  const consensus = resolveGroups(scenario).find((g) => g.id === b.group)?.consensus;
  const mutations = b.mutations ?? (consensus === 'pbft' || consensus === 'raft' ? SWARM_MUTATIONS[consensus] : []);
  return eachLeftOut(mutations).map((m) => ({ ...unit, items: [{ ...unit.items[0]!, value: { ...b, mutations: m } }] }));
}

/**
 * A timeline unit with each `crashLeader` and `isolateLeader` that acted on a known node (by its
 * index in the assembled timeline) written out with that node: a crash of it and, after its `for`,
 * a restart; an isolation of it (or, one-way, a partition of everyone else from it) and, after its
 * `for`, a heal. The same run, with nothing left to whoever leads at that moment. `everyone` gives
 * the nodes a one-way cut keeps from the leader. Undefined when there is nothing to replace.
 */
export function withLeadersNamed(unit: ShrinkUnit, leaderOf: (entry: TimelineEntry) => string | undefined, everyone: readonly string[] = []): ShrinkUnit | undefined {
  if (unit.section !== 'timeline') return undefined;
  let changed = false;
  const items = unit.items.flatMap((p): Array<Placed<TimelineEntry>> => {
    const { crashLeader: crash, isolateLeader: isolation } = p.value;
    const node = crash || isolation ? leaderOf(p.value) : undefined;
    if (node === undefined) return [p];
    const label = p.value.label !== undefined ? { label: p.value.label } : {};
    const after = (ms: string) => msText(durationMs(p.value.at) + durationMs(ms));
    if (crash) {
      changed = true;
      const out: Array<Placed<TimelineEntry>> = [{ order: p.order, value: { at: p.value.at, crash: node, ...label } as TimelineEntry }];
      if (crash.for !== undefined) out.push({ order: p.order + 0.5, value: { at: after(crash.for), restart: node, ...label } as TimelineEntry });
      return out;
    }
    const others = everyone.filter((n) => n !== node);
    if (!isolation || (isolation.oneWay && others.length === 0)) return [p];
    changed = true;
    const cut = isolation.oneWay ? { partitionOneWay: { from: others, to: [node] } } : { isolate: node };
    return [
      { order: p.order, value: { at: p.value.at, ...cut, ...label } as TimelineEntry },
      { order: p.order + 0.5, value: { at: after(isolation.for), heal: true, ...label } as TimelineEntry },
    ];
  });
  return changed ? { ...unit, items } : undefined;
}

/**
 * How far a scenario's faults go beyond what its groups tolerate at worst: over time, per group,
 * the sealers that are byzantine, twinned, crashed, paused, or cut off from the largest side of a
 * partition (a crashed or isolated leader counts as one), less f (PBFT ⌊(n − 1)/3⌋, Raft ⌊(n − 1)/2⌋). At most
 * 0 means every group stays within its budget throughout.
 */
export function faultExcess(s: Scenario): number {
  const endMs = durationMs(s.duration);
  const groups = resolveGroups(s);
  const times = new Set<number>([0]);
  for (const e of s.timeline) times.add(durationMs(e.at));
  for (const b of s.byzantine) if ('node' in b) times.add(b.from === undefined ? 0 : durationMs(b.from));
  const sorted = [...s.timeline].map((e, i) => ({ e, i })).sort((a, b) => durationMs(a.e.at) - durationMs(b.e.at) || a.i - b.i);
  // a crashed or cut-off leader counts as one faulty sealer while it lasts
  const leaderCrashes = s.timeline.flatMap((e) => {
    const spec = e.crashLeader ?? e.isolateLeader;
    return spec ? [{ group: spec.group, from: durationMs(e.at), until: spec.for === undefined ? Infinity : durationMs(e.at) + durationMs(spec.for) }] : [];
  });
  let worst = -Infinity;
  for (const t of [...times].sort((a, b) => a - b)) {
    if (t > endMs) continue;
    const down = new Set<string>();
    let cut = new Set<string>();
    for (const { e } of sorted) {
      if (durationMs(e.at) > t) break;
      for (const n of namesOf(e.crash ?? [])) down.add(n);
      for (const n of namesOf(e.pause ?? [])) down.add(n);
      for (const n of namesOf(e.restart ?? [])) down.delete(n);
      for (const n of namesOf(e.resume ?? [])) down.delete(n);
      if (e.partition) {
        const largest = [...e.partition].sort((a, b) => b.length - a.length)[0]!;
        cut = new Set([...cut, ...e.partition.flat().filter((n) => !largest.includes(n))]);
      }
      if (e.isolate) cut = new Set([...cut, e.isolate]);
      if (e.partitionOneWay) {
        // the smaller side is the one cut off (a leader that hears nobody: the `to` side)
        const [from, to] = [namesOf(e.partitionOneWay.from), namesOf(e.partitionOneWay.to)];
        cut = new Set([...cut, ...(to.length < from.length ? to : from)]);
      }
      if (e.heal) cut = new Set();
    }
    for (const g of groups) {
      const f = g.consensus === 'pbft' ? Math.floor((g.sealers.length - 1) / 3) : Math.floor((g.sealers.length - 1) / 2);
      const faulty = new Set<string>();
      for (const n of g.sealers) if (down.has(n) || cut.has(n)) faulty.add(n);
      for (const b of s.byzantine) {
        if ('twins' in b) {
          if (g.sealers.includes(b.twins)) faulty.add(b.twins);
        } else if (g.sealers.includes(b.node) && (b.from === undefined || durationMs(b.from) <= t) && (b.until === undefined || durationMs(b.until) > t)) faulty.add(b.node);
      }
      const leaders = leaderCrashes.filter((c) => c.group === g.id && c.from <= t && t < c.until).length;
      worst = Math.max(worst, faulty.size + leaders - f);
    }
  }
  return worst === -Infinity ? 0 : worst;
}
