import { BAD_BLOCK_VARIANTS, SWARM_FORGE_SYNC_VARIANTS, SWARM_MUTATIONS, type MutationName } from '../../node/index.js';
import { deriveSeed, SeededRng } from '../../runtime/index.js';
import { honestNodes, resolveGroups } from './scenario-chain.js';
import { durationMs } from './scenario-loader.js';
import type { ByzantineEntry, Scenario, TimelineEntry } from './scenario-schema.js';
import { pickStart } from './swarm.js';

type Range = readonly [number, number];

/** A behaviour swarm may draw, with its variants (if any). */
interface Pick {
  readonly behaviour: Extract<ByzantineEntry, { node: string }>['behaviour'];
  readonly variants?: readonly string[];
}

/**
 * What swarm draws for each consensus. Raft's `double-vote` is left out on purpose: Raft is not
 * byzantine tolerant, and a voter that grants two candidates in one term can give two leaders of
 * one term a majority each (with n = 5 both majorities of 3 meet only in that voter), and, as it
 * also acknowledges both leaders' blocks, two different blocks at one height can each collect
 * n − f signatures. That is the protocol's limit, not a bug: use the behaviour in scenarios.
 */
const PICKS: Readonly<Record<'pbft' | 'raft', readonly Pick[]>> = {
  pbft: [
    { behaviour: 'bad-block', variants: BAD_BLOCK_VARIANTS },
    { behaviour: 'lock-breaker' },
    { behaviour: 'forge-sync', variants: SWARM_FORGE_SYNC_VARIANTS },
    { behaviour: 'equivocate' },
    { behaviour: 'double-sign' },
    { behaviour: 'silent' },
    { behaviour: 'mutate' },
    { behaviour: 'mutate' },
    { behaviour: 'mutate' },
    { behaviour: 'mutate' },
  ],
  raft: [{ behaviour: 'conflicting-leader' }, { behaviour: 'forge-sync', variants: SWARM_FORGE_SYNC_VARIANTS }, { behaviour: 'mutate' }, { behaviour: 'mutate' }],
};

/**
 * mutate: half the time every mutation swarm may draw for the consensus (each message's mutation
 * small in scope, as in ByzzFuzz), else two to six of them; at a rate in [0.2, 0.6].
 */
function drawMutations(rng: SeededRng, consensus: 'pbft' | 'raft'): { mutations: MutationName[]; rate: number } {
  const all = SWARM_MUTATIONS[consensus];
  const pool = [...all];
  const k = rng.next() < 0.5 ? pool.length : 2 + rng.int(5);
  const mutations: MutationName[] = [];
  while (mutations.length < k && pool.length > 0) mutations.push(pool.splice(rng.int(pool.length), 1)[0]!);
  mutations.sort((a, b) => all.indexOf(a) - all.indexOf(b));
  return { mutations, rate: Number((0.2 + rng.next() * 0.4).toFixed(2)) };
}

/**
 * Byzantine windows for one swarm run (the file's `swarm.adversaries: [min, max]`): each turns one
 * sealer byzantine from `from` to `until`, inside the swarm window, with a behaviour (and variant)
 * fitting its group's consensus. Every group must have a fault budget of at least one beyond the
 * file's own byzantine and downed nodes; the windows never overlap each other nor the file's own
 * faults, and are returned as `busy` so that the node faults drawn after them keep clear too (one
 * fault at a time, as the other draws). Drawn from a stream of their own, so the other draws of a
 * seed do not change when the key is added. A node made byzantine for a window counts as not
 * honest for the whole run (honestNodes).
 */
