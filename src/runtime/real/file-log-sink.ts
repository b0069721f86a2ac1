import { chmodSync, closeSync, fchmodSync, fstatSync, mkdirSync, openSync, statSync, writeSync } from 'node:fs';
import path from 'node:path';
import type { LogLevel, LogSink } from '../env.js';
import { formatLogLine } from '../log-line.js';

const LEVEL_RANK: Readonly<Record<LogLevel, number>> = { trace: 0, debug: 1, info: 2, warning: 3, error: 4 };

/** With flush=false, buffered lines are written once this many bytes wait, and at least every FLUSH_INTERVAL_MS. */
const BUFFER_BYTES = 64 * 1024;
const FLUSH_INTERVAL_MS = 1_000;
/** Size rotation within one minute adds `.1`, `.2`… to the name; past this many the last one is appended to. */
const MAX_SAME_MINUTE_FILES = 1_000;

export interface FileLogSinkOptions {
  /** `[log] log_path`, resolved by the caller; created if missing. */
  readonly dir: string;
  /** `[log] enable`; false writes nothing (and creates no directory). Default true. */
  readonly enable?: boolean;
  /** `[log] level`: lines below it are dropped (trace < debug < info < warning < error). Default info. */
  readonly minLevel?: LogLevel;
  /** `[log] max_log_file_size` in bytes (config.ini gives MB); a line that would pass it opens a new file. Default 200 MiB. */
  readonly maxFileBytes?: number;
  /** `[log] flush`: true (default) hands each line to the OS before write() returns; false buffers up to 64 KiB or 1 s. */
  readonly flush?: boolean;
  /** The first failure to create, open or write the log (then again only after a write succeeded). Never throws into write(). */
  readonly onError?: (error: Error) => void;
}

const pad = (n: number) => String(n).padStart(2, '0');

/** `YYYYMMDDHH` of `time`, UTC like formatLogLine's timestamp column. */
function hourKey(time: number): string {
  const d = new Date(time);
  return `${d.getUTCFullYear()}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}${pad(d.getUTCHours())}`;
}

/**
 * FISCO's log file name for a file opened at `time`: `log_YYYYMMDDHH.MM.log` (e.g.
 * log_2019062616.37.log). UTC, the same basis as the timestamps formatLogLine writes in the lines,
 * so a file's name and its first line agree. `sequence` ≥ 1 names the further files of a minute
 * in which the size limit was reached: `log_2019062616.37.1.log`.
 */
export function logFileName(time: number, sequence = 0): string {
  const d = new Date(time);
  return `log_${hourKey(time)}.${pad(d.getUTCMinutes())}${sequence > 0 ? `.${sequence}` : ''}.log`;
}

/**
 * Log files as a FISCO 2.x node writes them: `<dir>/log_YYYYMMDDHH.MM.log`, a new file when the
 * hour of a line's time differs from the current file's and when the file would pass
 * `maxFileBytes`; lines `level|YYYY-mm-dd HH:MM:SS.ffffff|message`. Synchronous writes (fs.writeSync
 * on a file opened for append), so with flush=true a line is with the OS when write() returns and
 * nothing is lost when the process is killed. Errors go to `onError`, never to the caller.
 */
export class FileLogSink implements LogSink {
  private readonly enable: boolean;
  private readonly minRank: number;
  private readonly maxFileBytes: number;
  private readonly flushEach: boolean;

  private fd: number | undefined;
  private file: string | undefined;
  private hour: string | undefined;
  private size = 0;
  /** The log folder was set to 0700 (once per process, at the first file it opens). */
  private dirModeSet = false;
  /** The hour in which opening or writing failed: lines are dropped until the hour changes, then opening is tried again. */
  private failedHour: string | undefined;
  private errorReported = false;
  private pending: string[] = [];
  private pendingBytes = 0;
  private flushTimer: ReturnType<typeof setTimeout> | undefined;
  private closed = false;

