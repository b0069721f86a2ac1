import { deriveSeed, SeededRng } from '../../runtime/index.js';
import { honestNodes, resolveGroups } from './scenario-chain.js';
import { durationMs } from './scenario-loader.js';
import { namesOf, type Scenario, type TimelineEntry } from './scenario-schema.js';

/** A scenario with faults drawn for one swarm seed, and what was drawn (printed before the run). */
export interface SwarmDraw {
  readonly scenario: Scenario;
  readonly seed: number;
  readonly drawn: readonly string[];
}

type Range = readonly [number, number];

/**
 * The faults the file itself plays: when they are active (`busy`, as [from, to] in ms), the nodes
 * it leaves down or paused for good, crashed leaders never restarted (per group), and whether a
 * partition is never healed. Swarm faults keep clear of all of it.
 */
export function fileFaults(scenario: Scenario): { busy: Array<[number, number]>; permanent: Set<string>; lostLeaders: Map<number, number>; unhealed: boolean } {
  const end = durationMs(scenario.duration);
  const busy: Array<[number, number]> = [];
  const down = new Map<string, number>();
  const paused = new Map<string, number>();
  const lostLeaders = new Map<number, number>();
  let splitSince: number | undefined;
  const entries = [...scenario.timeline].sort((a, b) => durationMs(a.at) - durationMs(b.at));
  for (const e of entries) {
    const t = durationMs(e.at);
    for (const n of namesOf(e.crash ?? [])) if (!down.has(n)) down.set(n, t);
    for (const n of namesOf(e.restart ?? [])) {
      for (const held of [down, paused]) {
        const since = held.get(n);
        if (since !== undefined) busy.push([since, t]);
        held.delete(n);
      }
    }
    for (const n of namesOf(e.pause ?? [])) if (!paused.has(n) && !down.has(n)) paused.set(n, t);
    for (const n of namesOf(e.resume ?? [])) {
      const since = paused.get(n);
      if (since !== undefined) busy.push([since, t]);
      paused.delete(n);
    }
    if (e.crashLeader) {
      if (e.crashLeader.for !== undefined) busy.push([t, t + durationMs(e.crashLeader.for)]);
      else lostLeaders.set(e.crashLeader.group, (lostLeaders.get(e.crashLeader.group) ?? 0) + 1);
    }
    if ((e.partition || e.partitionOneWay || e.isolate) && splitSince === undefined) splitSince = t;
    if (e.heal && splitSince !== undefined) {
      busy.push([splitSince, t]);
      splitSince = undefined;
    }
    if (e.clog) busy.push([t, t + durationMs(e.clog.for)]);
    if (e.messages) busy.push([t, t + durationMs(e.messages.for)]);
  }
  if (splitSince !== undefined) busy.push([splitSince, end]);
  return { busy, permanent: new Set([...down.keys(), ...paused.keys()]), lostLeaders, unhealed: splitSince !== undefined };
}

/**
 * How many nodes of the scenario may be faulty at one time without breaking any group's fault
 * budget: PBFT tolerates f = ⌊(n − 1) / 3⌋ faulty sealers, Raft ⌊(n − 1) / 2⌋, less the nodes
 * the file already makes byzantine or leaves down for good. Returns the sealers that may fail
 * and that budget.
 */
export function faultBudget(scenario: Scenario): { budget: number; candidates: string[] } {
  const honest = new Set(honestNodes(scenario));
  const own = fileFaults(scenario);
  let budget = own.unhealed ? 0 : Infinity;
  const candidates = new Set<string>();
  for (const g of resolveGroups(scenario)) {
    const n = g.sealers.length;
    const f = g.consensus === 'pbft' ? Math.floor((n - 1) / 3) : Math.floor((n - 1) / 2);
    const used = g.sealers.filter((s) => !honest.has(s) || own.permanent.has(s)).length + (own.lostLeaders.get(g.id) ?? 0);
    budget = Math.min(budget, f - used);
    for (const s of g.sealers) if (honest.has(s) && !own.permanent.has(s)) candidates.add(s);
  }
  // observers and nodes outside every group can fail without touching a quorum
  return { budget: Math.max(0, budget === Infinity ? 0 : budget), candidates: [...candidates] };
}

/**
 * A start in [lo, hi] for a fault lasting `length` that keeps a second clear of every busy
 * interval, at `u` ∈ [0, 1) of the way through all such starts; undefined when there is none.
 */
export function pickStart(u: number, [lo, hi]: Range, length: number, busy: ReadonlyArray<readonly [number, number]>): number | undefined {
  let free: Array<[number, number]> = lo <= hi ? [[lo, hi]] : [];
  for (const [a, b] of busy) {
    const [cutFrom, cutTo] = [a - length - 1000, b + 1000]; // starts in (cutFrom, cutTo) would overlap
    free = free.flatMap(([x, y]): Array<[number, number]> => {
      if (y <= cutFrom || x >= cutTo) return [[x, y]];
      const parts: Array<[number, number]> = [];
      if (x <= cutFrom) parts.push([x, cutFrom]);
      if (y >= cutTo) parts.push([cutTo, y]);
      return parts;
    });
  }
  const total = free.reduce((sum, [x, y]) => sum + (y - x), 0);
  if (free.length === 0) return undefined;
  let offset = u * total;
  for (const [x, y] of free) {
    if (offset <= y - x) return Math.round(x + offset);
    offset -= y - x;
  }
  return Math.round(free.at(-1)![1]);
}

