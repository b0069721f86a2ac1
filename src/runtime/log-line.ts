import type { LogLevel } from './env.js';

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** FISCO's log line: `level|YYYY-mm-dd HH:MM:SS.ffffff|message` (UTC, microsecond column). */
export function formatLogLine(level: LogLevel, time: number, message: string): string {
  const d = new Date(time);
  const stamp =
    `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ` +
    `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}.${pad(d.getUTCMilliseconds(), 3)}000`;
  return `${level}|${stamp}|${message}`;
}
