import { performance } from 'node:perf_hooks';
import type { Group, ConsensusDriver } from '../../node/index.js';
import { percentile } from '../../report/index.js';
import { TraceFileSink } from '../../runtime/index.js';
import { NodeRpc } from '../node-rpc.js';
import { SimChain } from '../sim-chain.js';
import { honestNodes, resolveGroups, simChainOptions, type ResolvedGroup } from './scenario-chain.js';
import { durationMs } from './scenario-loader.js';
import type { Scenario } from './scenario-schema.js';
import { RunMetrics } from './run-metrics.js';
import { InvariantMonitor } from '../invariants/invariant-monitor.js';
import { SafetyMonitor, type Violation } from './safety-monitor.js';
import { TimelinePlayer, type FaultInterval } from './timeline.js';
import { TxClient } from './tx-client.js';
import { TxTracker, type TxRecord, type TxTotals } from './tx-tracker.js';
import { helloWorldCode, WorkloadDriver, type WorkloadCheck } from './workloads.js';
import { ReplayDriver } from './replay-workload.js';
import { HostileClients } from './hostile-clients.js';
import { DEFAULT_POOL_LIMIT } from '../../txpool/index.js';
import { shellOption, shellWord } from './shell-words.js';

export interface ExpectationResult {
  readonly name: string;
  readonly ok: boolean;
  readonly detail: string;
}

export interface RunProgress {
  readonly virtualMs: number;
  /** Virtual ms of the whole run at most: duration plus the liveness bound. */
  readonly totalMs: number;
  readonly phase: 'faults' | 'liveness' | 'done';
  /** Lowest and highest height among honest nodes, over groups. */
  readonly minHeight: number;
  readonly maxHeight: number;
  readonly committed: number;
  readonly violations: number;
}

export interface RunScenarioOptions {
  /** Overrides the file's seed. */
  readonly seed?: string | number;
  /** Scenario file path, for the replay command and the report. */
  readonly file?: string;
  /** The command that replays this run (default: twinchain run <file> --seed <seed>). */
  readonly replayCommand?: string;
  /** Write the trace (JSON lines) here. */
  readonly tracePath?: string;
  readonly onProgress?: (progress: RunProgress) => void;
  /** Events between progress calls (default 500; the CLI redraws at most every 100 ms). */
  readonly progressEvery?: number;
  /** For checker meta-tests: replace a consensus engine (e.g. a deliberately broken one). */
  readonly consensusFactories?: Readonly<Record<string, (group: Group) => ConsensusDriver>>;
  /** For checker meta-tests: called once the chain is built, to schedule extra events. */
  readonly onChain?: (chain: SimChain) => void;
  /** For tests: each workload's driver once it is built (a HostileClients for kind hostile). */
  readonly onWorkload?: (index: number, driver: WorkloadDriver | ReplayDriver | HostileClients) => void;
}

export interface NodeResult {
  readonly name: string;
  readonly state: string;
  readonly honest: boolean;
  readonly roles: string;
  /** Height per group id. */
  readonly heights: Readonly<Record<number, number>>;
  readonly sent: number;
  readonly received: number;
  readonly dropped: number;
}

export interface ScenarioResult {
  readonly scenario: Scenario;
  readonly file: string;
  readonly seed: string | number;
  readonly verdict: 'pass' | 'fail';
  readonly expectations: readonly ExpectationResult[];
  readonly violations: readonly Violation[];
  readonly virtualMs: number;
  readonly wallMs: number;
  readonly events: number;
  readonly digest: string;
  /** Virtual ms from the end of the faults until the liveness probe reached every live honest member. */
  readonly livenessMs: number | undefined;
  readonly totals: TxTotals & { readonly blocks: number; readonly viewChanges: number; readonly skipped: number };
  readonly groups: readonly ResolvedGroup[];
  readonly nodes: readonly NodeResult[];
  readonly faults: readonly FaultInterval[];
  readonly metrics: RunMetrics;
  readonly latenciesMs: readonly number[];
  readonly replayCommand: string;
}

