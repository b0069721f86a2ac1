import { JSONRPCServer, createJSONRPCErrorResponse, type JSONRPCRequest, type JSONRPCResponse } from 'json-rpc-2.0';
import { describeValue } from '../codec/index.js';
import type { NodeApi } from '../node/index.js';
import { RpcError, rpcError, toRpcError } from './errors.js';
import { invokeMethod, METHOD_NAMES, METHODS } from './methods.js';
import { needsRawEcho, scanRawIds } from './raw-ids.js';

export const DEFAULT_MAX_BATCH = 100;
/** Deepest JSON nesting a request may have; real requests need 4 (batch, request, params, call object). */
export const DEFAULT_MAX_DEPTH = 32;

export interface RpcServiceOptions {
  /** Most requests in one batch (default 100); a larger batch is one -32600 error. */
  readonly maxBatch?: number;
  /** Deepest nesting of arrays and objects in a request body (default 32); deeper is -32600. */
  readonly maxDepth?: number;
  /** Told about every -32603 reply caused by an unexpected error (for logs). */
  readonly onInternalError?: (method: string, error: unknown) => void;
}

/** Per-call override of the service's limits (e.g. an HTTP server configured with its own maxBatch). */
export interface RequestLimits {
  readonly maxBatch?: number;
}

export type RpcId = string | number | null;
export type RpcReply =
  | { readonly jsonrpc: '2.0'; readonly id: RpcId; readonly result: unknown }
  | { readonly jsonrpc: '2.0'; readonly id: RpcId; readonly error: { code: number; message: string; data?: unknown } };

/** The JSON-RPC service of one node: the methods of docs/json-rpc.md over its NodeApi, transport-independent. */
export interface RpcService {
  readonly node: NodeApi;
  readonly methods: readonly string[];
  readonly maxBatch: number;
  /**
   * Answer a request body (JSON text): a single reply or a batch array, as JSON text. Never
   * throws, never answers with nothing: there are no notifications, a request without id gets
   * -32604 (docs/json-rpc.md).
   */
  handle(body: string, limits?: RequestLimits): Promise<string>;
  /** The same for an already-parsed body. */
  handleParsed(request: unknown, limits?: RequestLimits): Promise<RpcReply | RpcReply[]>;
}

function errorReply(id: RpcId, error: RpcError): RpcReply {
  return { jsonrpc: '2.0', id, error: error.toJSON() };
}

function isId(value: unknown): value is RpcId {
  return value === null || typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));
}

/**
 * How a request body nests arrays and objects (strings skipped), found before JSON.parse
 * allocates anything: within `limit`, deeper (`too-deep`), or deeper and with brackets that do
 * not even match (`unmatched`, unparsable JSON). Shallow bodies with bad brackets are left to
 * JSON.parse, which names the spot.
 */
export function scanNesting(text: string, limit: number): 'within' | 'too-deep' | 'unmatched' {
  const open: number[] = [];
  let tooDeep = false;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x5b || c === 0x7b) {
      if (open.push(c) > limit) tooDeep = true;
    } else if (c === 0x5d || c === 0x7d) {
      if (open.pop() !== c - 2) return tooDeep ? 'unmatched' : 'within'; // ']' is '[' + 2, '}' is '{' + 2
    }
  }
  if (!tooDeep) return 'within';
  return open.length === 0 && !inString ? 'too-deep' : 'unmatched';
}

/**
 * JSON text of the reply(s), with each integer id the double could not hold (beyond 2^53)
 * written with the request's own digits. A reply serializes as {"jsonrpc":"2.0","id":…, …}, so
 * the id is written in place of a 0 at that fixed spot: nothing in a result or an error message
 * can be mistaken for it.
 */
export function stringifyWithRawIds(reply: RpcReply | RpcReply[], request: unknown, body: string): string {
  const replies = Array.isArray(reply) ? reply : [reply];
  if (!replies.some((r) => typeof r.id === 'number' && !Number.isSafeInteger(r.id))) return JSON.stringify(reply);
  const raw = scanRawIds(body);
  const items = Array.isArray(request) ? request : [request];
  if (raw.batch !== Array.isArray(request) || (Array.isArray(reply) && replies.length !== items.length)) return JSON.stringify(reply);
  const texts = replies.map((r, index) => {
    const text = raw.ids.get(index);
    const item = items[index] as { id?: unknown } | null;
    if (text === undefined || typeof r.id !== 'number' || typeof item !== 'object' || item === null || item.id !== r.id || !needsRawEcho(text, r.id)) return JSON.stringify(r);
    const json = JSON.stringify({ ...r, id: 0 });
    return json.startsWith(ID_ZERO) ? `${ID_HEAD}${text}${json.slice(ID_ZERO.length)}` : JSON.stringify(r);
  });
  return Array.isArray(reply) ? `[${texts.join(',')}]` : texts[0]!;
}

const ID_HEAD = '{"jsonrpc":"2.0","id":';
const ID_ZERO = `${ID_HEAD}0`;

