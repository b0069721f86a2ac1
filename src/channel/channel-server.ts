// FISCO's channel port over Node's tls: TLS 1.2, mutual authentication against the node's CA,
// secp256k1 among the ECDHE groups, one ChannelSession per connection, one frame per write (and
// per TLS record: the next write waits for the previous one).
import { X509Certificate } from 'node:crypto';
import tls from 'node:tls';
import type { AddressInfo, Socket } from 'node:net';
import { PendingHandshakes } from '../runtime/connections/index.js';
import type { NodeApi } from '../node/index.js';
import { encodeFrame, type ChannelFrame } from './channel-frame.js';
import { ChannelSession, type ChannelRpcHandler } from './channel-session.js';
import { ChannelPushes } from './channel-pushes.js';
import { blockNotifyFrame, blockNotifyTopic } from './block-notify.js';

/** FISCO SDKs offer only secp256k1; the others are for ordinary TLS clients. */
export const CHANNEL_ECDH_CURVES = 'secp256k1:X25519:prime256v1';
/** FISCO's session idle time-out. */
export const DEFAULT_IDLE_TIMEOUT_MS = 60_000;
/** TCP accept to TLS done: an SDK shakes hands in milliseconds; a connection that does not is a stranger's. */
export const DEFAULT_HANDSHAKE_TIMEOUT_MS = 5_000;
/** Connections in their handshake at once, apart from the sessions (see PendingHandshakes). */
export const DEFAULT_MAX_PENDING_HANDSHAKES = 512;
/** Output a session may have waiting in its socket before it is closed (a reader that stopped reading). */
export const DEFAULT_MAX_BUFFERED_BYTES = 64 * 1024 * 1024;

export interface ChannelServerOptions {
  host?: string;
  port: number;
  /** PEM texts: the node's key, its certificate (chain), and the CA client certificates must chain to. */
  tls: { key: string | Buffer; cert: string | Buffer; ca: string | Buffer };
  service: ChannelRpcHandler;
  supportedVersion: string;
  log?: (message: string) => void;
  maxFrame?: number;
  idleTimeoutMs?: number;
  /** Sees every buffer written to a socket (one per frame); for instrumentation and tests. */
  onWrite?: (bytes: Buffer) => void;
  /**
   * The node behind `service`: with it the server pushes 0x1000 receipts and serves 0x15/0x16
   * event-log filters with their 0x1002 pushes (default: `service.node` when the service has one).
   */
  node?: NodeApi;
  /**
   * FISCO's `[network_security] check_cert_issuer` (default true): the SDK certificate's issuer
   * must be the node certificate's issuer (the same agency).
   */
  checkCertIssuer?: boolean;
  /** A session whose socket holds more unsent bytes than this is closed (default 64 MiB). */
  maxBufferedBytes?: number;
  /** The TLS handshake must be done this long after the TCP connection (default 5 s). */
  handshakeTimeoutMs?: number;
  /**
   * Connections still in their handshake at once (default 512); past it the oldest that has
   * sent nothing is closed, so strangers holding connections open never keep an SDK out.
   */
  maxPendingHandshakes?: number;
  /** Receipt registrations one session may have outstanding (default 10,000). */
  maxPendingReceipts?: number;
  /** Event-log filters one session may have (default 100). */
  maxFilters?: number;
}

export interface ChannelServer {
  readonly host: string;
  readonly port: number;
  /** Open, authenticated sessions. */
  readonly sessions: number;
  /**
   * Sends a frame to every session subscribed to `topic`; `makeFrame` may return undefined to
   * skip a session (it sees the session's protocol version). Returns the number of frames sent.
   */
  broadcastTopic(topic: string, makeFrame: (session: ChannelSession) => ChannelFrame | undefined): number;
  /** Every open session. */
  allSessions(): ChannelSession[];
  /**
   * A group committed a block: pushes what the sessions asked for (0x1001 block notify to its
   * subscribers, 0x1000 receipts of their transactions, 0x1002 logs of their filters).
   */
  blockCommitted(groupId: number, blockNumber: number): void;
  /** Receipt and event-log push state (undefined without a node). */
  readonly pushes: ChannelPushes | undefined;
  close(): Promise<void>;
}

