// The p2p transport's options, defaults and statistics (tls-transport.ts).
import type { DetailedPeerCertificate } from 'node:tls';
import type { LogLevel, NodeId } from '../env.js';

/** Limits and defaults of the p2p transport. */
export const TLS_TRANSPORT_DEFAULTS = {
  /** FISCO's largest p2p message. */
  maxFrameBytes: 100 * 1024 * 1024,
  sendQueueBytes: 64 * 1024 * 1024,
  reconnectMs: { min: 500, max: 10_000 },
  /** Short: a peer sends its ClientHello at once and the handshake takes milliseconds; a connection that does not is a stranger's. */
  handshakeTimeoutMs: 3_000,
  keepAliveMs: 5_000,
  idleTimeoutMs: 30_000,
  /** Authenticated inbound peers at once (FISCO's max_nodes_limit of 100, with room for crossing dials). */
  maxInbound: 200,
  /** Inbound connections still in their TCP or TLS handshake, a bound of their own. */
  maxPendingInbound: 512,
} as const;

export interface PeerAddress {
  readonly host: string;
  readonly port: number;
}

export interface TlsTransportOptions {
  /** Port 0 picks a free port; `start()` returns the bound address. */
  readonly listen: PeerAddress;
  /** Every configured peer address (config.ini node.N); may include this node's own address. */
  readonly peers: ReadonlyArray<PeerAddress>;
  /** PEM: the node key, its certificate (the chain up to the CA may follow it), the chain CA. */
  readonly tls: { readonly key: string | Buffer; readonly cert: string | Buffer; readonly ca: string | Buffer };
  readonly selfId: NodeId;
  /** The node id a peer certificate proves (ECDSA chains: its public key, 128 hex without 04; SM chains: a SAN URI); or an error text. */
  readonly identify: (cert: DetailedPeerCertificate) => NodeId | { error: string };
  /** A reason to refuse a node id (blacklist / whitelist), or undefined to accept. */
  readonly refuse?: (nodeId: NodeId) => string | undefined;
  /** Largest payload accepted; a bigger announced frame closes that connection. Default 100 MiB (FISCO's limit). */
  readonly maxFrameBytes?: number;
  /**
   * Per-peer bound on bytes written but not yet taken by the socket (default 64 MiB): a message
   * that would go over it is dropped and counted. A message is never dropped for this when the
   * queue is empty, so one frame larger than the bound still goes out.
   */
  readonly sendQueueBytes?: number;
  /** Redial back-off per address: `min` doubling to `max`, ±25 % jitter; back to `min` after a connection that lasted `max`. Default 500..10000. */
  readonly reconnectMs?: { readonly min: number; readonly max: number };
  /** TCP connect plus TLS handshake must finish within this, in both directions. Default 3 s. */
  readonly handshakeTimeoutMs?: number;
  /**
   * Authenticated inbound peers at once (default 200). Past it a newcomer is refused, unless it is
   * a preferred peer: then the oldest inbound peer that is not preferred makes room for it.
   */
  readonly maxInbound?: number;
  /**
   * Inbound connections not yet authenticated (TCP accepted, TLS handshake not done) at once,
   * counted apart from the peers (default 512). Past it the oldest that has sent nothing yet (a
   * peer sends its ClientHello at once) is closed, or failing that the oldest, so a flood of idle
   * connections never keeps a peer's handshake out.
   */
  readonly maxPendingInbound?: number;
  /**
   * Node ids never starved by strangers (the members of this node's groups): past `maxInbound`
   * they still get in. Nodes reached at a configured address are preferred too.
   */
  readonly preferred?: (nodeId: NodeId) => boolean;
  /** A zero-length frame is sent on each connection this often (default 5 s). */
  readonly keepAliveMs?: number;
  /** A connection on which nothing arrived for this long is closed (default 30 s; half-open TCP). */
  readonly idleTimeoutMs?: number;
  /** FISCO-style text, e.g. `[P2P][Host] handshake failed,endpoint=127.0.0.1:5555,reason=...`. */
  readonly log: (level: LogLevel, message: string) => void;
  /** A message handler threw or rejected; default: logged at error level. */
  readonly onHandlerError?: (error: unknown, from: NodeId) => void;
}

export interface TlsTransportStats {
  /** Peers with a working connection (connectedPeers().length). */
  readonly connectedPeers: number;
  /** Sockets open now: working connections plus ones in handshake or being closed. */
  readonly sockets: number;
  /** Messages (non-empty frames) and their payload bytes. */
  readonly framesIn: number;
  readonly bytesIn: number;
  readonly framesOut: number;
  readonly bytesOut: number;
  readonly dropped: {
    /** send() to a peer not connected. */
    readonly notConnected: number;
    /** The peer's send queue was over `sendQueueBytes`. */
    readonly queueFull: number;
    /** The payload is over `maxFrameBytes` (the peer would cut the connection). */
    readonly tooLarge: number;
    /** Received before onReceive set a handler. */
    readonly noHandler: number;
  };
  /** Outbound connection attempts. */
  readonly dials: number;
  /** Outbound TCP connections that failed (refused, unreachable, timed out before TCP connected). */
  readonly connectsFailed: number;
  /** TLS-level failures: certificate not from the chain CA, no certificate, timeout, not TLS at all. */
  readonly handshakesFailed: number;
  /** Verified certificates refused: our own id, `refuse`, `identify` errors. */
  readonly handshakesRefused: number;
  /** Connections cut for a malformed stream (a frame over the limit). */
  readonly malformedStreams: number;
  /** Inbound connections in their handshake now. */
  readonly pendingInbound: number;
  /** Inbound handshakes closed to make room past `maxPendingInbound`. */
  readonly pendingEvicted: number;
  /** Authenticated inbound peers closed to make room for a preferred one, and ones refused past `maxInbound`. */
  readonly peersEvicted: number;
  readonly peersRefusedFull: number;
  readonly addresses: ReadonlyArray<{
    readonly address: string;
    /** The node last reached at this address. */
    readonly nodeId: NodeId | undefined;
    /** This node's own address: never dialled. */
    readonly self: boolean;
    readonly connected: boolean;
    readonly dials: number;
  }>;
}
