import { performance } from 'node:perf_hooks';

export interface Rate {
  readonly ops: number;
  readonly seconds: number;
  readonly perSecond: number;
}

/**
 * Run `op(i)` repeatedly for at least `minSeconds` (after a short warm-up) and report the rate.
 * `op` is called with a running index so it can cycle through prepared inputs.
 */
export function measureRate(op: (i: number) => void, minSeconds = 1, warmup = 50): Rate {
  for (let i = 0; i < warmup; i++) op(i);
  let ops = 0;
  const start = performance.now();
  let elapsed = 0;
  while (elapsed < minSeconds * 1000) {
    for (let j = 0; j < 100; j++) op(ops++);
    elapsed = performance.now() - start;
  }
  return { ops, seconds: elapsed / 1000, perSecond: ops / (elapsed / 1000) };
}

export async function measureRateAsync(op: (i: number) => Promise<void>, minSeconds = 1, warmup = 20): Promise<Rate> {
  for (let i = 0; i < warmup; i++) await op(i);
  let ops = 0;
  const start = performance.now();
  let elapsed = 0;
  while (elapsed < minSeconds * 1000) {
    for (let j = 0; j < 20; j++) await op(ops++);
    elapsed = performance.now() - start;
  }
  return { ops, seconds: elapsed / 1000, perSecond: ops / (elapsed / 1000) };
}

/**
 * A share as a whole percentage, with one decimal (rounded down) where the whole one would read
 * as the target `target` itself: 0.896 against 0.9 is "89.6%", not a "90%" below 90%.
 */
export function percentNear(share: number, target: number): string {
  const whole = Math.round(share * 100);
  return whole === Math.round(target * 100) ? `${(Math.floor(share * 1000) / 10).toFixed(1)}%` : `${whole}%`;
}

export function formatRate(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

/** Plain-text table with right-aligned numeric columns. */
export function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(headers), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

export function verdict(value: number, target: number): string {
  return value >= target ? `meets ≥ ${formatRate(target)}` : `BELOW target ${formatRate(target)}`;
}

/**
 * A distribution-free confidence interval for the median of `values`: the k-th smallest and
 * the k-th largest value, for the largest k whose coverage (the chance that the true median of
 * independent draws lies between them, 1 − 2·P(Binomial(n, ½) < k)) is at least `confidence`.
 * Undefined when even the smallest and largest value do not reach it (fewer than 5 values at 90%).
 */
export function medianInterval(values: readonly number[], confidence = 0.9): { low: number; high: number; coverage: number; k: number } | undefined {
  const n = values.length;
  const sorted = [...values].sort((a, b) => a - b);
  // P(Binomial(n, ½) ≤ j), term by term
  let term = 0.5 ** n;
  let below = 0;
  let best: { k: number; coverage: number } | undefined;
  for (let k = 1; 2 * k <= n + 1; k++) {
    below += term; // P(X ≤ k − 1)
    term = (term * (n - (k - 1))) / k;
    const coverage = 1 - 2 * below;
    if (coverage < confidence) break;
    best = { k, coverage };
  }
  if (!best) return undefined;
  return { low: sorted[best.k - 1]!, high: sorted[n - best.k]!, coverage: best.coverage, k: best.k };
}