/**
 * Draws the faults of one swarm run within the bounds of the file's `swarm` section: crashes,
 * pauses and partitions (each later undone) at most one at a time and never more nodes than the
 * fault budget, a message loss rate and a mean latency. Same (scenario, seed), same draw.
 */
export function drawSwarm(scenario: Scenario, seed: number): SwarmDraw {
  const bounds = scenario.swarm ?? {};
  const rng = new SeededRng(deriveSeed(String(seed), ['swarm', scenario.name]));
  const between = ([lo, hi]: Range): number => lo + rng.next() * (hi - lo);
  const count = (range: Range | undefined): number => (range ? Math.floor(between([range[0], range[1] + 1 - 1e-9])) : 0);
  const end = durationMs(scenario.duration);
  const window: Range = bounds.window ? [durationMs(bounds.window[0]), durationMs(bounds.window[1])] : [Math.round(end * 0.1), Math.round(end * 0.7)];
  const lasting: Range = bounds.faultDuration ? [durationMs(bounds.faultDuration[0]), durationMs(bounds.faultDuration[1])] : [2000, 10000];
  const { budget, candidates } = faultBudget(scenario);
  const drawn: string[] = [];
  const network = { ...scenario.network };
  if (bounds.loss) {
    network.loss = Number(between(bounds.loss).toFixed(3));
    drawn.push(`loss ${(network.loss * 100).toFixed(1)}%`);
  }
  if (bounds.latencyMs) {
    const mean = Math.round(between(bounds.latencyMs));
    network.latency = { kind: 'exponential', minMs: Math.min(2, mean), meanMs: mean };
    drawn.push(`latency exp(min ${network.latency.minMs} ms, mean ${mean} ms)`);
  }

  type Fault = 'crash' | 'pause' | 'partition';
  const faults: Fault[] = [
    ...Array<Fault>(count(bounds.crashes)).fill('crash'),
    ...Array<Fault>(count(bounds.pauses)).fill('pause'),
    ...Array<Fault>(count(bounds.partitions)).fill('partition'),
  ];
  // shuffle, so the kinds interleave
  for (let i = faults.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [faults[i], faults[j]] = [faults[j]!, faults[i]!];
  }
  const timeline: TimelineEntry[] = [...scenario.timeline];
  const everyone = [...resolveGroups(scenario).flatMap((g) => [...g.sealers, ...g.observers])];
  const all = [...new Set(everyone)];
  let cursor = window[0];
  const pickNodes = (k: number): string[] => {
    const pool = [...candidates];
    const out: string[] = [];
    while (out.length < k && pool.length > 0) out.push(pool.splice(rng.int(pool.length), 1)[0]!);
    return out.sort();
  };
  const { busy } = fileFaults(scenario);
  for (const kind of faults) {
    if (budget < 1 || candidates.length === 0) {
      drawn.push(`${kind}: skipped, no fault budget left (the file's own byzantine or downed nodes use it up)`);
      continue;
    }
    const length = Math.round(between(lasting));
    const start = pickStart(rng.next(), [Math.max(cursor, window[0]), Math.min(window[1], end - length - 1)], length, busy);
    if (start === undefined) {
      drawn.push(`${kind}: skipped, no room left in the window${busy.length > 0 ? " besides the file's own faults" : ''}`);
      continue;
    }
    const stop = start + length;
    // one fault at a time keeps every group within its budget
    cursor = stop + 1000;
    const k = 1 + rng.int(budget);
    const nodes = pickNodes(k);
    const at = `${start}ms`;
    const until = `${stop}ms`;
    if (kind === 'crash') {
      timeline.push({ at, crash: nodes, label: 'swarm crash' }, { at: until, restart: nodes, label: 'swarm restart' });
    } else if (kind === 'pause') {
      timeline.push({ at, pause: nodes, label: 'swarm pause' }, { at: until, resume: nodes, label: 'swarm resume' });
    } else {
      const rest = all.filter((n) => !nodes.includes(n));
      timeline.push({ at, partition: [nodes, rest], label: 'swarm partition' }, { at: until, heal: true, label: 'swarm heal' });
    }
    drawn.push(`${kind} ${nodes.join(', ')} from ${(start / 1000).toFixed(1)} s to ${(stop / 1000).toFixed(1)} s`);
  }
  timeline.sort((a, b) => durationMs(a.at) - durationMs(b.at));
  return { seed, drawn, scenario: { ...scenario, seed, network, timeline } };
}
