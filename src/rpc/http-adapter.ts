import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
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
  /**
   * Open connections at most (default unlimited). Past it, to make room for the newcomer, the
   * server closes first the oldest connection that has sent nothing, then the slowest one with a
   * request still arriving, then the oldest idle keep-alive one; never one whose request is
   * complete and being answered. So strangers holding connections open cannot keep complete
   * requests out.
   */
  readonly maxConnections?: number;
  /** Where a warning goes when connections are closed under pressure (at most one line a minute). */
  readonly log?: (message: string) => void;
}

/** Connections closed under pressure, by what they were doing. */
export interface HttpPressureStats {
  /** Open now. */
  readonly connections: number;
  readonly closedSilent: number;
  readonly closedIncomplete: number;
  readonly closedIdle: number;
  /** Newcomers closed because every other connection was answering a request. */
  readonly closedNewcomers: number;
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
  /** Connections open and closed under pressure. */
  stats(): HttpPressureStats;
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

/** What a connection is doing, for choosing whom to close under pressure. */
interface Connection {
  readonly socket: Socket;
  /** When it opened, or when its last response went out. */
  since: number;
  /** socket.bytesRead when its last response went out (0 before any). */
  bytesAtIdle: number;
  /** Requests answered on it. */
  served: number;
  /** A complete request is being answered: never closed for room. */
  answering: boolean;
}

/**
 * Tracks every connection of an HTTP server and, past `max`, closes one to make room: the oldest
 * silent one (nothing ever sent), else the slowest incomplete one (fewest bytes per second of its
 * request so far), else the oldest idle keep-alive one; else (all are answering) the newcomer.
 */
class ConnectionGuard {
  private readonly open = new Map<Socket, Connection>();
  private closedSilent = 0;
  private closedIncomplete = 0;
  private closedIdle = 0;
  private closedNewcomers = 0;
  private loggedAt = -Infinity;
  private unlogged = 0;

  constructor(
    private readonly max: number,
    private readonly log: ((message: string) => void) | undefined,
  ) {}

  onConnection(socket: Socket): void {
    const connection: Connection = { socket, since: Date.now(), bytesAtIdle: 0, served: 0, answering: false };
    this.open.set(socket, connection);
    socket.once('close', () => this.open.delete(socket));
    if (this.open.size > this.max) this.makeRoom(connection);
  }

  /** A request has fully arrived on `socket` and is being answered. */
  answering(socket: Socket): void {
    const c = this.open.get(socket);
    if (c) c.answering = true;
  }

  /** The answer went out: the connection is idle (keep-alive) again. */
  answered(socket: Socket): void {
    const c = this.open.get(socket);
    if (!c) return;
    c.answering = false;
    c.served++;
    c.since = Date.now();
    c.bytesAtIdle = socket.bytesRead;
  }

  stats(): HttpPressureStats {
    return {
      connections: this.open.size,
      closedSilent: this.closedSilent,
      closedIncomplete: this.closedIncomplete,
      closedIdle: this.closedIdle,
      closedNewcomers: this.closedNewcomers,
    };
  }

  private makeRoom(newcomer: Connection): void {
    const now = Date.now();
    let silent: Connection | undefined;
    let slowest: { c: Connection; rate: number } | undefined;
    let idle: Connection | undefined;
    for (const c of this.open.values()) {
      // the newcomer has had no chance to send yet: it goes only when nothing else may
      if (c.answering || c === newcomer) continue;
      const arrived = c.socket.bytesRead - c.bytesAtIdle;
      if (arrived === 0) {
        // map order is age order: the first silent one is the oldest
        if (c.served === 0) silent ??= c;
        else idle ??= c;
        continue;
      }
      const rate = arrived / Math.max(1, now - c.since);
      if (slowest === undefined || rate < slowest.rate) slowest = { c, rate };
    }
    let victim: Connection;
    if (silent !== undefined) {
      victim = silent;
      this.closedSilent++;
    } else if (slowest !== undefined) {
      victim = slowest.c;
      this.closedIncomplete++;
    } else if (idle !== undefined) {
      victim = idle;
      this.closedIdle++;
    } else {
      victim = newcomer;
      this.closedNewcomers++;
    }
    this.open.delete(victim.socket);
    victim.socket.destroy();
    this.unlogged++;
    if (this.log && now - this.loggedAt >= 60_000) {
      this.loggedAt = now;
      const s = this.stats();
      this.log(
        `[RPC] too many connections (limit ${this.max}): closed ${this.unlogged} to make room (so far: silent ${s.closedSilent}, incomplete ${s.closedIncomplete}, idle ${s.closedIdle}, newcomers ${s.closedNewcomers})`,
      );
      this.unlogged = 0;
    }
  }
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
  // Node's own maxConnections closes every newcomer past the limit, complete requests included
  const guard = new ConnectionGuard(options.maxConnections ?? Number.POSITIVE_INFINITY, options.log);
  server.on('connection', (socket: Socket) => guard.onConnection(socket));
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket;
    req.once('end', () => guard.answering(socket));
    res.once('finish', () => guard.answered(socket));
  });
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
    stats: () => guard.stats(),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