export function createRpcService(node: NodeApi, options: RpcServiceOptions = {}): RpcService {
  const maxBatch = options.maxBatch ?? DEFAULT_MAX_BATCH;
  const maxDepth = options.maxDepth ?? DEFAULT_MAX_DEPTH;
  const server = new JSONRPCServer({ errorListener: () => undefined });
  server.mapErrorToJSONRPCErrorResponse = (id, error: unknown) => {
    const e = error instanceof RpcError ? error : toRpcError(error, 'request');
    // the library drops a null data; the earlier variant's code-7 error carries one explicitly
    return { ...createJSONRPCErrorResponse(id, e.code, e.message, e.data), error: e.toJSON() };
  };
  for (const name of METHOD_NAMES) {
    const spec = METHODS[name]!;
    server.addMethod(name, async (params: unknown[]) => {
      try {
        return await invokeMethod(node, name, spec, params);
      } catch (e) {
        const mapped = toRpcError(e, name);
        if (mapped.code === -32603 && !(e instanceof RpcError)) options.onInternalError?.(name, e);
        throw mapped;
      }
    });
  }

  /** Envelope checks the library leaves out (it would crash on a null batch item, and SPEC wants -32604). */
  async function single(item: unknown): Promise<RpcReply> {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) {
      return errorReply(null, rpcError('invalidRequest', `a request must be a JSON object (got ${describeValue(item)})`));
    }
    const request = item as Record<string, unknown>;
    const hasId = 'id' in request && request.id !== undefined;
    if (hasId && !isId(request.id)) {
      return errorReply(null, rpcError('invalidRequest', `id must be a number, a string or null (got ${describeValue(request.id)})`));
    }
    const id = hasId ? (request.id as RpcId) : null;
    if (request.jsonrpc !== '2.0') return errorReply(id, rpcError('invalidRequest', `jsonrpc must be "2.0" (got ${describeValue(request.jsonrpc)})`));
    if (typeof request.method !== 'string') {
      return errorReply(id, rpcError('invalidRequest', `method must be a string (got ${describeValue(request.method)})`));
    }
    const params = request.params === undefined ? [] : request.params;
    if (typeof params !== 'object' || params === null) {
      return errorReply(id, rpcError('invalidRequest', `params must be an array (got ${describeValue(params)})`));
    }
    if (!server.hasMethod(request.method) || !Object.hasOwn(METHODS, request.method)) {
      return errorReply(id, rpcError('methodNotFound', `no method ${describeValue(request.method)}`));
    }
    if (!hasId) return errorReply(null, rpcError('procedureIsMethod', `${request.method} is a method, but the request has no id field`));
    // A method declared without parameters takes any params, an object too (libjson-rpc-cpp skips the check).
    const takesNone = METHODS[request.method]!.params.length === 0;
    if (!Array.isArray(params) && !takesNone) {
      return errorReply(id, rpcError('invalidParams', `${request.method} takes positional parameters (an array), got an object`));
    }
    const call: JSONRPCRequest = { jsonrpc: '2.0', id: id, method: request.method, params: Array.isArray(params) ? params : [] };
    const response: JSONRPCResponse | null = await server.receive(call);
    return (response ?? errorReply(id, rpcError('internalError', `${request.method}: no response`))) as RpcReply;
  }

  async function handleParsed(request: unknown, limits?: RequestLimits): Promise<RpcReply | RpcReply[]> {
    if (!Array.isArray(request)) return single(request);
    const batchLimit = limits?.maxBatch ?? maxBatch;
    if (request.length === 0) return errorReply(null, rpcError('invalidRequest', 'an empty batch'));
    if (request.length > batchLimit) {
      return errorReply(null, rpcError('invalidRequest', `a batch of ${request.length} requests exceeds the maximum of ${batchLimit}`));
    }
    return Promise.all(request.map(single));
  }

  async function handle(body: string, limits?: RequestLimits): Promise<string> {
    let reply: RpcReply | RpcReply[];
    try {
      const nesting = scanNesting(body, maxDepth);
      if (nesting === 'unmatched') {
        reply = errorReply(null, rpcError('parseError', 'the brackets of the request body do not match'));
      } else if (nesting === 'too-deep') {
        reply = errorReply(null, rpcError('invalidRequest', `the request nests arrays/objects deeper than ${maxDepth} levels`));
      } else {
        let parsed: unknown;
        try {
          parsed = JSON.parse(body);
        } catch (e) {
          return JSON.stringify(errorReply(null, rpcError('parseError', body.trim() === '' ? 'empty request body' : (e as Error).message)));
        }
        reply = await handleParsed(parsed, limits);
        return stringifyWithRawIds(reply, parsed, body);
      }
      return JSON.stringify(reply);
    } catch (e) {
      options.onInternalError?.('request', e);
      return JSON.stringify(errorReply(null, toRpcError(e, 'request')));
    }
  }

  return { node, methods: METHOD_NAMES, maxBatch, handle, handleParsed };
}
