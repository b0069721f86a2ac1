import { describe, expect, it } from 'vitest';
import {
  ChannelFrameError,
  ChannelType,
  DEFAULT_MAX_FRAME,
  FrameDecoder,
  HEADER_LENGTH,
  ZERO_SEQ,
  decodeFrame,
  encodeFrame,
  frameText,
  numericSeq,
} from './channel-frame.js';

const SEQ = 'a'.repeat(16) + '0123456789abcdef';

describe('channel frame', () => {
  it('encodes the 42-byte big-endian header then the data', () => {
    const bytes = encodeFrame({ type: ChannelType.RPC, seq: SEQ, result: -2, data: 'hi' });
    expect(bytes.length).toBe(44);
    expect(bytes.readUInt32BE(0)).toBe(44);
    expect(bytes.readUInt16BE(4)).toBe(0x12);
    expect(bytes.toString('latin1', 6, 38)).toBe(SEQ);
    expect(bytes.readInt32BE(38)).toBe(-2);
    expect(bytes.toString('utf8', 42)).toBe('hi');
  });

  it('round-trips frames with text, bytes, empty data and every type', () => {
    for (const type of Object.values(ChannelType)) {
      for (const data of ['', '{"jsonrpc":"2.0"}', 'héllo ✓']) {
        const frame = decodeFrame(encodeFrame({ type, seq: SEQ, result: 100, data }));
        expect(frame).toMatchObject({ type, seq: SEQ, result: 100 });
        expect(frameText(frame)).toBe(data);
      }
    }
    const raw = new Uint8Array([0, 1, 2, 255]);
    expect([...decodeFrame(encodeFrame({ type: 0x1001, seq: ZERO_SEQ, data: raw })).data]).toEqual([...raw]);
  });

  it('refuses bad seqs, types and results when encoding', () => {
    expect(() => encodeFrame({ type: 0x12, seq: 'short' })).toThrow(ChannelFrameError);
    expect(() => encodeFrame({ type: 0x12, seq: 'é'.repeat(32) })).toThrow(/ASCII/);
    expect(() => encodeFrame({ type: 0x10000, seq: SEQ })).toThrow(/uint16/);
    expect(() => encodeFrame({ type: 0x12, seq: SEQ, result: 2 ** 31 })).toThrow(/int32/);
  });

  it('numericSeq zero-pads decimal', () => {
    expect(numericSeq(42)).toBe('0'.repeat(30) + '42');
    expect(() => numericSeq(-1)).toThrow();
  });

  it('streams frames split byte by byte and several in one chunk', () => {
    const frames = [0, 1, 2].map((i) => encodeFrame({ type: 0x12, seq: numericSeq(i), data: 'x'.repeat(i * 100) }));
    const all = Buffer.concat(frames);
    const byByte = new FrameDecoder();
    const out = [];
    for (const b of all) out.push(...byByte.push(Buffer.from([b])));
    expect(out.map((f) => f.seq)).toEqual([0, 1, 2].map((i) => numericSeq(i)));
    expect(out.map((f) => f.data.length)).toEqual([0, 100, 200]);
    expect(byByte.pending).toBe(0);

    const oneChunk = new FrameDecoder().push(all);
    expect(oneChunk.map((f) => frameText(f).length)).toEqual([0, 100, 200]);

    // Split in the middle of a length field, and a frame and a half in one chunk.
    const d = new FrameDecoder();
    expect(d.push(all.subarray(0, 2))).toEqual([]);
    expect(d.push(all.subarray(2, HEADER_LENGTH + 50)).length).toBe(1);
    expect(d.pending).toBe(50);
    expect(d.push(all.subarray(HEADER_LENGTH + 50)).length).toBe(2);
  });

  it('decodes the same frames however the stream is cut into chunks', () => {
    // data lengths around the header's size, an empty frame between two others, and a result code
    const sent = [0, 1, 41, 0, 42, 3].map((n, i) => ({ type: 0x12 + i, seq: numericSeq(i * 7), result: i - 2, data: Buffer.alloc(n, 0x61 + i) }));
    const stream = Buffer.concat(sent.map((f) => encodeFrame(f)));
    const decode = (cuts: readonly number[]) => {
      const d = new FrameDecoder();
      const out = [];
      let from = 0;
      for (const cut of [...cuts, stream.length]) {
        out.push(...d.push(stream.subarray(from, cut)));
        from = cut;
      }
      return { frames: out.map((f) => ({ type: f.type, seq: f.seq, result: f.result, data: Buffer.from(f.data) })), pending: d.pending };
    };
    const expected = { frames: sent, pending: 0 };
    // every one and two cut points (frame boundaries, inside length fields, one byte past a frame, …)
    for (let a = 0; a <= stream.length; a++) {
      expect(decode([a]), `cut at ${a}`).toEqual(expected);
      for (let b = a; b <= stream.length; b += 1) {
        const got = decode([a, b]);
        if (got.pending !== 0 || got.frames.length !== sent.length || got.frames.some((f, i) => !f.data.equals(sent[i]!.data) || f.seq !== sent[i]!.seq)) {
          expect(got, `cuts at ${a} and ${b}`).toEqual(expected);
        }
      }
    }
    // many small cuts: chunks of 1 to 5 bytes in a fixed pseudo-random pattern
    const cuts: number[] = [];
    for (let at = 0, k = 1; at < stream.length; k = (k * 7 + 3) % 11, at += 1 + (k % 5)) cuts.push(at);
    expect(decode(cuts)).toEqual(expected);
  });

  it('assembles a large frame from many chunks', () => {
    const big = encodeFrame({ type: 0x12, seq: SEQ, data: Buffer.alloc(1_000_000, 7) });
    const d = new FrameDecoder();
    let got = 0;
    for (let i = 0; i < big.length; i += 1000) got += d.push(big.subarray(i, i + 1000)).length;
    expect(got).toBe(1);
  });

  it('rejects a length below the header and above the limit, then stays failed', () => {
    const small = Buffer.alloc(42);
    small.writeUInt32BE(41, 0);
    const d = new FrameDecoder();
    expect(() => d.push(small)).toThrow(/below the 42-byte header/);
    expect(() => d.push(encodeFrame({ type: 0x12, seq: SEQ }))).toThrow(ChannelFrameError);

    const huge = Buffer.alloc(4);
    huge.writeUInt32BE(DEFAULT_MAX_FRAME + 1, 0);
    expect(() => new FrameDecoder().push(huge)).toThrow(/exceeds the limit of 104857600/);
    expect(() => new FrameDecoder(1000).push(encodeFrame({ type: 0x12, seq: SEQ, data: 'x'.repeat(1000) }))).toThrow(/limit of 1000/);
  });

  it('decodeFrame wants exactly one whole frame', () => {
    const f = encodeFrame({ type: 0x12, seq: SEQ, data: 'ab' });
    expect(() => decodeFrame(f.subarray(0, 43))).toThrow(/one frame/);
    expect(() => decodeFrame(Buffer.concat([f, f]))).toThrow(ChannelFrameError);
  });
});
