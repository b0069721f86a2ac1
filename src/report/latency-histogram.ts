/** What the report shows of the submit → commit latencies: a few numbers and a histogram. */
export interface LatencySummary {
  count: number;
  /** All null when there are no samples. */
  minMs: number | null;
  meanMs: number | null;
  p50Ms: number | null;
  p90Ms: number | null;
  p99Ms: number | null;
  maxMs: number | null;
  binWidthMs: number;
  /** Equal-width bins from the lowest sample up; the last one is the tail when `overflow` is set. */
  bins: Array<{ fromMs: number; toMs: number; count: number; overflow?: true }>;
}

/** About this many equal bins between the lowest sample and the 99.5th percentile. */
const TARGET_BINS = 40;

/** 1, 2 or 5 times a power of ten, at least `raw`. */
export function niceStep(raw: number): number {
  if (!(raw > 0) || !Number.isFinite(raw)) return 1;
  const power = 10 ** Math.floor(Math.log10(raw));
  const fraction = raw / power;
  const nice = fraction <= 1 ? 1 : fraction <= 2 ? 2 : fraction <= 5 ? 5 : 10;
  return tidy(nice * power);
}

/** Strip binary floating-point noise (0.30000000000000004 → 0.3). */
function tidy(x: number): number {
  return Number(x.toPrecision(12));
}

/** Nearest-rank percentile of sorted values, p in (0, 1]. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) throw new RangeError('percentile of no values');
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(p * sorted.length)));
  return sorted[rank - 1]!;
}

/**
 * Percentiles and a histogram of latency samples. Bins have a 1-2-5 width chosen for about 40 bins
 * up to the 99.5th percentile; when the slowest samples reach much further than that, they share
 * one tail bin (`overflow`) instead of stretching the axis. Non-finite and negative samples are ignored.
 */
export function summarizeLatency(samplesMs: readonly number[]): LatencySummary {
  const sorted = Float64Array.from(samplesMs.filter((x) => Number.isFinite(x) && x >= 0)).sort();
  const count = sorted.length;
  if (count === 0) {
    return { count, minMs: null, meanMs: null, p50Ms: null, p90Ms: null, p99Ms: null, maxMs: null, binWidthMs: 1, bins: [] };
  }
  const min = sorted[0]!;
  const max = sorted[count - 1]!;
  let sum = 0;
  for (const x of sorted) sum += x;

  let top = percentile(sorted, 0.995);
  if (max <= top * 1.25 || count < 200) top = max;
  const width = top > min ? niceStep((top - min) / TARGET_BINS) : niceStep(Math.max(min, 1) / 10);
  const lo = tidy(Math.floor(min / width) * width);
  const regular = Math.floor((top - lo) / width) + 1;

  const counts = new Array<number>(regular).fill(0);
  let tail = 0;
  for (const x of sorted) {
    const index = Math.min(Math.floor((x - lo) / width), regular);
    if (index < regular) counts[Math.max(0, index)]! += 1;
    else tail += 1;
  }
  const bins: LatencySummary['bins'] = counts.map((n, i) => ({ fromMs: tidy(lo + i * width), toMs: tidy(lo + (i + 1) * width), count: n }));
  if (tail > 0) bins.push({ fromMs: tidy(lo + regular * width), toMs: max, count: tail, overflow: true });

  return {
    count,
    minMs: min,
    meanMs: sum / count,
    p50Ms: percentile(sorted, 0.5),
    p90Ms: percentile(sorted, 0.9),
    p99Ms: percentile(sorted, 0.99),
    maxMs: max,
    binWidthMs: width,
    bins,
  };
}
