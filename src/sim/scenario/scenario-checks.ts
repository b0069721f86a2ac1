import { ProtocolVersion } from '../../chain/index.js';
import { CONFIG_BOUNDS, configValueError } from '../../exec/index.js';
import { BYZANTINE_KINDS, kindFits, MESSAGE_KINDS, mutationsProblem } from '../../node/index.js';
import { resolveGroups, type ResolvedGroup } from './scenario-chain.js';
import { durationMs, nodeNames } from './scenario-loader.js';
import { ACTION_KEYS, namesOf, type Latency, type Scenario } from './scenario-schema.js';

/** Longest fault phase a scenario may ask for, in virtual ms (24 h). */
export const MAX_DURATION_MS = 24 * 3_600_000;
/** Highest sum of the workload rates (tx per virtual second) a scenario may ask for. */
export const MAX_TOTAL_RATE = 2000;
/** Most workload transactions a scenario may plan over its run (sum of rate × active seconds): about a quarter of an hour of real time at the simulator's ~1000 tx/s on 4 nodes. */
export const MAX_PLANNED_TRANSACTIONS = 1_000_000;

export type Path = ReadonlyArray<string | number>;
/** Reports a problem at a key path of the file; never returns. */
export type Fail = (path: Path, detail: string) => never;

/** Optimal-string-alignment distance: insertions, deletions, substitutions and swaps of neighbours cost 1. */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}

/** The known word closest to `word` within an edit distance of 2 (case ignored), if any. */
export function closest(word: string, known: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = 3;
  for (const k of known) {
    if (k === word) continue;
    const d = editDistance(word.toLowerCase(), k.toLowerCase());
    if (d < bestDistance) [best, bestDistance] = [k, d];
  }
  return best;
}

const quoted = (names: readonly string[]) => names.map((n) => `"${n}"`).join(', ');

