import type { EventView, Simulation } from './simulation.js';
import { SimulationError } from './simulation-error.js';
import { formatTraceRecord, type TraceRecord } from './trace.js';

/** Builds a fresh simulation for a seed: nodes, faults scripted with `at`, but not run. */
export type Scenario<H = unknown> = (seed: string) => Simulation<H> | Promise<Simulation<H>>;

export interface DeterminismCheckOptions {
  readonly seed: string | number;
  /** Virtual ms to run to; at least one of until, maxEvents and stopWhen is required. */
  readonly until?: number;
  readonly maxEvents?: number;
  readonly stopWhen?: (event: EventView) => boolean;
}

/** Where two runs of the same (scenario, seed) first differ. */
export interface Divergence {
  /** Index of the first differing trace entry. */
  readonly index: number;
  /** Virtual ms and node of the earlier of the two entries: where the runs visibly part. */
  readonly time: number;
  readonly node: string | null;
  /** The entry in each run; null when that run has no entry there (it ended or went quiet). */
  readonly first: TraceRecord | null;
  readonly second: TraceRecord | null;
  /** Set when the traces agree but the runs stopped differently. */
  readonly note?: string;
}

export interface DeterminismReport {
  readonly seed: string;
  readonly deterministic: boolean;
  /** Events run by each run. */
  readonly events: readonly [number, number];
  readonly digests: readonly [string, string];
  readonly divergence: Divergence | null;
}

/**
 * Runs the scenario twice with the same seed, in lockstep: one event of the first run, then one of
 * the second, comparing the rolling trace digests after each. At the first difference both
 * diverging entries are at hand (no re-run, memory bounded by one event's entries), and the check
 * stops there. A deterministic pair runs to the stop condition and compares the final digests.
 *
 * Both runs share one process, so nondeterminism that reads the wall clock may hide if both runs
 * read it in the same millisecond; lint keeps Date.now and friends out of protocol code for that.
 */
export async function checkDeterminism<H>(scenario: Scenario<H>, options: DeterminismCheckOptions): Promise<DeterminismReport> {
  if (typeof scenario !== 'function') throw new SimulationError('checkDeterminism: scenario must be a function (seed) => Simulation');
  const { until, maxEvents = Infinity, stopWhen } = options;
  if (until === undefined && options.maxEvents === undefined && stopWhen === undefined) {
    throw new SimulationError('checkDeterminism: give a stop condition (until, maxEvents or stopWhen)');
  }
  if (!Number.isSafeInteger(maxEvents) && maxEvents !== Infinity) throw new SimulationError(`checkDeterminism: maxEvents must be an integer, got ${String(maxEvents)}`);
  const seed = String(options.seed);
  const first = await scenario(seed);
  const second = await scenario(seed);
  if (first === second) throw new SimulationError('checkDeterminism: the scenario must build a new Simulation on every call');
  for (const sim of [first, second]) {
    if (sim.seed !== seed) throw new SimulationError(`checkDeterminism: the scenario built a simulation with seed "${sim.seed}", not "${seed}"`);
    sim.trace.holdWindow();
  }
  const report = (divergence: Divergence | null): DeterminismReport => ({
    seed,
    deterministic: divergence === null && first.trace.digest === second.trace.digest,
    events: [first.eventCount, second.eventCount],
    digests: [first.trace.digest, second.trace.digest],
    divergence,
  });

  let divergence = compareWindows(first, second);
  for (let n = 0; divergence === null && n < maxEvents; n++) {
    const more1 = await first.step(until === undefined ? {} : { until });
    const more2 = await second.step(until === undefined ? {} : { until });
    divergence = compareWindows(first, second);
    if (divergence !== null) break;
    if (more1 !== more2) {
      divergence = noted(first, `run ${more1 ? 2 : 1} had no event left while run ${more1 ? 1 : 2} ran event #${(more1 ? first : second).eventCount - 1}`);
      break;
    }
    if (!more1) break;
    if (stopWhen !== undefined) {
      const stop1 = stopWhen(first.lastEvent);
      const stop2 = stopWhen(second.lastEvent);
      if (stop1 !== stop2) divergence = noted(first, `stopWhen held in run ${stop1 ? 1 : 2} only, after event #${first.eventCount - 1}`);
      if (stop1 || stop2) break;
    }
  }
  return report(divergence);
}

/** A one-paragraph account of a report, for test failures and the CLI. */
export function formatDivergence(report: DeterminismReport): string {
  const d = report.divergence;
  if (d === null) {
    return report.deterministic
      ? `seed "${report.seed}": deterministic (${report.events[0]} events, digest ${report.digests[0]})`
      : `seed "${report.seed}": digests differ (${report.digests[0]} vs ${report.digests[1]}) but no differing entry was found`;
  }
  const lines = [
    `seed "${report.seed}": the two runs diverge at trace entry #${d.index} (t=${d.time} ms, node ${d.node ?? '-'})${d.note ? `: ${d.note}` : ''}`,
    `  run 1: ${d.first ? formatTraceRecord(d.first) : '(no entry)'}`,
    `  run 2: ${d.second ? formatTraceRecord(d.second) : '(no entry)'}`,
  ];
  return lines.join('\n');
}

function compareWindows(first: Simulation<unknown>, second: Simulation<unknown>): Divergence | null {
  const a = first.trace.takeWindow();
  const b = second.trace.takeWindow();
  const n = Math.max(a.records.length, b.records.length);
  for (let k = 0; k < n; k++) {
    if (k < a.records.length && k < b.records.length && a.lanes[2 * k] === b.lanes[2 * k] && a.lanes[2 * k + 1] === b.lanes[2 * k + 1]) continue;
    const r1 = a.records[k] ?? null;
    const r2 = b.records[k] ?? null;
    // the earlier of the two entries is where the runs visibly part
    const earlier = r1 === null ? r2! : r2 === null || r1.t <= r2.t ? r1 : r2;
    return { index: a.start + k, time: earlier.t, node: earlier.node, first: r1, second: r2 };
  }
  return null;
}

function noted(sim: Simulation<unknown>, note: string): Divergence {
  return { index: sim.trace.count, time: sim.now, node: sim.lastEvent.node, first: null, second: null, note };
}