/**
 * One session's output, written as FISCO's node writes it: one frame per socket write, the next
 * only once the previous write has completed. Node's TLS socket hands every write it has queued
 * to one SSL write (writev), so frames written back to back would share a TLS record and arrive
 * in one read; the Node.js and Python SDKs take a read for one frame and corrupt such a batch.
 */
export class FrameQueue {
  private readonly queue: Buffer[] = [];
  private queuedBytes = 0;
  private writing = false;

  constructor(
    private readonly socket: { readonly destroyed: boolean; readonly writableLength: number; write(bytes: Buffer, done: (error?: Error | null) => void): boolean },
    private readonly onWrite?: (bytes: Buffer) => void,
  ) {}

  /** Bytes not yet taken by the peer: queued here plus what the socket still holds. */
  get unsentBytes(): number {
    return this.queuedBytes + this.socket.writableLength;
  }

  /** Frames waiting for the write in progress to complete. */
  get queued(): number {
    return this.queue.length;
  }

  push(frame: Buffer): void {
    this.queue.push(frame);
    this.queuedBytes += frame.length;
    this.pump();
  }

  /** Drops what waits (the connection is gone). */
  clear(): void {
    this.queue.length = 0;
    this.queuedBytes = 0;
  }

  private pump(): void {
    if (this.writing || this.socket.destroyed) return;
    const next = this.queue.shift();
    if (!next) return;
    this.queuedBytes -= next.length;
    this.writing = true;
    this.onWrite?.(next);
    this.socket.write(next, (error) => {
      this.writing = false;
      // A failed write ends the socket; its 'close' clears the queue.
      if (error) return;
      this.pump();
    });
  }
}