  constructor(private readonly options: FileLogSinkOptions) {
    this.enable = options.enable ?? true;
    const minLevel = options.minLevel ?? 'info';
    if (!(minLevel in LEVEL_RANK)) throw new RangeError(`FileLogSink: unknown level ${JSON.stringify(minLevel)} (trace, debug, info, warning, error)`);
    this.minRank = LEVEL_RANK[minLevel];
    this.maxFileBytes = options.maxFileBytes ?? 200 * 1024 * 1024;
    if (!(this.maxFileBytes > 0)) throw new RangeError(`FileLogSink: maxFileBytes must be positive (got ${String(options.maxFileBytes)})`);
    this.flushEach = options.flush ?? true;
  }

  /** The path of the file being written, once a line was written. */
  get currentFile(): string | undefined {
    return this.file;
  }

  write(level: LogLevel, time: number, message: string): void {
    if (!this.enable || this.closed) return;
    const rank = LEVEL_RANK[level];
    if (rank === undefined || rank < this.minRank) return;
    const line = `${formatLogLine(level, time, message)}\n`;
    const bytes = Buffer.byteLength(line);
    const hour = hourKey(time);
    if (this.failedHour !== undefined) {
      if (hour === this.failedHour) return;
      this.failedHour = undefined;
    }
    if (this.fd === undefined || hour !== this.hour) this.open(time, hour);
    else if (this.size > 0 && this.size + bytes > this.maxFileBytes) this.open(time, hour);
    if (this.fd === undefined) return;
    this.size += bytes;
    if (this.flushEach) {
      this.writeOut(line, hour);
      return;
    }
    this.pending.push(line);
    this.pendingBytes += bytes;
    if (this.pendingBytes >= BUFFER_BYTES) this.flush();
    else if (this.flushTimer === undefined) {
      this.flushTimer = setTimeout(() => {
        this.flushTimer = undefined;
        this.flush();
      }, FLUSH_INTERVAL_MS);
      this.flushTimer.unref();
    }
  }

  /** Writes buffered lines (flush=false) to the OS. */
  flush(): void {
    if (this.flushTimer !== undefined) clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    if (this.pending.length === 0) return;
    const text = this.pending.join('');
    this.pending = [];
    this.pendingBytes = 0;
    if (this.fd !== undefined && this.hour !== undefined) this.writeOut(text, this.hour);
  }

  /** Flushes and closes the file; later writes are ignored. Idempotent. */
  close(): void {
    if (this.closed) return;
    this.flush();
    this.closed = true;
    this.closeFile();
  }

  private open(time: number, hour: string): void {
    this.flush();
    this.closeFile();
    try {
      // a node's log is its user's alone (0700 folder, 0600 files), whatever the umask
      mkdirSync(this.options.dir, { recursive: true, mode: 0o700 });
      if (!this.dirModeSet) {
        chmodSync(this.options.dir, 0o700);
        this.dirModeSet = true;
      }
      let sequence = 0;
      let file = path.join(this.options.dir, logFileName(time));
      // size rotation within the minute the full file was opened: the next free name
      while (sequence < MAX_SAME_MINUTE_FILES && (file === this.file || existingSize(file) >= this.maxFileBytes)) {
        sequence++;
        file = path.join(this.options.dir, logFileName(time, sequence));
      }
      const fd = openSync(file, 'a', 0o600);
      fchmodSync(fd, 0o600);
      this.fd = fd;
      this.file = file;
      this.hour = hour;
      this.size = fstatSync(fd).size;
    } catch (error) {
      this.fail(error, hour);
    }
  }

  private writeOut(text: string, hour: string): void {
    try {
      writeSync(this.fd!, text);
      this.errorReported = false;
    } catch (error) {
      this.closeFile();
      this.fail(error, hour);
    }
  }

  private fail(error: unknown, hour: string): void {
    this.failedHour = hour;
    this.pending = [];
    this.pendingBytes = 0;
    if (this.errorReported) return;
    this.errorReported = true;
    try {
      this.options.onError?.(error instanceof Error ? error : new Error(String(error)));
    } catch {
      // the error callback must not break logging either
    }
  }

  private closeFile(): void {
    if (this.fd === undefined) return;
    const fd = this.fd;
    this.fd = undefined;
    try {
      closeSync(fd);
    } catch {
      // nothing useful to do: the lines were already handed to the OS
    }
  }
}

function existingSize(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return -1;
  }
}
