// The recorder's JSON-RPC link to the node: batches while the node takes them (single requests
// after the first refusal), retries with back-off, at most N requests in flight, and a stop that
// lets requests in flight answer for a grace period.
import { RpcTransportError, type JsonRpcClient, type RawHttpResponse } from '../rpc/index.js';
import type { JsonObject } from './recording.js';
import { RecordError } from './record-errors.js';

/** A request given up because the recording is stopping (internal: record() turns it into its outcome). */
export class Stopping extends Error {}

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length} characters)`;
}

export interface Request {
  readonly method: string;
  readonly params: readonly unknown[];
}

export type Reply = { readonly result: unknown } | { readonly error: { code: unknown; message: unknown } };

export function describe(request: Request): string {
  return `${request.method} ${clip(JSON.stringify(request.params), 200)}`;
}

class Semaphore {
  private free: number;
  private readonly waiting: Array<() => void> = [];
  constructor(slots: number) {
    this.free = slots;
  }
  async acquire(): Promise<void> {
    if (this.free > 0) {
      this.free--;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }
  release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.free++;
  }
}

/** Waits for `wait` unless the signal aborts first: whether it did. */
export async function untilStopped(wait: Promise<void>, signal: AbortSignal | undefined): Promise<boolean> {
  if (!signal) {
    await wait;
    return false;
  }
  if (signal.aborted) return true;
  let onAbort!: () => void;
  const aborted = new Promise<true>((resolve) => signal.addEventListener('abort', (onAbort = () => resolve(true)), { once: true }));
  try {
    return await Promise.race([wait.then(() => false), aborted]);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

/** JSON-RPC over the endpoint: retries, batches with fallback, at most N requests in flight. */
export class Link {
  batches = true;
  stopped = false;
  private nextId = 1;
  private readonly slots: Semaphore;

  constructor(
    private readonly client: JsonRpcClient,
    private readonly options: {
      concurrency: number;
      maxBatch: number;
      retries: number;
      retryDelayMs: number;
      sleep: (ms: number) => Promise<void>;
      notice: (text: string) => void;
      /** The caller's stop: no retry after it. */
      signal: AbortSignal | undefined;
    },
  ) {
    this.slots = new Semaphore(options.concurrency);
  }

  private nonsense(what: string, problem: string, reply: string): RecordError {
    return new RecordError(`${this.client.url} answered nonsense to ${what}: ${problem}; reply: ${clip(reply, 300)}`);
  }

  /** POST with retries of transient failures; the parsed JSON, or undefined with `rawOnError` when the reply is not JSON. */
  private async post(body: string, what: string): Promise<{ json: unknown; raw: RawHttpResponse } | { json?: undefined; raw: RawHttpResponse }> {
    const { retries, retryDelayMs, sleep } = this.options;
    for (let attempt = 0; ; attempt++) {
      if (this.stopped) throw new RecordError('stopped');
      let failure: string;
      await this.slots.acquire();
      let raw: RawHttpResponse | undefined;
      try {
        raw = await this.client.post(body);
      } catch (e) {
        if (!(e instanceof RpcTransportError)) throw e;
        if (this.options.signal?.aborted) throw new Stopping(e.message);
        if (e.lasting !== undefined) throw new RecordError(`${what}: ${e.message}: ${e.lasting}; asking again would not help`);
        failure = e.message;
      } finally {
        this.slots.release();
      }
      if (raw) {
        if (raw.status < 500) {
          try {
            return { json: JSON.parse(raw.text) as unknown, raw };
          } catch {
            return { raw };
          }
        }
        failure = `${this.client.url}: HTTP ${raw.status} ${clip(raw.text, 120)}`;
      }
      if (attempt >= retries) throw new RecordError(`${what}: no usable answer after ${attempt + 1} attempts (last: ${failure!})`);
      if (this.options.signal?.aborted) throw new Stopping(failure!);
      const delay = retryDelayMs * 2 ** attempt;
      this.options.notice(`${what}: ${failure!}; retry ${attempt + 1} of ${retries} in ${delay} ms`);
      if (await untilStopped(sleep(delay), this.options.signal)) throw new Stopping(failure!);
    }
  }

  private envelope(reply: unknown, id: number, request: Request, text: string): Reply {
    const what = describe(request);
    if (!isObject(reply)) throw this.nonsense(what, 'the reply is not a JSON-RPC object', text);
    if (reply.id !== id) throw this.nonsense(what, `the reply's id is ${JSON.stringify(reply.id)}, the request's ${id}`, text);
    if (isObject(reply.error)) return { error: { code: reply.error.code, message: reply.error.message } };
    if (!('result' in reply)) throw this.nonsense(what, 'the reply has neither result nor error', text);
    return { result: reply.result };
  }

  async single(request: Request): Promise<Reply> {
    const id = this.nextId++;
    const body = JSON.stringify({ jsonrpc: '2.0', method: request.method, params: request.params, id });
    const { json, raw } = await this.post(body, describe(request));
    if (json === undefined) throw this.nonsense(describe(request), `HTTP ${raw.status} with a body that is not JSON`, raw.text);
    return this.envelope(json, id, request, raw.text);
  }

  /** Every request's reply, in order: in batches while the node takes them. */
  async many(requests: readonly Request[]): Promise<Reply[]> {
    if (requests.length === 0) return [];
    if (!this.batches || requests.length === 1) return Promise.all(requests.map((r) => this.single(r)));
    const parts: Promise<Reply[]>[] = [];
    for (let at = 0; at < requests.length; at += this.options.maxBatch) parts.push(this.batch(requests.slice(at, at + this.options.maxBatch)));
    return (await Promise.all(parts)).flat();
  }

  private async batch(requests: readonly Request[]): Promise<Reply[]> {
    const ids = requests.map(() => this.nextId++);
    const body = JSON.stringify(requests.map((r, i) => ({ jsonrpc: '2.0', method: r.method, params: r.params, id: ids[i] })));
    const what = `a batch of ${requests.length} (${describe(requests[0]!)}${requests.length > 1 ? ' …' : ''})`;
    const { json, raw } = await this.post(body, what);
    if (!Array.isArray(json)) {
      // refused as a whole (an error object, an HTTP error, not JSON): single requests from now on
      if (this.batches) {
        this.batches = false;
        this.options.notice(`the node does not take JSON-RPC batches (HTTP ${raw.status}: ${clip(raw.text, 120)}); sending single requests`);
      }
      return Promise.all(requests.map((r) => this.single(r)));
    }
    const byId = new Map<unknown, unknown>();
    for (const item of json) if (isObject(item)) byId.set(item.id, item);
    return Promise.all(
      requests.map(async (request, i) => {
        const item = byId.get(ids[i]);
        if (item === undefined || (isObject(item) && isObject(item.error))) return this.single(request); // an item error: asked again alone
        return this.envelope(item, ids[i]!, request, raw.text);
      }),
    );
  }

  /** The result; a JSON-RPC error ends the recording, naming the request. */
  result(reply: Reply, request: Request): unknown {
    if ('error' in reply) throw new RecordError(`${this.client.url} answered ${describe(request)} with error ${String(reply.error.code)}: ${String(reply.error.message)}`);
    return reply.result;
  }

  nonsenseResult(request: Request, problem: string, result: unknown): RecordError {
    return this.nonsense(describe(request), problem, JSON.stringify(result) ?? String(result));
  }
}
