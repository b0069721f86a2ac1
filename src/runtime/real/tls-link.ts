// One TLS connection of the p2p transport and the configured address it was dialled for (tls-transport.ts).
import type { TLSSocket } from 'node:tls';
import type { NodeId } from '../env.js';
import { FrameDecoder } from './frame-decoder.js';

export type Direction = 'in' | 'out';

export interface AddressState {
  readonly key: string;
  readonly host: string;
  readonly port: number;
  nodeId: NodeId | undefined;
  self: boolean;
  dialing: Link | undefined;
  timer: ReturnType<typeof setTimeout> | undefined;
  backoffMs: number;
  dials: number;
  removed: boolean;
}

export class Link {
  nodeId: NodeId | undefined;
  /** Authenticated and accepted: frames flow. */
  accepted = false;
  acceptedAt = 0;
  /** Lost a duplicate-connection contest: no longer used for sending, read until it closes. */
  retiring = false;
  retiredAt = 0;
  /** Was the node's connection until closeLink took it out of the peer map. */
  detachedAsPeer = false;
  /** TCP connected (outbound), so a failure is a TLS one rather than an unreachable address. */
  tcpConnected = false;
  closed = false;
  lastReceived: number;
  lastSent: number;
  handshakeTimer: ReturnType<typeof setTimeout> | undefined;
  readonly decoder: FrameDecoder;
  readonly closedPromise: Promise<void>;
  private resolveClosed!: () => void;

  constructor(
    readonly socket: TLSSocket,
    readonly direction: Direction,
    readonly endpoint: string,
    readonly address: AddressState | undefined,
    maxFrameBytes: number,
  ) {
    this.decoder = new FrameDecoder(maxFrameBytes);
    this.lastReceived = this.lastSent = Date.now();
    this.closedPromise = new Promise((resolve) => (this.resolveClosed = resolve));
  }

  markClosed(): void {
    this.closed = true;
    this.resolveClosed();
  }
}

/** A zero-length frame: the keep-alive. */
export const PING = Buffer.alloc(4);

export function formatAddress(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

export function errorText(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    // OpenSSL errors carry a readable `reason` ("http request", "wrong version number"); their message is a raw error stack
    const reason = (error as { reason?: unknown }).reason;
    const message = typeof reason === 'string' && reason !== '' ? reason : error.message.split('\n')[0]!.trim();
    return code && !message.includes(code) ? `${code}: ${message}` : message;
  }
  return String(error);
}

