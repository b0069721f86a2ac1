import { readFileSync } from 'node:fs';

/** CPU seconds so far: every thread of the process, and (on Linux) the main thread alone. */
export interface CpuSample {
  readonly process: number;
  readonly main?: number;
}

/** clock ticks per second of /proc's stat times (USER_HZ, 100 on every Linux Node.js runs on) */
const USER_HZ = 100;

function mainThreadSeconds(): number | undefined {
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
  const main = mainThreadSeconds();
  return { process: (user + system) / 1e6, ...(main === undefined ? {} : { main }) };
}

/** CPU used between two samples; `main` only where both have it. */
export function cpuSince(before: CpuSample, after: CpuSample = cpuNow()): CpuSample {
  return {
    process: after.process - before.process,
    ...(before.main !== undefined && after.main !== undefined ? { main: after.main - before.main } : {}),
  };
}
