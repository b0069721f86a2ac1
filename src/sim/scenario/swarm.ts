import { deriveSeed, SeededRng } from '../../runtime/index.js';
import { honestNodes, resolveGroups } from './scenario-chain.js';
import { durationMs } from './scenario-loader.js';
import { drawAdversaries } from './swarm-adversaries.js';
import { HOSTILE_BEHAVIOURS, type HostileBehaviour } from './hostile-behaviours.js';
import { namesOf, type Scenario, type TimelineEntry, type Workload } from './scenario-schema.js';

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
    if (e.isolateLeader) busy.push([t, t + durationMs(e.isolateLeader.for)]);
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
 * pauses, partitions and election churn (each later undone) at most one at a time and never more
 * nodes than the fault budget, message-kind faults (network faults, any number at once, inside
 * the window), a message loss rate and a mean latency. Same (scenario, seed), same draw.
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

  type Fault = 'crash' | 'pause' | 'partition' | 'churn' | 'stale leader';
  const faults: Fault[] = [
    ...Array<Fault>(count(bounds.crashes)).fill('crash'),
    ...Array<Fault>(count(bounds.pauses)).fill('pause'),
    ...Array<Fault>(count(bounds.partitions)).fill('partition'),
    ...Array<Fault>(count(bounds.churn)).fill('churn'),
    ...Array<Fault>(count(bounds.staleLeaders)).fill('stale leader'),
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
  const adversaries = drawAdversaries(scenario, seed, window, lasting, budget, busy);
  busy.push(...adversaries.busy);
  drawn.push(...adversaries.drawn);
  for (const kind of faults) {
    if (budget < 1 || candidates.length === 0) {
      drawn.push(`${kind}: skipped, no fault budget left (the file's own byzantine or downed nodes use it up)`);
      continue;
    }
    const churn = kind === 'churn' ? drawChurn(rng, scenario, budget, candidates, lasting) : undefined;
    const stale = kind === 'stale leader' ? drawStaleLeader(rng, scenario) : undefined;
    const length = churn ? churn.length : stale ? stale.length : Math.round(between(lasting));
    const start = pickStart(rng.next(), [Math.max(cursor, window[0]), Math.min(window[1], end - length - 1)], length, busy);
    if (start === undefined) {
      drawn.push(`${kind}: skipped, no room left in the window${busy.length > 0 ? " besides the file's own faults" : ''}`);
      continue;
    }
    const stop = start + length;
    // one fault at a time keeps every group within its budget
    cursor = stop + 1000;
    if (churn) {
      for (const e of churn.entries) timeline.push({ ...e.entry, at: `${start + e.offset}ms` });
      drawn.push(`churn: ${churn.description} from ${(start / 1000).toFixed(1)} s to ${(stop / 1000).toFixed(1)} s`);
      continue;
    }
    if (stale) {
      timeline.push({ at: `${start}ms`, isolateLeader: stale.isolate, label: 'swarm stale leader' });
      drawn.push(`stale leader: ${stale.description} from ${(start / 1000).toFixed(1)} s to ${(stop / 1000).toFixed(1)} s`);
      continue;
    }
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
  // network faults: outside the node fault budget, any number at once, but inside the window and over before the liveness phase
  for (let i = count(bounds.messageFaults); i > 0; i--) {
    const fault = drawMessageFault(rng, scenario, lasting);
    const start = pickStart(rng.next(), [window[0], Math.min(window[1], end - fault.length - 1)], fault.length, []);
    if (start === undefined) {
      drawn.push(`messages: skipped, no room in the window for ${fault.length} ms`);
      continue;
    }
    timeline.push({ at: `${start}ms`, messages: fault.messages, label: 'swarm messages' });
    drawn.push(`messages ${fault.description} from ${(start / 1000).toFixed(1)} s to ${((start + fault.length) / 1000).toFixed(1)} s`);
  }
  timeline.push(...adversaries.timeline);
  const extra = drawClients(scenario, seed, window, lasting);
  timeline.push(...extra.timeline);
  drawn.push(...extra.drawn);
  timeline.sort((a, b) => durationMs(a.at) - durationMs(b.at));
  return {
    seed,
    drawn,
    scenario: { ...scenario, seed, network, timeline, byzantine: [...scenario.byzantine, ...adversaries.byzantine], workloads: [...scenario.workloads, ...extra.workloads] },
  };
}

/**
 * A stale leader: the leader of a group at that moment cut off for longer than the group takes to
 * replace it (PBFT: its view timeout; Raft: its longest election timeout), by 0.5–4 s; half the
 * time only what comes in is cut, so it goes on sending as leader all along. Then healed.
 */
function drawStaleLeader(rng: SeededRng, scenario: Scenario): { isolate: NonNullable<TimelineEntry['isolateLeader']>; length: number; description: string } {
  const groups = resolveGroups(scenario);
  const index = rng.int(groups.length);
  const group = groups[index]!;
  const spec = scenario.groups[index]!;
  const replaced = group.consensus === 'pbft' ? (spec.consensusTimeout ?? 3) * 1000 : (spec.maxElectTime ?? Math.max(spec.minElectTime ?? 1000, 2000));
  const length = replaced + 500 + rng.int(3501);
  const oneWay = rng.next() < 0.5;
  return {
    isolate: { group: group.id, for: `${length}ms`, oneWay },
    length,
    description: `the leader of group ${group.id} ${oneWay ? 'hears nobody (still sending)' : 'cut off'} for ${length} ms`,
  };
}

/**
 * The draws that are not node faults, from a stream of their own: clock skews (one per node, each
 * for a fault duration inside the window: an offset of up to ±5 s and a drift of up to ±20%,
 * which PBFT's and Raft's timeouts tolerate), a hostile-client workload at a drawn rate doing a
 * few of its behaviours, and pool bursts (each a hostile client's single burst at a moment in the
 * window).
 */
function drawClients(scenario: Scenario, seed: number, window: Range, lasting: Range): { timeline: TimelineEntry[]; workloads: Workload[]; drawn: string[] } {
  const bounds = scenario.swarm ?? {};
  const rng = new SeededRng(deriveSeed(String(seed), ['swarm-clients', scenario.name]));
  const out = { timeline: [] as TimelineEntry[], workloads: [] as Workload[], drawn: [] as string[] };
  const end = durationMs(scenario.duration);
  const count = (range: readonly [number, number] | undefined) => (range ? range[0] + rng.int(range[1] - range[0] + 1) : 0);
  const nodes = [...new Set(resolveGroups(scenario).flatMap((g) => [...g.sealers, ...g.observers]))];
  for (let i = count(bounds.clockSkews); i > 0 && nodes.length > 0; i--) {
    const node = nodes.splice(rng.int(nodes.length), 1)[0]!;
    const length = Math.round(lasting[0] + rng.next() * (lasting[1] - lasting[0]));
    const start = pickStart(rng.next(), [window[0], Math.min(window[1], end - length - 1)], length, []);
    const offsetMs = rng.int(10_001) - 5000;
    const drift = Number((rng.next() * 0.4 - 0.2).toFixed(3));
    if (start === undefined) {
      out.drawn.push(`clock skew: skipped, no room in the window for ${length} ms`);
      continue;
    }
    out.timeline.push({ at: `${start}ms`, clockSkew: { node, offsetMs, drift }, label: 'swarm clock skew' }, { at: `${start + length}ms`, clockSkew: { node, offsetMs: 0, drift: 0 }, label: 'swarm clock set right' });
    out.drawn.push(`clock skew ${node} ${offsetMs >= 0 ? '+' : ''}${offsetMs} ms, drift ${drift} from ${(start / 1000).toFixed(1)} s to ${((start + length) / 1000).toFixed(1)} s`);
  }
  const groups = resolveGroups(scenario);
  if (bounds.hostile) {
    const rate = Number((bounds.hostile[0] + rng.next() * (bounds.hostile[1] - bounds.hostile[0])).toFixed(2));
    const pool: readonly HostileBehaviour[] = HOSTILE_BEHAVIOURS.filter((b) => b !== 'pool-burst');
    const behaviours: HostileBehaviour[] = [];
    const k = 1 + rng.int(pool.length);
    const left = [...pool];
    while (behaviours.length < k) behaviours.push(left.splice(rng.int(left.length), 1)[0]!);
    behaviours.sort((a, b) => pool.indexOf(a) - pool.indexOf(b));
    const group = groups[rng.int(groups.length)]!.id;
    if (rate > 0) {
      out.workloads.push({ kind: 'hostile', group, rate, behaviours, burst: 200 });
      out.drawn.push(`hostile clients in group ${group}: ${behaviours.join(', ')} at ${rate} cases/s`);
    }
  }
  for (let i = count(bounds.poolBursts); i > 0; i--) {
    const at = Math.max(1, Math.round(window[0] + rng.next() * (window[1] - window[0])));
    const group = groups[rng.int(groups.length)]!.id;
    // one tick, at `at`: its contract is deployed from 0 s on
    out.workloads.push({ kind: 'hostile', group, rate: 1000 / at, stop: `${at + 1}ms`, behaviours: ['pool-burst'], burst: 200 });
    out.drawn.push(`pool burst in group ${group} at ${(at / 1000).toFixed(1)} s`);
  }
  return out;
}

type Messages = NonNullable<TimelineEntry['messages']>;

/** Consensus message kinds swarm picks from, by the group's consensus. */
const CONSENSUS_KINDS = {
  pbft: ['pbft.prepare', 'pbft.sign', 'pbft.commit', 'pbft.viewchange'],
  raft: ['raft.voteReq', 'raft.voteResp', 'raft.heartbeat', 'raft.heartbeatResp'],
} as const;
const SYNC_KINDS = ['sync.blocks', 'sync.status'] as const;

/**
 * One message-kind fault: a kind of a group's consensus (one time in five a sync kind instead),
 * on the links to one sealer, from one sealer or all links, dropped (a third of the drops with a
 * probability) or, one time in three, delayed by up to 3 s; lasting a fault duration.
 */
function drawMessageFault(rng: SeededRng, scenario: Scenario, lasting: Range): { messages: Messages; length: number; description: string } {
  const groups = resolveGroups(scenario);
  const group = groups[rng.int(groups.length)]!;
  const pool: readonly string[] = rng.next() < 0.2 ? SYNC_KINDS : CONSENSUS_KINDS[group.consensus];
  const kind = pool[rng.int(pool.length)]!;
  const node = group.sealers[rng.int(group.sealers.length)]!;
  const pattern = rng.int(3);
  const length = Math.round(lasting[0] + rng.next() * (lasting[1] - lasting[0]));
  let action: Pick<Messages, 'drop' | 'delay'>;
  let how: string;
  const u = rng.next();
  if (u < 1 / 3) {
    const ms = 100 + rng.int(2901);
    action = { delay: `${ms}ms` };
    how = `delayed ${ms} ms`;
  } else if (u < 1 / 3 + 2 / 9) {
    const p = Number((0.2 + rng.next() * 0.7).toFixed(2));
    action = { drop: p };
    how = `dropped with probability ${p}`;
  } else {
    action = { drop: true };
    how = 'dropped';
  }
  const links = pattern === 0 ? { to: [node] } : pattern === 1 ? { from: [node] } : {};
  const where = pattern === 0 ? `to ${node}` : pattern === 1 ? `from ${node}` : 'on all links';
  return { messages: { kinds: [kind], ...links, ...action, for: `${length}ms` }, length, description: `${kind} ${where} ${how}` };
}

/**
 * A Raft election in which votes cross: the leader crashes, every vote request is delayed
 * 300–1500 ms (so candidates campaign without hearing each other, several in one term, and
 * voters get their requests late and spread out), and meanwhile one voter crashes and restarts
 * every few hundred ms. A voter that forgets a vote across a restart then grants a second one
 * in the same term. Two nodes down at most (the leader and the voter).
 */
function voteStorm(rng: SeededRng, group: number, voter: string, lasting: Range): { entries: Array<{ offset: number; entry: TimelineEntry }>; length: number; description: string } {
  const at = '0ms';
  const ms = (lo: number, hi: number) => lo + rng.int(hi - lo + 1);
  const leaderDown = Math.max(lasting[0], ms(1500, 4000));
  const delay = ms(300, 1500);
  const storm = leaderDown + delay;
  const entries: Array<{ offset: number; entry: TimelineEntry }> = [
    { offset: 0, entry: { at, crashLeader: { group, for: `${leaderDown}ms` }, label: 'swarm vote storm: leader crash' } },
    { offset: 0, entry: { at, messages: { kinds: ['raft.voteReq'], delay: `${delay}ms`, for: `${storm}ms` }, label: 'swarm vote storm: vote requests delayed' } },
  ];
  let offset = ms(200, 800);
  let cycles = 0;
  while (offset < storm) {
    const down = ms(30, 250);
    entries.push({ offset, entry: { at, crash: voter, label: 'swarm vote storm: voter crash' } }, { offset: offset + down, entry: { at, restart: voter, label: 'swarm vote storm: voter restart' } });
    offset += down + ms(80, 600);
    cycles++;
  }
  return {
    entries,
    length: Math.max(storm, offset),
    description: `vote storm in group ${group}: the leader crashed for ${leaderDown} ms, vote requests delayed ${delay} ms, ${voter} crashed and restarted ${cycles} times meanwhile`,
  };
}

/**
 * Election churn, as timeline entries at offsets from its start (all within `length`), within
 * the fault budget:
 * - half the time one candidate node crashed and restarted 3–8 times (down 50–800 ms, up
 *   100–1500 ms), so it restarts in the middle of elections;
 * - otherwise the leader of a group crashed (`crashLeader`), and a voter crashed for 50–400 ms
 *   while the group elects: with a budget of two or more while the leader is still down (the
 *   leader down for a fault duration, the voter 0.3–3 s after the leader crash, up to 5 s for
 *   PBFT, whose view change waits for the consensus timeout); with a budget of one after the
 *   leader is back (down 0.2–1.5 s), 50 ms – 2 s later, before the election is over.
 * If the voter turns out to be the leader, crashing it again does nothing (it is down) or
 * happens once it is back: never more nodes down than the budget.
 * For a Raft group with a budget of two, half of the leader crashes are vote storms instead (see
 * voteStorm).
 */
function drawChurn(
  rng: SeededRng,
  scenario: Scenario,
  budget: number,
  candidates: readonly string[],
  lasting: Range,
): { entries: Array<{ offset: number; entry: TimelineEntry }>; length: number; description: string } {
  const at = '0ms';
  const ms = (lo: number, hi: number) => lo + rng.int(hi - lo + 1);
  const entries: Array<{ offset: number; entry: TimelineEntry }> = [];
  if (rng.next() < 0.5) {
    const node = candidates[rng.int(candidates.length)]!;
    const cycles = ms(3, 8);
    let offset = 0;
    for (let c = 0; c < cycles; c++) {
      if (c > 0) offset += ms(100, 1500);
      const down = ms(50, 800);
      entries.push({ offset, entry: { at, crash: node, label: 'swarm churn crash' } }, { offset: offset + down, entry: { at, restart: node, label: 'swarm churn restart' } });
      offset += down;
    }
    return { entries, length: offset, description: `${node} crashed and restarted ${cycles} times` };
  }
  const groups = resolveGroups(scenario);
  const group = groups[rng.int(groups.length)]!;
  const voter = candidates[rng.int(candidates.length)]!;
  if (group.consensus === 'raft' && budget >= 2 && rng.next() < 0.5) return voteStorm(rng, group.id, voter, lasting);
  const voterDown = ms(50, 400);
  let leaderDown: number;
  let voterAt: number;
  if (budget >= 2) {
    leaderDown = ms(lasting[0], lasting[1]);
    voterAt = ms(300, group.consensus === 'pbft' ? 5000 : 3000);
  } else {
    leaderDown = ms(200, 1500);
    voterAt = leaderDown + ms(50, 2000);
  }
  entries.push(
    { offset: 0, entry: { at, crashLeader: { group: group.id, for: `${leaderDown}ms` }, label: 'swarm churn leader crash' } },
    { offset: voterAt, entry: { at, crash: voter, label: 'swarm churn voter crash' } },
    { offset: voterAt + voterDown, entry: { at, restart: voter, label: 'swarm churn voter restart' } },
  );
  return {
    entries,
    length: Math.max(leaderDown, voterAt + voterDown),
    description: `the leader of group ${group.id} crashed for ${leaderDown} ms, ${voter} crashed ${voterAt} ms after it for ${voterDown} ms`,
  };
}
