import { readFileSync } from 'node:fs';

/** CPU seconds so far: every thread of the process, and (on Linux) the main thread alone. */
export interface CpuSample {
  readonly process: number;
  readonly main?: number;
  /**
   * Seconds the main thread was ready to run but waited for a core, other threads running on
   * every core (Linux with schedstats: /proc's schedstat).
   */
  readonly mainQueued?: number;
}

/** clock ticks per second of /proc's stat times (USER_HZ, 100 on every Linux Node.js runs on) */
const USER_HZ = 100;

/** The main thread's time on a core and waiting for one, in nanoseconds, from schedstat; undefined where the kernel keeps none. */
function mainThreadSchedule(): { running: number; queued: number } | undefined {
  try {
    const [running, queued] = readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ').map(Number);
    return Number.isFinite(running) && Number.isFinite(queued) ? { running: running!, queued: queued! } : undefined;
  } catch {
    return undefined;
  }
}

/** The main thread's CPU seconds from stat: whole ticks, where schedstat is missing. */
function mainThreadTicks(): number | undefined {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
    // the fields after the command name, which may itself hold spaces and parentheses
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? ticks / USER_HZ : undefined;
  } catch {
    return undefined;
  }
}

export function cpuNow(): CpuSample {
  const { user, system } = process.cpuUsage();
  const schedule = mainThreadSchedule();
  const main = schedule ? { main: schedule.running / 1e9, mainQueued: schedule.queued / 1e9 } : optional('main', mainThreadTicks());
  return { process: (user + system) / 1e6, ...main };
}

/** CPU used between two samples; `main` and `mainQueued` only where both have them. */
export function cpuSince(before: CpuSample, after: CpuSample = cpuNow()): CpuSample {
  const since = (key: 'main' | 'mainQueued') => optional(key, before[key] !== undefined && after[key] !== undefined ? after[key] - before[key] : undefined);
  return { process: after.process - before.process, ...since('main'), ...since('mainQueued') };
}

function optional<K extends string>(key: K, value: number | undefined): { [k in K]?: number } {
  return (value === undefined ? {} : { [key]: value }) as { [k in K]?: number };
}

/**
 * A timed run's wall time on the main thread, by state: on a core, ready but waiting for one, and
 * neither (blocked: waiting on other threads or for work); undefined without schedstat's figures.
 */
export function wallByState(cpu: CpuSample, seconds: number): { running: number; queued: number; waiting: number } | undefined {
  if (cpu.main === undefined || cpu.mainQueued === undefined) return undefined;
  return { running: cpu.main, queued: cpu.mainQueued, waiting: Math.max(0, seconds - cpu.main - cpu.mainQueued) };
}
