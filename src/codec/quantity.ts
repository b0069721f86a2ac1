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

/** Interface variant: earlier (supported_version 2.0.0-rc1) takes hex block numbers only; later also decimal. */
export type InterfaceVariant = 'earlier' | 'later';

/** A block number parameter: hex always; decimal too in the later variant. */
export function parseBlockNumber(
  value: unknown,
  variant: InterfaceVariant,
  field = 'blockNumber',
  options: QuantityOptions = {},
): bigint {
  const opts = { max: (1n << 63n) - 1n, ...options };
  if (typeof value === 'string' && !value.startsWith('0x') && variant === 'later') {
    return parseDecimal(value, field, opts);
  }
  if (typeof value === 'string' && !value.startsWith('0x')) {
    throw new CodecError(field, value, 'block number must be a 0x-prefixed hex string in this interface version');
  }
  return parseQuantity(value, field, opts);
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