/** Checks what the schema cannot: names, groups, roles, times, limits. Calls `fail` at the first problem. */
export function checkScenario(s: Scenario, fail: Fail): void {
  const real = nodeNames(s);
  const twins = s.byzantine.flatMap((b) => ('twins' in b ? [`${b.twins}-twin`] : []));
  const names = new Set([...real, ...twins]);
  const nodesText = `this scenario has node0 … node${s.chain.nodes - 1}${twins.length > 0 ? ` and ${twins.join(', ')}` : ''}`;
  const end = durationMs(s.duration);
  const at = (t: number | string) => durationMs(t);

  // run size
  if (end <= 0) fail(['duration'], 'must be longer than 0');
  if (end > MAX_DURATION_MS) fail(['duration'], `${s.duration} is longer than the limit of 24h of virtual time`);

  // chain
  try {
    ProtocolVersion.parse(s.chain.supportedVersion);
  } catch (e) {
    fail(['chain', 'supportedVersion'], `"${s.chain.supportedVersion}" is not a supported version: ${(e as Error & { reason?: string }).reason ?? (e as Error).message}`);
  }
  const version = ProtocolVersion.parse(s.chain.supportedVersion);

  /** Where a node of a name-or-list value is: the list element, or the value itself. */
  const inList = (path: Path, value: string | readonly string[], j: number): Path => (typeof value === 'string' ? path : [...path, j]);
  const known = (path: Path, value: string | readonly string[]) => {
    namesOf(value).forEach((n, j) => {
      if (!names.has(n)) {
        // node9 for node1 is a count mistake, not a typo: no suggestion among the numbers
        const hint = /^node\d+$/.test(n) ? undefined : closest(n, names);
        fail(inList(path, value, j), `unknown node "${n}" (${nodesText})${hint ? `; did you mean "${hint}"?` : ''}`);
      }
    });
  };
  const noRepeats = (path: Path, value: readonly string[], what: string) => {
    const seen = new Set<string>();
    value.forEach((n, j) => {
      if (seen.has(n)) fail([...path, j], `"${n}" is listed twice in ${what}`);
      seen.add(n);
    });
  };

  // groups
  const groupIds = new Set<number>();
  s.groups.forEach((g, i) => {
    const path = ['groups', i];
    if (groupIds.has(g.id)) fail([...path, 'id'], `group ${g.id} is defined twice`);
    groupIds.add(g.id);
    if (typeof g.sealers === 'number' && g.sealers > s.chain.nodes) fail([...path, 'sealers'], `${g.sealers} sealers but only ${s.chain.nodes} nodes`);
    if (typeof g.observers === 'number' && g.observers > s.chain.nodes) fail([...path, 'observers'], `${g.observers} observers but only ${s.chain.nodes} nodes`);
    for (const role of ['sealers', 'observers', 'spare'] as const) {
      const members = g[role];
      if (!Array.isArray(members)) continue;
      for (const [j, n] of members.entries()) {
        if (twins.includes(n)) fail([...path, role, j], `"${n}" is a twin; it keeps the groups of ${n.slice(0, -'-twin'.length)}, list that node instead`);
      }
      known([...path, role], members);
      noRepeats([...path, role], members, `groups[${i}].${role}`);
    }
    if (g.minElectTime !== undefined && g.maxElectTime !== undefined && g.maxElectTime < g.minElectTime) fail([...path, 'maxElectTime'], `must not be below minElectTime (${g.minElectTime})`);
  });
  const resolved = resolveGroups(s);
  resolved.forEach((r, i) => {
    const g = s.groups[i]!;
    const path = ['groups', i];
    // a node has one role in a group: sealer, observer or spare
    const roles: Array<['sealers' | 'observers' | 'spare', readonly string[]]> = [
      ['sealers', r.sealers],
      ['observers', r.observers],
      ['spare', r.spare],
    ];
    for (let a = 0; a < roles.length; a++) {
      for (let b = a + 1; b < roles.length; b++) {
        const [roleA, listA] = roles[a]!;
        const [roleB, listB] = roles[b]!;
        const both = listB.filter((n) => listA.includes(n));
        if (both.length === 0) continue;
        // point at the list the file wrote out, preferring the later one
        const key = Array.isArray(g[roleB]) ? roleB : roleA;
        const counted = (role: string) => (typeof g[role as 'sealers'] === 'number' ? ` (the first ${String(g[role as 'sealers'])} nodes)` : '');
        fail([...path, key], `${quoted(both)} ${both.length === 1 ? 'is' : 'are'} both in ${roleA}${counted(roleA)} and in ${roleB}${counted(roleB)}; a node has one role in a group`);
      }
    }
    if (r.sealers.length === 0) fail([...path, g.sealers === undefined ? 'observers' : 'sealers'], `group ${g.id} has no sealers left (${s.chain.nodes} nodes, ${r.observers.length} observers, ${r.spare.length} spare)`);
    if (typeof g.observers === 'number' && r.observers.length < g.observers) {
      fail([...path, 'observers'], `${g.observers} observers but only ${r.observers.length} of the ${s.chain.nodes} nodes are left after the sealers and spare nodes`);
    }
  });
  const groupOf = new Map<number, ResolvedGroup>(resolved.map((r) => [r.id, r]));
  const group = (path: Path, id: number) => {
    if (!groupIds.has(id)) fail(path, `unknown group ${id} (this scenario has group${groupIds.size > 1 ? 's' : ''} ${[...groupIds].join(', ')})`);
    return groupOf.get(id)!;
  };
  const original = (n: string) => (twins.includes(n) ? n.slice(0, -'-twin'.length) : n);
  /** Sealers added to a group by the timeline. */
  const addedSealers = (id: number) => s.timeline.flatMap((t) => (t.addSealer && t.addSealer.group === id ? [t.addSealer.node] : []));

  // workloads
  let totalRate = 0;
  let planned = 0;
  s.workloads.forEach((w, i) => {
    const path = ['workloads', i];
    const g = group([...path, 'group'], w.group);
    if (w.targets) {
      known([...path, 'targets'], w.targets);
      if (Array.isArray(w.targets)) noRepeats([...path, 'targets'], w.targets, `workloads[${i}].targets`);
      const members = new Set([...g.sealers, ...g.observers, ...g.spare]);
      for (const [j, n] of namesOf(w.targets).entries()) {
        if (!members.has(original(n))) fail(inList([...path, 'targets'], w.targets, j), `${n} is not in group ${w.group} (its members: ${[...members].join(', ')}); it would never take this workload's transactions`);
      }
    }
    const start = w.start === undefined ? 0 : at(w.start);
    const stop = w.stop === undefined ? end : at(w.stop);
    if (start > end) fail([...path, 'start'], `${String(w.start)} starts after the scenario ends (${s.duration})`);
    if (w.stop !== undefined && stop > end) fail([...path, 'stop'], `${String(w.stop)} is after the end of the scenario (${s.duration})`);
    if (w.stop !== undefined && stop <= start) fail([...path, 'stop'], `must be later than start (${String(w.start ?? '0s')})`);
    if (w.kind === 'mix' && w.weights.helloworld + w.weights.deploy + w.weights.token <= 0) fail([...path, 'weights'], 'at least one weight must be positive');
    // a replay without a rate cap sends its recording's transactions, known once it is read
    const rate = w.rate ?? 0;
    totalRate += rate;
    if (totalRate > MAX_TOTAL_RATE) fail([...path, 'rate'], `the workloads' rates add up to ${totalRate} tx/s, above the limit of ${MAX_TOTAL_RATE} tx/s`);
    planned += (rate * Math.max(0, stop - start)) / 1000;
    if (planned > MAX_PLANNED_TRANSACTIONS) {
      fail([...path, 'rate'], `the workloads plan about ${Math.round(planned)} transactions (rate × active seconds), above the limit of ${MAX_PLANNED_TRANSACTIONS}; lower a rate or shorten the run`);
    }
  });

  // timeline
  s.timeline.forEach((t, i) => {
    const path = ['timeline', i];
    const actions = ACTION_KEYS.filter((k) => t[k] !== undefined);
    if (actions.length !== 1) {
      fail(path, actions.length === 0 ? `needs one action (${ACTION_KEYS.join(', ')})` : `has ${actions.length} actions (${actions.join(', ')}); give each its own entry`);
    }
    const when = at(t.at);
    if (when > end) fail([...path, 'at'], `${t.at} is after the end of the scenario (${s.duration})`);
    for (const k of ['crash', 'restart', 'pause', 'resume', 'isolate'] as const) {
      const value = t[k];
      if (value === undefined) continue;
      known([...path, k], value);
      if (typeof value !== 'string') noRepeats([...path, k], value, `timeline[${i}].${k}`);
    }
    if (t.isolate !== undefined && names.size < 2) fail([...path, 'isolate'], `${t.isolate} is the only node; there is nothing to cut it off from`);
    if (t.partition) {
      const side = new Map<string, number>();
      t.partition.forEach((nodes, j) => {
        known([...path, 'partition', j], nodes);
        nodes.forEach((n, k) => {
          const earlier = side.get(n);
          if (earlier === j) fail([...path, 'partition', j, k], `"${n}" is listed twice in side ${j}`);
          if (earlier !== undefined) fail([...path, 'partition', j, k], `"${n}" is on two sides of the partition (sides ${earlier} and ${j}); the sides must not overlap`);
          side.set(n, j);
        });
      });
    }
    if (t.partitionOneWay) {
      known([...path, 'partitionOneWay', 'from'], t.partitionOneWay.from);
      known([...path, 'partitionOneWay', 'to'], t.partitionOneWay.to);
      const to = namesOf(t.partitionOneWay.to);
      const both = namesOf(t.partitionOneWay.from).filter((n) => to.includes(n));
      if (both.length > 0) fail([...path, 'partitionOneWay', 'to'], `${quoted(both)} ${both.length === 1 ? 'is' : 'are'} in both from and to; a node cannot be cut off from itself`);
    }
    if (t.clog) {
      known([...path, 'clog', 'between'], t.clog.between);
      if (t.clog.between[0] === t.clog.between[1]) fail([...path, 'clog', 'between'], `names ${t.clog.between[0]} twice; a clog is between two different nodes`);
      if (when + at(t.clog.for) > end) fail([...path, 'clog', 'for'], `the clog would last until ${(when + at(t.clog.for)) / 1000} s, after the end of the scenario (${s.duration})`);
    }
    if (t.link) {
      known([...path, 'link', 'from'], t.link.from);
      known([...path, 'link', 'to'], t.link.to);
    }
    if (t.clockSkew) known([...path, 'clockSkew', 'node'], t.clockSkew.node);
    if (t.messages) {
      const m = t.messages;
      m.kinds.forEach((k, j) => {
        if (!MESSAGE_KINDS.includes(k)) {
          const hint = closest(k, MESSAGE_KINDS);
          fail([...path, 'messages', 'kinds', j], `unknown message kind "${k}"${hint ? `; did you mean "${hint}"?` : ''} (kinds: ${MESSAGE_KINDS.join(', ')})`);
        }
      });
      noRepeats([...path, 'messages', 'kinds'], m.kinds, `timeline[${i}].messages.kinds`);
      if (m.from !== undefined) known([...path, 'messages', 'from'], m.from);
      if (m.to !== undefined) known([...path, 'messages', 'to'], m.to);
      if ((m.drop === undefined) === (m.delay === undefined)) {
        fail([...path, 'messages'], m.drop === undefined ? 'needs drop (true or a probability) or delay (a duration)' : 'has both drop and delay; give one per entry');
      }
      if (when + at(m.for) > end) fail([...path, 'messages', 'for'], `the fault would last until ${(when + at(m.for)) / 1000} s, after the end of the scenario (${s.duration})`);
    }
    for (const k of ['addSealer', 'addObserver', 'removeNode'] as const) {
      const change = t[k];
      if (change) {
        known([...path, k, 'node'], change.node);
        group([...path, k, 'group'], change.group);
        if (twins.includes(change.node)) fail([...path, k, 'node'], `"${change.node}" is a twin; it shares the identity of ${original(change.node)}, change that node instead`);
      }
    }
    if (t.setConfig) {
      group([...path, 'setConfig', 'group'], t.setConfig.group);
      checkConfig(t.setConfig.key, t.setConfig.value, version, [...path, 'setConfig'], fail);
    }
    if (t.isolateLeader) {
      group([...path, 'isolateLeader', 'group'], t.isolateLeader.group);
      if (names.size < 2) fail([...path, 'isolateLeader'], 'there is only one node; there is nothing to cut the leader off from');
      if (when + at(t.isolateLeader.for) > end) fail([...path, 'isolateLeader', 'for'], 'the heal would come after the end of the scenario');
    }
    if (t.crashLeader) {
      group([...path, 'crashLeader', 'group'], t.crashLeader.group);
      if (t.crashLeader.for !== undefined && when + at(t.crashLeader.for) > end) fail([...path, 'crashLeader', 'for'], 'the restart would come after the end of the scenario');
    }
  });
  // latency models the network would refuse
  const latency = (path: Path, model: Latency | undefined) => {
    if (model?.kind === 'uniform' && model.maxMs < model.minMs) fail([...path, 'latency', 'maxMs'], `${model.maxMs} is below minMs (${model.minMs})`);
    if (model?.kind === 'exponential' && model.meanMs < model.minMs) fail([...path, 'latency', 'meanMs'], `${model.meanMs} is below minMs (${model.minMs})`);
  };
  latency(['network'], s.network.latency);
  s.network.links?.forEach((l, i) => latency(['network', 'links', i], l.latency));
  s.timeline.forEach((t, i) => {
    latency(['timeline', i, 'network'], t.network?.latency);
    latency(['timeline', i, 'link'], t.link?.latency);
  });
  s.network.links?.forEach((l, i) => {
    known(['network', 'links', i, 'from'], l.from);
    known(['network', 'links', i, 'to'], l.to);
  });

  // byzantine nodes: a behaviour fitting the group's consensus; twins: PBFT only
  const twinned = new Set<string>();
  const intervals = new Map<string, Array<{ from: number; until: number; index: number }>>();
  s.byzantine.forEach((b, i) => {
    const path = ['byzantine', i];
    if ('twins' in b) {
      if (!real.includes(b.twins)) fail([...path, 'twins'], `unknown node "${b.twins}" (this scenario has node0 … node${s.chain.nodes - 1})`);
      if (twinned.has(b.twins)) fail([...path, 'twins'], `${b.twins} already has a twin`);
      twinned.add(b.twins);
      const raft = resolved.find((g) => g.consensus !== 'pbft' && [...g.sealers, ...g.observers, ...g.spare].includes(b.twins));
      if (raft) fail([...path, 'twins'], `${b.twins} is in group ${raft.id}, which runs ${raft.consensus}; twins exist for PBFT groups only`);
      if (!resolved.some((g) => g.sealers.includes(b.twins) || addedSealers(g.id).includes(b.twins))) {
        fail([...path, 'twins'], `${b.twins} is not a sealer of any group; a twin only matters where the node votes in PBFT`);
      }
      return;
    }
    known([...path, 'node'], b.node);
    const g = group([...path, 'group'], b.group);
    if (!kindFits(b.behaviour, g.consensus)) {
      const fitting = BYZANTINE_KINDS.filter((k) => kindFits(k, g.consensus));
      fail([...path, 'behaviour'], `${b.behaviour} is not a behaviour of ${g.consensus} groups; group ${b.group} runs ${g.consensus}, whose behaviours are ${fitting.join(', ')}`);
    }
    if (b.behaviour === 'mutate' && b.mutations) {
      const problem = mutationsProblem(b.mutations, g.consensus);
      if (problem) fail([...path, 'mutations'], problem);
    }
    const node = original(b.node);
    if (!g.sealers.includes(node) && !addedSealers(g.id).includes(node)) {
      fail([...path, 'node'], `${b.node} is not a sealer of group ${b.group} (its sealers: ${g.sealers.join(', ')}); byzantine behaviours act in consensus and sync as a sealer, so the node must be one`);
    }
    const from = b.from === undefined ? 0 : at(b.from);
    const until = b.until === undefined ? Infinity : at(b.until);
    if (from > end) fail([...path, 'from'], `${String(b.from)} is after the end of the scenario (${s.duration})`);
    if (until !== Infinity && until > end) fail([...path, 'until'], `${String(b.until)} is after the end of the scenario (${s.duration}); leave until out to stay byzantine to the end`);
    if (until <= from) fail([...path, 'until'], `must be later than from (${String(b.from ?? '0s')})`);
    const mine = intervals.get(b.node) ?? [];
    for (const other of mine) {
      if (from < other.until && other.from < until) fail(path, `${b.node} is already byzantine at that time (byzantine[${other.index}]); a node's intervals must not overlap`);
    }
    mine.push({ from, until, index: i });
    intervals.set(b.node, mine);
  });

  // swarm bounds
  if (s.swarm) {
    const sw = s.swarm;
    for (const k of ['crashes', 'partitions', 'pauses', 'loss', 'latencyMs', 'messageFaults', 'churn'] as const) {
      const range = sw[k];
      if (range && range[0] > range[1]) fail(['swarm', k], `[${range[0]}, ${range[1]}] is inverted; write [low, high]`);
    }
    for (const k of ['window', 'faultDuration'] as const) {
      const range = sw[k];
      if (!range) continue;
      const [lo, hi] = [at(range[0]), at(range[1])];
      if (lo > hi) fail(['swarm', k], `[${String(range[0])}, ${String(range[1])}] is inverted; write [low, high]`);
      if (hi > end) fail(['swarm', k, 1], `${String(range[1])} is after the end of the scenario (${s.duration})`);
    }
  }
}

/** A system config change, checked as the SystemConfig precompile of the chain's version checks it. */
function checkConfig(key: string, value: string | number, version: ProtocolVersion, path: Path, fail: Fail): void {
  const allowConsensusTimeout = version.atLeast('2.6.0');
  const settable = Object.keys(CONFIG_BOUNDS).filter((k) => k !== 'consensus_timeout' || allowConsensusTimeout);
  if (!settable.includes(key)) {
    const hint = closest(key, settable);
    const why = key === 'consensus_timeout' ? ` (consensus_timeout is settable from supportedVersion 2.6.0; this chain runs ${version.text})` : '';
    fail([...path, 'key'], `"${key}" is not a settable system config key${why}; settable: ${settable.join(', ')}${hint ? `; did you mean "${hint}"?` : ''}`);
  }
  if (typeof value === 'number' && !Number.isSafeInteger(value)) {
    fail([...path, 'value'], Number.isInteger(value) ? `${value} is too large to be exact as a YAML number; quote it` : `${key} must be a non-negative integer, got ${value}`);
  }
  const text = String(value);
  const problem = configValueError(key, text, allowConsensusTimeout);
  if (problem) fail([...path, 'value'], problem);
}
