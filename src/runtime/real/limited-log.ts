// Log lines limited by key: the same refusal or failure from the same place is logged at most
// once in a window, with how many were held back, so a flood of strangers cannot flood the log.
import type { LogLevel } from '../env.js';

/** The window in which a key is logged at most once. */
const LOG_WINDOW_MS = 60_000;
/** Keys remembered at once (expired ones are forgotten first, all of them past the bound). */
const KEYS_MAX = 1_000;

export class LimitedLog {
  private readonly entries = new Map<string, { until: number; suppressed: number }>();

  constructor(private readonly log: (level: LogLevel, message: string) => void) {}

  /** Logs `message` unless the same key was logged within the window; says how many were held back. */
  write(key: string, level: LogLevel, message: string): void {
    const now = Date.now();
    const entry = this.entries.get(key);
    if (entry !== undefined && now < entry.until) {
      entry.suppressed++;
      return;
    }
    if (this.entries.size >= KEYS_MAX) {
      for (const [k, e] of this.entries) if (now >= e.until) this.entries.delete(k);
      if (this.entries.size >= KEYS_MAX) this.entries.clear();
    }
    const suppressed = entry?.suppressed ?? 0;
    this.entries.set(key, { until: now + LOG_WINDOW_MS, suppressed: 0 });
    this.log(level, suppressed > 0 ? `${message},suppressed=${suppressed}` : message);
  }
}
