import { describe, expect, it } from 'vitest';
import { encodeFrame, FrameDecoder } from './frame-decoder.js';

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

const payload = (length: number, seed: number) => {
  const p = new Uint8Array(length);
  for (let i = 0; i < length; i++) p[i] = (i * 31 + seed) & 0xff;
  return p;
};

describe('FrameDecoder', () => {
  const payloads = [payload(1, 1), new Uint8Array(0), payload(300, 2), payload(20_000, 3), new Uint8Array(0), payload(5, 4)];
  const stream = concat(payloads.map((p) => encodeFrame(p)));

  it.each([1, 2, 3, 4, 5, 7, 1000, 16_384, stream.length])('splits a stream fed in chunks of %i bytes', (size) => {
    const decoder = new FrameDecoder(1 << 20);
    const got: Uint8Array[] = [];
    const errors = new Set<string | undefined>();
    for (let at = 0; at < stream.length; at += size) errors.add(decoder.push(stream.subarray(at, at + size), (p) => got.push(p)));
    expect([...errors]).toEqual([undefined]);
    expect(got).toEqual(payloads);
    expect(decoder.partialBytes).toBe(0);
    for (const p of got.filter((g) => g.length > 0)) {
      expect(p.byteOffset, 'payloads own their memory').toBe(0);
      expect(p.buffer.byteLength).toBe(p.length);
    }
  });

  it('refuses a frame announced over the limit, and everything after it', () => {
    const decoder = new FrameDecoder(100);
    const got: Uint8Array[] = [];
    const bytes = concat([encodeFrame(payload(100, 0)), encodeFrame(payload(101, 0))]);
    expect(decoder.push(bytes.subarray(0, 106), (p) => got.push(p))).toBeUndefined();
    expect(decoder.push(bytes.subarray(106), (p) => got.push(p))).toBe('frame of 101 bytes exceeds the limit of 100');
    expect(decoder.push(encodeFrame(payload(1, 0)), (p) => got.push(p))).toMatch(/exceeds/);
    expect(got.map((p) => p.length)).toEqual([100]);
    expect(new FrameDecoder(2 ** 32 - 1).push(Uint8Array.of(0xff, 0xff, 0xff, 0xff), () => undefined)).toBeUndefined();
  });

  it('decodes 1 MB frames in 16 KB chunks quickly (each byte copied once)', () => {
    const frames = Array.from({ length: 32 }, (_, i) => payload(1 << 20, i));
    const stream = concat(frames.map((f) => encodeFrame(f)));
    const decoder = new FrameDecoder(100 << 20);
    let count = 0;
    const start = performance.now();
    for (let at = 0; at < stream.length; at += 16_384) decoder.push(stream.subarray(at, at + 16_384), () => count++);
    const ms = performance.now() - start;
    expect(count).toBe(32);
    expect(ms).toBeLessThan(1000); // ~10 ms; re-concatenating per chunk would copy ~1 GB
  });
});