const WORKLOAD_KINDS = new Set(['helloworld', 'deploy', 'token', 'replay', 'hostile']);
const DEFAULT_DRAIN_MS = 15_000;
const RESEND_SWEEP_MS = 2_000;

/**
 * The command that replays a run, quoted so a POSIX shell passes file, seed and output folder
 * through unchanged; `out` is the run's --out, when it was given one (the replay writes there too).
 */
export function replayCommand(file: string, seed: string | number, out?: string): string {
  return `npx twinchain run ${shellWord(file)} ${shellOption('seed', String(seed))}${out === undefined ? '' : ` ${shellOption('out', out)}`}`;
}

/**
 * Runs a scenario in one simulation: the chain, its workloads through JSON-RPC, the timeline of
 * faults, safety checked on every commit; then a liveness phase (faults frozen, a probe
 * transaction per group must reach every live honest member within the bound); then the
 * stored chains are audited and the expectations judged. Deterministic for a (scenario, seed).
 */
export async function runScenario(scenario: Scenario, options: RunScenarioOptions = {}): Promise<ScenarioResult> {
  const seed = options.seed ?? scenario.seed;
  const file = options.file ?? `${scenario.name}.yaml`;
  const started = performance.now();
  const endMs = durationMs(scenario.duration);
  const liveness = scenario.expect.liveness === false ? undefined : durationMs(scenario.expect.liveness.within);
  const deadline = endMs + (liveness ?? DEFAULT_DRAIN_MS);
  const groups = resolveGroups(scenario);
  const groupIds = groups.map((g) => g.id);

  const safety = new SafetyMonitor(honestNodes(scenario));
  const metrics = new RunMetrics((n) => safety.isHonest(n), new Set(groups.filter((g) => g.consensus === 'pbft').map((g) => g.id)));
  for (const g of groups) if (g.consensus === 'pbft') metrics.startViews(g.id, g.sealers);
  const tracker = new TxTracker();
  /** Something that may settle the liveness phase happened since the last look. */
  let committedSince = true;
  const sink = options.tracePath ? new TraceFileSink(options.tracePath) : undefined;
  /** Monitors that need the chain before they can listen (see InvariantMonitor below). */
  const listeners: Array<(node: string, kind: string, fields: Readonly<Record<string, unknown>>, atMs: number) => void> = [];
  const chain = new SimChain({
    ...simChainOptions(scenario, seed),
    ...(sink ? { trace: { sink } } : {}),
    ...(options.consensusFactories ? { consensusFactories: options.consensusFactories } : {}),
    onNodeEvent: (node, kind, fields, atMs) => {
      safety.onNodeEvent(node, kind, fields, atMs);
      for (const listen of listeners) listen(node, kind, fields, atMs);
      metrics.onNodeEvent(node, kind, fields, atMs);
      if (kind === 'block-committed') committedSince = true;
    },
  });
  const { sim } = chain;
  const invariants = new InvariantMonitor({ chain, isHonest: (n) => safety.isHonest(n), report: (v) => safety.violate(v) });
  listeners.push(invariants.onNodeEvent);
  const rpc = new NodeRpc(chain);
  const client = new TxClient(chain, rpc, tracker);

  const members = (group: number, honestOnly: boolean): string[] =>
    sim
      .nodes()
      .map((n) => n.name)
      .filter((n) => {
        if (sim.node(n).state !== 'up' || (honestOnly && !safety.isHonest(n))) return false;
        const g = chain.group(n, group);
        return g !== undefined && g.membership() !== 'none';
      });
  client.candidates = (group, targets) => members(group, false).filter((n) => !targets || targets.includes(n));

  // Each block once, from the first honest node that committed it: its transactions and receipts.
  safety.onFirstCommit = (group, height, block) => {
    sim.at(sim.now, async () => {
      const readers = [block.node, ...members(group, true)];
      for (const name of readers) {
        const stored = sim.node(name).state === 'up' ? await chain.group(name, group)?.blockByNumber(height) : undefined;
        if (!stored) continue;
        const txs = stored.block.transactions.map((tx, i) => {
          const receipt = stored.block.receipts[i]!;
          return { hash: `0x${Buffer.from(tx.hash).toString('hex')}`, status: receipt.status, contractAddress: `0x${Buffer.from(receipt.contractAddress).toString('hex')}` };
        });
        tracker.onBlock(group, height, block.atMs, txs);
        metrics.onBlock(group, block.atMs, txs.length);
        committedSince = true;
        return;
      }
    }, 'observe block');
  };

  const timeline = new TimelinePlayer(scenario, chain, client);
  timeline.schedule();
  const readable = (group: number) => members(group, true)[0];
  const context = { chain, client, rpc, endMs, readable, readers: (group: number) => members(group, true) };
  const poolLimit = scenario.chain.txPoolLimit ?? DEFAULT_POOL_LIMIT;
  const workloads = scenario.workloads.map((w, i) =>
    w.kind === 'replay' ? new ReplayDriver(context, w, i) : w.kind === 'hostile' ? new HostileClients(context, w, i, poolLimit) : new WorkloadDriver(context, w, i),
  );
  workloads.forEach((w, i) => options.onWorkload?.(i, w));
  for (const w of workloads) w.start();
  const sweep = async () => {
    await client.resendOverdue();
    if (sim.now + RESEND_SWEEP_MS < deadline) sim.after(RESEND_SWEEP_MS, sweep, 'resend sweep');
  };
  sim.at(RESEND_SWEEP_MS, sweep, 'resend sweep');
  options.onChain?.(chain);

  // --- the liveness phase and the end ---------------------------------------------------
  let phase: RunProgress['phase'] = 'faults';
  const probes: TxRecord[] = [];
  let livenessMs: number | undefined;
  let finished = false;
  let finishing = false;
  let workloadChecks: WorkloadCheck[] = [];
  let timelineChecks: ExpectationResult[] = [];

  const sendProbe = async (group: number): Promise<void> => {
    const record = await client.send('probe', group, 'probe', { to: null, data: helloWorldCode() });
    if (record) probes.push(record);
    else if (sim.now + 1000 < deadline) sim.after(1000, () => sendProbe(group), 'liveness probe');
  };
  /** The probes reached every live honest member of their group. */
  const probesArrived = (): boolean => {
    if (probes.length < groupIds.length) return false;
    for (const probe of probes) {
      if (probe.height === undefined) return false;
      for (const n of members(probe.group, true)) if (chain.group(n, probe.group)!.blockNumber() < probe.height) return false;
    }
    return true;
  };
  const finish = async (): Promise<void> => {
    if (finishing) return;
    finishing = true;
    await safety.audit(chain, groupIds, sim.now);
    await invariants.audit(groupIds, sim.now);
    for (const w of workloads) workloadChecks = [...workloadChecks, ...(await w.checks())];
    timelineChecks = await timeline.verify(rpc, (g) => members(g, true));
    phase = 'done';
    finished = true;
  };
  const allReceipted = (): ExpectationResult => {
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
      const behind = members(g, true).filter((n) => chain.group(n, g)!.blockNumber() < highest);
      if (behind.length > 0) return { name, ok: false, detail: `group ${g}: ${behind.join(', ')} ${behind.length === 1 ? 'is' : 'are'} below height ${highest}, the last with a workload transaction` };
    }
    return { name, ok: true, detail: `${accepted.toLocaleString('en-US')} transactions (workloads and their setup), all receipted everywhere` };
  };

  sim.at(endMs, async () => {
    phase = 'liveness';
    if (liveness !== undefined) {
      timeline.freeze(endMs);
      for (const g of groupIds) await sendProbe(g);
    }
  }, 'liveness phase');
  sim.at(deadline, finish, 'deadline');

  const every = options.progressEvery ?? 500;
  let sinceProgress = 0;
  const progress = (): RunProgress => {
    let min = Infinity;
    let max = 0;
    for (const n of sim.nodes()) {
      if (!safety.isHonest(n.name)) continue;
      for (const g of groupIds) {
        const h = safety.heightOf(n.name, g);
        min = Math.min(min, h);
        max = Math.max(max, h);
      }
    }
    return { virtualMs: sim.now, totalMs: deadline, phase, minHeight: min === Infinity ? 0 : min, maxHeight: max, committed: tracker.totals().committed, violations: safety.violations.length };
  };
  if (options.onProgress) {
    sim.afterEvent(() => {
      if (++sinceProgress >= every) {
        sinceProgress = 0;
        options.onProgress!(progress());
      }
    });
  }

  try {
    await sim.run({
      until: deadline,
      stopWhen: () => {
        if (finished) return true;
        if (phase === 'liveness' && !finishing && committedSince) {
          committedSince = false;
          if (liveness !== undefined && livenessMs === undefined && probesArrived()) livenessMs = sim.now - endMs;
          if ((liveness === undefined || livenessMs !== undefined) && (!scenario.expect.allReceipted || allReceipted().ok)) sim.at(sim.now, finish, 'settled');
        }
        return false;
      },
    });
  } finally {
    sink?.close();
  }
  options.onProgress?.(progress());

  // --- judgement ----------------------------------------------------------------------
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
    const lagging = probes.flatMap((p) => members(p.group, true).filter((n) => p.height === undefined || chain.group(n, p.group)!.blockNumber() < p.height).map((n) => `${n} (g${p.group})`));
    expectations.push({
      name: `liveness: after the faults stop, a probe transaction reaches every live honest node within ${liveness} ms`,
      ok: livenessMs !== undefined,
      detail:
        livenessMs !== undefined
          ? `took ${Math.round(livenessMs)} ms on ${groupIds.map((g) => members(g, true).length).reduce((a, b) => a + b, 0)} live honest member(s)`
          : probes.length < groupIds.length
            ? 'no node would take the probe transaction'
            : probes.some((p) => p.height === undefined)
              ? `the probe was not committed within ${liveness} ms`
              : `not reached within ${liveness} ms by ${lagging.join(', ')}`,
    });
  }
  const expect = scenario.expect;
  if (expect.minHeight !== undefined) {
    const lows = groupIds.flatMap((g) => members(g, true).map((n) => ({ n, g, h: chain.group(n, g)!.blockNumber() })));
    const lowest = lows.reduce((a, b) => (b.h < a.h ? b : a), lows[0] ?? { n: '-', g: 0, h: 0 });
    expectations.push({
      name: `every live honest node reached height ${expect.minHeight}`,
      ok: lows.length > 0 && lowest.h >= expect.minHeight,
      detail: lows.length === 0 ? 'no live honest node' : `lowest: ${lowest.n} at ${lowest.h} (group ${lowest.g})`,
    });
  }
  if (expect.allReceipted) expectations.push(allReceipted());
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
  expectations.push(...timelineChecks);
  expectations.push(...workloadChecks);
  if (!finished) expectations.push({ name: 'the run ended with its final checks', ok: false, detail: `the simulation stopped at ${sim.now} ms before the end checks ran` });

  const nodes: NodeResult[] = sim.nodes().map((info) => {
    const stats = sim.network.nodeStats(info.name);
    const d = stats.droppedOutbound;
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
      heights: Object.fromEntries(groupIds.map((g) => [g, chain.group(info.name, g)?.blockNumber() ?? metrics.heights.get(`${g}/${info.name}`)?.points.at(-1)?.[1] ?? 0])),
      sent: stats.sent,
      received: stats.received,
      dropped: d.total,
    };
  });
  const all = tracker.totals();
  return {
    scenario,
    file,
    seed,
    verdict: expectations.every((e) => e.ok) ? 'pass' : 'fail',
    expectations,
    violations,
    virtualMs: sim.now,
    wallMs: performance.now() - started,
    events: sim.eventCount,
    digest: sim.trace.digest,
    livenessMs,
    totals: { ...all, blocks: [...metrics.blocks.values()].reduce((a, b) => a + b, 0), viewChanges, skipped: workloads.reduce((n, w) => n + w.skipped, 0) },
    groups,
    nodes,
    faults: timeline.faults,
    metrics,
    latenciesMs,
    replayCommand: options.replayCommand ?? replayCommand(file, seed),
  };
}
