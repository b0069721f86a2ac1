import { describe, expect, it } from 'vitest';
import { readAheadFull, WorkerFeed, type ReaderAnswer, type ReaderRequest } from './block-feed.js';

describe('readAheadFull: how far both feeds read ahead', () => {
  const limits = { lines: 32, bytes: 4_000_000 };

  it('two lines are always read, however long: the block being replayed and the next', () => {
    expect(readAheadFull(0, 0, limits)).toBe(false);
    expect(readAheadFull(1, 9_000_000, limits)).toBe(false);
    expect(readAheadFull(2, 9_000_000, limits)).toBe(true);
  });

  it('full at the line limit or the byte limit', () => {
    expect(readAheadFull(31, 3_999_999, limits)).toBe(false);
    expect(readAheadFull(32, 10, limits)).toBe(true);
    expect(readAheadFull(5, 4_000_000, limits)).toBe(true);
  });

  it('a share of the limits: the replay thread refills once half is used', () => {
    expect(readAheadFull(15, 1_000_000, limits, 0.5)).toBe(false);
    expect(readAheadFull(16, 1_000_000, limits, 0.5)).toBe(true);
    expect(readAheadFull(3, 2_000_000, limits, 0.5)).toBe(true);
  });
});

describe('WorkerFeed: telling the reader thread what the replay has taken', () => {
  const limits = { lines: 32, bytes: 4_000_000 };
  /** Block n's line, `size` bytes long. */
  const line = (n: number, size = 100) => new TextEncoder().encode(`{"number":${n},${' '.repeat(size - 12 - String(n).length)}}`);

  function feed() {
    const told: Array<Extract<ReaderRequest, { type: 'consumed' }>> = [];
    let deliver!: (answer: ReaderAnswer) => void;
    const thread = {
      open: (_request: unknown, to: (answer: ReaderAnswer) => void) => ((deliver = to), 7),
      send: (request: ReaderRequest) => request.type === 'consumed' && told.push(request),
      end: () => undefined,
    };
    const ahead = { id: 1, suite: { name: 'ecdsa' }, version: { text: '2.11.0' }, channels: () => [], expect: () => undefined };
    const f = new WorkerFeed(thread as never, 'chain.jsonl', 1, undefined, ahead as never, limits);
    let lineNumber = 1;
    const arrive = (...bytes: Uint8Array[]) => deliver({ session: 7, type: 'lines', lines: bytes.map((b) => ({ bytes: b, line: ++lineNumber, plan: [] })) });
    return { f, told, arrive };
  }

  it('in steps of a quarter of the read-ahead (8 lines), so the reader never waits on lines taken', async () => {
    const { f, told, arrive } = feed();
    arrive(...Array.from({ length: 20 }, (_, i) => line(i + 1)));
    for (let i = 0; i < 20; i++) await f.next();
    expect(told.map((t) => t.lines)).toEqual([8, 16]);
    expect(told.map((t) => t.bytes)).toEqual([800, 1600]);
    expect(told.every((t) => t.session === 7)).toBe(true);
    // what is left untold (4 lines) keeps the reader far from its limits
    expect(readAheadFull(20 - 16, 2000 - 1600, limits)).toBe(false);
  });

  it('or a quarter of its bytes (1 MB)', async () => {
    const { f, told, arrive } = feed();
    arrive(line(1, 600_000), line(2, 600_000), line(3), line(4));
    await f.next();
    expect(told).toEqual([]);
    await f.next();
    expect(told.map((t) => [t.lines, t.bytes])).toEqual([[2, 1_200_000]]);
  });
});
