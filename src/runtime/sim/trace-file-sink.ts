import { closeSync, openSync, writeSync } from 'node:fs';
import { SimulationError } from './simulation-error.js';
import type { TraceSink } from './trace.js';

const FLUSH_AT = 1 << 20;

/**
 * Writes the trace as a JSON Lines file. Lines are buffered and written synchronously in ~1 MiB
 * chunks, so the file is complete after `flush()` (the simulation flushes at the end of each run)
 * and `close()`.
 */
export class TraceFileSink implements TraceSink {
  private fd: number | undefined;
  private buffer: string[] = [];
  private size = 0;

  constructor(readonly path: string) {
    try {
      this.fd = openSync(path, 'w');
    } catch (e) {
      throw new SimulationError(`cannot open trace file ${path}: ${(e as Error).message}`, { cause: e });
    }
  }

  write(line: string): void {
    if (this.fd === undefined) throw new SimulationError(`trace file ${this.path} is closed`);
    this.buffer.push(line);
    this.size += line.length + 1;
    if (this.size >= FLUSH_AT) this.flush();
  }

  flush(): void {
    if (this.fd === undefined || this.buffer.length === 0) return;
    writeSync(this.fd, `${this.buffer.join('\n')}\n`);
    this.buffer = [];
    this.size = 0;
  }

  close(): void {
    if (this.fd === undefined) return;
    this.flush();
    closeSync(this.fd);
    this.fd = undefined;
  }
}
