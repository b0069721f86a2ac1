import { durationMs, parseScenario, ScenarioError } from '../scenario/scenario-loader.js';
import type { Scenario, TimelineEntry } from '../scenario/scenario-schema.js';
import type { CandidateOutcome, CandidateViolation } from './candidate.js';
import type { CandidatePool, PoolStats } from './candidate-pool.js';
import { assemble, isEvent, splitScenario, type Placed, type Plan, type ShrinkUnit } from './plan.js';
import { nodeNames } from '../scenario/scenario-loader.js';
import { byzantineVariants, faultExcess, rescaled, truncated, unitWindow, withLeadersNamed, withoutGroup, withoutNode, workloadVariants } from './reductions.js';
import { scenarioYaml } from './scenario-yaml.js';
import { describeUnit } from './describe.js';

/** What must keep happening: an invariant violated (by name), or an expectation failed (by name). */
export interface ShrinkTarget {
  readonly kind: 'invariant' | 'expectation';
  readonly name: string;
}

/** A run cannot be shrunk: it passes, or the violation asked for is not among its failures. */
export class ShrinkError extends Error {
  override readonly name = 'ShrinkError';
}

/** The expectation a violation fails as a whole (its name begins so); a target names the invariant instead. */
/** Candidates one move-and-drop round runs at most (4 per pair of timed events: 10 events give 360). */
const MOVE_CANDIDATES_MAX = 400;
const SAFETY_EXPECTATION = 'safety:';
/** Not a finding of the run but of how it ended. */
const ENDED_EXPECTATION = 'the run ended with its final checks';

/** The target to keep: the one named, else the first invariant violated, else the first expectation failed. */
export function targetOf(outcome: CandidateOutcome, wanted?: string): ShrinkTarget | undefined {
  const invariants = [...new Set(outcome.violations.map((v) => v.invariant))];
  const expectations = outcome.failed.filter((f) => !f.startsWith(SAFETY_EXPECTATION) && f !== ENDED_EXPECTATION && !invariants.includes(f));
  if (wanted !== undefined) {
    if (invariants.includes(wanted)) return { kind: 'invariant', name: wanted };
    const e = expectations.find((f) => f === wanted) ?? expectations.find((f) => f.startsWith(wanted));
    return e === undefined ? undefined : { kind: 'expectation', name: e };
  }
  if (invariants.length > 0) return { kind: 'invariant', name: invariants[0]! };
  return expectations.length > 0 ? { kind: 'expectation', name: expectations[0]! } : undefined;
}

/** Whether a run shows the target (another violation alone does not count). */
export function reproduces(outcome: CandidateOutcome, target: ShrinkTarget): boolean {
  if (outcome.verdict === 'error') return false;
  return target.kind === 'invariant' ? outcome.violations.some((v) => v.invariant === target.name) : outcome.failed.includes(target.name);
}

/** The first violation of the target invariant in a run. */
export function firstViolation(outcome: CandidateOutcome, target: ShrinkTarget): CandidateViolation | undefined {
  return target.kind === 'invariant' ? outcome.violations.find((v) => v.invariant === target.name) : undefined;
}

/** Why a run does not show the target: it passes, or it fails otherwise (named). */
export function otherwise(outcome: CandidateOutcome): string {
  if (outcome.verdict === 'pass') return 'passes';
  if (outcome.verdict === 'error') return `ends in an internal error: ${outcome.error ?? 'unknown'}`;
  const names = [...new Set(outcome.violations.map((v) => v.invariant))];
  const others = outcome.failed.filter((f) => !f.startsWith(SAFETY_EXPECTATION) && f !== ENDED_EXPECTATION && !names.includes(f));
  return `fails otherwise (${[...names, ...others].join('; ')})`;
}

export type ShrinkPhase = 'original' | 'truncate' | 'events' | 'leaders' | 'windows' | 'moves' | 'workloads' | 'behaviours' | 'duration' | 'nodes' | 'groups' | 'minimality';

export interface ShrinkProgress {
  readonly phase: ShrinkPhase;
  /** Candidate runs finished so far. */
  readonly runs: number;
  /** Events of the best scenario so far, and of the original. */
  readonly events: number;
  readonly originalEvents: number;
  readonly nodes: number;
  /** Sizes (events) of the candidates being tried, smallest and largest. */
  readonly trying: readonly [number, number] | undefined;
  readonly elapsedMs: number;
}