export async function startChannelServer(options: ChannelServerOptions): Promise<ChannelServer> {
  const log = options.log ?? (() => {});
  const host = options.host ?? '127.0.0.1';
  const sessions = new Map<tls.TLSSocket, ChannelSession>();
  const maxBuffered = options.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED_BYTES;
  const node = options.node ?? (options.service as { node?: NodeApi }).node;
  const pushes = node
    ? new ChannelPushes({
        node,
        service: options.service,
        log,
        yieldTurn: () => new Promise<void>((resolve) => setImmediate(resolve)),
        maxPendingReceipts: options.maxPendingReceipts,
        maxFilters: options.maxFilters,
      })
    : undefined;
  const checkCertIssuer = options.checkCertIssuer ?? true;
  // The node certificate is the first of its chain.
  const nodeIssuer = checkCertIssuer ? new X509Certificate(options.tls.cert).issuer : '';
  const server = tls.createServer({
    key: options.tls.key,
    cert: options.tls.cert,
    ca: options.tls.ca,
    requestCert: true,
    rejectUnauthorized: true,
    minVersion: 'TLSv1.2',
    maxVersion: 'TLSv1.2',
    ecdhCurve: CHANNEL_ECDH_CURVES,
    handshakeTimeout: options.handshakeTimeoutMs ?? DEFAULT_HANDSHAKE_TIMEOUT_MS,
  });

  let evictedLoggedAt = -Infinity;
  const pending = new PendingHandshakes(options.maxPendingHandshakes ?? DEFAULT_MAX_PENDING_HANDSHAKES, () => {
    if (Date.now() - evictedLoggedAt < 60_000) return;
    evictedLoggedAt = Date.now();
    log(`channel: too many connections in their TLS handshake; the oldest silent ones are closed (${pending.evicted} so far)`);
  });
  // Remember peers by raw socket: a refused TLS socket has lost its address by the time it is reported.
  const peers = new WeakMap<object, string>();
  server.on('connection', (raw: Socket) => {
    peers.set(raw, `${raw.remoteAddress ?? '?'}:${raw.remotePort ?? '?'}`);
    raw.on('error', () => undefined);
    pending.add(raw);
  });
  server.on('tlsClientError', (error, socket) => {
    // Node destroys a socket whose certificate fails verification without an error; the reason
    // is left in authorizationError (e.g. UNABLE_TO_GET_ISSUER_CERT for another CA).
    const reason = socket.authorizationError ? `client certificate refused: ${String(socket.authorizationError)}` : error.message.trim();
    const parent = (socket as unknown as { _parent?: object })._parent;
    const peer = (parent && peers.get(parent)) ?? `${socket.remoteAddress ?? '?'}:${socket.remotePort ?? '?'}`;
    log(`channel: TLS handshake refused from ${peer}: ${reason}`);
    socket.destroy();
  });

  server.on('secureConnection', (socket: tls.TLSSocket) => {
    pending.done(socket);
    const peer = `${socket.remoteAddress ?? '?'}:${socket.remotePort ?? '?'}`;
    if (!socket.authorized) {
      // rejectUnauthorized already refuses these; kept as a second guard.
      log(`channel: client ${peer} refused: ${String(socket.authorizationError)}`);
      socket.destroy();
      return;
    }
    if (checkCertIssuer) {
      const issuer = socket.getPeerX509Certificate()?.issuer;
      if (issuer !== nodeIssuer) {
        log(`channel: client ${peer} refused: certificate issuer ${JSON.stringify(issuer ?? '')} is not the node certificate's issuer ${JSON.stringify(nodeIssuer)} ([network_security] check_cert_issuer=true)`);
        socket.destroy();
        return;
      }
    }
    const output = new FrameQueue(socket, options.onWrite);
    const session: ChannelSession = new ChannelSession({
      service: options.service,
      supportedVersion: options.supportedVersion,
      maxFrame: options.maxFrame,
      log: (message) => log(`${message} (${peer})`),
      pushes,
      send: (frame) => {
        if (socket.destroyed) return;
        output.push(encodeFrame(frame));
        if (output.unsentBytes > maxBuffered) {
          session.close(`${output.unsentBytes} bytes wait to be sent, more than ${maxBuffered}: the client does not read`);
        }
      },
      close: () => {
        output.clear();
        sessions.delete(socket);
        pushes?.sessionClosed(session);
        socket.destroy();
      },
    });
    sessions.set(socket, session);
    socket.setTimeout(options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS, () => session.close('idle time-out'));
    socket.on('data', (chunk: Buffer) => session.feed(chunk));
    socket.on('error', (error) => log(`channel: socket ${peer}: ${error.message}`));
    socket.on('close', () => {
      output.clear();
      sessions.delete(socket);
      if (!session.isClosed) session.close('connection closed by peer');
      pushes?.sessionClosed(session);
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.on('error', (error) => log(`channel: server error: ${error.message}`));
  const address = server.address() as AddressInfo;

  const channel: ChannelServer = {
    host,
    port: address.port,
    get sessions() {
      return sessions.size;
    },
    allSessions: () => [...sessions.values()],
    broadcastTopic(topic, makeFrame) {
      let sent = 0;
      for (const session of sessions.values()) {
        if (!session.topics.has(topic)) continue;
        const frame = makeFrame(session);
        if (frame && session.send(frame)) sent++;
      }
      return sent;
    },
    blockCommitted(groupId, blockNumber) {
      channel.broadcastTopic(blockNotifyTopic(groupId), (session) => blockNotifyFrame(session.protocolVersion, groupId, blockNumber));
      // Errors are logged inside; nothing waits for the pushes.
      void pushes?.blockCommitted(groupId, blockNumber);
    },
    pushes,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sessions.keys()) socket.destroy();
        sessions.clear();
        server.close(() => resolve());
      }),
  };
  return channel;
}