export function drawAdversaries(
  scenario: Scenario,
  seed: number,
  window: Range,
  lasting: Range,
  budget: number,
  busy: ReadonlyArray<readonly [number, number]>,
): { byzantine: ByzantineEntry[]; timeline: TimelineEntry[]; busy: Array<[number, number]>; drawn: string[] } {
  const range = scenario.swarm?.adversaries;
  const out = { byzantine: [] as ByzantineEntry[], timeline: [] as TimelineEntry[], busy: [] as Array<[number, number]>, drawn: [] as string[] };
  if (!range) return out;
  const rng = new SeededRng(deriveSeed(String(seed), ['swarm-adversaries', scenario.name]));
  const wanted = range[0] + rng.int(range[1] - range[0] + 1);
  const end = durationMs(scenario.duration);
  const honest = new Set(honestNodes(scenario));
  const groups = resolveGroups(scenario).filter((g) => g.consensus === 'pbft' || g.consensus === 'raft');
  for (let i = 0; i < wanted; i++) {
    const group = groups[rng.int(groups.length)];
    const candidates = group?.sealers.filter((s) => honest.has(s) && !out.byzantine.some((b) => 'node' in b && b.node === s)) ?? [];
    if (!group || budget < 1 || candidates.length === 0) {
      out.drawn.push('adversary: skipped, no fault budget left (the file’s own byzantine or downed nodes use it up)');
      continue;
    }
    const node = candidates[rng.int(candidates.length)]!;
    const picks = PICKS[group.consensus];
    const pick = picks[rng.int(picks.length)]!;
    // a mutating node needs time to meet every kind of message: its window is up to twice as long
    const stretch = pick.behaviour === 'mutate' ? 1 + rng.next() : 1;
    const length = Math.round((lasting[0] + rng.next() * (lasting[1] - lasting[0])) * stretch);
    const variant = pick.variants ? pick.variants[rng.int(pick.variants.length)] : undefined;
    const mutate = pick.behaviour === 'mutate' ? drawMutations(rng, group.consensus) : undefined;
    // a forging sync peer needs a node to sync from it: another member falls behind (crashed for
    // `lag`) and comes back while the forger serves (its consensus stays honest, so the group
    // keeps its quorum meanwhile)
    const victims = pick.behaviour === 'forge-sync' ? [...group.sealers, ...group.observers].filter((n) => n !== node && honest.has(n)) : [];
    const victim = victims.length > 0 ? victims[rng.int(victims.length)] : undefined;
    const lag = victim ? 2000 + rng.int(4001) : 0;
    // the victim's crash and the byzantine window both start inside the swarm window
    const start0 = pickStart(rng.next(), [window[0], Math.min(window[1] - lag, end - lag - length - 1)], lag + length, [...busy, ...out.busy]);
    if (start0 === undefined) {
      out.drawn.push('adversary: skipped, no room left in the window');
      continue;
    }
    const start = start0 + lag;
    out.byzantine.push({ node, behaviour: pick.behaviour, group: group.id, from: `${start}ms`, until: `${start + length}ms`, ...(variant ? { variant } : {}), ...(mutate ?? {}) });
    out.busy.push([start0, start + length]);
    if (victim) {
      const back = start + 200 + rng.int(Math.max(1, Math.min(1500, length - 500)));
      out.timeline.push({ at: `${start0}ms`, crash: victim, label: 'swarm sync victim crash' }, { at: `${back}ms`, restart: victim, label: 'swarm sync victim restart' });
      out.drawn.push(`${victim} crashed from ${(start0 / 1000).toFixed(1)} s to ${(back / 1000).toFixed(1)} s, to sync from the forger`);
    }
    const every = mutate && mutate.mutations.length === SWARM_MUTATIONS[group.consensus].length;
    const how = variant ? ` (${variant})` : mutate ? ` (${every ? `all ${mutate.mutations.length} mutations` : mutate.mutations.join(', ')} at rate ${mutate.rate})` : '';
    out.drawn.push(`byzantine ${node} ${pick.behaviour}${how} in group ${group.id} from ${(start / 1000).toFixed(1)} s to ${((start + length) / 1000).toFixed(1)} s`);
  }
  return out;
}