export interface ShrinkOptions {
  /** The failing run's scenario with every event explicit (a swarm seed's draw, see drawSwarm); its swarm section is ignored. */
  readonly scenario: Scenario;
  /** The scenario file: candidates' relative paths (recordings) are read relative to it. */
  readonly file: string;
  readonly pool: CandidatePool;
  /** The invariant or expectation to keep (default: the first the original run shows). */
  readonly violation?: string;
  readonly onProgress?: (progress: ShrinkProgress) => void;
  /** Called once the original run has shown what is to be kept. */
  readonly onOriginal?: (outcome: CandidateOutcome, target: ShrinkTarget) => void;
  /** Wall clock in ms (tests may pass their own). */
  readonly now?: () => number;
}

/** An event of the shrunk scenario: what it is now, what it was in the original, and what removing it does. */
export interface KeptEvent {
  readonly id: number;
  /** An event, or a network setting (see isEvent). */
  readonly event: boolean;
  readonly now: string;
  readonly was: string;
  /** The run without it: "passes", or "fails otherwise (…)"; undefined when the check did not run. */
  readonly without: string | undefined;
}

export interface RunFacts {
  readonly scenario: Scenario;
  /** The scenario file's text, exactly as it ran. */
  readonly yaml: string;
  readonly outcome: CandidateOutcome;
  /** Faults, message faults, churn steps, byzantine windows, workloads, membership and config changes (see isEvent). */
  readonly events: number;
  /** Network settings: default loss, latency, … and per-link overrides. */
  readonly settings: number;
  readonly nodes: number;
  readonly groups: number;
  readonly durationMs: number;
  readonly units: readonly ShrinkUnit[];
}

export interface PhaseStats {
  readonly phase: ShrinkPhase;
  runs: number;
  accepted: number;
}

export interface ShrinkResult {
  readonly target: ShrinkTarget;
  readonly original: RunFacts;
  readonly shrunk: RunFacts;
  readonly kept: readonly KeptEvent[];
  /** Every kept event was checked: removing it makes the target go away. */
  readonly minimal: boolean;
  /** The pool was stopped (budget spent, or Ctrl-C) before the shrink ended. */
  readonly stopped: boolean;
  readonly phases: readonly PhaseStats[];
  readonly stats: PoolStats;
  readonly wallMs: number;
}

interface Prepared {
  readonly plan: Plan;
  readonly yaml: string;
}

/** The index of the unit behind an item the checker complained about (timeline[3], byzantine[0], …). */
function ownerOf(key: string, plan: Plan): number | undefined {
  const m = /^(timeline|byzantine|workloads|network\.links)\[(\d+)\]/.exec(key);
  if (!m) return undefined;
  const section = m[1] === 'network.links' ? 'links' : (m[1] as 'timeline' | 'byzantine' | 'workloads');
  const index = Number(m[2]);
  const placed = plan.units
    .flatMap((u, unit) => (u.section === section ? u.items.map((p: Placed<unknown>) => ({ unit, p })) : []))
    .sort((a, b) =>
      section === 'timeline' ? durationMs((a.p.value as TimelineEntry).at) - durationMs((b.p.value as TimelineEntry).at) || a.p.order - b.p.order : a.p.order - b.p.order,
    );
  return placed[index]?.unit;
}

/**
 * Shrinks a failing run to a small scenario that still fails the same way (the same invariant
 * violated, or the same expectation failed; another failure does not count). In rounds: the run
 * cut off just after the violation, delta debugging (ddmin) over its events, crashLeader and
 * isolateLeader written with the node they acted on, narrower fault windows, smaller workloads
 * (hostile ones with fewer behaviours), narrower byzantine behaviours (a mutating node with fewer
 * mutations), a shorter duration, fewer
 * nodes (never beyond what the groups' fault budgets allow, unless the original already went
 * beyond), fewer groups; then each kept event is left out once: if the violation still shows
 * without one, it goes and the rounds start again, else the result is 1-minimal.
 *
 * Each candidate is a scenario file's text, checked as `twinchain run` checks files (one the
 * checker refuses loses the events it names, or is skipped) and run in the pool. The candidates
 * and the order of acceptance depend only on the outcomes, so the result is the same with any
 * number of jobs.
 */
