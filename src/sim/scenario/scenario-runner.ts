import { performance } from 'node:perf_hooks';
import type { Group, ConsensusDriver } from '../../node/index.js';
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
import { judgeRun, nodeResults, receiptExpectation, type ExpectationResult, type NodeResult } from './run-judgement.js';

export type { ExpectationResult, NodeResult } from './run-judgement.js';

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
  /**
   * Checked after every event: true ends the run there (the shrinker stops a candidate once the
   * violation it looks for shows, or when it is cancelled). The result then has `stoppedEarly`,
   * and the end checks did not run.
   */
  readonly stopWhen?: (violations: readonly Violation[]) => boolean;
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
  /** The run was ended by options.stopWhen, before its end checks. */
  readonly stoppedEarly: boolean;
}

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
  const run = new ScenarioRun(scenario, options);
  run.start();
  await run.play();
  return run.result();
}

/**
 * One run, in the order its parts must be set up (the order of scheduled events is part of the
 * trace): the chain and its monitors, the timeline and workloads, the end phases, then the play.
 */
class ScenarioRun {
  private readonly seed: string | number;
  private readonly started = performance.now();
  private readonly endMs: number;
  /** The liveness bound (ms), undefined when the scenario has none. */
  private readonly liveness: number | undefined;
  private readonly deadline: number;
  private readonly groups: readonly ResolvedGroup[];
  private readonly groupIds: readonly number[];
  private readonly safety: SafetyMonitor;
  private readonly metrics: RunMetrics;
  private readonly tracker = new TxTracker();
  private readonly sink: TraceFileSink | undefined;
  private readonly chain: SimChain;
  private readonly invariants: InvariantMonitor;
  private readonly rpc: NodeRpc;
  private readonly client: TxClient;
  private timeline!: TimelinePlayer;
  private workloads: Array<WorkloadDriver | ReplayDriver | HostileClients> = [];
  /** Something that may settle the liveness phase happened since the last look. */
  private committedSince = true;
  private phase: RunProgress['phase'] = 'faults';
  private readonly probes: TxRecord[] = [];
  private livenessMs: number | undefined;
  private finished = false;
  private finishing = false;
  private stoppedEarly = false;
  private workloadChecks: WorkloadCheck[] = [];
  private timelineChecks: ExpectationResult[] = [];

  constructor(
    private readonly scenario: Scenario,
    private readonly options: RunScenarioOptions,
  ) {
    this.seed = options.seed ?? scenario.seed;
    this.endMs = durationMs(scenario.duration);
    this.liveness = scenario.expect.liveness === false ? undefined : durationMs(scenario.expect.liveness.within);
    this.deadline = this.endMs + (this.liveness ?? DEFAULT_DRAIN_MS);
    this.groups = resolveGroups(scenario);
    this.groupIds = this.groups.map((g) => g.id);
    const safety = (this.safety = new SafetyMonitor(honestNodes(scenario)));
    const metrics = (this.metrics = new RunMetrics((n) => safety.isHonest(n), new Set(this.groups.filter((g) => g.consensus === 'pbft').map((g) => g.id))));
    for (const g of this.groups) if (g.consensus === 'pbft') metrics.startViews(g.id, g.sealers);
    this.sink = options.tracePath ? new TraceFileSink(options.tracePath) : undefined;
    /** Monitors that need the chain before they can listen (see InvariantMonitor below). */
    const listeners: Array<(node: string, kind: string, fields: Readonly<Record<string, unknown>>, atMs: number) => void> = [];
    this.chain = new SimChain({
      ...simChainOptions(scenario, this.seed),
      ...(this.sink ? { trace: { sink: this.sink } } : {}),
      ...(options.consensusFactories ? { consensusFactories: options.consensusFactories } : {}),
      onNodeEvent: (node, kind, fields, atMs) => {
        safety.onNodeEvent(node, kind, fields, atMs);
        for (const listen of listeners) listen(node, kind, fields, atMs);
        metrics.onNodeEvent(node, kind, fields, atMs);
        if (kind === 'block-committed') this.committedSince = true;
      },
    });
    this.invariants = new InvariantMonitor({ chain: this.chain, isHonest: (n) => safety.isHonest(n), report: (v) => safety.violate(v) });
    listeners.push(this.invariants.onNodeEvent);
    this.rpc = new NodeRpc(this.chain);
    this.client = new TxClient(this.chain, this.rpc, this.tracker);
  }

