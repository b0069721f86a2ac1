import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DEFAULT_BODY_LIMIT, payloadTooLarge, refuseRoute, type HttpAnswer } from './http-exchange.js';
import type { RpcService } from './rpc-service.js';

export interface HttpHandlerOptions {
  /** Largest request body in bytes (default 4 MiB); larger ones get HTTP 413 with a JSON-RPC error. */
  readonly bodyLimit?: number;
  /** Most requests in one batch; default: the service's own (100). */
  readonly maxBatch?: number;
}

export interface HttpServerOptions extends HttpHandlerOptions {
  /** Interface to bind (default 127.0.0.1, loopback only, as FISCO's default). */
  readonly host?: string;
  /** Port (default 8545); 0 picks a free one. */
  readonly port?: number;
  /** Idle keep-alive connections are closed after this long (default 5 s). */
  readonly keepAliveTimeoutMs?: number;
  /** A request must arrive completely within this time (default 30 s), so slow clients cannot hold the server. */
  readonly requestTimeoutMs?: number;
  /** The request line and headers must arrive within this time (default: the request timeout). */
  readonly headersTimeoutMs?: number;
  /** Open connections at most (default unlimited); more are closed as they arrive. */
  readonly maxConnections?: number;
}

/** A listening JSON-RPC HTTP server. */
export interface RpcHttpServer {
  readonly server: Server;
  readonly host: string;
  readonly port: number;
  /** `http://<host>:<port>/`. */
  readonly url: string;
  /** Stop listening and close every connection, idle keep-alive ones included. */
  close(): Promise<void>;
}

function send(res: ServerResponse, answer: HttpAnswer): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(answer.status, { ...answer.headers, 'content-length': Buffer.byteLength(answer.body) });
  res.end(answer.body);
}

/** 413 without reading the rest of the body: answer, then close the connection once the answer is out. */
function hangUp(req: IncomingMessage, res: ServerResponse, bodyLimit: number): void {
  if (res.headersSent) return;
  res.on('finish', () => req.destroy());
  res.on('close', () => req.destroy());
  send(res, payloadTooLarge(bodyLimit));
}

/**
 * The node:http request listener: POST / with a JSON-RPC body; 405 for other methods, 404 for
 * other paths, 413 for bodies over the limit. Every reply is application/json.
 */
export function createHttpHandler(service: RpcService, options: HttpHandlerOptions = {}): RequestListener {
  const bodyLimit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const limits = options.maxBatch === undefined ? undefined : { maxBatch: options.maxBatch };
  // Past the limit the rest of the body is read and dropped, so the client gets to read the 413
  // instead of a connection reset in the middle of its upload; past this much more, we hang up.
  const drainCap = Math.max(bodyLimit * 4, 16 * 1024 * 1024);

  return (req: IncomingMessage, res: ServerResponse) => {
    req.on('error', () => undefined);
    res.on('error', () => undefined);
    const refused = refuseRoute(req.method, req.url);
    if (refused) {
      req.resume();
      send(res, refused);
      return;
    }
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > drainCap) {
      hangUp(req, res, bodyLimit);
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= bodyLimit) chunks.push(chunk);
      else if (size > drainCap) hangUp(req, res, bodyLimit);
    });
    req.on('end', () => {
      if (size > bodyLimit) {
        send(res, payloadTooLarge(bodyLimit));
        return;
      }
      const body = Buffer.concat(chunks, size).toString('utf8');
      service.handle(body, limits).then(
        (reply) => send(res, { status: 200, headers: { 'content-type': 'application/json' }, body: reply }),
        () => send(res, { status: 500, headers: { 'content-type': 'application/json' }, body: '{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"INTERNAL ERROR"}}' }),
      );
    });
  };
}

/** Serve the service over HTTP; resolves once listening. */
export async function startHttpServer(service: RpcService, options: HttpServerOptions = {}): Promise<RpcHttpServer> {
  const host = options.host ?? '127.0.0.1';
  const requestTimeout = options.requestTimeoutMs ?? 30_000;
  const server = createServer(
    {
      requestTimeout,
      headersTimeout: Math.min(options.headersTimeoutMs ?? requestTimeout, requestTimeout),
      // node checks the two time-outs above only this often (default 30 s), which would let a slow client stay far longer
      connectionsCheckingInterval: Math.max(100, Math.min(1_000, Math.floor(requestTimeout / 20))),
    },
    createHttpHandler(service, options),
  );
  server.keepAliveTimeout = options.keepAliveTimeoutMs ?? 5_000;
  if (options.maxConnections !== undefined) server.maxConnections = options.maxConnections;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 8545, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  return {
    server,
    host,
    port,
    url: `http://${urlHost}:${port}/`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