export class Shrinker {
  private readonly now: () => number;
  private readonly started: number;
  private best!: Prepared & { outcome: CandidateOutcome };
  private target!: ShrinkTarget;
  private phase: ShrinkPhase = 'original';
  private readonly phases: PhaseStats[] = [];
  private readonly pool: CandidatePool;

  constructor(private readonly options: ShrinkOptions) {
    this.now = options.now ?? (() => performance.now());
    this.started = this.now();
    this.pool = options.pool;
  }

  private get endMs(): number {
    return durationMs(this.best.plan.base.duration);
  }

  private trying: [number, number] | undefined;

  private progress(): void {
    this.options.onProgress?.({
      trying: this.trying,
      phase: this.phase,
      runs: this.pool.stats.runs,
      events: this.best?.plan.units.filter(isEvent).length ?? 0,
      originalEvents: this.originalEvents,
      nodes: this.best?.plan.base.chain.nodes ?? this.options.scenario.chain.nodes,
      elapsedMs: this.now() - this.started,
    });
  }

  private originalEvents = 0;

  /** A plan as file text the checker takes; events the checker refuses are dropped (a few times), else undefined. */
  private prepare(plan: Plan): Prepared | undefined {
    let current = plan;
    for (let attempt = 0; attempt < 8; attempt++) {
      const yaml = scenarioYaml(assemble(current.base, current.units));
      try {
        parseScenario(yaml, this.options.file);
        return { plan: current, yaml };
      } catch (e) {
        if (!(e instanceof ScenarioError)) throw e;
        const owner = ownerOf(e.key, current);
        if (owner === undefined) return undefined;
        current = { ...current, units: current.units.filter((_, i) => i !== owner) };
      }
    }
    return undefined;
  }

  private job(yaml: string) {
    return { yaml, ...(this.target.kind === 'invariant' ? { stopOn: this.target.name } : {}) };
  }

  /**
   * Runs the candidates (in order, those the checker takes and that differ from the best) and
   * makes the first that shows the target the best. Returns its index in `plans`, -1 when none
   * did, 'stopped' when the pool was stopped.
   */
  private async attempt(plans: ReadonlyArray<Plan | undefined>): Promise<number | 'stopped'> {
    const seen = new Set<string>([this.best.yaml]);
    const prepared: Array<Prepared & { index: number }> = [];
    for (const [index, plan] of plans.entries()) {
      const p = plan && this.prepare(plan);
      if (!p || seen.has(p.yaml)) continue;
      seen.add(p.yaml);
      prepared.push({ ...p, index });
    }
    if (prepared.length === 0) return -1;
    const stats = this.phases.at(-1)!;
    const before = this.pool.stats.runs;
    const sizes = prepared.map((p) => p.plan.units.filter(isEvent).length);
    this.trying = [Math.min(...sizes), Math.max(...sizes)];
    this.progress();
    const found = await this.pool.first(
      prepared.map((p) => this.job(p.yaml)),
      (o) => reproduces(o, this.target),
    );
    stats.runs += this.pool.stats.runs - before;
    this.trying = undefined;
    if (found === 'stopped') return 'stopped';
    if (!found) return -1;
    stats.accepted++;
    const chosen = prepared[found.index]!;
    this.best = { plan: chosen.plan, yaml: chosen.yaml, outcome: found.outcome };
    this.progress();
    return chosen.index;
  }

  /** attempt, as: did one show the target (or was the pool stopped)? */
  private async accepted(plans: ReadonlyArray<Plan | undefined>): Promise<boolean | 'stopped'> {
    const r = await this.attempt(plans);
    return r === 'stopped' ? r : r >= 0;
  }

  private enter(phase: ShrinkPhase): void {
    this.phase = phase;
    this.phases.push({ phase, runs: 0, accepted: 0 });
    this.progress();
  }

  private withUnits(units: readonly ShrinkUnit[]): Plan {
    return { base: this.best.plan.base, units };
  }

