/** Human-readable numbers for the report's text (the charts format their own axes). */

export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) return '—';
  if (ms < 1_000) return `${trim(ms, ms < 10 ? 2 : ms < 100 ? 1 : 0)} ms`;
  const s = ms / 1_000;
  if (s < 60) return `${trim(s, s < 10 ? 2 : 1)} s`;
  const totalSeconds = Math.round(s);
  const h = Math.floor(totalSeconds / 3_600);
  const m = Math.floor((totalSeconds % 3_600) / 60);
  const rest = totalSeconds % 60;
  const parts = h > 0 ? [`${h} h`] : [];
  if (m > 0 || h === 0) parts.push(`${m} min`);
  if (rest > 0) parts.push(`${rest} s`);
  return parts.join(' ');
}

export function formatCount(n: number): string {
  return Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '—';
}

/** How much faster than real time the simulation ran, e.g. "38×"; "—" when the wall time is unknown. */
export function formatSpeed(virtualMs: number, wallMs: number): string {
  if (!(wallMs > 0) || !Number.isFinite(virtualMs)) return '—';
  const ratio = virtualMs / wallMs;
  return `${trim(ratio, ratio < 10 ? 2 : ratio < 100 ? 1 : 0)}×`;
}

export function formatLatency(ms: number | null): string {
  return ms === null ? '—' : formatDuration(ms);
}

function trim(x: number, digits: number): string {
  return String(Number(x.toFixed(digits)));
}
