// The SDK side of FISCO's channel protocol, as the console uses it: one TLS 1.2 connection with
// a client certificate, a v1–3 handshake, JSON-RPC requests matched to replies by seq, the
// 0x1000 receipt pushed on a transaction's seq, topic pushes, and a heartbeat.
import { randomUUID } from 'node:crypto';
import tls from 'node:tls';
import { ChannelFrameError, ChannelResult, ChannelType, FrameDecoder, encodeFrame, frameText, type ChannelFrame } from './channel-frame.js';
import { MAX_PROTOCOL, MIN_PROTOCOL } from './channel-session.js';

export type ChannelClientErrorKind = 'connect' | 'tls' | 'timeout' | 'closed' | 'protocol' | 'rpc';

/** Why a channel request failed, in words a person can act on. */
export class ChannelClientError extends Error {
  constructor(
    readonly kind: ChannelClientErrorKind,
    message: string,
    /** For kind 'rpc': the JSON-RPC error code. */
    readonly code?: number,
  ) {
    super(message);
    this.name = 'ChannelClientError';
  }
}

export interface ChannelClientOptions {
  host: string;
  port: number;
  /** PEM texts: the CA the node's certificate must chain to, and this client's certificate and key. */
  tls: { ca: string | Buffer; cert: string | Buffer; key: string | Buffer };
  clientType?: string;
  /** Longest wait for the connection and handshake, and for each reply (default 10 s). */
  timeoutMs?: number;
  /** Heartbeat period (default 10 s); 0 sends none. */
  heartbeatMs?: number;
}

interface Waiter {
  resolve(frame: ChannelFrame): void;
  reject(error: Error): void;
  timer?: NodeJS.Timeout;
}

/** A new 32-character seq (a UUID's hex digits, as the Java and Python SDKs make them). */
export function newSeq(): string {
  return randomUUID().replaceAll('-', '');
}

const TLS_REASONS: Array<[RegExp, string]> = [
  [/unknown ca|bad certificate|certificate unknown|handshake failure|ECONNRESET|socket hang up/i, 'the node refused this client certificate (it must be issued by the node\'s CA, e.g. the sdk/ files build-chain wrote)'],
  [/unable to (get|verify)|self[- ]signed|UNABLE_TO|DEPTH_ZERO|certificate signature failure/i, 'the node\'s certificate does not chain to the configured CA certificate (ca.crt)'],
  [/certificate has expired|CERT_HAS_EXPIRED/i, 'a certificate has expired'],
  [/wrong version number|unsupported protocol|packet length too long/i, 'the port does not speak TLS 1.2 (is it the JSON-RPC port rather than the channel port?)'],
];

function describeTlsFailure(error: Error & { code?: string }): string {
  const text = `${error.code ?? ''} ${error.message}`;
  for (const [pattern, reason] of TLS_REASONS) if (pattern.test(text)) return `${reason} (${error.code ?? error.message.trim()})`;
  return error.message.trim();
}

export class ChannelClient {
  /** Negotiated protocol version and the node's supported_version from the handshake. */
  protocolVersion = MIN_PROTOCOL;
  nodeVersion = '';
  private readonly decoder = new FrameDecoder();
  private readonly replies = new Map<string, Waiter>();
  private readonly receipts = new Map<string, Waiter>();
  private readonly pushHandlers = new Map<number, Array<(frame: ChannelFrame) => void>>();
  private heartbeat: NodeJS.Timeout | undefined;
  private closedWith: ChannelClientError | undefined;
  private nextId = 1;

  private constructor(
    private readonly socket: tls.TLSSocket,
    readonly address: string,
    private readonly timeoutMs: number,
  ) {
    socket.on('data', (chunk: Buffer) => this.receive(chunk));
    socket.on('error', (error) => this.fail(new ChannelClientError('closed', `connection to ${address} failed: ${error.message}`)));
    socket.on('close', () => this.fail(new ChannelClientError('closed', `the node at ${address} closed the connection`)));
  }

