import { describe, expect, it } from 'vitest';
import { downsampleSteps, MAX_SERIES_POINTS, stepValueAt, type StepPoint } from './downsample.js';

/** A height series: one block every `everyMs`, starting at height 0 at t = 0. */
function heightSeries(count: number, everyMs: number): StepPoint[] {
  return Array.from({ length: count }, (_, i) => [i * everyMs, i] as StepPoint);
}

describe('downsampleSteps', () => {
  it('returns short series unchanged (as a copy)', () => {
    const points = heightSeries(10, 100);
    const out = downsampleSteps(points, 40);
    expect(out).toEqual(points);
    expect(out).not.toBe(points);
    expect(downsampleSteps([], 40)).toEqual([]);
  });

  it('keeps the first and last points and only original points, in order, within the budget', () => {
    const points = heightSeries(20_000, 30);
    const out = downsampleSteps(points);
    expect(out.length).toBeLessThanOrEqual(MAX_SERIES_POINTS);
    expect(out.length).toBeGreaterThan(2_000); // a rising series keeps 3 points per bucket
    expect(out[0]).toEqual(points[0]);
    expect(out[out.length - 1]).toEqual(points[points.length - 1]);
    const original = new Set(points.map(([t, h]) => `${t}:${h}`));
    for (const [t, h] of out) expect(original.has(`${t}:${h}`)).toBe(true);
    for (let i = 1; i < out.length; i++) expect(out[i]![0]).toBeGreaterThan(out[i - 1]![0]);
  });

  it('keeps the step shape: off by at most the steps inside one bucket, exact where a kept point is', () => {
    const points = heightSeries(20_000, 30);
    const maxPoints = 400;
    const out = downsampleSteps(points, maxPoints);
    const span = points[points.length - 1]![0];
    const bucketMs = span / Math.floor(maxPoints / 6);
    const stepsPerBucket = Math.ceil(bucketMs / 30);
    let worst = 0;
    let above = 0;
    for (let t = 0; t <= span; t += 7) {
      const exact = stepValueAt(points, t)!;
      const approx = stepValueAt(out, t)!;
      if (approx > exact) above += 1;
      worst = Math.max(worst, exact - approx);
    }
    expect(above).toBe(0);
    expect(worst).toBeGreaterThan(0);
    expect(worst).toBeLessThanOrEqual(stepsPerBucket);
    for (const [t, h] of out) expect(stepValueAt(points, t)).toBe(h);
  });

  it('is exact at every bucket end: the last point of each bucket is kept, whatever its value', () => {
    // a zigzag of pseudo-random values: a bucket's last point is rarely its lowest or highest
    let x = 12345;
    const points: StepPoint[] = Array.from({ length: 20_000 }, (_, i) => {
      x = (x * 1103515245 + 12345) % 2147483648;
      return [i * 7, x % 1000] as StepPoint;
    });
    const maxPoints = 600;
    const out = downsampleSteps(points, maxPoints);
    expect(out.length).toBeLessThanOrEqual(maxPoints);
    const buckets = maxPoints / 6;
    const span = points.at(-1)![0] - points[0]![0];
    const bucketOf = (t: number) => Math.min(buckets - 1, Math.floor((t / span) * buckets));
    const kept = new Set(out.map(([t]) => t));
    let ends = 0;
    points.forEach(([t, v], i) => {
      const next = points[i + 1];
      if (next !== undefined && bucketOf(next[0]) === bucketOf(t)) return;
      ends++;
      expect(kept.has(t), `the last point of bucket ${bucketOf(t)} (t=${t})`).toBe(true);
      expect(stepValueAt(out, t)).toBe(v);
    });
    expect(ends).toBe(buckets);
  });

  it('keeps a lone dip and a lone peak', () => {
    const points: StepPoint[] = Array.from({ length: 10_000 }, (_, i) => [i, 5] as StepPoint);
    points[3_333] = [3_333, 0];
    points[6_666] = [6_666, 99];
    const out = downsampleSteps(points, 100);
    expect(out.length).toBeLessThanOrEqual(100);
    expect(out).toContainEqual([3_333, 0]);
    expect(out).toContainEqual([6_666, 99]);
    // the dip ends where it ended in the original: the next original point is kept too
    expect(stepValueAt(out, 3_333.5)).toBe(0);
    expect(stepValueAt(out, 3_334)).toBe(5);
    expect(stepValueAt(out, 6_667)).toBe(5);
  });

  it('handles every point at the same time and rejects a budget below six', () => {
    const points: StepPoint[] = Array.from({ length: 50 }, (_, i) => [7, i] as StepPoint);
    const out = downsampleSteps(points, 8);
    expect(out[0]).toEqual([7, 0]);
    expect(out[out.length - 1]).toEqual([7, 49]);
    expect(out.length).toBeLessThanOrEqual(8);
    expect(() => downsampleSteps(points, 5)).toThrow(/maxPoints must be an integer of at least 6/);
  });
});

describe('stepValueAt', () => {
  it('holds each value until the next point', () => {
    const points: StepPoint[] = [[10, 1], [20, 2], [20, 3], [30, 4]];
    expect(stepValueAt(points, 5)).toBeUndefined();
    expect(stepValueAt(points, 10)).toBe(1);
    expect(stepValueAt(points, 19.9)).toBe(1);
    expect(stepValueAt(points, 20)).toBe(3);
    expect(stepValueAt(points, 1_000)).toBe(4);
  });
});
