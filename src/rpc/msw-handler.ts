// Test-only entry (msw is a dev dependency): import it directly, it is not in src/rpc/index.ts.
import { http, HttpResponse, type HttpHandler } from 'msw';
import { answerHttp, DEFAULT_BODY_LIMIT } from './http-exchange.js';
import type { RpcService } from './rpc-service.js';

export interface MswHandlerOptions {
  /** Default 4 MiB, as the HTTP adapter. */
  readonly bodyLimit?: number;
}

/**
 * An msw request handler that answers every request to `origin` (e.g. "http://node0.test") from
 * the service, so a fetch-based client in a test reaches a simulated node with no socket.
 */
export function createMswHandler(service: RpcService, origin: string, options: MswHandlerOptions = {}): HttpHandler {
  const base = origin.replace(/\/+$/, '');
  return http.all(`${base}/*`, async ({ request }) => {
    const url = new URL(request.url);
    const body = new Uint8Array(await request.arrayBuffer());
    const answer = await answerHttp(service, { method: request.method, url: `${url.pathname}${url.search}`, body }, options.bodyLimit ?? DEFAULT_BODY_LIMIT);
    return new HttpResponse(answer.body, { status: answer.status, headers: answer.headers });
  });
}
