import type { AddressInfo, Socket } from 'node:net';
import { connect, createSecureContext, createServer, type SecureContext, type Server, type TLSSocket } from 'node:tls';
import type { LogLevel, NodeId, Transport } from '../env.js';
import { encodeFrame } from './frame-decoder.js';
import { PendingHandshakes } from '../connections/index.js';
import { LimitedLog } from './limited-log.js';
import { errorText, formatAddress, Link, PING, type AddressState, type Direction } from './tls-link.js';
import { TLS_TRANSPORT_DEFAULTS, type PeerAddress, type TlsTransportOptions, type TlsTransportStats } from './tls-transport-options.js';

export { TLS_TRANSPORT_DEFAULTS, type PeerAddress, type TlsTransportOptions, type TlsTransportStats } from './tls-transport-options.js';

/** secp256k1 first: FISCO's node certificates are secp256k1 keys, which TLS 1.2 only accepts with that group offered. */
const ECDH_CURVES = 'secp256k1:X25519:prime256v1';

/**
 * Peer-to-peer transport between node processes: TCP + TLS 1.2 with mutual authentication
 * against the chain CA, as FISCO 2.x does (no application hello; a peer's node id comes only
 * from its verified certificate). Frames are `uint32 big-endian payload length | payload`;
 * zero-length frames are keep-alive pings and never reach the handler.
 *
 * Both sides dial every configured address. When two nodes end up with two connections, both
 * keep the one dialed by the smaller node id (a newer connection in the same direction replaces
 * the older one: the peer restarted); the other is closed gracefully, so each node id has one
 * connection and `send` order holds on it. Messages can be lost while connections change, as the
 * Transport contract allows.
 */
export class TlsTransport implements Transport {
  private readonly maxFrameBytes: number;
  private readonly sendQueueBytes: number;
  private readonly reconnect: { readonly min: number; readonly max: number };
  private readonly handshakeTimeoutMs: number;
  private readonly keepAliveMs: number;
  private readonly idleTimeoutMs: number;
  private readonly context: SecureContext;

  private state: 'new' | 'starting' | 'started' | 'closed' = 'new';
  private server: Server | undefined;
  private bound: PeerAddress | undefined;
  private tick: ReturnType<typeof setInterval> | undefined;
  private closing: Promise<void> | undefined;
  private listening: Promise<void> | undefined;
  private handler: ((from: NodeId, payload: Uint8Array) => void | Promise<void>) | undefined;

  private readonly addresses = new Map<string, AddressState>();
  /** The one connection used per node id. */
  private readonly peers = new Map<NodeId, Link>();
  /** Every TLS socket we hold, in any state. */
  private readonly links = new Set<Link>();
  /** Inbound TCP sockets, from accept until they close. */
  private readonly rawInbound = new Set<Socket>();
  /** Inbound TCP sockets whose TLS handshake is not done. */
  private readonly pending: PendingHandshakes;
  /** Where a node id was reached by dialing (a configured address), for peerAddress(). */
  private readonly learned = new Map<NodeId, string>();
  private readonly limitedLog: LimitedLog;

  private framesIn = 0;
  private bytesIn = 0;
  private framesOut = 0;
  private bytesOut = 0;
  private readonly dropped = { notConnected: 0, queueFull: 0, tooLarge: 0, noHandler: 0 };
  private dials = 0;
  private connectsFailed = 0;
  private handshakesFailed = 0;
  private handshakesRefused = 0;
  private malformedStreams = 0;
  private peersEvicted = 0;
  private peersRefusedFull = 0;
  private readonly maxInbound: number;
  private readonly maxPendingInbound: number;