  /** Cuts the run off a second (rounded up) after the target first shows, when it shows in the fault phase. */
  private async truncate(): Promise<boolean | 'stopped'> {
    const first = firstViolation(this.best.outcome, this.target);
    if (!first) return false;
    const cut = Math.ceil((first.atMs + 1) / 1000) * 1000;
    if (cut >= this.endMs) return false;
    return this.accepted([truncated(this.best.plan, cut)]);
  }

  /** Delta debugging over the events: subsets, then complements, at finer and finer granularity. */
  private async ddmin(): Promise<boolean | 'stopped'> {
    let changed = false;
    let n = 2;
    for (;;) {
      const units = this.best.plan.units;
      if (units.length < 2) return changed;
      const size = Math.ceil(units.length / n);
      const chunks: ShrinkUnit[][] = [];
      for (let i = 0; i < units.length; i += size) chunks.push(units.slice(i, i + size));
      // with two pieces the complements are the pieces themselves
      const complements = chunks.length > 2 ? chunks.map((_, i) => chunks.filter((__, j) => j !== i).flat()) : [];
      const r = await this.attempt([...chunks, ...complements].map((u) => this.withUnits(u)));
      if (r === 'stopped') return r;
      if (r >= 0) {
        changed = true;
        // a piece starts the granularity over; a complement keeps it one finer than the pieces left
        n = r < chunks.length ? 2 : Math.max(n - 1, 2);
        continue;
      }
      if (n >= units.length) return changed;
      n = Math.min(units.length, n * 2);
    }
  }

  /** Each crashLeader and isolateLeader written with the node it acted on in the best run (a crash and restart, an isolation and heal). */
  private async nameLeaders(): Promise<boolean | 'stopped'> {
    let changed = false;
    for (let i = 0; i < this.best.plan.units.length; i++) {
      const scenario = assemble(this.best.plan.base, this.best.plan.units);
      const leaders = new Map(this.best.outcome.leaders.map((l) => [scenario.timeline[l.entry], l.node]));
      const twins = scenario.byzantine.flatMap((b) => ('twins' in b ? [`${b.twins}-twin`] : []));
      const unit = withLeadersNamed(this.best.plan.units[i]!, (e) => leaders.get(e), [...nodeNames(scenario), ...twins]);
      if (!unit) continue;
      const r = await this.accepted([this.withUnits(this.best.plan.units.map((u, j) => (j === i ? unit : u)))]);
      if (r === 'stopped') return r;
      changed ||= r;
    }
    return changed;
  }

  /**
   * Each unit replaced, one step at a time, by the first of `variantsOf` it that still shows the
   * target, until none does (or it has none); then the next unit.
   */
  private async eachUnitNarrowed(variantsOf: (unit: ShrinkUnit, scenario: Scenario) => ShrinkUnit[]): Promise<boolean | 'stopped'> {
    let changed = false;
    for (let i = 0; i < this.best.plan.units.length; i++) {
      for (;;) {
        const scenario = assemble(this.best.plan.base, this.best.plan.units);
        const variants = variantsOf(this.best.plan.units[i]!, scenario);
        if (variants.length === 0) break;
        const r = await this.accepted(variants.map((v) => this.withUnits(this.best.plan.units.map((x, j) => (j === i ? v : x)))));
        if (r === 'stopped') return r;
        if (!r) break;
        changed = true;
      }
    }
    return changed;
  }

  /** Each event's window halved (the first half, else the second) while the target still shows, down to 100 ms (a workload's to 1 s). */
  private narrowWindows(): Promise<boolean | 'stopped'> {
    return this.eachUnitNarrowed((unit) => {
      const window = unitWindow(unit, this.endMs);
      if (!window) return [];
      const [a, b] = window;
      const half = (b - a) / 2;
      if (half < (unit.section === 'workloads' ? 1000 : 100)) return [];
      return [rescaled(unit, a, a + half, this.endMs), rescaled(unit, a + half, b, this.endMs)];
    });
  }

