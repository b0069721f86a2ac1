/** A fetch-compatible function: the global fetch, an in-process one, or one msw intercepts. */
export type FetchFunction = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

export interface RpcClientOptions {
  /** Default: the global fetch. */
  readonly fetch?: FetchFunction;
  /** Per-request timeout (default 10 s). */
  readonly timeoutMs?: number;
  /** Aborts every request in flight, and any made later, when it aborts (a caller that is stopping). */
  readonly signal?: AbortSignal;
}

export interface RpcErrorObject {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

/** One reply envelope as received. */
export interface RpcResponse {
  readonly jsonrpc?: unknown;
  readonly id?: unknown;
  readonly result?: unknown;
  readonly error?: RpcErrorObject;
}

export interface RawHttpResponse {
  readonly status: number;
  readonly contentType: string | null;
  readonly text: string;
}

/** Why fetch found no answer (undici's codes and words), where asking again would find none either: what it means. */
const LASTING_FAILURES = new Map([
  ['ENOTFOUND', 'the host name does not resolve'],
  ['ERR_INVALID_URL', 'not a URL'],
  ['bad port', "a port fetch never connects to (the Fetch standard's blocked ports)"],
  ['unknown scheme', 'fetch speaks http and https only'],
]);

/** The other reasons fetch finds no answer, in words (asking again may help). */
const PASSING_FAILURES = new Map([
  ['ECONNREFUSED', 'connection refused: nothing listens on that port'],
  ['ECONNRESET', 'the connection was reset'],
  ['EHOSTUNREACH', 'no route to the host'],
  ['ENETUNREACH', 'the network is unreachable'],
  ['EAI_AGAIN', 'the name server did not answer'],
  ['ETIMEDOUT', 'connecting timed out'],
  ['EPIPE', 'the connection closed while sending'],
  ['UND_ERR_SOCKET', 'the connection closed'],
  ['UND_ERR_CONNECT_TIMEOUT', 'connecting timed out'],
]);

/** A request's signal: its timeout, and the client's own signal where it has one (AbortSignal.any is Node ≥ 20.3). */
function requestSignal(timeoutMs: number, stop: AbortSignal | undefined): { signal: AbortSignal; release: () => void } {
  const timeout = AbortSignal.timeout(timeoutMs);
  if (!stop) return { signal: timeout, release: () => undefined };
  const either = new AbortController();
  const abort = () => either.abort();
  if (stop.aborted) abort();
  stop.addEventListener('abort', abort, { once: true });
  timeout.addEventListener('abort', () => either.abort(timeout.reason), { once: true });
  return { signal: either.signal, release: () => stop.removeEventListener('abort', abort) };
}

/** The endpoint could not be reached, timed out, or did not answer with JSON. */
export class RpcTransportError extends Error {
  override readonly name = 'RpcTransportError';
  constructor(
    message: string,
    /** True when no HTTP answer arrived at all (connection refused, DNS, timeout). */
    readonly unreachable: boolean,
    /** Where asking again cannot help (the host name does not resolve, or fetch refuses the URL, its scheme or its port): why, in words. */
    readonly lasting?: string,
  ) {
    super(message);
  }
}

/** The endpoint answered with a JSON-RPC error. */
export class RpcCallError extends Error {
  override readonly name = 'RpcCallError';
  readonly code: number;
  readonly data: unknown;
  constructor(
    readonly method: string,
    error: RpcErrorObject,
  ) {
    super(`${method}: ${error.code} ${error.message}`);
    this.code = error.code;
    this.data = error.data;
  }
}

/** A small JSON-RPC 2.0 client over fetch, with access to raw replies for conformance checks. */
export class JsonRpcClient {
  private nextId = 1;
  private readonly fetchFn: FetchFunction;
  private readonly timeoutMs: number;
  private readonly signal: AbortSignal | undefined;

  constructor(
    readonly url: string,
    options: RpcClientOptions = {},
  ) {
    this.fetchFn = options.fetch ?? ((input, init) => fetch(input, init));
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.signal = options.signal;
  }

  /** POST a body as is; the status and text of whatever comes back. */
  async post(body: string, init: { method?: string } = {}): Promise<RawHttpResponse> {
    let response: Response;
    const { signal, release } = requestSignal(this.timeoutMs, this.signal);
    try {
      try {
        response = await this.fetchFn(this.url, {
          method: init.method ?? 'POST',
          headers: { 'content-type': 'application/json' },
          ...(init.method === undefined || init.method === 'POST' ? { body } : {}),
          signal,
        });
      } catch (e) {
        if (this.signal?.aborted) throw new RpcTransportError(`${this.url}: no answer (stopped)`, true);
        if ((e as Error).name === 'TimeoutError') throw new RpcTransportError(`${this.url}: no answer within ${this.timeoutMs / 1000} s (the request timed out)`, true);
        const cause = (e as { cause?: { code?: string; message?: string } }).cause;
        const why = cause?.code ?? cause?.message ?? (e as Error).message;
        const lasting = LASTING_FAILURES.get(why);
        const words = lasting ? undefined : PASSING_FAILURES.get(why);
        throw new RpcTransportError(`${this.url}: no answer (${why}${words ? `: ${words}` : ''})`, true, lasting);
      }
      try {
        return { status: response.status, contentType: response.headers.get('content-type'), text: await response.text() };
      } catch (e) {
        throw new RpcTransportError(`${this.url}: the answer broke off (${this.signal?.aborted ? 'stopped' : (e as Error).message})`, false);
      }
    } finally {
      release();
    }
  }

  /** Send any JSON value and parse the reply (a single envelope or a batch array). */
  async send(payload: unknown): Promise<unknown> {
    const raw = await this.post(JSON.stringify(payload));
    try {
      return JSON.parse(raw.text) as unknown;
    } catch {
      throw new RpcTransportError(`${this.url}: HTTP ${raw.status} with a body that is not JSON: ${raw.text.slice(0, 120)}`, false);
    }
  }

  /** One request; the reply envelope, error or not. */
  async request(method: string, params: unknown[] = [], id: number | string = this.nextId++): Promise<RpcResponse> {
    const reply = await this.send({ jsonrpc: '2.0', method, params, id });
    if (typeof reply !== 'object' || reply === null || Array.isArray(reply)) {
      throw new RpcTransportError(`${this.url}: ${method}: the reply is not a JSON-RPC object: ${JSON.stringify(reply).slice(0, 120)}`, false);
    }
    return reply as RpcResponse;
  }

  /** The result of one call; a JSON-RPC error is thrown as RpcCallError. */
  async call<T = unknown>(method: string, params: unknown[] = []): Promise<T> {
    const reply = await this.request(method, params);
    if (reply.error) throw new RpcCallError(method, reply.error);
    if (!('result' in reply)) throw new RpcTransportError(`${this.url}: ${method}: the reply has neither result nor error`, false);
    return reply.result as T;
  }
}
