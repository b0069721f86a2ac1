import { answerHttp, DEFAULT_BODY_LIMIT } from './http-exchange.js';
import { JsonRpcClient, type FetchFunction } from './rpc-client.js';
import type { RpcService } from './rpc-service.js';

export interface InProcessOptions {
  /** Same meaning as the HTTP adapter's (default 4 MiB). */
  readonly bodyLimit?: number;
}

/**
 * A fetch function that answers from the service directly, with the HTTP adapter's semantics
 * (POST / only, 405, 404, 413, application/json) and no socket. Any absolute URL works; only
 * its path matters.
 */
export function inProcessFetch(service: RpcService, options: InProcessOptions = {}): FetchFunction {
  const bodyLimit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
  return async (input, init) => {
    const request = new Request(input, init);
    const body = new Uint8Array(await request.arrayBuffer());
    const url = new URL(request.url);
    const answer = await answerHttp(service, { method: request.method, url: `${url.pathname}${url.search}`, body }, bodyLimit);
    return new Response(answer.body, { status: answer.status, headers: answer.headers });
  };
}

/** A JSON-RPC client wired straight to the service. */
export function inProcessClient(service: RpcService, options: InProcessOptions = {}): JsonRpcClient {
  return new JsonRpcClient('http://twinchain.in-process/', { fetch: inProcessFetch(service, options) });
}
