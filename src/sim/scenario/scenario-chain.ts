import type { LinkConfig } from '../../runtime/index.js';
import type { MutationName } from '../../node/index.js';
import type { ByzantineSpec, SimChainOptions, SimGroupSpec } from '../sim-chain.js';
import { durationMs, nodeNames } from './scenario-loader.js';
import type { LinkSettings, Scenario } from './scenario-schema.js';

/** A group of the scenario with its members resolved to node names. */
export interface ResolvedGroup {
  readonly id: number;
  readonly consensus: 'pbft' | 'raft';
  readonly sealers: readonly string[];
  readonly observers: readonly string[];
  readonly spare: readonly string[];
}

/** Sealer and observer names of each group: counts take the nodes in order, lists are taken as given. */
export function resolveGroups(scenario: Scenario): ResolvedGroup[] {
  const names = nodeNames(scenario);
  return scenario.groups.map((g) => {
    const spare = g.spare ?? [];
    const explicitObservers = Array.isArray(g.observers) ? g.observers : undefined;
    let sealers: string[];
    if (Array.isArray(g.sealers)) sealers = [...g.sealers];
    else if (typeof g.sealers === 'number') sealers = names.slice(0, g.sealers);
    else {
      const observerCount = typeof g.observers === 'number' ? g.observers : 0;
      const taken = new Set([...spare, ...(explicitObservers ?? [])]);
      const free = names.filter((n) => !taken.has(n));
      sealers = free.slice(0, free.length - observerCount);
    }
    let observers: string[];
    if (explicitObservers) observers = [...explicitObservers];
    else {
      const count = typeof g.observers === 'number' ? g.observers : 0;
      const taken = new Set([...sealers, ...spare]);
      observers = names.filter((n) => !taken.has(n)).slice(0, count);
    }
    return { id: g.id, consensus: g.consensus, sealers, observers, spare: [...spare] };
  });
}

/** The scenario's link settings in the kernel's terms. */
export function linkConfigOf(settings: LinkSettings): Partial<LinkConfig> {
  const out: { -readonly [K in keyof LinkConfig]?: LinkConfig[K] } = {};
  if (settings.latency !== undefined) out.latency = settings.latency;
  if (settings.jitterMs !== undefined) out.jitterMs = settings.jitterMs;
  if (settings.loss !== undefined) out.lossRate = settings.loss;
  if (settings.duplicate !== undefined) out.duplicateRate = settings.duplicate;
  if (settings.reorder !== undefined) out.reorderRate = settings.reorder;
  if (settings.reorderDelayMs !== undefined) out.reorderDelayMs = settings.reorderDelayMs;
  if (settings.queueCapacity !== undefined) out.queueCapacity = settings.queueCapacity;
  return out;
}

/** Nodes whose commits the safety checks hold to account: not byzantine at any time, not twinned. */
export function honestNodes(scenario: Scenario): string[] {
  const bad = new Set<string>();
  for (const b of scenario.byzantine) {
    if ('twins' in b) {
      bad.add(b.twins);
      bad.add(`${b.twins}-twin`);
    } else bad.add(b.node);
  }
  return nodeNames(scenario).filter((n) => !bad.has(n));
}

/** SimChain options for a scenario run with `seed` (the caller adds hooks: onNodeEvent, trace…). */
export function simChainOptions(scenario: Scenario, seed: string | number): SimChainOptions {
  const groups: SimGroupSpec[] = resolveGroups(scenario).map((g, i) => {
    const spec = scenario.groups[i]!;
    return {
      id: g.id,
      consensus: g.consensus,
      sealers: g.sealers,
      observers: g.observers,
      spare: g.spare,
      ...(spec.txCountLimit !== undefined ? { txCountLimit: spec.txCountLimit } : {}),
      ...(spec.txGasLimit !== undefined ? { txGasLimit: BigInt(spec.txGasLimit) } : {}),
      ...(spec.consensusTimeout !== undefined ? { consensusTimeout: spec.consensusTimeout } : {}),
      ...(spec.minElectTime !== undefined ? { minElectTime: spec.minElectTime } : {}),
      ...(spec.maxElectTime !== undefined ? { maxElectTime: spec.maxElectTime } : {}),
      ...(spec.state !== undefined ? { stateType: spec.state } : {}),
    };
  });
  const byzantine: Record<string, ByzantineSpec[]> = {};
  const twins: string[] = [];
  for (const b of scenario.byzantine) {
    if ('twins' in b) {
      twins.push(b.twins);
      continue;
    }
    (byzantine[b.node] ??= []).push({
      behaviour: b.behaviour,
      group: b.group,
      ...(b.variant !== undefined ? { variant: b.variant } : {}),
      ...(b.mutations !== undefined ? { mutations: b.mutations as MutationName[] } : {}),
      ...(b.rate !== undefined ? { rate: b.rate } : {}),
      ...(b.from !== undefined ? { fromMs: durationMs(b.from) } : {}),
      ...(b.until !== undefined ? { untilMs: durationMs(b.until) } : {}),
    });
  }
  for (const list of Object.values(byzantine)) list.sort((a, b) => (a.fromMs ?? 0) - (b.fromMs ?? 0));
  const { links: _links, ...defaults } = scenario.network;
  return {
    seed,
    nodes: scenario.chain.nodes,
    suite: scenario.chain.suite,
    version: scenario.chain.supportedVersion,
    groups,
    network: linkConfigOf(defaults),
    consensusSignatures: scenario.chain.consensusSignatures,
    shareComputation: scenario.chain.shareComputation,
    ...(scenario.chain.txPoolLimit !== undefined ? { poolLimit: scenario.chain.txPoolLimit } : {}),
    ...(twins.length > 0 ? { twins } : {}),
    ...(Object.keys(byzantine).length > 0 ? { byzantine } : {}),
  };
}