  private constructor(private readonly options: TlsTransportOptions) {
    this.limitedLog = new LimitedLog(options.log);
    this.maxFrameBytes = options.maxFrameBytes ?? TLS_TRANSPORT_DEFAULTS.maxFrameBytes;
    this.sendQueueBytes = options.sendQueueBytes ?? TLS_TRANSPORT_DEFAULTS.sendQueueBytes;
    this.reconnect = options.reconnectMs ?? TLS_TRANSPORT_DEFAULTS.reconnectMs;
    this.handshakeTimeoutMs = options.handshakeTimeoutMs ?? TLS_TRANSPORT_DEFAULTS.handshakeTimeoutMs;
    this.keepAliveMs = options.keepAliveMs ?? TLS_TRANSPORT_DEFAULTS.keepAliveMs;
    this.idleTimeoutMs = options.idleTimeoutMs ?? TLS_TRANSPORT_DEFAULTS.idleTimeoutMs;
    this.maxInbound = options.maxInbound ?? TLS_TRANSPORT_DEFAULTS.maxInbound;
    this.maxPendingInbound = options.maxPendingInbound ?? TLS_TRANSPORT_DEFAULTS.maxPendingInbound;
    const positive = (name: string, value: number) => {
      if (!Number.isFinite(value) || value <= 0) throw new RangeError(`TlsTransport: ${name} must be a positive number (got ${String(value)})`);
    };
    positive('maxFrameBytes', this.maxFrameBytes);
    if (this.maxFrameBytes > 0xffffffff) throw new RangeError('TlsTransport: maxFrameBytes must fit the 4-byte length header');
    positive('sendQueueBytes', this.sendQueueBytes);
    positive('reconnectMs.min', this.reconnect.min);
    positive('reconnectMs.max', this.reconnect.max);
    if (this.reconnect.max < this.reconnect.min) throw new RangeError('TlsTransport: reconnectMs.max must be ≥ reconnectMs.min');
    positive('handshakeTimeoutMs', this.handshakeTimeoutMs);
    positive('keepAliveMs', this.keepAliveMs);
    positive('idleTimeoutMs', this.idleTimeoutMs);
    positive('maxInbound', this.maxInbound);
    positive('maxPendingInbound', this.maxPendingInbound);
    this.pending = new PendingHandshakes(this.maxPendingInbound, (socket, silent) =>
      this.limitedLog.write(
        'pending-full',
        'warning',
        `[P2P][Host] too many connections in their handshake, the oldest ${silent ? 'silent ' : ''}one closed,endpoint=${formatAddress(socket.remoteAddress ?? '?', socket.remotePort ?? 0)},limit=${this.maxPendingInbound},closed=${this.pending.evicted}`,
      ),
    );
    // one context for every outbound connection; the server builds its own from the same options
    // (tls.createServer ignores a `secureContext` option and would have no certificate)
    this.context = createSecureContext(this.tlsOptions());
    for (const peer of options.peers) this.addAddress(peer);
  }

  /** Checks the options and loads the certificates; opens no sockets. */
  static create(options: TlsTransportOptions): TlsTransport {
    return new TlsTransport(options);
  }

  /**
   * Listens, then dials every configured address. Rejects with a clear error if the listen
   * address cannot be bound (EADDRINUSE, EADDRNOTAVAIL, EACCES). Resolves to the bound address.
   */
  async start(): Promise<PeerAddress> {
    if (this.state !== 'new') throw new Error(`TlsTransport.start: the transport is ${this.state === 'closed' ? 'closed' : 'already started'}`);
    this.state = 'starting';
    const { host, port } = this.options.listen;
    const server = createServer({
      ...this.tlsOptions(),
      requestCert: true,
      // the certificate is checked in onSecure: with rejectUnauthorized Node closes a peer whose
      // certificate is not from the chain CA without any event, and that refusal could not be logged
      rejectUnauthorized: false,
      handshakeTimeout: this.handshakeTimeoutMs,
    });
    server.on('connection', (raw: Socket) => {
      this.rawInbound.add(raw);
      raw.on('error', () => undefined); // reported through tlsClientError / the TLS socket
      raw.once('close', () => this.rawInbound.delete(raw));
      if (this.state !== 'started') {
        raw.destroy();
        return;
      }
      this.pending.add(raw);
    });
    server.on('secureConnection', (socket: TLSSocket) => this.onInbound(socket));
    server.on('tlsClientError', (error: Error, socket: TLSSocket) => {
      const endpoint = formatAddress(socket.remoteAddress ?? '?', socket.remotePort ?? 0);
      socket.destroy();
      this.handshakeFailed('in', endpoint, socket.remoteAddress ?? '?', errorText(error));
    });
    this.server = server;
    this.listening = new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    try {
      await this.listening;
    } catch (error) {
      this.state = 'closed';
      this.server = undefined;
      const code = (error as NodeJS.ErrnoException).code;
      const why = code === 'EADDRINUSE' ? 'the address is already in use' : code === 'EADDRNOTAVAIL' ? 'no such local address' : code === 'EACCES' ? 'permission denied' : errorText(error);
      throw new Error(`cannot listen for p2p on ${formatAddress(host, port)}: ${why}${code && !why.includes(code) ? ` (${code})` : ''}`, { cause: error });
    }
    server.on('error', (error) => this.options.log('error', `[P2P][Host] listener error,error=${errorText(error)}`));
    const info = server.address() as AddressInfo;
    this.bound = { host, port: info.port };
    if (this.closing !== undefined) return this.bound; // close() was called meanwhile and closes the server
    this.state = 'started';
    this.options.log('info', `[P2P][Host] listening,endpoint=${formatAddress(host, info.port)}`);
    this.tick = setInterval(() => this.onTick(), this.keepAliveMs);
    for (const address of this.addresses.values()) {
      this.checkSelfAddress(address);
      this.schedule(address, 0);
    }
    return this.bound;
  }

