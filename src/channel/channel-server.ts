// FISCO's channel port over Node's tls: TLS 1.2, mutual authentication against the node's CA,
// secp256k1 among the ECDHE groups, one ChannelSession per connection, one frame per write.
import tls from 'node:tls';
import type { AddressInfo } from 'node:net';
import { encodeFrame, type ChannelFrame } from './channel-frame.js';
import { ChannelSession, type ChannelRpcHandler } from './channel-session.js';
import { blockNotifyFrame, blockNotifyTopic } from './block-notify.js';

/** FISCO SDKs offer only secp256k1; the others are for ordinary TLS clients. */
export const CHANNEL_ECDH_CURVES = 'secp256k1:X25519:prime256v1';
/** FISCO's session idle time-out. */
export const DEFAULT_IDLE_TIMEOUT_MS = 60_000;

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
  /** A group committed a block: pushes what the sessions asked for (0x1001 block notify to its subscribers). */
  blockCommitted(groupId: number, blockNumber: number): void;
  close(): Promise<void>;
}

export async function startChannelServer(options: ChannelServerOptions): Promise<ChannelServer> {
  const log = options.log ?? (() => {});
  const host = options.host ?? '127.0.0.1';
  const sessions = new Map<tls.TLSSocket, ChannelSession>();
  const server = tls.createServer({
    key: options.tls.key,
    cert: options.tls.cert,
    ca: options.tls.ca,
    requestCert: true,
    rejectUnauthorized: true,
    minVersion: 'TLSv1.2',
    maxVersion: 'TLSv1.2',
    ecdhCurve: CHANNEL_ECDH_CURVES,
  });

  // Remember peers by raw socket: a refused TLS socket has lost its address by the time it is reported.
  const peers = new WeakMap<object, string>();
  server.on('connection', (raw: { remoteAddress?: string; remotePort?: number }) => {
    peers.set(raw, `${raw.remoteAddress ?? '?'}:${raw.remotePort ?? '?'}`);
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
    const peer = `${socket.remoteAddress ?? '?'}:${socket.remotePort ?? '?'}`;
    if (!socket.authorized) {
      // rejectUnauthorized already refuses these; kept as a second guard.
      log(`channel: client ${peer} refused: ${String(socket.authorizationError)}`);
      socket.destroy();
      return;
    }
    const session = new ChannelSession({
      service: options.service,
      supportedVersion: options.supportedVersion,
      maxFrame: options.maxFrame,
      log: (message) => log(`${message} (${peer})`),
      send: (frame) => {
        if (socket.destroyed) return;
        const bytes = encodeFrame(frame);
        options.onWrite?.(bytes);
        socket.write(bytes);
      },
      close: () => {
        sessions.delete(socket);
        socket.destroy();
      },
    });
    sessions.set(socket, session);
    socket.setTimeout(options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS, () => session.close('idle time-out'));
    socket.on('data', (chunk: Buffer) => session.feed(chunk));
    socket.on('error', (error) => log(`channel: socket ${peer}: ${error.message}`));
    socket.on('close', () => {
      sessions.delete(socket);
      if (!session.isClosed) session.close('connection closed by peer');
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
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sessions.keys()) socket.destroy();
        sessions.clear();
        server.close(() => resolve());
      }),
  };
  return channel;
}
