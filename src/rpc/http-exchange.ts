import { rpcError } from './errors.js';
import type { RpcService } from './rpc-service.js';

/** 4 MiB: larger request bodies are answered with HTTP 413. */
export const DEFAULT_BODY_LIMIT = 4 * 1024 * 1024;

/** An HTTP answer, independent of how it travels (node:http, an in-process fetch, msw). */
export interface HttpAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

const JSON_TYPE = 'application/json';

function jsonAnswer(status: number, body: string, extra: Record<string, string> = {}): HttpAnswer {
  return { status, headers: { 'content-type': JSON_TYPE, ...extra }, body };
}

function errorAnswer(status: number, detail: string, kind: 'invalidRequest' = 'invalidRequest', extra: Record<string, string> = {}): HttpAnswer {
  return jsonAnswer(status, JSON.stringify({ jsonrpc: '2.0', id: null, error: rpcError(kind, detail).toJSON() }), extra);
}

/**
 * What a request gets before its body is read: undefined when it may go on (POST to /), else
 * the refusal: 405 for another method, 404 for another path. Both carry a JSON-RPC error body.
 */
export function refuseRoute(method: string | undefined, url: string | undefined): HttpAnswer | undefined {
  if (method !== 'POST') {
    return errorAnswer(405, `HTTP method ${method ?? '(none)'} is not allowed; send JSON-RPC requests with POST`, 'invalidRequest', { allow: 'POST' });
  }
  const path = (url ?? '/').split('?', 1)[0];
  if (path !== '/' && path !== '') return errorAnswer(404, `no JSON-RPC endpoint at ${JSON.stringify(path!.slice(0, 100))}; POST to /`);
  return undefined;
}

export function payloadTooLarge(limit: number): HttpAnswer {
  return errorAnswer(413, `the request body exceeds the limit of ${limit} bytes`, 'invalidRequest', { connection: 'close' });
}

/** The JSON-RPC reply to a complete body: always HTTP 200 with the reply (errors included). */
export async function answerBody(service: RpcService, body: string): Promise<HttpAnswer> {
  return jsonAnswer(200, await service.handle(body));
}

/** The whole exchange for transports that hold the complete body (in-process fetch, msw). */
export async function answerHttp(
  service: RpcService,
  request: { method: string; url: string; body: Uint8Array | string },
  bodyLimit = DEFAULT_BODY_LIMIT,
): Promise<HttpAnswer> {
  const refused = refuseRoute(request.method, request.url);
  if (refused) return refused;
  const size = typeof request.body === 'string' ? Buffer.byteLength(request.body) : request.body.byteLength;
  if (size > bodyLimit) return payloadTooLarge(bodyLimit);
  const text = typeof request.body === 'string' ? request.body : Buffer.from(request.body).toString('utf8');
  return answerBody(service, text);
}