  /** The address the listener is bound to (after start). */
  listenAddress(): PeerAddress | undefined {
    return this.bound;
  }

  /**
   * Replaces the configured peer addresses: new ones are dialled, removed ones are no longer
   * redialled (their connections stay). For a reload, or for tests whose ports are known only
   * after start().
   */
  setPeers(peers: ReadonlyArray<PeerAddress>): void {
    const keep = new Set(peers.map((p) => formatAddress(p.host, p.port)));
    for (const [key, address] of this.addresses) {
      if (keep.has(key)) continue;
      address.removed = true;
      if (address.timer !== undefined) clearTimeout(address.timer);
      address.timer = undefined;
      this.addresses.delete(key);
    }
    for (const peer of peers) {
      const address = this.addAddress(peer);
      if (address !== undefined && this.state === 'started') {
        this.checkSelfAddress(address);
        this.schedule(address, 0);
      }
    }
  }

  send(to: NodeId, payload: Uint8Array): void {
    if (this.state !== 'started') return;
    const link = this.peers.get(to);
    if (link === undefined) {
      this.dropped.notConnected++;
      return;
    }
    if (payload.length > this.maxFrameBytes) {
      this.dropped.tooLarge++;
      this.limitedLog.write(`too-large ${to}`, 'warning', `[P2P][Session] message over the frame limit dropped,nodeID=${to},size=${payload.length},limit=${this.maxFrameBytes}`);
      return;
    }
    const queued = link.socket.writableLength;
    if (queued > 0 && queued + 4 + payload.length > this.sendQueueBytes) {
      this.dropped.queueFull++;
      this.limitedLog.write(
        `queue-full ${to}`,
        'warning',
        `[P2P][Session] send queue full, message dropped,nodeID=${to},endpoint=${link.endpoint},queued=${queued},size=${payload.length},limit=${this.sendQueueBytes}`,
      );
      return;
    }
    this.framesOut++;
    this.bytesOut += payload.length;
    link.lastSent = Date.now();
    link.socket.write(encodeFrame(payload));
  }

  onReceive(handler: (from: NodeId, payload: Uint8Array) => void | Promise<void>): void {
    this.handler = handler;
  }

  connectedPeers(): NodeId[] {
    return [...this.peers.keys()].sort();
  }

  /** `ip:port` of a peer: the configured address it was reached at, else the connection's remote end. */
  peerAddress(nodeId: NodeId): string | undefined {
    return this.learned.get(nodeId) ?? this.peers.get(nodeId)?.endpoint;
  }

