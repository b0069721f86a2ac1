import type { Block } from '../chain/index.js';
import type { ByzantineStats, Group, PbftDriver } from '../node/index.js';
import { CommitMonitor } from './commit-monitor.js';
import type { Cluster } from './sim-cluster.js';

export const lan = { latency: { kind: 'uniform' as const, minMs: 2, maxMs: 20 } };

export interface NodeEventRecord {
  readonly node: string;
  readonly kind: string;
  readonly fields: Readonly<Record<string, unknown>>;
  readonly atMs: number;
}

/** Every node event, and the commit monitor over the honest nodes. */
export function record(honest: readonly string[]) {
  const monitor = new CommitMonitor(honest);
  const events: NodeEventRecord[] = [];
  return {
    monitor,
    events,
    onNodeEvent(node: string, kind: string, fields: Readonly<Record<string, unknown>>, atMs: number) {
      monitor.onNodeEvent(node, kind, fields, atMs);
      events.push({ node, kind, fields, atMs });
    },
    /** Events of `kind` from these nodes (all when omitted), with this action (byzantine-action). */
    of(kind: string, nodes?: readonly string[], action?: string): NodeEventRecord[] {
      return events.filter((e) => e.kind === kind && (!nodes || nodes.includes(e.node)) && (action === undefined || e.fields.action === action));
    },
  };
}

/** Node events of interest to byzantine tests, and the safety monitor over the honest nodes. */
export function watch(honest: readonly string[]) {
  const monitor = new CommitMonitor(honest);
  const events: NodeEventRecord[] = [];
  const kept = new Set(['byzantine-action', 'byzantine-behaviour', 'pbft-equivocation', 'pbft-viewchange-sent', 'pbft-view']);
  return {
    monitor,
    events,
    onNodeEvent(node: string, kind: string, fields: Readonly<Record<string, unknown>>, atMs: number) {
      monitor.onNodeEvent(node, kind, fields, atMs);
      if (kept.has(kind)) events.push({ node, kind, fields, atMs });
    },
    /** Events of `kind` from these nodes (all when omitted), with this action (byzantine-action) or reason (view changes). */
    select(kind: string, nodes?: readonly string[], detail?: string): NodeEventRecord[] {
      return events.filter(
        (e) => e.kind === kind && (!nodes || nodes.includes(e.node)) && (detail === undefined || e.fields.action === detail || e.fields.reason === detail),
      );
    },
  };
}

/**
 * For each (height, view), the block hashes the honest nodes executed (their PBFT prepare
 * cache), sampled after each of their events: two hashes for one (height, view) means honest
 * nodes received conflicting proposals.
 */
export function watchExecuted(c: Cluster, honest: readonly string[]): Map<string, Set<string>> {
  const executed = new Map<string, Set<string>>();
  c.sim.afterEvent((event) => {
    if (event.node === null || !honest.includes(event.node) || c.sim.node(event.node).state !== 'up') return;
    const status = c.group(event.node)?.consensusStatus();
    if (status?.kind !== 'pbft' || status.prepareCache.height < 0) return;
    const key = `${status.prepareCache.height}/${status.prepareCache.view}`;
    const set = executed.get(key) ?? new Set<string>();
    set.add(status.prepareCache.blockHash);
    executed.set(key, set);
  });
  return executed;
}

/** (height, view) pairs at which honest nodes executed different blocks. */
export function splitRounds(executed: Map<string, Set<string>>): string[] {
  return [...executed].filter(([, hashes]) => hashes.size > 1).map(([round]) => round);
}

/** Index of a node among the group's sealers. */
export function sealerIndex(c: Cluster, name: string): number {
  return c.group('node0')!.sealers().indexOf(c.chain.idOf(name));
}

/** The committed blocks of a node, from height 1. */
export async function chainOf(group: Group): Promise<Block[]> {
  const blocks: Block[] = [];
  for (let n = 1; n <= group.blockNumber(); n++) blocks.push((await group.blockByNumber(n))!.block);
  return blocks;
}

export function statsOf(c: Cluster, name: string): ByzantineStats {
  return (c.group(name)!.consensus as PbftDriver).byzantineStats;
}

/** Lowest height among these nodes. */
export function minHeight(c: Cluster, names: readonly string[]): number {
  return Math.min(...names.map((n) => c.group(n)?.blockNumber() ?? -1));
}
