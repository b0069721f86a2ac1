import { canonicalJson } from '../../codec/index.js';
import { finish, fold, foldString, foldUint53, hex32 } from './fold-hash.js';

/** One trace entry, as written to JSON Lines and kept in memory. */
export interface TraceRecord {
  /** Position in the trace, from 0. */
  readonly i: number;
  /** Virtual time in ms since the simulation started. */
  readonly t: number;
  /** The node the entry is about (the receiver of a delivery, the sender of a drop), or null. */
  readonly node: string | null;
  readonly kind: string;
  readonly fields: Readonly<Record<string, unknown>>;
}

/** Receives the trace as JSON Lines: one call per line, without the newline. */
export interface TraceSink {
  write(line: string): void;
  flush?(): void;
}

export interface TraceOptions {
  /** Where JSON lines go: first a `start` header line (not part of the digest), then one line per entry. */
  readonly sink?: TraceSink;
  /** Keep every record in memory (`trace.records`): for tests and short runs. */
  readonly keep?: boolean;
}

/** Why the network dropped a message. */
export type DropCause = 'loss' | 'partition' | 'queue-full' | 'node-down' | 'no-handler' | 'unknown-peer' | 'kind';

/** Entries recorded since the last take, with the rolling digest lanes after each one. */
export interface TraceWindow {
  readonly start: number;
  readonly records: readonly TraceRecord[];
  /** Lane values after entry k: lanes[2k], lanes[2k+1]. */
  readonly lanes: readonly number[];
}

const DELIVER = 1;
const DROP = 2;
const TIMER = 3;
const GENERIC = 4;
const LANE2_SALT = 0x5bd1e995;
const DROP_CODES: Readonly<Record<DropCause, number>> = {
  loss: 1,
  partition: 2,
  'queue-full': 3,
  'node-down': 4,
  'no-handler': 5,
  'unknown-peer': 6,
  kind: 7,
};

/**
 * The simulation trace: every entry is folded into a rolling 64-bit digest (two murmur-style
 * 32-bit lanes) from its numbers and strings, without building objects. Records and JSON lines
 * are built only when someone wants them (a sink, `keep`, or the determinism check's window), so
 * a digest-only run stays fast and every mode yields the same digest.
 */
export class Trace {
  private lane1 = 0x12345678;
  private lane2 = 0x9e3779b9 | 0;
  private n = 0;
  private rendering: boolean;
  private readonly sink: TraceSink | undefined;
  private readonly kept: TraceRecord[] | undefined;
  private windowOn = true;
  private windowHeld = false;
  private windowStart = 0;
  private windowRecords: TraceRecord[] = [];
  private windowLanes: number[] = [];

  /** `names` maps node indexes to names; the simulation appends to it as nodes are added. */
  constructor(
    private readonly names: readonly string[],
    options: TraceOptions = {},
  ) {
    this.sink = options.sink;
    this.kept = options.keep ? [] : undefined;
    this.rendering = true;
  }

  /** Number of entries so far. */
  get count(): number {
    return this.n;
  }

  /** The rolling digest of every entry so far: 16 hex digits. */
  get digest(): string {
    return hex32(finish(fold(this.lane1, this.n))) + hex32(finish(fold(this.lane2, this.n ^ LANE2_SALT)));
  }

  /** Every record so far, when the trace was created with `keep: true`. */
  get records(): readonly TraceRecord[] {
    if (!this.kept) throw new Error('trace records are kept only with the `keep: true` trace option');
    return this.kept;
  }

  /** Writes the informational header line (seed, options) to the sink; it is not part of the digest. */
  header(fields: Readonly<Record<string, unknown>>): void {
    this.sink?.write(`{"kind":"start","fields":${canonicalJson(fields)}}`);
  }

  deliver(timeUs: number, node: number, from: number, bytes: number, payloadHash: number, sentUs: number, duplicate: boolean): void {
    this.word(DELIVER);
    this.time(timeUs);
    this.word(node);
    this.word(from);
    this.word(bytes);
    this.word(payloadHash);
    this.time(sentUs);
    this.word(duplicate ? 1 : 0);
    if (this.rendering) {
      const fromName = this.names[from]!;
      const hash = hex32(payloadHash);
      const sentAt = sentUs / 1000;
      // canonical JSON (keys sorted) written directly: this is the hot path of a full trace
      const json = `{"bytes":${bytes},${duplicate ? '"duplicate":true,' : ''}"from":${JSON.stringify(fromName)},"hash":"${hash}","sentAt":${sentAt}}`;
      this.render(timeUs, node, 'deliver', json, () => (duplicate ? { bytes, duplicate, from: fromName, hash, sentAt } : { bytes, from: fromName, hash, sentAt }));
    }
    this.n++;
  }