  stats(): TlsTransportStats {
    return {
      connectedPeers: this.peers.size,
      // inbound TLS sockets are counted through their TCP sockets
      sockets: [...this.links].filter((l) => l.direction === 'out').length + this.rawInbound.size,
      framesIn: this.framesIn,
      bytesIn: this.bytesIn,
      framesOut: this.framesOut,
      bytesOut: this.bytesOut,
      dropped: { ...this.dropped },
      dials: this.dials,
      connectsFailed: this.connectsFailed,
      handshakesFailed: this.handshakesFailed,
      handshakesRefused: this.handshakesRefused,
      malformedStreams: this.malformedStreams,
      pendingInbound: this.pending.size,
      pendingEvicted: this.pending.evicted,
      peersEvicted: this.peersEvicted,
      peersRefusedFull: this.peersRefusedFull,
      addresses: [...this.addresses.values()].map((a) => ({
        address: a.key,
        nodeId: a.nodeId,
        self: a.self,
        connected: this.addressConnected(a),
        dials: a.dials,
      })),
    };
  }

  /** Stops dialing, closes the listener and every socket; resolves when all are closed. Idempotent. */
  close(): Promise<void> {
    this.closing ??= this.closeAll();
    return this.closing;
  }

  private async closeAll(): Promise<void> {
    this.state = 'closed';
    if (this.tick !== undefined) clearInterval(this.tick);
    this.tick = undefined;
    for (const address of this.addresses.values()) {
      if (address.timer !== undefined) clearTimeout(address.timer);
      address.timer = undefined;
    }
    await this.listening?.catch(() => undefined);
    const server = this.server;
    const serverClosed = server === undefined || !server.listening ? Promise.resolve() : new Promise<void>((resolve) => server.close(() => resolve()));
    const links = [...this.links];
    for (const link of links) this.closeLink(link, 'transport closed', 'debug');
    for (const raw of this.rawInbound) raw.destroy();
    this.pending.clear();
    await Promise.all([serverClosed, ...links.map((l) => l.closedPromise)]);
    this.peers.clear();
  }

  private tlsOptions() {
    const { key, cert, ca } = this.options.tls;
    return { key, cert, ca, ecdhCurve: ECDH_CURVES, minVersion: 'TLSv1.2', maxVersion: 'TLSv1.2' } as const;
  }

  private addAddress(peer: PeerAddress): AddressState | undefined {
    if (typeof peer.host !== 'string' || peer.host === '' || !Number.isInteger(peer.port) || peer.port <= 0 || peer.port > 65535) {
      throw new RangeError(`TlsTransport: bad peer address ${JSON.stringify(peer)}`);
    }
    const key = formatAddress(peer.host, peer.port);
    if (this.addresses.has(key)) return undefined;
    const address: AddressState = {
      key,
      host: peer.host,
      port: peer.port,
      nodeId: undefined,
      self: false,
      dialing: undefined,
      timer: undefined,
      backoffMs: this.reconnect.min,
      dials: 0,
      removed: false,
    };
    this.addresses.set(key, address);
    return address;
  }

  /** The listen address itself is not dialled; other spellings of it are found by the id check. */
  private checkSelfAddress(address: AddressState): void {
    if (this.bound !== undefined && address.host === this.bound.host && address.port === this.bound.port) address.self = true;
  }

  private addressConnected(address: AddressState): boolean {
    return address.nodeId !== undefined && this.peers.has(address.nodeId);
  }

  private schedule(address: AddressState, delayMs: number): void {
    if (this.state !== 'started' || address.removed || address.self || address.dialing !== undefined || address.timer !== undefined) return;
    address.timer = setTimeout(() => {
      address.timer = undefined;
      this.dial(address);
    }, delayMs);
  }

  /** Schedules the next attempt with the address's back-off, which then doubles. */
  private redialLater(address: AddressState): void {
    const delay = Math.round(address.backoffMs * (0.75 + Math.random() * 0.5));
    address.backoffMs = Math.min(address.backoffMs * 2, this.reconnect.max);
    this.schedule(address, delay);
  }

