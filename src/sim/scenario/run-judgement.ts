import { percentile } from '../../report/index.js';
import type { InvariantMonitor } from '../invariants/invariant-monitor.js';
import type { SimChain } from '../sim-chain.js';
import type { ResolvedGroup } from './scenario-chain.js';
import { durationMs } from './scenario-loader.js';
import type { Scenario } from './scenario-schema.js';
import type { RunMetrics } from './run-metrics.js';
import type { SafetyMonitor } from './safety-monitor.js';
import type { TxRecord, TxTracker } from './tx-tracker.js';

export interface ExpectationResult {
  readonly name: string;
  readonly ok: boolean;
  readonly detail: string;
}

export interface NodeResult {
  readonly name: string;
  readonly state: string;
  readonly honest: boolean;
  readonly roles: string;
  /** Height per group the node holds a ledger of (a group it is outside has no entry). */
  readonly heights: Readonly<Record<number, number>>;
  readonly sent: number;
  readonly received: number;
  readonly dropped: number;
}

/** Transactions of these kinds count as workload for the throughput, count and latency expectations. */
export const WORKLOAD_KINDS: ReadonlySet<string> = new Set(['helloworld', 'deploy', 'token', 'replay', 'hostile']);

/** What a finished run hands to the judgement. */
export interface RunOutcome {
  readonly scenario: Scenario;
  readonly chain: SimChain;
  readonly groupIds: readonly number[];
  readonly safety: SafetyMonitor;
  readonly invariants: InvariantMonitor;
  readonly metrics: RunMetrics;
  readonly tracker: TxTracker;
  readonly probes: readonly TxRecord[];
  readonly endMs: number;
  /** The liveness bound in ms, undefined when the scenario has none. */
  readonly livenessBoundMs: number | undefined;
  readonly livenessMs: number | undefined;
  /** The live honest members of a group. */
  readonly members: (group: number) => string[];
  /** The timeline's and workloads' own checks, judged at the end of the run. */
  readonly laterChecks: readonly ExpectationResult[];
  readonly finished: boolean;
}

/** Every accepted transaction (workloads, setup and probes) has a receipt on every live honest member. */
export function receiptExpectation(run: Pick<RunOutcome, 'tracker' | 'probes' | 'groupIds' | 'members' | 'chain'>): ExpectationResult {
  const { tracker, probes, groupIds, members, chain } = run;
  const pending = tracker.pending();
  const accepted = tracker.totals((r) => r.kind !== 'probe').accepted;
  const name = 'every accepted transaction has a receipt on every live honest node';
  if (pending.length > 0) {
    const sample = pending[0]!;
    return { name, ok: false, detail: `${pending.length} of ${accepted + probes.length} accepted transactions have no receipt, e.g. ${sample.hash} (sent ${sample.attempts}×, last to ${sample.node})` };
  }
  const highestByGroup = new Map<number, number>();
  // a loop, not Math.max(...heights): a long run has more records than a call takes arguments
  for (const r of tracker.records.values()) if (r.height !== undefined && r.height > (highestByGroup.get(r.group) ?? 0)) highestByGroup.set(r.group, r.height);
  for (const g of groupIds) {
    const highest = highestByGroup.get(g) ?? 0;
    const behind = members(g).filter((n) => chain.group(n, g)!.blockNumber() < highest);
    if (behind.length > 0) return { name, ok: false, detail: `group ${g}: ${behind.join(', ')} ${behind.length === 1 ? 'is' : 'are'} below height ${highest}, the last with a workload transaction` };
  }
  return { name, ok: true, detail: `${accepted.toLocaleString('en-US')} transactions (workloads and their setup), all receipted everywhere` };
}

