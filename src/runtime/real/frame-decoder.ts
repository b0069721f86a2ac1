/** Bytes of the frame header: the payload length as a big-endian uint32. */
export const FRAME_HEADER_BYTES = 4;

const EMPTY = new Uint8Array(0);

/**
 * Splits a byte stream into `uint32 big-endian payload length | payload` frames. Every byte is
 * copied once, into a payload of its own (offset 0, its own ArrayBuffer): a frame that spans
 * chunks is filled in place as chunks arrive, so a 1 MB frame over 16 KB TLS records costs one
 * allocation and no re-concatenation.
 */
export class FrameDecoder {
  private readonly header = new Uint8Array(FRAME_HEADER_BYTES);
  private headerFill = 0;
  private body: Uint8Array | undefined;
  private bodyFill = 0;
  private failed: string | undefined;

  constructor(private readonly maxFrameBytes: number) {}

  /** Bytes of a frame received in part (header or payload), for diagnostics. */
  get partialBytes(): number {
    return this.body === undefined ? this.headerFill : FRAME_HEADER_BYTES + this.bodyFill;
  }

  /**
   * Feeds `chunk`, calling `onFrame` for each complete frame (zero-length ones included) in
   * order. Returns why the stream is malformed (a frame announced larger than the limit); after
   * that the decoder refuses more input with the same answer.
   */
  push(chunk: Uint8Array, onFrame: (payload: Uint8Array) => void): string | undefined {
    if (this.failed !== undefined) return this.failed;
    let offset = 0;
    const end = chunk.length;
    while (offset < end) {
      if (this.body === undefined) {
        let length: number;
        if (this.headerFill === 0 && end - offset >= FRAME_HEADER_BYTES) {
          length = ((chunk[offset]! << 24) | (chunk[offset + 1]! << 16) | (chunk[offset + 2]! << 8) | chunk[offset + 3]!) >>> 0;
          offset += FRAME_HEADER_BYTES;
        } else {
          const take = Math.min(FRAME_HEADER_BYTES - this.headerFill, end - offset);
          this.header.set(chunk.subarray(offset, offset + take), this.headerFill);
          this.headerFill += take;
          offset += take;
          if (this.headerFill < FRAME_HEADER_BYTES) break;
          const h = this.header;
          length = ((h[0]! << 24) | (h[1]! << 16) | (h[2]! << 8) | h[3]!) >>> 0;
          this.headerFill = 0;
        }
        if (length > this.maxFrameBytes) {
          this.failed = `frame of ${length} bytes exceeds the limit of ${this.maxFrameBytes}`;
          return this.failed;
        }
        if (length === 0) {
          onFrame(EMPTY);
          continue;
        }
        if (end - offset >= length) {
          const payload = new Uint8Array(length);
          payload.set(chunk.subarray(offset, offset + length));
          offset += length;
          onFrame(payload);
          continue;
        }
        this.body = new Uint8Array(length);
        this.bodyFill = 0;
      }
      const body = this.body;
      const take = Math.min(body.length - this.bodyFill, end - offset);
      body.set(chunk.subarray(offset, offset + take), this.bodyFill);
      this.bodyFill += take;
      offset += take;
      if (this.bodyFill === body.length) {
        this.body = undefined;
        this.bodyFill = 0;
        onFrame(body);
      }
    }
    return undefined;
  }
}

/** One buffer holding `header | payload`, for a single socket.write. */
export function encodeFrame(payload: Uint8Array): Buffer {
  const frame = Buffer.allocUnsafe(FRAME_HEADER_BYTES + payload.length);
  frame.writeUInt32BE(payload.length, 0);
  frame.set(payload, FRAME_HEADER_BYTES);
  return frame;
}