  private dial(address: AddressState): void {
    if (this.state !== 'started' || address.removed || address.self || address.dialing !== undefined) return;
    if (this.addressConnected(address)) return; // redialled when that node disconnects
    this.dials++;
    address.dials++;
    let socket: TLSSocket;
    try {
      const local = this.options.listen.host;
      socket = connect({
        host: address.host,
        port: address.port,
        // from our own listen address, so a peer on a multi-address host sees which node dialled
        ...(local !== '0.0.0.0' && local !== '::' ? { localAddress: local } : {}),
        secureContext: this.context,
        rejectUnauthorized: true,
        // certificates name nodes, not hosts
        checkServerIdentity: () => undefined,
      });
    } catch (error) {
      this.connectsFailed++;
      this.limitedLog.write(`connect ${address.key}`, 'warning', `[P2P][Host] connect failed,endpoint=${address.key},reason=${errorText(error)}`);
      this.redialLater(address);
      return;
    }
    const link = new Link(socket, 'out', address.key, address, this.maxFrameBytes);
    address.dialing = link;
    this.track(link);
    socket.once('connect', () => (link.tcpConnected = true));
    link.handshakeTimer = setTimeout(() => {
      link.handshakeTimer = undefined;
      if (link.tcpConnected) this.handshakeFailed('out', address.key, address.key, `no TLS handshake within ${this.handshakeTimeoutMs} ms`);
      else this.connectFailed(address.key, `no TCP connection within ${this.handshakeTimeoutMs} ms`);
      this.closeLink(link, 'handshake timeout', undefined);
    }, this.handshakeTimeoutMs);
    socket.once('secureConnect', () => {
      clearTimeout(link.handshakeTimer);
      link.handshakeTimer = undefined;
      this.onSecure(link);
    });
  }

  private onInbound(socket: TLSSocket): void {
    const endpoint = formatAddress(socket.remoteAddress ?? '?', socket.remotePort ?? 0);
    this.pending.done(socket);
    const link = new Link(socket, 'in', endpoint, undefined, this.maxFrameBytes);
    this.track(link);
    if (this.state !== 'started') {
      this.closeLink(link, 'transport closed', undefined);
      return;
    }
    this.onSecure(link);
  }

  private track(link: Link): void {
    this.links.add(link);
    const socket = link.socket;
    socket.on('error', (error) => {
      if (!link.accepted && !link.closed && link.nodeId === undefined) {
        if (link.direction === 'out' && !link.tcpConnected) this.connectFailed(link.endpoint, errorText(error));
        else this.handshakeFailed(link.direction, link.endpoint, link.direction === 'in' ? (socket.remoteAddress ?? link.endpoint) : link.endpoint, errorText(error));
        this.closeLink(link, 'handshake failed', undefined);
        return;
      }
      this.closeLink(link, errorText(error), 'info');
    });
    socket.once('close', () => this.onClosed(link));
  }

  /** TLS is up: check the certificate, learn the node id, refuse or accept. */
  private onSecure(link: Link): void {
    const socket = link.socket;
    const limitKey = link.direction === 'in' ? (socket.remoteAddress ?? link.endpoint) : link.endpoint;
    if (!socket.authorized) {
      this.handshakeFailed(link.direction, link.endpoint, limitKey, `certificate not accepted: ${String(socket.authorizationError ?? 'unverified')}`);
      this.closeLink(link, 'certificate not accepted', undefined);
      return;
    }
    let id: NodeId | { error: string };
    try {
      id = this.options.identify(socket.getPeerCertificate(true));
    } catch (error) {
      id = { error: `identify failed: ${errorText(error)}` };
    }
    if (typeof id !== 'string') {
      this.refused(link, limitKey, undefined, id.error);
      return;
    }
    link.nodeId = id;
    if (id === this.options.selfId) {
      if (link.address !== undefined) {
        link.address.self = true;
        link.address.nodeId = id;
        this.limitedLog.write(`self ${link.endpoint}`, 'info', `[P2P][Host] the address is this node itself, not dialled again,endpoint=${link.endpoint}`);
      }
      this.handshakesRefused++;
      this.closeLink(link, 'self', undefined, true);
      return;
    }
    if (link.address !== undefined) {
      link.address.nodeId = id;
      this.learned.set(id, link.address.key);
    }
    let reason: string | undefined;
    try {
      reason = this.options.refuse?.(id);
    } catch (error) {
      reason = `refuse check failed: ${errorText(error)}`;
    }
    if (reason !== undefined) {
      this.refused(link, limitKey, id, reason);
      return;
    }
    if (link.direction === 'in' && !this.peers.has(id) && !this.roomForInbound(id)) {
      this.peersRefusedFull++;
      this.refused(link, limitKey, id, `${this.maxInbound} inbound peers already (max_nodes_limit)`);
      return;
    }
    this.accept(link, id);
  }