  /**
   * One event fewer by moving another into its time: for each event j and each other timed event
   * i, the plan without j and with i (its length kept) starting where j starts, ending where j
   * starts, starting where j ends or ending where j ends. Delta debugging only removes, so a
   * violation that needs "something at j's moment" and "i" keeps both as drawn; here i may take
   * j's moment and j go. The first candidate (in that order) that shows the target is kept, and
   * the step starts over on the smaller plan.
   */
  private async moveAndDrop(): Promise<boolean | 'stopped'> {
    let changed = false;
    for (;;) {
      const units = this.best.plan.units;
      const candidates: Plan[] = [];
      for (let j = 0; j < units.length; j++) {
        const wj = isEvent(units[j]!) ? unitWindow(units[j]!, this.endMs) : undefined;
        if (!wj) continue;
        for (let i = 0; i < units.length; i++) {
          const wi = i === j ? undefined : unitWindow(units[i]!, this.endMs);
          if (!wi) continue;
          const length = wi[1] - wi[0];
          for (const start of new Set([wj[0], wj[0] - length, wj[1], wj[1] - length])) {
            if (start < 0 || start + length > this.endMs || start === wi[0]) continue;
            const moved = rescaled(units[i]!, start, start + length, this.endMs);
            candidates.push(this.withUnits(units.flatMap((u, k) => (k === j ? [] : k === i ? [moved] : [u]))));
          }
        }
      }
      if (candidates.length === 0) return changed;
      const r = await this.attempt(candidates.slice(0, MOVE_CANDIDATES_MAX));
      if (r === 'stopped') return r;
      if (r < 0) return changed;
      changed = true;
    }
  }

  /** Each workload made smaller one step at a time (rate, accounts, clients, targets, weights) while the target still shows. */
  private smallerWorkloads(): Promise<boolean | 'stopped'> {
    return this.eachUnitNarrowed(workloadVariants);
  }

  /** Each byzantine behaviour narrowed one step at a time (a mutating node's mutations, one fewer) while the target still shows. */
  private narrowerBehaviours(): Promise<boolean | 'stopped'> {
    return this.eachUnitNarrowed(byzantineVariants);
  }

  /** The run cut off right after the violation; else (no time to go by) halved while the target still shows. */
  private async shorter(): Promise<boolean | 'stopped'> {
    let changed = false;
    for (;;) {
      const first = firstViolation(this.best.outcome, this.target);
      const ends = new Set<number>();
      if (first && first.atMs < this.endMs) ends.add(Math.ceil((first.atMs + 1) / 1000) * 1000);
      const half = Math.floor(this.endMs / 2000) * 1000;
      if (half >= 1000) ends.add(half);
      const candidates = [...ends].filter((e) => e < this.endMs).sort((a, b) => a - b);
      if (candidates.length === 0) return changed;
      const r = await this.accepted(candidates.map((e) => truncated(this.best.plan, e)));
      if (r === 'stopped') return r;
      if (!r) return changed;
      changed = true;
    }
  }

  /** One node fewer at a time (the last first), within the groups' fault budgets, while the target still shows. */
  private async fewerNodes(allowedExcess: number): Promise<boolean | 'stopped'> {
    let changed = false;
    for (;;) {
      const n = this.best.plan.base.chain.nodes;
      const plans: Plan[] = [];
      for (let k = n - 1; k >= 0; k--) {
        const plan = withoutNode(this.best.plan, `node${k}`);
        if (!plan) continue;
        const p = this.prepare(plan);
        if (!p || faultExcess(parseScenario(p.yaml, this.options.file)) > allowedExcess) continue;
        plans.push(p.plan);
      }
      const r = await this.accepted(plans);
      if (r === 'stopped') return r;
      if (!r) return changed;
      changed = true;
    }
  }

  private async fewerGroups(): Promise<boolean | 'stopped'> {
    let changed = false;
    for (;;) {
      const r = await this.accepted(this.best.plan.base.groups.map((g) => withoutGroup(this.best.plan, g.id)));
      if (r === 'stopped') return r;
      if (!r) return changed;
      changed = true;
    }
  }

  /** Leaves out each kept event once; the outcomes say whether the result is 1-minimal. */
  private async minimality(): Promise<{ removable: boolean; without: Map<number, CandidateOutcome | 'refused'> } | 'stopped'> {
    const units = this.best.plan.units;
    const plans = units.map((_, i) => this.withUnits(units.filter((__, j) => j !== i)));
    const r = await this.attempt(plans);
    if (r === 'stopped') return r;
    if (r >= 0) return { removable: true, without: new Map() };
    const without = new Map<number, CandidateOutcome | 'refused'>();
    for (const [i, plan] of plans.entries()) {
      const p = this.prepare(plan);
      // without it the scenario is no file the checker takes: it cannot be left out
      const o = p ? this.pool.known(this.job(p.yaml)) : 'refused';
      if (o) without.set(units[i]!.id, o);
    }
    return { removable: false, without };
  }