  private get sim() {
    return this.chain.sim;
  }

  /** The live members of a group (honest ones only, or all). */
  private members(group: number, honestOnly: boolean): string[] {
    const { sim, chain, safety } = this;
    return sim
      .nodes()
      .map((n) => n.name)
      .filter((n) => {
        if (sim.node(n).state !== 'up' || (honestOnly && !safety.isHonest(n))) return false;
        const g = chain.group(n, group);
        return g !== undefined && g.membership() !== 'none';
      });
  }

  /** Sets up the clients, the block observer, the timeline, the workloads and the end phases. */
  start(): void {
    const { sim, chain, client, tracker, metrics, options } = this;
    client.candidates = (group, targets) => this.members(group, false).filter((n) => !targets || targets.includes(n));

    // Each block once, from the first honest node that committed it: its transactions and receipts.
    this.safety.onFirstCommit = (group, height, block) => {
      sim.at(sim.now, async () => {
        const readers = [block.node, ...this.members(group, true)];
        for (const name of readers) {
          const stored = sim.node(name).state === 'up' ? await chain.group(name, group)?.blockByNumber(height) : undefined;
          if (!stored) continue;
          const txs = stored.block.transactions.map((tx, i) => {
            const receipt = stored.block.receipts[i]!;
            return { hash: `0x${Buffer.from(tx.hash).toString('hex')}`, status: receipt.status, contractAddress: `0x${Buffer.from(receipt.contractAddress).toString('hex')}` };
          });
          tracker.onBlock(group, height, block.atMs, txs);
          metrics.onBlock(group, block.atMs, txs.length);
          this.committedSince = true;
          return;
        }
      }, 'observe block');
    };

    this.timeline = new TimelinePlayer(this.scenario, chain, client);
    this.timeline.schedule();
    const readable = (group: number) => this.members(group, true)[0];
    const context = { chain, client, rpc: this.rpc, endMs: this.endMs, readable, readers: (group: number) => this.members(group, true) };
    const poolLimit = this.scenario.chain.txPoolLimit ?? DEFAULT_POOL_LIMIT;
    this.workloads = this.scenario.workloads.map((w, i) =>
      w.kind === 'replay' ? new ReplayDriver(context, w, i) : w.kind === 'hostile' ? new HostileClients(context, w, i, poolLimit) : new WorkloadDriver(context, w, i),
    );
    this.workloads.forEach((w, i) => options.onWorkload?.(i, w));
    for (const w of this.workloads) w.start();
    const sweep = async () => {
      await client.resendOverdue();
      if (sim.now + RESEND_SWEEP_MS < this.deadline) sim.after(RESEND_SWEEP_MS, sweep, 'resend sweep');
    };
    sim.at(RESEND_SWEEP_MS, sweep, 'resend sweep');
    options.onChain?.(chain);

    sim.at(this.endMs, async () => {
      this.phase = 'liveness';
      if (this.liveness !== undefined) {
        this.timeline.freeze(this.endMs);
        for (const g of this.groupIds) await this.sendProbe(g);
      }
    }, 'liveness phase');
    sim.at(this.deadline, () => this.finish(), 'deadline');
  }

  private async sendProbe(group: number): Promise<void> {
    const record = await this.client.send('probe', group, 'probe', { to: null, data: helloWorldCode() });
    if (record) this.probes.push(record);
    else if (this.sim.now + 1000 < this.deadline) this.sim.after(1000, () => this.sendProbe(group), 'liveness probe');
  }

  /** The probes reached every live honest member of their group. */
  private probesArrived(): boolean {
    if (this.probes.length < this.groupIds.length) return false;
    for (const probe of this.probes) {
      if (probe.height === undefined) return false;
      for (const n of this.members(probe.group, true)) if (this.chain.group(n, probe.group)!.blockNumber() < probe.height) return false;
    }
    return true;
  }