  private isPreferred(id: NodeId): boolean {
    for (const address of this.addresses.values()) if (address.nodeId === id) return true;
    try {
      return this.options.preferred?.(id) === true;
    } catch {
      return false;
    }
  }

  /** Whether an inbound peer `id` may join: under the bound, or preferred (then the oldest inbound stranger makes room). */
  private roomForInbound(id: NodeId): boolean {
    const inbound = [...this.peers.values()].filter((l) => l.direction === 'in');
    if (inbound.length < this.maxInbound) return true;
    if (!this.isPreferred(id)) return false;
    const stranger = inbound.filter((l) => !this.isPreferred(l.nodeId!)).sort((x, y) => x.acceptedAt - y.acceptedAt)[0];
    if (stranger !== undefined) {
      this.peersEvicted++;
      this.closeLink(stranger, `room made for a preferred peer ${id.slice(0, 16)}…`, 'info');
    }
    return true;
  }

  private refused(link: Link, limitKey: string, id: NodeId | undefined, reason: string): void {
    this.handshakesRefused++;
    this.limitedLog.write(
      `refused ${reason} ${limitKey}`,
      'warning',
      `[P2P][Host] connection refused,endpoint=${link.endpoint}${id === undefined ? '' : `,nodeID=${id}`},reason=${reason}`,
    );
    this.closeLink(link, 'refused', undefined, true);
  }

  private accept(link: Link, id: NodeId): void {
    const socket = link.socket;
    socket.setNoDelay(true);
    link.accepted = true;
    link.acceptedAt = link.lastReceived = link.lastSent = Date.now();
    const existing = this.peers.get(id);
    if (existing !== undefined) {
      // same direction: the newer connection replaces the older (the peer restarted, the old one
      // is half-open); crossing dials: both sides keep the one dialed by the smaller node id
      const dialer = (l: Link) => (l.direction === 'out' ? this.options.selfId : id);
      const keepNew = existing.direction === link.direction || dialer(link) < dialer(existing);
      const loser = keepNew ? existing : link;
      if (keepNew) this.peers.set(id, link);
      loser.retiring = true;
      loser.retiredAt = Date.now();
      this.options.log('debug', `[P2P][Service] duplicate connection closed,nodeID=${id},kept=${(keepNew ? link : existing).endpoint},closed=${loser.endpoint}`);
      loser.socket.end();
    } else {
      this.peers.set(id, link);
      this.options.log('info', `[P2P][Service] connection established,nodeID=${id},endpoint=${link.endpoint},direction=${link.direction}`);
    }
    socket.on('data', (chunk: Buffer) => this.onData(link, chunk));
  }

  private onData(link: Link, chunk: Buffer): void {
    if (link.closed) return;
    link.lastReceived = Date.now();
    const malformed = link.decoder.push(chunk, (payload) => {
      if (link.closed || link.socket.destroyed || payload.length === 0) return;
      this.framesIn++;
      this.bytesIn += payload.length;
      this.deliver(link.nodeId!, payload);
    });
    if (malformed !== undefined) {
      this.malformedStreams++;
      this.limitedLog.write(`malformed ${link.nodeId}`, 'warning', `[P2P][Session] malformed stream, connection closed,nodeID=${link.nodeId},endpoint=${link.endpoint},reason=${malformed}`);
      this.closeLink(link, malformed, undefined);
    }
  }

  private deliver(from: NodeId, payload: Uint8Array): void {
    const handler = this.handler;
    if (handler === undefined) {
      this.dropped.noHandler++;
      return;
    }
    try {
      const result = handler(from, payload);
      if (result !== undefined && typeof (result as PromiseLike<void>)?.then === 'function') {
        (result as Promise<void>).then(undefined, (error: unknown) => this.handlerFailed(error, from));
      }
    } catch (error) {
      this.handlerFailed(error, from);
    }
  }

