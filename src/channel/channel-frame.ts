// FISCO BCOS 2.x channel frame (fisco notes §7): a 42-byte big-endian header
// `uint32 length (header + data) | uint16 type | 32-byte ASCII seq | int32 result` then the data.

/** Bytes before the data: 4 (length) + 2 (type) + 32 (seq) + 4 (result). */
export const HEADER_LENGTH = 42;
/** The seq is exactly 32 ASCII characters. */
export const SEQ_LENGTH = 32;
/** FISCO refuses frames over 100 MB. */
export const DEFAULT_MAX_FRAME = 100 * 1024 * 1024;

/** Frame types of FISCO's channel protocol. */
export const ChannelType = {
  RPC: 0x12,
  HEARTBEAT: 0x13,
  HANDSHAKE: 0x14,
  EVENT_LOG_REGISTER: 0x15,
  EVENT_LOG_UNREGISTER: 0x16,
  AMOP_REQUEST: 0x30,
  AMOP_RESPONSE: 0x31,
  SUBSCRIBE_TOPICS: 0x32,
  AMOP_MULTICAST: 0x35,
  REQUEST_TOPIC_CERT: 0x37,
  UPDATE_TOPIC_STATUS: 0x38,
  TX_RECEIPT_NOTIFY: 0x1000,
  BLOCK_NOTIFY: 0x1001,
  EVENT_LOG_PUSH: 0x1002,
} as const;

/** Result codes carried in the header. */
export const ChannelResult = {
  OK: 0,
  NODE_UNREACHABLE: 100,
  SDK_UNREACHABLE: 101,
  TIMEOUT: 102,
} as const;

export interface ChannelFrame {
  type: number;
  /** 32 ASCII characters. */
  seq: string;
  result: number;
  data: Uint8Array;
}

export class ChannelFrameError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ChannelFrameError';
  }
}

/** The seq FISCO uses for node-initiated pushes such as block notify: 32 × '0'. */
export const ZERO_SEQ = '0'.repeat(SEQ_LENGTH);

/** A node-generated seq: zero-padded decimal, as FISCO writes them. */
export function numericSeq(n: number | bigint): string {
  const text = n.toString();
  if (text.length > SEQ_LENGTH || text.startsWith('-')) throw new ChannelFrameError(`seq number out of range: ${text}`);
  return text.padStart(SEQ_LENGTH, '0');
}

function checkSeq(seq: string): void {
  // eslint-disable-next-line no-control-regex
  if (seq.length !== SEQ_LENGTH || !/^[\x00-\x7f]*$/.test(seq)) {
    throw new ChannelFrameError(`seq must be ${SEQ_LENGTH} ASCII characters, got ${JSON.stringify(seq)}`);
  }
}

/** One frame as bytes. `data` may be text (UTF-8) or bytes. */
export function encodeFrame(frame: { type: number; seq: string; result?: number; data?: Uint8Array | string }): Buffer {
  checkSeq(frame.seq);
  if (!Number.isInteger(frame.type) || frame.type < 0 || frame.type > 0xffff) {
    throw new ChannelFrameError(`frame type must be a uint16, got ${frame.type}`);
  }
  const result = frame.result ?? 0;
  if (!Number.isInteger(result) || result < -0x80000000 || result > 0x7fffffff) {
    throw new ChannelFrameError(`frame result must be an int32, got ${result}`);
  }
  const data = typeof frame.data === 'string' ? Buffer.from(frame.data, 'utf8') : (frame.data ?? new Uint8Array(0));
  const out = Buffer.allocUnsafe(HEADER_LENGTH + data.length);
  out.writeUInt32BE(HEADER_LENGTH + data.length, 0);
  out.writeUInt16BE(frame.type, 4);
  out.write(frame.seq, 6, SEQ_LENGTH, 'latin1');
  out.writeInt32BE(result, 38);
  out.set(data, HEADER_LENGTH);
  return out;
}

/** Decodes exactly one whole frame (the length field must equal the buffer's length). */
export function decodeFrame(bytes: Uint8Array, maxFrame = DEFAULT_MAX_FRAME): ChannelFrame {
  const frames = new FrameDecoder(maxFrame).push(bytes);
  if (frames.length !== 1) throw new ChannelFrameError(`expected one frame, found ${frames.length}`);
  const length = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).readUInt32BE(0);
  if (length !== bytes.length) throw new ChannelFrameError(`frame length ${length} but ${bytes.length} bytes given`);
  return frames[0]!;
}

/** The frame's data as UTF-8 text. */
export function frameText(frame: ChannelFrame): string {
  return Buffer.from(frame.data.buffer, frame.data.byteOffset, frame.data.byteLength).toString('utf8');
}

/**
 * Streaming decoder for a socket: push chunks as they arrive, get the whole frames they complete.
 * Chunks are kept in a list and joined only once a whole frame is buffered, so a large frame
 * arriving in many small chunks costs one copy. After an error the decoder refuses further input.
 */
export class FrameDecoder {
  private chunks: Buffer[] = [];
  private buffered = 0;
  private failed: ChannelFrameError | undefined;

  constructor(readonly maxFrame = DEFAULT_MAX_FRAME) {
    if (maxFrame < HEADER_LENGTH) throw new RangeError(`maxFrame must be at least ${HEADER_LENGTH}`);
  }

  /** Bytes received but not yet part of a returned frame. */
  get pending(): number {
    return this.buffered;
  }

  push(chunk: Uint8Array): ChannelFrame[] {
    if (this.failed) throw this.failed;
    if (chunk.length > 0) {
      this.chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
      this.buffered += chunk.length;
    }
    const frames: ChannelFrame[] = [];
    while (this.buffered >= 4) {
      const length = this.peekLength();
      if (length < HEADER_LENGTH) this.fail(`frame length ${length} is below the ${HEADER_LENGTH}-byte header`);
      if (length > this.maxFrame) this.fail(`frame length ${length} exceeds the limit of ${this.maxFrame} bytes`);
      if (this.buffered < length) break;
      frames.push(parse(this.take(length)));
    }
    return frames;
  }

  private fail(message: string): never {
    this.failed = new ChannelFrameError(message);
    this.chunks = [];
    this.buffered = 0;
    throw this.failed;
  }

  private peekLength(): number {
    const first = this.chunks[0]!;
    if (first.length >= 4) return first.readUInt32BE(0);
    const head = Buffer.allocUnsafe(4);
    let filled = 0;
    for (const c of this.chunks) {
      const n = Math.min(4 - filled, c.length);
      c.copy(head, filled, 0, n);
      filled += n;
      if (filled === 4) break;
    }
    return head.readUInt32BE(0);
  }

  private take(length: number): Buffer {
    const first = this.chunks[0]!;
    let out: Buffer;
    if (first.length >= length) {
      out = first.subarray(0, length);
      if (first.length === length) this.chunks.shift();
      else this.chunks[0] = first.subarray(length);
    } else {
      out = Buffer.allocUnsafe(length);
      let filled = 0;
      while (filled < length) {
        const c = this.chunks[0]!;
        const n = Math.min(length - filled, c.length);
        c.copy(out, filled, 0, n);
        filled += n;
        if (n === c.length) this.chunks.shift();
        else this.chunks[0] = c.subarray(n);
      }
    }
    this.buffered -= length;
    return out;
  }
}

function parse(bytes: Buffer): ChannelFrame {
  return {
    type: bytes.readUInt16BE(4),
    seq: bytes.toString('latin1', 6, 6 + SEQ_LENGTH),
    result: bytes.readInt32BE(38),
    data: bytes.subarray(HEADER_LENGTH),
  };
}