  async run(): Promise<ShrinkResult> {
    const original = splitScenario(this.options.scenario);
    this.originalEvents = original.units.filter(isEvent).length;
    const first = this.prepare(original);
    if (!first) throw new ShrinkError('the scenario is not one a file can hold (the checker refuses it)');
    this.enter('original');
    const outcome = await this.pool.one({ yaml: first.yaml, keepFaults: true });
    if (outcome === 'stopped') throw new ShrinkError('stopped before the original run ended');
    if (outcome.verdict === 'error') throw new ShrinkError(`the original run ended in an internal error: ${outcome.error ?? 'unknown'}`);
    const target = targetOf(outcome, this.options.violation);
    if (!target) {
      if (this.options.violation !== undefined) {
        const shown = [...new Set(outcome.violations.map((v) => v.invariant)), ...outcome.failed.filter((f) => !f.startsWith(SAFETY_EXPECTATION))];
        throw new ShrinkError(`the run does not show "${this.options.violation}"; it shows: ${shown.join('; ') || 'nothing (it passes)'}`);
      }
      throw new ShrinkError('the run passes: there is no failure to keep');
    }
    this.target = target;
    this.best = { ...first, outcome };
    this.options.onOriginal?.(outcome, target);
    const allowedExcess = Math.max(0, faultExcess(parseScenario(first.yaml, this.options.file)));
    const originalFacts = this.facts(this.best);

    let stopped = false;
    let minimal = false;
    let without = new Map<number, CandidateOutcome | 'refused'>();
    const steps: Array<[ShrinkPhase, () => Promise<boolean | 'stopped'>]> = [
      ['truncate', () => this.truncate()],
      ['events', () => this.ddmin()],
      ['leaders', () => this.nameLeaders()],
      ['windows', () => this.narrowWindows()],
      ['moves', () => this.moveAndDrop()],
      ['workloads', () => this.smallerWorkloads()],
      ['behaviours', () => this.narrowerBehaviours()],
      ['duration', () => this.shorter()],
      ['nodes', () => this.fewerNodes(allowedExcess)],
      ['groups', () => this.fewerGroups()],
    ];
    rounds: for (;;) {
      for (const [phase, step] of steps) {
        this.enter(phase);
        if ((await step()) === 'stopped') {
          stopped = true;
          break rounds;
        }
      }
      this.enter('minimality');
      const check = await this.minimality();
      if (check === 'stopped') {
        stopped = true;
        break;
      }
      if (!check.removable) {
        minimal = true;
        without = check.without;
        break;
      }
    }
    const originalUnits = new Map(original.units.map((u) => [u.id, u]));
    const kept = this.best.plan.units.map((u) => {
      const o = without.get(u.id);
      const after = o === undefined ? undefined : o === 'refused' ? 'cannot be left out (the checker refuses the scenario without it)' : reproduces(o, target) ? 'still fails the same way' : otherwise(o);
      return { id: u.id, event: isEvent(u), now: describeUnit(u), was: describeUnit(originalUnits.get(u.id) ?? u), without: after };
    });
    return {
      target,
      original: originalFacts,
      shrunk: this.facts(this.best),
      kept,
      minimal,
      stopped,
      phases: this.phases,
      stats: { ...this.pool.stats },
      wallMs: this.now() - this.started,
    };
  }

  private facts(p: Prepared & { outcome: CandidateOutcome }): RunFacts {
    const scenario = assemble(p.plan.base, p.plan.units);
    return {
      scenario,
      yaml: p.yaml,
      outcome: p.outcome,
      events: p.plan.units.filter(isEvent).length,
      settings: p.plan.units.filter((u) => !isEvent(u)).length,
      nodes: scenario.chain.nodes,
      groups: scenario.groups.length,
      durationMs: durationMs(scenario.duration),
      units: p.plan.units,
    };
  }
}
