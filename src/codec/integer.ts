import { CodecError } from './codec-error.js';
import { toHexNoPrefix } from './hex.js';

export const UINT256_MAX = (1n << 256n) - 1n;

/** Minimal big-endian bytes of a non-negative integer (empty for 0), as RLP integers are written. */
export function bigintToBytes(value: bigint): Uint8Array {
  if (value < 0n) throw new CodecError('', value, 'negative integers have no unsigned encoding');
  if (value === 0n) return new Uint8Array(0);
  if (value <= 0xffffffffn) {
    // most integers written are small (heights, views, indexes, timestamps' halves): no hex round trip
    let n = Number(value);
    const length = n > 0xffffff ? 4 : n > 0xffff ? 3 : n > 0xff ? 2 : 1;
    const out = new Uint8Array(length);
    for (let i = length - 1; i >= 0; i--) {
      out[i] = n & 0xff;
      n >>>= 8;
    }
    return out;
  }
  let hex = value.toString(16);
  if (hex.length % 2) hex = `0${hex}`;
  return new Uint8Array(Buffer.from(hex, 'hex'));
}

/** Fixed-width big-endian bytes of a non-negative integer. */
export function bigintToFixedBytes(value: bigint, width: number): Uint8Array {
  if (value < 0n) throw new CodecError('', value, 'negative integers have no unsigned encoding');
  const hex = value.toString(16).padStart(width * 2, '0');
  if (hex.length > width * 2) throw new CodecError('', value, `does not fit in ${width} bytes`);
  return new Uint8Array(Buffer.from(hex, 'hex'));
}

/** Big-endian bytes to an unsigned integer (no canonical-form checks). */
export function bytesToBigint(bytes: Uint8Array): bigint {
  if (bytes.length === 0) return 0n;
  if (bytes.length <= 6) {
    let n = 0;
    for (let i = 0; i < bytes.length; i++) n = n * 256 + bytes[i]!;
    return BigInt(n);
  }
  return BigInt(`0x${toHexNoPrefix(bytes)}`);
}

/**
 * Big-endian bytes of an RLP integer field to bigint, rejecting leading zero bytes and values
 * wider than `maxBytes`. `field` names the field in errors.
 */
export function parseRlpUint(bytes: Uint8Array, field: string, maxBytes = 32): bigint {
  if (bytes.length > maxBytes) {
    throw new CodecError(field, `0x${toHexNoPrefix(bytes)}`, `integer wider than ${maxBytes} bytes`);
  }
  if (bytes.length > 0 && bytes[0] === 0) {
    throw new CodecError(field, `0x${toHexNoPrefix(bytes)}`, 'integer has a leading zero byte');
  }
  return bytesToBigint(bytes);
}
