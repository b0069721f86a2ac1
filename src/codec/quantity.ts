import { CodecError } from './codec-error.js';

const HEX_QUANTITY = /^0x[0-9a-fA-F]+$/;
const DECIMAL = /^[0-9]+$/;

export interface QuantityOptions {
  /** Accept leading zero digits such as "0x01" (default false: only "0x0" may start with 0). */
  allowLeadingZeros?: boolean;
  /** Largest accepted value (default 2^256 - 1). */
  max?: bigint;
}

const DEFAULT_MAX = (1n << 256n) - 1n;

/** `0x`-prefixed hex quantity to bigint; strict by default ("0x0", "0x1a"; not "0x", "0x01", "1a"). */
export function parseQuantity(value: unknown, field = '', options: QuantityOptions = {}): bigint {
  if (typeof value !== 'string') throw new CodecError(field, value, 'expected a 0x-prefixed hex string');
  if (!value.startsWith('0x')) throw new CodecError(field, value, 'hex quantity must start with 0x');
  if (!HEX_QUANTITY.test(value)) {
    throw new CodecError(field, value, value === '0x' ? 'hex quantity has no digits' : 'not a hex quantity');
  }
  if (!options.allowLeadingZeros && value.length > 3 && value[2] === '0') {
    throw new CodecError(field, value, 'hex quantity has leading zero digits');
  }
  return checkMax(BigInt(value), value, field, options.max ?? DEFAULT_MAX);
}

/** Decimal digits to bigint ("0", "15"; not "015", "-1", "1.0"). */
export function parseDecimal(value: unknown, field = '', options: QuantityOptions = {}): bigint {
  if (typeof value !== 'string') throw new CodecError(field, value, 'expected a decimal string');
  if (!DECIMAL.test(value)) throw new CodecError(field, value, 'not a decimal number');
  if (!options.allowLeadingZeros && value.length > 1 && value[0] === '0') {
    throw new CodecError(field, value, 'decimal number has leading zeros');
  }
  return checkMax(BigInt(value), value, field, options.max ?? DEFAULT_MAX);
}

/** Interface variant: earlier (supported_version 2.0.0-rc1) takes hex quantities only; later also decimal. */
export type InterfaceVariant = 'earlier' | 'later';

/**
 * A quantity parameter as FISCO 2.x reads it (`jsToInt` / `jsToU256` in libdevcore/CommonJS.h):
 * "0x" + hex digits in either case, or decimal digits. Where FISCO's reading and the interface
 * reference's part, we refuse rather than pick one: the digits after a leading "0" go through
 * boost's cpp_int, which reads them as octal ("010" is 8 to FISCO, 10 to the reference; "08"
 * FISCO refuses), so a leading-zero decimal is taken only where both read the same ("00",
 * "07"); "0x" and "" (0 to FISCO) have no digits for the reference.
 */
export function parseDecimalOrHex(value: unknown, field = '', options: QuantityOptions = {}): bigint {
  if (typeof value !== 'string') throw new CodecError(field, value, 'expected a decimal or 0x-prefixed hex string');
  if (value.startsWith('0x')) return parseQuantity(value, field, { ...options, allowLeadingZeros: options.allowLeadingZeros ?? true });
  if (value === '') throw new CodecError(field, value, 'empty: expected decimal digits or 0x followed by hex digits');
  if (!DECIMAL.test(value)) {
    const why = value.startsWith('0X') ? 'the hex prefix must be lower-case 0x' : 'not a decimal number nor 0x followed by hex digits';
    throw new CodecError(field, value, why);
  }
  const decimal = BigInt(value);
  if (value.length > 1 && value[0] === '0') {
    const octal = /^[0-7]+$/.test(value) ? BigInt(`0o${value}`) : undefined;
    if (octal !== decimal) {
      const fisco = octal === undefined ? 'FISCO 2.x refuses it (its reading is octal, and 8 and 9 are no octal digits)' : `FISCO 2.x reads it as octal, ${octal}`;
      throw new CodecError(field, value, `a decimal number with a leading zero is ambiguous: ${fisco}, the interface reference as decimal ${decimal}; write it without the leading zero, or as 0x hex`);
    }
  }
  return checkMax(decimal, value, field, options.max ?? DEFAULT_MAX);
}

/**
 * A quantity parameter per interface variant: 0x hex in both (leading zero digits accepted, as
 * SDKs that pad numbers send them); in the later variant decimal too, read as parseDecimalOrHex.
 */
export function parseQuantityParam(value: unknown, variant: InterfaceVariant, field: string, options: QuantityOptions = {}): bigint {
  if (variant === 'later') return parseDecimalOrHex(value, field, options);
  if (typeof value === 'string' && !value.startsWith('0x') && DECIMAL.test(value)) {
    throw new CodecError(field, value, 'must be a 0x-prefixed hex string in the earlier interface variant (supported_version 2.0.0-rc1); decimal is taken from the later variant on');
  }
  return parseQuantity(value, field, { ...options, allowLeadingZeros: options.allowLeadingZeros ?? true });
}

/** A block number parameter: hex always; decimal too in the later variant. At most 2^63 - 1. */
export function parseBlockNumber(value: unknown, variant: InterfaceVariant, field = 'blockNumber', options: QuantityOptions = {}): bigint {
  return parseQuantityParam(value, variant, field, { max: (1n << 63n) - 1n, ...options });
}

/** Quantity formatting: "0x0", "0x1a". */
export function toQuantity(value: bigint | number): string {
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value) || value < 0) throw new CodecError('', value, 'not a non-negative safe integer');
  } else if (value < 0n) {
    throw new CodecError('', value, 'negative quantity');
  }
  return `0x${value.toString(16)}`;
}

function checkMax(parsed: bigint, value: string, field: string, max: bigint): bigint {
  if (parsed > max) throw new CodecError(field, value, `value exceeds the maximum ${max}`);
  return parsed;
}