/** The run's expectations, in the order the summary prints them, with the figures they were judged on. */
export function judgeRun(run: RunOutcome): { expectations: ExpectationResult[]; viewChanges: number; latenciesMs: number[] } {
  const { scenario, chain, groupIds, safety, invariants, metrics, tracker, probes, endMs, livenessBoundMs: liveness, livenessMs, members } = run;
  const expectations: ExpectationResult[] = [];
  const violations = safety.violations;
  expectations.push({
    name: 'safety: one block per height, matching roots, parent links, heights only grow, stored history intact, and the protocol invariants (quorum signatures, valid blocks, PBFT locks and quorums, Raft votes and leaders)',
    ok: violations.length === 0,
    detail:
      violations.length === 0
        ? `${safety.blocks.size} blocks checked on every honest commit and in the final audit; ${invariants.counts.wireMessages.toLocaleString('en-US')} consensus messages read off the wire, ${invariants.counts.signatureChecks.toLocaleString('en-US')} block signatures verified`
        : `${violations.length} violation(s); first at ${violations[0]!.atMs} ms: ${violations[0]!.invariant}: ${violations[0]!.detail}`,
  });
  if (liveness !== undefined) {
    const lagging = probes.flatMap((p) => members(p.group).filter((n) => p.height === undefined || chain.group(n, p.group)!.blockNumber() < p.height).map((n) => `${n} (g${p.group})`));
    expectations.push({
      name: `liveness: after the faults stop, a probe transaction reaches every live honest node within ${liveness} ms`,
      ok: livenessMs !== undefined,
      detail:
        livenessMs !== undefined
          ? `took ${Math.round(livenessMs)} ms on ${groupIds.map((g) => members(g).length).reduce((a, b) => a + b, 0)} live honest member(s)`
          : probes.length < groupIds.length
            ? 'no node would take the probe transaction'
            : probes.some((p) => p.height === undefined)
              ? `the probe was not committed within ${liveness} ms`
              : `not reached within ${liveness} ms by ${lagging.join(', ')}`,
    });
  }
  const expect = scenario.expect;
  if (expect.minHeight !== undefined) {
    const lows = groupIds.flatMap((g) => members(g).map((n) => ({ n, g, h: chain.group(n, g)!.blockNumber() })));
    const lowest = lows.reduce((a, b) => (b.h < a.h ? b : a), lows[0] ?? { n: '-', g: 0, h: 0 });
    expectations.push({
      name: `every live honest node reached height ${expect.minHeight}`,
      ok: lows.length > 0 && lowest.h >= expect.minHeight,
      detail: lows.length === 0 ? 'no live honest node' : `lowest: ${lowest.n} at ${lowest.h} (group ${lowest.g})`,
    });
  }
  if (expect.allReceipted) expectations.push(receiptExpectation(run));
  const viewChanges = groupIds.reduce((n, g) => n + metrics.viewChanges(g), 0);
  if (expect.maxViewChanges !== undefined) {
    expectations.push({ name: `at most ${expect.maxViewChanges} view changes or elections`, ok: viewChanges <= expect.maxViewChanges, detail: `${viewChanges}` });
  }
  const work = tracker.totals((r) => WORKLOAD_KINDS.has(r.kind));
  if (expect.minThroughput !== undefined) {
    const tps = work.committed / (endMs / 1000);
    expectations.push({ name: `at least ${expect.minThroughput} committed workload tx per virtual second`, ok: tps >= expect.minThroughput, detail: `${tps.toFixed(2)} tx/s (${work.committed.toLocaleString('en-US')} workload transactions committed by ${endMs / 1000} s)` });
  }
  if (expect.minCommitted !== undefined) {
    expectations.push({ name: `at least ${expect.minCommitted} workload transactions committed`, ok: work.committed >= expect.minCommitted, detail: `${work.committed} committed of ${work.submitted} submitted` });
  }
  if (expect.maxFailedRatio !== undefined) {
    const ratio = work.committed === 0 ? 0 : work.failed / work.committed;
    expectations.push({ name: `at most ${expect.maxFailedRatio * 100}% of committed workload transactions failed`, ok: ratio <= expect.maxFailedRatio, detail: `${work.failed} of ${work.committed} (${(ratio * 100).toFixed(1)}%)` });
  }
  const latenciesMs = [...tracker.records.values()].filter((r) => WORKLOAD_KINDS.has(r.kind) && r.committedAt !== undefined).map((r) => r.committedAt! - r.createdAt);
  if (expect.maxLatencyP99 !== undefined) {
    const bound = durationMs(expect.maxLatencyP99);
    const p99 = latenciesMs.length === 0 ? undefined : percentile(Float64Array.from(latenciesMs).sort(), 0.99);
    expectations.push({ name: `99% of workload transactions committed within ${bound} ms`, ok: p99 !== undefined && p99 <= bound, detail: p99 === undefined ? 'no transaction committed' : `p99 ${p99} ms over ${latenciesMs.length} transactions` });
  }
  expectations.push(...run.laterChecks);
  if (!run.finished) expectations.push({ name: 'the run ended with its final checks', ok: false, detail: `the simulation stopped at ${chain.sim.now} ms before the end checks ran` });
  return { expectations, viewChanges, latenciesMs };
}

/** One row per node: state, honesty, roles per group, heights and traffic. */
export function nodeResults(chain: SimChain, groups: readonly ResolvedGroup[], safety: SafetyMonitor, metrics: RunMetrics): NodeResult[] {
  const { sim } = chain;
  return sim.nodes().map((info) => {
    const stats = sim.network.nodeStats(info.name);
    const roles = groups.flatMap((g) => {
      const group = chain.group(info.name, g.id);
      const role = group ? group.membership() : g.sealers.includes(info.name) ? 'sealer' : g.observers.includes(info.name) ? 'observer' : undefined;
      return role === undefined || (role === 'none' && !group) ? [] : [`g${g.id} ${role === 'none' ? 'no role' : role}`];
    });
    const original = chain.twinOf.get(info.name);
    return {
      name: info.name,
      state: info.state,
      honest: safety.isHonest(info.name),
      roles: [...roles, ...(original ? [`twin of ${original}`] : [])].join(', ') || 'no group',
      // only the groups the node holds a ledger of: outside a group it has no height there (shown as -)
      heights: Object.fromEntries(
        groups.flatMap((g) => {
          const height = chain.group(info.name, g.id)?.blockNumber() ?? metrics.heights.get(`${g.id}/${info.name}`)?.points.at(-1)?.[1];
          return height === undefined ? [] : [[g.id, height]];
        }),
      ),
      sent: stats.sent,
      received: stats.received,
      dropped: stats.droppedOutbound.total,
    };
  });
}