  private handlerFailed(error: unknown, from: NodeId): void {
    if (this.options.onHandlerError !== undefined) {
      try {
        this.options.onHandlerError(error, from);
        return;
      } catch (again) {
        error = again;
      }
    }
    this.limitedLog.write(`handler ${errorText(error)}`, 'error', `[P2P][Service] message handler failed,nodeID=${from},error=${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  }

  /** Takes the link out of the peer map if it is the node's connection there. */
  private detach(link: Link): boolean {
    if (link.nodeId === undefined || this.peers.get(link.nodeId) !== link) return false;
    this.peers.delete(link.nodeId);
    link.detachedAsPeer = true;
    return true;
  }

  /**
   * Destroys the socket; `level` logs the disconnect of the node's connection (undefined: the
   * caller logged). `graceful` ends it instead, after what TLS still has to send: a refused peer
   * then completes its handshake and learns whom it reached (so a node that dialled itself sees
   * its own id), and gets a close right after, no data.
   */
  private closeLink(link: Link, reason: string, level: LogLevel | undefined, graceful = false): void {
    if (link.closed || link.socket.destroyed) return;
    if (this.detach(link) && level !== undefined) {
      this.options.log(level, `[P2P][Service] disconnected,nodeID=${link.nodeId},endpoint=${link.endpoint},reason=${reason}`);
    }
    if (graceful && !link.retiring) {
      link.retiring = true;
      link.retiredAt = Date.now();
      link.socket.resume(); // discard whatever the peer sends, so the close completes
      link.socket.end();
      return;
    }
    link.socket.destroy();
  }

  private onClosed(link: Link): void {
    if (link.closed) return;
    if (link.handshakeTimer !== undefined) clearTimeout(link.handshakeTimer);
    link.handshakeTimer = undefined;
    this.links.delete(link);
    if (this.detach(link) && this.state === 'started') {
      this.options.log('info', `[P2P][Service] disconnected,nodeID=${link.nodeId},endpoint=${link.endpoint},reason=closed by peer`);
    }
    const wasPeer = link.detachedAsPeer;
    link.markClosed();
    if (this.state !== 'started') return;
    const address = link.address;
    if (address !== undefined && address.dialing === link) {
      address.dialing = undefined;
      if (link.accepted && Date.now() - link.acceptedAt >= this.reconnect.max) address.backoffMs = this.reconnect.min;
      if (!this.addressConnected(address)) this.redialLater(address);
    }
    if (wasPeer) {
      // the node may have been reached through another link, or through an address it dialled us from
      for (const other of this.addresses.values()) {
        if (other.nodeId === link.nodeId && other !== address && !this.addressConnected(other)) this.redialLater(other);
      }
    }
  }

  private connectFailed(endpoint: string, reason: string): void {
    this.connectsFailed++;
    this.limitedLog.write(`connect ${endpoint}`, 'info', `[P2P][Host] connect failed,endpoint=${endpoint},reason=${reason}`);
  }

  private handshakeFailed(direction: Direction, endpoint: string, limitKey: string, reason: string): void {
    this.handshakesFailed++;
    this.limitedLog.write(`handshake ${direction} ${limitKey} ${reason.replace(/\d+/g, '#')}`, 'warning', `[P2P][Host] handshake failed,endpoint=${endpoint},direction=${direction},reason=${reason}`);
  }

  private onTick(): void {
    const now = Date.now();
    for (const link of this.links) {
      // a duplicate or refused connection we ended gracefully and the peer did not close
      if (link.retiring && now - link.retiredAt > this.keepAliveMs) this.closeLink(link, 'not closed by the peer', undefined);
    }
    for (const link of this.peers.values()) {
      if (now - link.lastReceived > this.idleTimeoutMs) {
        this.closeLink(link, `nothing received for ${this.idleTimeoutMs} ms`, 'warning');
        continue;
      }
      if (now - link.lastSent >= this.keepAliveMs && link.socket.writableLength === 0) {
        link.lastSent = now;
        link.socket.write(PING);
      }
    }
  }
}
