import { loadScenario } from '../scenario/scenario-loader.js';
import { runScenario, type RunScenarioOptions, type ScenarioResult } from '../scenario/scenario-runner.js';
import type { FaultInterval } from '../scenario/timeline.js';

/** One run the shrinker asks for: a whole scenario file's text (so whatever runs is what a file says). */
export interface CandidateJob {
  readonly yaml: string;
  /** End the run as soon as this invariant is violated: that is all the shrinker needs to know. */
  readonly stopOn?: string;
  /** Keep the run's fault intervals (the original run's, for the shrunk run's report). */
  readonly keepFaults?: boolean;
}

export interface CandidateViolation {
  readonly invariant: string;
  readonly atMs: number;
  readonly node: string;
  readonly height: number;
  readonly detail: string;
}

/** What a candidate run showed: plain data, so a worker thread can post it. */
export interface CandidateOutcome {
  readonly verdict: 'pass' | 'fail' | 'error';
  /** The first violations, in the order they were found (at most MAX_VIOLATIONS). */
  readonly violations: readonly CandidateViolation[];
  /** Names of the expectations that failed. */
  readonly failed: readonly string[];
  readonly digest: string;
  readonly events: number;
  readonly virtualMs: number;
  readonly wallMs: number;
  readonly stoppedEarly: boolean;
  /** Which node each crashLeader entry (by timeline index) crashed, and each isolateLeader entry cut off. */
  readonly leaders: ReadonlyArray<{ readonly entry: number; readonly node: string }>;
  readonly faults?: readonly FaultInterval[];
  readonly error?: string;
}

const MAX_VIOLATIONS = 50;

/** A run's result as the shrinker keeps it; `extra` adds violations found by other monitors (tests plant their own). */
export function candidateOutcome(result: ScenarioResult, job: Pick<CandidateJob, 'keepFaults'>, extra: readonly CandidateViolation[] = []): CandidateOutcome {
  const violations = [...result.violations.map((v) => ({ invariant: v.invariant, atMs: v.atMs, node: v.node, height: v.height, detail: v.detail })), ...extra]
    .sort((a, b) => a.atMs - b.atMs)
    .slice(0, MAX_VIOLATIONS);
  const leaders = result.faults.flatMap((f) => {
    const entry = f.entry === undefined ? undefined : result.scenario.timeline[f.entry];
    const acted = (f.kind === 'crash' && entry?.crashLeader !== undefined) || (f.kind === 'isolation' && entry?.isolateLeader !== undefined);
    return acted && f.nodes.length === 1 ? [{ entry: f.entry!, node: f.nodes[0]! }] : [];
  });
  const failed = result.expectations.filter((e) => !e.ok).map((e) => e.name);
  return {
    verdict: result.verdict === 'pass' && extra.length === 0 ? 'pass' : 'fail',
    violations,
    failed: extra.length > 0 ? [...failed, ...new Set(extra.map((v) => v.invariant))] : failed,
    digest: result.digest,
    events: result.events,
    virtualMs: result.virtualMs,
    wallMs: result.wallMs,
    stoppedEarly: result.stoppedEarly,
    leaders,
    ...(job.keepFaults ? { faults: result.faults.map((f) => ({ ...f, nodes: [...f.nodes] })) } : {}),
  };
}

export function errorOutcome(error: unknown): CandidateOutcome {
  return { verdict: 'error', violations: [], failed: [], digest: '', events: 0, virtualMs: 0, wallMs: 0, stoppedEarly: false, leaders: [], error: error instanceof Error ? error.message : String(error) };
}

export interface RunCandidateOptions {
  /** The original scenario file: relative paths in the text (recordings) are read relative to it. */
  readonly file: string;
  /** Polled during the run: true abandons it (the result is then undefined). */
  readonly cancelled?: () => boolean;
  /** More run options (tests plant hooks here). */
  readonly run?: Omit<RunScenarioOptions, 'stopWhen' | 'file'>;
}

/**
 * Runs one candidate: its text parsed and checked as `twinchain run` would, then simulated,
 * stopped early once `stopOn` is violated. Undefined when cancelled; an internal error is an
 * `error` outcome (never a reproduction).
 */
export async function runCandidate(job: CandidateJob, options: RunCandidateOptions): Promise<CandidateOutcome | undefined> {
  let cancelled = false;
  let seen = 0;
  let result: ScenarioResult;
  try {
    const scenario = await loadScenario(job.yaml, options.file);
    result = await runScenario(scenario, {
      ...options.run,
      file: options.file,
      stopWhen: (violations) => {
        if (options.cancelled?.()) return (cancelled = true);
        if (job.stopOn === undefined) return false;
        for (; seen < violations.length; seen++) if (violations[seen]!.invariant === job.stopOn) return true;
        return false;
      },
    });
  } catch (e) {
    return errorOutcome(e);
  }
  return cancelled ? undefined : candidateOutcome(result, job);
}
