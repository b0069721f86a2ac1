/** A change point of a step series: [time, value]; the value holds until the next point. */
export type StepPoint = [number, number];

/** Series longer than this are downsampled before they go into a report. */
export const MAX_SERIES_POINTS = 5_000;

/** first, lowest, after the lowest, highest, after the highest, last */
const POINTS_PER_BUCKET = 6;

/**
 * At most `maxPoints` points of a step series sorted by time. The time span is cut into
 * maxPoints/6 equal buckets and each bucket keeps its first and last point, its lowest and highest
 * point and the point after each of those (where the dip or peak ends), so: every kept point is an
 * original one (first and last included), the series is exact outside the buckets' interiors (in
 * particular at every bucket end), and a peak or dip keeps its height and duration. Only the other
 * steps inside one bucket are merged.
 */
export function downsampleSteps(points: readonly StepPoint[], maxPoints: number = MAX_SERIES_POINTS): StepPoint[] {
  if (!Number.isInteger(maxPoints) || maxPoints < POINTS_PER_BUCKET) {
    throw new RangeError(`downsampleSteps: maxPoints must be an integer of at least ${POINTS_PER_BUCKET} (got ${maxPoints})`);
  }
  if (points.length <= maxPoints) return points.slice();

  const bucketCount = Math.floor(maxPoints / POINTS_PER_BUCKET);
  const t0 = points[0]![0];
  const span = points[points.length - 1]![0] - t0;
  const bucketOf = (t: number): number => (span > 0 ? Math.min(bucketCount - 1, Math.floor(((t - t0) / span) * bucketCount)) : 0);

  const kept: number[] = [];
  let start = 0;
  while (start < points.length) {
    const bucket = bucketOf(points[start]![0]);
    let end = start;
    let low = start;
    let high = start;
    while (end + 1 < points.length && bucketOf(points[end + 1]![0]) === bucket) {
      end += 1;
      if (points[end]![1] < points[low]![1]) low = end;
      if (points[end]![1] > points[high]![1]) high = end;
    }
    const indexes = new Set([start, low, Math.min(low + 1, end), high, Math.min(high + 1, end), end]);
    for (const index of [...indexes].sort((a, b) => a - b)) kept.push(index);
    start = end + 1;
  }
  return kept.map((index) => [points[index]![0], points[index]![1]]);
}

/** The value of a step series at time t: the value of the last point at or before t (undefined before the first). */
export function stepValueAt(points: readonly StepPoint[], t: number): number | undefined {
  let lo = 0;
  let hi = points.length - 1;
  let found: number | undefined;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (points[mid]![0] <= t) {
      found = points[mid]![1];
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  return found;
}
