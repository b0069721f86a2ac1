// Per-connection state of FISCO's channel protocol (fisco notes §7), without I/O: bytes go in
// through `feed`, frames come out through the injected `send`, and `close` ends the connection.
import {
  ChannelFrameError,
  ChannelResult,
  ChannelType,
  FrameDecoder,
  DEFAULT_MAX_FRAME,
  frameText,
  type ChannelFrame,
} from './channel-frame.js';

/** Protocol versions this node speaks (FISCO 2.x: 1 to 3). */
export const MIN_PROTOCOL = 1;
export const MAX_PROTOCOL = 3;

/** The heartbeat answer under protocol v2+: jsoncpp FastWriter output, newline included. */
export const HEARTBEAT_V2_REPLY = '{"heartBeat":1}\n';

/** What a session needs from the JSON-RPC layer (RpcService.handle fits). */
export interface ChannelRpcHandler {
  handle(body: string): Promise<string>;
}

export interface ChannelSessionOptions {
  service: ChannelRpcHandler;
  /** The node's `supported_version`, sent back in the handshake as nodeVersion. */
  supportedVersion: string;
  /** Writes one frame to the connection. */
  send(frame: ChannelFrame): void;
  /** Ends the connection (called once). */
  close(reason: string): void;
  log?: (message: string) => void;
  maxFrame?: number;
  /** What the node pushes beyond block notify (ChannelPushes fits); without it 0x15/0x16 get an error reply. */
  pushes?: SessionPushHooks;
}

/** The session's side of receipt and event-log pushes. */
export interface SessionPushHooks {
  /** A 0x12 request on `seq` got `answer` (sent already). */
  rpcAnswered(session: ChannelSession, seq: string, request: string, answer: string): void;
  /** A 0x15 register or 0x16 unregister frame: the hook replies on its seq. */
  eventLogRequest(session: ChannelSession, frame: ChannelFrame): Promise<void>;
}

const EMPTY = new Uint8Array(0);

function text(value: string): Uint8Array {
  return Buffer.from(value, 'utf8');
}

export class ChannelSession {
  /** Negotiated protocol version; 1 until a handshake says otherwise. */
  protocolVersion = MIN_PROTOCOL;
  clientType: string | undefined;
  /** Topics subscribed with 0x32 (the last subscription replaces the earlier one, as in FISCO). */
  topics = new Set<string>();
  private closed = false;
  private readonly decoder: FrameDecoder;
  private readonly log: (message: string) => void;

  constructor(private readonly options: ChannelSessionOptions) {
    this.decoder = new FrameDecoder(options.maxFrame ?? DEFAULT_MAX_FRAME);
    this.log = options.log ?? (() => {});
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Bytes from the socket. A malformed frame closes this session. */
  feed(chunk: Uint8Array): void {
    if (this.closed) return;
    let frames: ChannelFrame[];
    try {
      frames = this.decoder.push(chunk);
    } catch (error) {
      if (!(error instanceof ChannelFrameError)) throw error;
      this.close(`malformed frame: ${error.message}`);
      return;
    }
    for (const frame of frames) {
      if (this.closed) return;
      void this.receive(frame);
    }
  }

  /** Sends a frame unless the session is closed; returns whether it was sent. */
  send(frame: ChannelFrame): boolean {
    if (this.closed) return false;
    this.options.send(frame);
    return true;
  }

  close(reason: string): void {
    if (this.closed) return;
    this.closed = true;
    this.log(`channel session closed: ${reason}`);
    this.options.close(reason);
  }

  /** Handles one decoded frame. Never throws: problems become error replies or a close. */
  async receive(frame: ChannelFrame): Promise<void> {
    try {
      switch (frame.type) {
        case ChannelType.RPC:
          return await this.rpc(frame);
        case ChannelType.HEARTBEAT:
          return this.heartbeat(frame);
        case ChannelType.HANDSHAKE:
          return this.handshake(frame);
        case ChannelType.SUBSCRIBE_TOPICS:
          return this.subscribe(frame);
        case ChannelType.EVENT_LOG_REGISTER:
        case ChannelType.EVENT_LOG_UNREGISTER:
          if (this.options.pushes) return await this.options.pushes.eventLogRequest(this, frame);
          this.log(`channel: event log filters are not served here (seq ${frame.seq})`);
          this.reply(frame, EMPTY, ChannelResult.NODE_UNREACHABLE);
          return;
        default:
          this.log(`channel: unsupported frame type 0x${frame.type.toString(16)} (seq ${frame.seq})`);
          this.reply(frame, EMPTY, ChannelResult.NODE_UNREACHABLE);
      }
    } catch (error) {
      this.log(`channel: frame type 0x${frame.type.toString(16)} failed: ${(error as Error).message}`);
      this.reply(frame, EMPTY, ChannelResult.NODE_UNREACHABLE);
    }
  }

  private reply(request: ChannelFrame, data: Uint8Array, result: number = ChannelResult.OK): void {
    this.send({ type: request.type, seq: request.seq, result, data });
  }

  private async rpc(frame: ChannelFrame): Promise<void> {
    const request = frameText(frame);
    const answer = await this.options.service.handle(request);
    this.reply(frame, text(answer));
    this.options.pushes?.rpcAnswered(this, frame.seq, request, answer);
  }

  private heartbeat(frame: ChannelFrame): void {
    this.reply(frame, text(this.protocolVersion >= 2 ? HEARTBEAT_V2_REPLY : '1'));
  }

  private handshake(frame: ChannelFrame): void {
    let request: unknown;
    try {
      request = JSON.parse(frameText(frame));
    } catch {
      this.close('handshake is not JSON');
      return;
    }
    if (typeof request !== 'object' || request === null || Array.isArray(request)) {
      this.close('handshake is not a JSON object');
      return;
    }
    // FISCO reads both with jsoncpp's value.get(key, 1): a missing key means 1 (some java-sdk
    // builds send only {"clientType":"java-sdk"}); a key that is there must be an integer.
    const { minimumSupport = 1, maximumSupport = 1, clientType } = request as Record<string, unknown>;
    if (!Number.isInteger(minimumSupport) || !Number.isInteger(maximumSupport)) {
      this.close(`handshake: minimumSupport ${JSON.stringify(minimumSupport)} / maximumSupport ${JSON.stringify(maximumSupport)} are not integers`);
      return;
    }
    const min = minimumSupport as number;
    const max = maximumSupport as number;
    if (min > MAX_PROTOCOL || max < MIN_PROTOCOL || min > max) {
      this.close(`handshake: client supports ${min}..${max}, node ${MIN_PROTOCOL}..${MAX_PROTOCOL}`);
      return;
    }
    this.protocolVersion = Math.min(MAX_PROTOCOL, max);
    this.clientType = typeof clientType === 'string' ? clientType : undefined;
    const body = JSON.stringify({ protocol: this.protocolVersion, nodeVersion: this.options.supportedVersion });
    this.reply(frame, text(body));
  }

  private subscribe(frame: ChannelFrame): void {
    const topics: unknown = JSON.parse(frameText(frame));
    if (!Array.isArray(topics) || !topics.every((t): t is string => typeof t === 'string')) {
      throw new Error('topic subscription must be a JSON array of strings');
    }
    this.topics = new Set(topics);
  }
}