  /** Connects, verifies the node against the CA, and shakes hands (protocol up to v3). */
  static async connect(options: ChannelClientOptions): Promise<ChannelClient> {
    const address = `${options.host}:${options.port}`;
    const timeoutMs = options.timeoutMs ?? 10_000;
    const socket = await new Promise<tls.TLSSocket>((resolve, reject) => {
      let settled = false;
      const socket = tls.connect({
        host: options.host,
        port: options.port,
        ca: options.tls.ca,
        cert: options.tls.cert,
        key: options.tls.key,
        minVersion: 'TLSv1.2',
        maxVersion: 'TLSv1.2',
        ecdhCurve: 'secp256k1:X25519:prime256v1',
        // FISCO node certificates name the node (CN=node0), not its address; the chain to the CA is what counts
        checkServerIdentity: () => undefined,
      });
      const timer = setTimeout(() => finish(new ChannelClientError('timeout', `no TLS handshake with ${address} within ${timeoutMs} ms`)), timeoutMs);
      const finish = (error?: Error) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (error) {
          socket.destroy();
          reject(error);
        } else resolve(socket);
      };
      socket.once('secureConnect', () => {
        // TLS 1.2 reports a refused client certificate only on the first read; an authorized
        // server certificate is all secureConnect proves.
        if (!socket.authorized) finish(new ChannelClientError('tls', `TLS with ${address}: ${describeTlsFailure(new Error(String(socket.authorizationError)))}`));
        else finish();
      });
      socket.once('error', (error: NodeJS.ErrnoException) => {
        if (error.code === 'ECONNREFUSED') finish(new ChannelClientError('connect', `cannot connect to ${address}: connection refused (is the node running, and is this its channel port?)`));
        else if (error.code === 'ENOTFOUND' || error.code === 'EAI_AGAIN') finish(new ChannelClientError('connect', `cannot connect to ${address}: unknown host`));
        else if (error.code === 'ETIMEDOUT' || error.code === 'EHOSTUNREACH' || error.code === 'ENETUNREACH') finish(new ChannelClientError('connect', `cannot connect to ${address}: ${error.code}`));
        else finish(new ChannelClientError('tls', `TLS with ${address}: ${describeTlsFailure(error)}`));
      });
    });
    const client = new ChannelClient(socket, address, timeoutMs);
    try {
      await client.handshake(options.clientType ?? 'twinchain');
    } catch (error) {
      client.close();
      const e = error as ChannelClientError;
      if (e.kind === 'closed') throw new ChannelClientError('tls', `TLS with ${address}: ${describeTlsFailure(e as Error & { code?: string })}`);
      throw error;
    }
    const period = options.heartbeatMs ?? 10_000;
    if (period > 0) {
      client.heartbeat = setInterval(() => {
        if (!client.closedWith) client.write({ type: ChannelType.HEARTBEAT, seq: newSeq(), result: 0, data: Buffer.from(client.protocolVersion >= 2 ? '{"heartBeat":0}' : '0') });
      }, period);
      client.heartbeat.unref();
    }
    return client;
  }

  private async handshake(clientType: string): Promise<void> {
    const body = JSON.stringify({ minimumSupport: MIN_PROTOCOL, maximumSupport: MAX_PROTOCOL, clientType });
    const reply = await this.exchange(ChannelType.HANDSHAKE, body);
    let answer: { protocol?: unknown; nodeVersion?: unknown };
    try {
      answer = JSON.parse(frameText(reply)) as typeof answer;
    } catch {
      throw new ChannelClientError('protocol', `the node at ${this.address} answered the handshake with something that is not JSON`);
    }
    if (typeof answer.protocol !== 'number' || answer.protocol < MIN_PROTOCOL || answer.protocol > MAX_PROTOCOL) {
      throw new ChannelClientError('protocol', `the node at ${this.address} chose protocol ${String(answer.protocol)}, outside ${MIN_PROTOCOL}..${MAX_PROTOCOL}`);
    }
    this.protocolVersion = answer.protocol;
    this.nodeVersion = typeof answer.nodeVersion === 'string' ? answer.nodeVersion : '';
  }

  /** Sends one frame and waits for the frame on its seq. */
  exchange(type: number, data: string | Uint8Array, seq: string = newSeq()): Promise<ChannelFrame> {
    if (this.closedWith) return Promise.reject(this.closedWith);
    return new Promise<ChannelFrame>((resolve, reject) => {
      const waiter: Waiter = { resolve, reject };
      waiter.timer = setTimeout(() => {
        this.replies.delete(seq);
        reject(new ChannelClientError('timeout', `no answer from ${this.address} within ${this.timeoutMs} ms`));
      }, this.timeoutMs);
      this.replies.set(seq, waiter);
      this.write({ type, seq, result: 0, data: typeof data === 'string' ? Buffer.from(data, 'utf8') : data });
    });
  }

  /** One JSON-RPC call; resolves with its result, rejects with the node's error. */
  async call<T = unknown>(method: string, params: unknown[]): Promise<T> {
    const frame = await this.exchange(ChannelType.RPC, JSON.stringify({ jsonrpc: '2.0', method, params, id: this.nextId++ }));
    return this.rpcResult<T>(method, frame);
  }

  /**
   * sendRawTransaction over the channel: resolves with the hash from the 0x12 reply and a
   * promise of the receipt the node pushes (0x1000) on the same seq once the block commits.
   */
  async sendRawTransaction(groupId: number, raw: string, receiptTimeoutMs = 60_000): Promise<{ hash: string; receipt: Promise<Record<string, unknown>> }> {
    const seq = newSeq();
    let resolveReceipt!: (frame: ChannelFrame) => void;
    let rejectReceipt!: (error: Error) => void;
    const pushed = new Promise<ChannelFrame>((resolve, reject) => {
      resolveReceipt = resolve;
      rejectReceipt = reject;
    });
    // registered before sending: a fast block could push the receipt right behind the reply
    const waiter: Waiter = { resolve: resolveReceipt, reject: rejectReceipt };
    this.receipts.set(seq, waiter);
    let hash: string;
    try {
      const frame = await this.exchange(ChannelType.RPC, JSON.stringify({ jsonrpc: '2.0', method: 'sendRawTransaction', params: [groupId, raw], id: this.nextId++ }), seq);
      hash = this.rpcResult<string>('sendRawTransaction', frame);
    } catch (error) {
      this.receipts.delete(seq);
      throw error;
    }
    waiter.timer = setTimeout(() => {
      this.receipts.delete(seq);
      rejectReceipt(new ChannelClientError('timeout', `no receipt for ${hash} within ${receiptTimeoutMs} ms (is the chain producing blocks?)`));
    }, receiptTimeoutMs);
    const receipt = pushed.then((frame) => {
      try {
        return JSON.parse(frameText(frame)) as Record<string, unknown>;
      } catch {
        throw new ChannelClientError('protocol', `the receipt pushed for ${hash} is not JSON`);
      }
    });
    receipt.catch(() => {}); // a caller that never waits for the receipt must not see an unhandled rejection
    return { hash, receipt };
  }

  /** Subscribes to topics (0x32); pushes arrive through onPush. */
  subscribe(topics: string[]): void {
    this.write({ type: ChannelType.SUBSCRIBE_TOPICS, seq: newSeq(), result: 0, data: Buffer.from(JSON.stringify(topics), 'utf8') });
  }

  /** Frames of `type` that answer no request of this client (block notify, event-log pushes). */
  onPush(type: number, handler: (frame: ChannelFrame) => void): void {
    const list = this.pushHandlers.get(type) ?? [];
    list.push(handler);
    this.pushHandlers.set(type, list);
  }

  get isOpen(): boolean {
    return this.closedWith === undefined;
  }

  close(): void {
    this.fail(new ChannelClientError('closed', `the connection to ${this.address} was closed`));
    this.socket.destroy();
  }

  private rpcResult<T>(method: string, frame: ChannelFrame): T {
    if (frame.result !== ChannelResult.OK) {
      throw new ChannelClientError('protocol', `${method}: the node answered with channel result ${frame.result}`);
    }
    let reply: { result?: unknown; error?: { code?: number; message?: string } };
    try {
      reply = JSON.parse(frameText(frame)) as typeof reply;
    } catch {
      throw new ChannelClientError('protocol', `${method}: the node's answer is not JSON`);
    }
    if (reply.error) {
      throw new ChannelClientError('rpc', `${method}: ${reply.error.message ?? 'error'} (code ${reply.error.code ?? '?'})`, reply.error.code);
    }
    return reply.result as T;
  }

  private write(frame: ChannelFrame): void {
    if (this.closedWith || this.socket.destroyed) return;
    this.socket.write(encodeFrame(frame));
  }

  private receive(chunk: Buffer): void {
    let frames: ChannelFrame[];
    try {
      frames = this.decoder.push(chunk);
    } catch (error) {
      if (!(error instanceof ChannelFrameError)) throw error;
      this.fail(new ChannelClientError('protocol', `the node at ${this.address} sent a malformed frame: ${error.message}`));
      this.socket.destroy();
      return;
    }
    for (const frame of frames) this.dispatch(frame);
  }

  private dispatch(frame: ChannelFrame): void {
    // a receipt push (0x1000) reuses its transaction's seq after the reply did
    const table = frame.type === ChannelType.TX_RECEIPT_NOTIFY ? this.receipts : this.replies;
    const waiter = table.get(frame.seq);
    if (waiter) {
      table.delete(frame.seq);
      clearTimeout(waiter.timer);
      waiter.resolve(frame);
      return;
    }
    for (const handler of this.pushHandlers.get(frame.type) ?? []) handler(frame);
  }

  private fail(error: ChannelClientError): void {
    if (this.closedWith) return;
    this.closedWith = error;
    clearInterval(this.heartbeat);
    for (const table of [this.replies, this.receipts]) {
      for (const waiter of table.values()) {
        clearTimeout(waiter.timer);
        waiter.reject(error);
      }
      table.clear();
    }
  }
}