  /** `to` is a node index, or -1 with `toId` for an address no node has. */
  drop(timeUs: number, node: number, to: number, cause: DropCause, bytes: number, sentUs: number, toId?: string): void {
    this.word(DROP);
    this.time(timeUs);
    this.word(node);
    this.word(to);
    this.word(DROP_CODES[cause]);
    this.word(bytes);
    this.time(sentUs);
    if (toId !== undefined) this.text(toId);
    if (this.rendering) {
      const toName = to >= 0 ? this.names[to]! : toId!;
      const sentAt = sentUs / 1000;
      const json = `{"bytes":${bytes},"cause":"${cause}","sentAt":${sentAt},"to":${JSON.stringify(toName)}}`;
      this.render(timeUs, node, 'drop', json, () => ({ bytes, cause, sentAt, to: toName }));
    }
    this.n++;
  }

  timer(timeUs: number, node: number, timerId: number): void {
    this.word(TIMER);
    this.time(timeUs);
    this.word(node);
    this.word(timerId);
    if (this.rendering) this.render(timeUs, node, 'timer', `{"timer":${timerId}}`, () => ({ timer: timerId }));
    this.n++;
  }

  /** Any other entry; `fields` must be encodable as canonical JSON. `node` is an index or -1. */
  entry(timeUs: number, node: number, kind: string, fields: Readonly<Record<string, unknown>>): void {
    const json = canonicalJson(fields);
    this.word(GENERIC);
    this.time(timeUs);
    this.word(node);
    this.text(kind);
    this.text(json);
    if (this.rendering) this.render(timeUs, node, kind, json, () => JSON.parse(json) as Record<string, unknown>);
    this.n++;
  }

  flush(): void {
    this.sink?.flush?.();
  }

  /** Keep recording the window past setup (the determinism check compares runs entry by entry). */
  holdWindow(): void {
    this.windowHeld = true;
    this.windowOn = true;
    this.updateRendering();
  }

  /** The run starts: entries recorded during setup are released unless the window is held. */
  endSetup(): void {
    if (this.windowHeld || !this.windowOn) return;
    this.windowOn = false;
    this.windowRecords = [];
    this.windowLanes = [];
    this.updateRendering();
  }

  /** The entries since the previous take (or the start), and starts a new window. */
  takeWindow(): TraceWindow {
    const window = { start: this.windowStart, records: this.windowRecords, lanes: this.windowLanes };
    this.windowStart = this.n;
    this.windowRecords = [];
    this.windowLanes = [];
    return window;
  }

  private updateRendering(): void {
    this.rendering = this.sink !== undefined || this.kept !== undefined || this.windowOn;
  }

  private word(value: number): void {
    this.lane1 = fold(this.lane1, value);
    this.lane2 = fold(this.lane2, value ^ LANE2_SALT);
  }

  private time(us: number): void {
    this.lane1 = foldUint53(this.lane1, us);
    this.lane2 = foldUint53(this.lane2, us);
  }

  private text(value: string): void {
    this.lane1 = foldString(this.lane1, value);
    this.lane2 = foldString(this.lane2 ^ LANE2_SALT, value);
  }

  /** Writes the line and keeps the record, as asked; `fields` builds the record's fields object lazily. */
  private render(timeUs: number, node: number, kind: string, fieldsJson: string, fields: () => Record<string, unknown>): void {
    const t = timeUs / 1000;
    const nodeName = node >= 0 ? this.names[node]! : null;
    if (this.sink) {
      const nodeJson = nodeName === null ? 'null' : JSON.stringify(nodeName);
      this.sink.write(`{"i":${this.n},"t":${t},"node":${nodeJson},"kind":${JSON.stringify(kind)},"fields":${fieldsJson}}`);
    }
    if (this.kept === undefined && !this.windowOn) return;
    const record: TraceRecord = { i: this.n, t, node: nodeName, kind, fields: fields() };
    this.kept?.push(record);
    if (this.windowOn) {
      this.windowRecords.push(record);
      // the lanes after this entry, as the digest would see them with the entry counted
      this.windowLanes.push(this.lane1, this.lane2);
    }
  }
}

/**
 * A record as its JSON line (the same text a sink receives): top-level keys in a fixed order
 * (i, t, node, kind, fields) so lines read well; fields in canonical JSON.
 */
export function formatTraceRecord(record: TraceRecord): string {
  const nodeJson = record.node === null ? 'null' : JSON.stringify(record.node);
  return `{"i":${record.i},"t":${record.t},"node":${nodeJson},"kind":${JSON.stringify(record.kind)},"fields":${canonicalJson(record.fields)}}`;
}
