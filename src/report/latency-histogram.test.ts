import { describe, expect, it } from 'vitest';
import { niceStep, percentile, summarizeLatency } from './latency-histogram.js';

describe('summarizeLatency', () => {
  it('computes nearest-rank percentiles', () => {
    const samples = Array.from({ length: 100 }, (_, i) => 100 - i); // 100 … 1, unsorted
    const s = summarizeLatency(samples);
    expect(s.count).toBe(100);
    expect([s.minMs, s.p50Ms, s.p90Ms, s.p99Ms, s.maxMs]).toEqual([1, 50, 90, 99, 100]);
    expect(s.meanMs).toBe(50.5);
    expect(percentile([5], 0.5)).toBe(5);
    // nearest rank: the smallest value with at least p of the samples at or below it
    expect(percentile([10, 20, 30], 0.5)).toBe(20);
    expect(percentile([10, 20, 30], 0.34)).toBe(20);
    expect(percentile([10, 20, 30], 0.33)).toBe(10);
    expect(percentile([1, 2, 3, 4, 5, 6, 7], 0.9)).toBe(7);
    expect(summarizeLatency([30, 10, 20])).toMatchObject({ p50Ms: 20, p90Ms: 30, p99Ms: 30 });
    expect(() => percentile([], 0.5)).toThrow(RangeError);
  });

  it('bins every sample once in equal 1-2-5 bins covering the range', () => {
    const samples = Array.from({ length: 5_000 }, (_, i) => 300 + ((i * 7_919) % 1_700));
    const s = summarizeLatency(samples);
    expect(s.bins.reduce((n, b) => n + b.count, 0)).toBe(5_000);
    expect(s.binWidthMs).toBe(50); // (1999 - 300) / 40 ≈ 42 → 50
    expect(s.bins[0]!.fromMs).toBe(300);
    expect(s.bins[s.bins.length - 1]!.toMs).toBeGreaterThan(1_999);
    for (const b of s.bins) expect(b.toMs - b.fromMs).toBe(50);
    expect(s.bins.some((b) => b.overflow)).toBe(false);
  });

  it('puts a far tail into one overflow bin instead of stretching the axis', () => {
    const samples = [...Array.from({ length: 10_000 }, (_, i) => 500 + (i % 500)), ...Array.from({ length: 20 }, (_, i) => 30_000 + i)];
    const s = summarizeLatency(samples);
    const tail = s.bins[s.bins.length - 1]!;
    expect(tail.overflow).toBe(true);
    expect(tail.count).toBe(20);
    expect(tail.toMs).toBe(30_019);
    expect(s.bins.length).toBeLessThan(60);
    expect(s.bins.reduce((n, b) => n + b.count, 0)).toBe(10_020);
  });

  it('handles no samples, one value repeated, and ignores non-finite or negative samples', () => {
    expect(summarizeLatency([])).toMatchObject({ count: 0, p50Ms: null, p99Ms: null, bins: [] });
    const same = summarizeLatency([800, 800, 800, Number.NaN, -1, Number.POSITIVE_INFINITY]);
    expect(same.count).toBe(3);
    expect(same.bins).toEqual([{ fromMs: 800, toMs: 900, count: 3 }]);
  });

  it('chooses 1-2-5 widths', () => {
    expect([0.03, 0.7, 1, 1.2, 3, 7, 42, 180, 2_600].map(niceStep)).toEqual([0.05, 1, 1, 2, 5, 10, 50, 200, 5_000]);
    expect(niceStep(0)).toBe(1);
  });
});
