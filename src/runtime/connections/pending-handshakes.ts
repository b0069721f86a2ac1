import type { Socket } from 'node:net';

/**
 * Inbound TCP connections of a TLS server whose handshake is not done yet, with a bound of their
 * own. Past it the oldest connection that has sent nothing is closed (a real client sends its
 * ClientHello the moment it connects; a stranger holding connections open sends nothing), or,
 * when every one has sent something, the oldest. So a flood of idle connections never keeps a
 * client's handshake out; only their count, not their age, decides, and the short handshake
 * deadline (the server's `handshakeTimeout`) closes the rest.
 */
export class PendingHandshakes {
  /** By remote endpoint (the TLS socket made of a raw one has the same), oldest first. */
  private readonly pending = new Map<string, Socket>();
  private evictedCount = 0;

  constructor(
    private readonly max: number,
    /** Told of each connection closed to make room, and whether it had sent anything. */
    private readonly onEvict: (socket: Socket, silent: boolean) => void = () => undefined,
  ) {
    if (!Number.isInteger(max) || max <= 0) throw new RangeError(`PendingHandshakes: the bound must be a positive integer (got ${String(max)})`);
  }

  /** A connection just accepted (the server's 'connection' event); it leaves when it closes or `done` says so. */
  add(socket: Socket): void {
    const key = endpointKey(socket);
    this.pending.set(key, socket);
    socket.once('close', () => {
      if (this.pending.get(key) === socket) this.pending.delete(key);
    });
    if (this.pending.size > this.max) this.evict();
  }

  /** The handshake of the connection from this endpoint is done (whether or not its certificate was then accepted). */
  done(socket: { readonly remoteAddress?: string | undefined; readonly remotePort?: number | undefined }): void {
    this.pending.delete(endpointKey(socket));
  }

  get size(): number {
    return this.pending.size;
  }

  /** Connections closed to make room so far. */
  get evicted(): number {
    return this.evictedCount;
  }

  clear(): void {
    this.pending.clear();
  }

  private evict(): void {
    let victim: [string, Socket] | undefined;
    for (const entry of this.pending) {
      if (entry[1].bytesRead === 0) {
        victim = entry;
        break;
      }
      victim ??= entry;
    }
    if (victim === undefined) return;
    const [key, socket] = victim;
    this.pending.delete(key);
    this.evictedCount++;
    this.onEvict(socket, socket.bytesRead === 0);
    socket.destroy();
  }
}

function endpointKey(socket: { readonly remoteAddress?: string | undefined; readonly remotePort?: number | undefined }): string {
  return `${socket.remoteAddress ?? '?'}|${socket.remotePort ?? 0}`;
}