  private async finish(): Promise<void> {
    if (this.finishing) return;
    this.finishing = true;
    await this.safety.audit(this.chain, this.groupIds, this.sim.now);
    await this.invariants.audit(this.groupIds, this.sim.now);
    for (const w of this.workloads) this.workloadChecks = [...this.workloadChecks, ...(await w.checks())];
    this.timelineChecks = await this.timeline.verify(this.rpc, (g) => this.members(g, true));
    this.phase = 'done';
    this.finished = true;
  }

  private allReceipted(): ExpectationResult {
    return receiptExpectation({ tracker: this.tracker, probes: this.probes, groupIds: this.groupIds, chain: this.chain, members: (g) => this.members(g, true) });
  }

  private progress(): RunProgress {
    let min = Infinity;
    let max = 0;
    for (const n of this.sim.nodes()) {
      if (!this.safety.isHonest(n.name)) continue;
      for (const g of this.groupIds) {
        const h = this.safety.heightOf(n.name, g);
        min = Math.min(min, h);
        max = Math.max(max, h);
      }
    }
    return { virtualMs: this.sim.now, totalMs: this.deadline, phase: this.phase, minHeight: min === Infinity ? 0 : min, maxHeight: max, committed: this.tracker.totals().committed, violations: this.safety.violations.length };
  }

  /** Runs the simulation until the end checks have run (or the deadline passed). */
  async play(): Promise<void> {
    const { sim, options } = this;
    const every = options.progressEvery ?? 500;
    let sinceProgress = 0;
    if (options.onProgress) {
      sim.afterEvent(() => {
        if (++sinceProgress >= every) {
          sinceProgress = 0;
          options.onProgress!(this.progress());
        }
      });
    }
    try {
      await sim.run({
        until: this.deadline,
        stopWhen: () => {
          if (this.finished) return true;
          if (options.stopWhen?.(this.safety.violations)) {
            this.stoppedEarly = true;
            return true;
          }
          if (this.phase === 'liveness' && !this.finishing && this.committedSince) {
            this.committedSince = false;
            if (this.liveness !== undefined && this.livenessMs === undefined && this.probesArrived()) this.livenessMs = sim.now - this.endMs;
            if ((this.liveness === undefined || this.livenessMs !== undefined) && (!this.scenario.expect.allReceipted || this.allReceipted().ok)) sim.at(sim.now, () => this.finish(), 'settled');
          }
          return false;
        },
      });
    } finally {
      this.sink?.close();
    }
    options.onProgress?.(this.progress());
  }

  result(): ScenarioResult {
    const { scenario, chain, sim, safety, metrics, tracker, options } = this;
    const { expectations, viewChanges, latenciesMs } = judgeRun({
      scenario, chain, groupIds: this.groupIds, safety, invariants: this.invariants, metrics, tracker, probes: this.probes, endMs: this.endMs,
      livenessBoundMs: this.liveness, livenessMs: this.livenessMs, members: (g) => this.members(g, true),
      laterChecks: [...this.timelineChecks, ...this.workloadChecks], finished: this.finished,
    });
    const file = options.file ?? `${scenario.name}.yaml`;
    const all = tracker.totals();
    return {
      scenario,
      file,
      seed: this.seed,
      verdict: expectations.every((e) => e.ok) ? 'pass' : 'fail',
      expectations,
      violations: safety.violations,
      virtualMs: sim.now,
      wallMs: performance.now() - this.started,
      events: sim.eventCount,
      digest: sim.trace.digest,
      livenessMs: this.livenessMs,
      totals: { ...all, blocks: [...metrics.blocks.values()].reduce((a, b) => a + b, 0), viewChanges, skipped: this.workloads.reduce((n, w) => n + w.skipped, 0) },
      groups: this.groups,
      nodes: nodeResults(chain, this.groups, safety, metrics),
      faults: this.timeline.faults,
      metrics,
      latenciesMs,
      replayCommand: options.replayCommand ?? replayCommand(file, this.seed),
      stoppedEarly: this.stoppedEarly,
    };
  }
}
