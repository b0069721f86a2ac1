/** What a mutant's swarm showed: a safety/invariant violation, only a stall, or nothing. */
export type Detection = 'caught' | 'stall' | 'survived';

/** The parts of swarm.json the benchmark reads. */
export interface SwarmJsonRun {
  readonly seed: number;
  readonly verdict: 'pass' | 'fail' | 'error';
  readonly failed?: ReadonlyArray<{ readonly name: string; readonly detail?: string }>;
  readonly violations?: ReadonlyArray<{ readonly invariant: string; readonly node?: string; readonly height?: number; readonly detail?: string }>;
  readonly error?: string;
}

export interface SwarmJson {
  readonly runs: readonly SwarmJsonRun[];
  readonly firstFailure?: { readonly seed: number; readonly afterMs: number } | null;
}

export interface ScenarioVerdict {
  readonly detection: Detection;
  /** The seeds run. */
  readonly seeds: number;
  /** The first failing seed, if any. */
  readonly seed: number | null;
  /** Wall ms from the swarm's start to the failure. */
  readonly afterMs: number | null;
  /** Invariants violated (caught), or the failed expectations / the error (stall). */
  readonly evidence: readonly string[];
}

/** Reads a swarm.json (already parsed) into the benchmark's verdict; throws a clear error on a malformed one. */
export function classifySwarm(json: unknown): ScenarioVerdict {
  const data = json as SwarmJson;
  if (typeof json !== 'object' || json === null || !Array.isArray(data.runs)) throw new Error('swarm.json has no runs array');
  const first = data.firstFailure ?? null;
  const runs: readonly SwarmJsonRun[] = data.runs;
  const run = first ? runs.find((r) => r.seed === first.seed) : runs.find((r) => r.verdict !== 'pass');
  if (!run || run.verdict === 'pass') return { detection: 'survived', seeds: runs.length, seed: null, afterMs: null, evidence: [] };
  const afterMs = first?.seed === run.seed ? first.afterMs : null;
  const violations = run.violations ?? [];
  const failed = run.failed ?? [];
  const invariants = [...new Set([...violations.map((v) => v.invariant), ...failed.filter((f) => f.name.startsWith('safety')).map((f) => f.name)])];
  if (violations.length > 0 || invariants.length > 0) return { detection: 'caught', seeds: runs.length, seed: run.seed, afterMs, evidence: violations.length > 0 ? [...new Set(violations.map((v) => v.invariant))] : invariants };
  const evidence = run.verdict === 'error' ? [`internal error: ${run.error ?? 'unknown'}`] : failed.map((f) => f.name);
  return { detection: 'stall', seeds: runs.length, seed: run.seed, afterMs, evidence };
}

/** Over a mutant's scenarios: the best detection (caught > stall > survived), first come first. */
export function combine(verdicts: ReadonlyArray<ScenarioVerdict & { scenario: string }>): (ScenarioVerdict & { scenario: string | null }) {
  for (const wanted of ['caught', 'stall'] as const) {
    const v = verdicts.find((x) => x.detection === wanted);
    if (v) return v;
  }
  return { detection: 'survived', seeds: verdicts.reduce((n, v) => n + v.seeds, 0), seed: null, afterMs: null, evidence: [], scenario: null };
}

export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}
