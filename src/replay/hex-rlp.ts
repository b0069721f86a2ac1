// RLP written straight from 0x-hex strings into one buffer: for the recorded receipts a worker
// encodes (block-prep.ts), without decoding each field into a byte array of its own first. Sizes
// are taken from the strings' lengths; the digits are checked as they are written (Buffer stops
// at the first pair that is not hex), so a string that is not hex throughout fails the encoding.
import { rlpHeaderSize as headerSize, writeRlpHeader as writeHeader } from '../codec/index.js';

/** One item: a byte string as hex (with 0x), a byte string, or a list. */
export type HexRlpItem = string | Uint8Array | HexRlpItem[];

/** The byte a one-byte hex string holds, or -1 where its digits are not hex. */
function singleByte(hex: string): number {
  return /^0x[0-9a-fA-F]{2}$/.test(hex) ? Number.parseInt(hex.slice(2), 16) : -1;
}

/** Encoded size of `item`; list payload sizes go to `lists` in pre-order. Hex strings must be `0x` and an even number of digits (checked by the caller). */
function measure(item: HexRlpItem, lists: number[]): number {
  if (typeof item === 'string') {
    const n = (item.length - 2) / 2;
    // a one-byte string below 0x80 is its own encoding (one that is not hex fails when written)
    if (n === 1) return singleByte(item) < 0x80 ? 1 : 2;
    return headerSize(n) + n;
  }
  if (item instanceof Uint8Array) return item.length === 1 && item[0]! < 0x80 ? 1 : headerSize(item.length) + item.length;
  const slot = lists.length;
  lists.push(0);
  let payload = 0;
  for (const child of item) payload += measure(child, lists);
  lists[slot] = payload;
  return headerSize(payload) + payload;
}

/** Writes `item` at `at`; the next position, or -1 where a hex string is not hex throughout. */
function write(item: HexRlpItem, out: Buffer, at: number, lists: readonly number[], cursor: { list: number }): number {
  if (typeof item === 'string') {
    const n = (item.length - 2) / 2;
    if (n === 1) {
      const byte = singleByte(item);
      if (byte < 0) return -1;
      if (byte < 0x80) {
        out[at] = byte;
        return at + 1;
      }
    }
    at = writeHeader(out, at, n, 0x80);
    return n === 0 || out.write(item.slice(2), at, n, 'hex') === n ? at + n : -1;
  }
  if (item instanceof Uint8Array) {
    if (item.length === 1 && item[0]! < 0x80) {
      out[at] = item[0]!;
      return at + 1;
    }
    at = writeHeader(out, at, item.length, 0x80);
    out.set(item, at);
    return at + item.length;
  }
  at = writeHeader(out, at, lists[cursor.list++]!, 0xc0);
  for (const child of item) {
    at = write(child, out, at, lists, cursor);
    if (at < 0) return -1;
  }
  return at;
}

/**
 * The RLP encoding of `item`, where every hex string is `0x` and an even number of digits;
 * undefined where one of them has a digit that is not hex.
 */
export function hexRlpEncode(item: HexRlpItem): Uint8Array | undefined {
  const lists: number[] = [];
  const size = measure(item, lists);
  const out = Buffer.allocUnsafe(size);
  // a plain view: the caller copies it where it keeps it (small buffers share Node's pool)
  return write(item, out, 0, lists, { list: 0 }) === size ? new Uint8Array(out.buffer, out.byteOffset, size) : undefined;
}

/** Whether `value` is a `0x` hex string of whole bytes (of `length` bytes when given), by its shape only: the digits are checked when written. */
export function isHexShape(value: unknown, length?: number): value is string {
  return typeof value === 'string' && value.length % 2 === 0 && value.charCodeAt(0) === 0x30 && value.charCodeAt(1) === 0x78 && (length === undefined || value.length === 2 + 2 * length);
}
