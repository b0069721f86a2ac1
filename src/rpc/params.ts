import {
  CodecError,
  describeValue,
  parseBlockNumber,
  parseHexBytes,
  parseQuantityParam,
  type InterfaceVariant,
} from '../codec/index.js';
import { rpcError, type RpcError } from './errors.js';

/*
 * Parameter parsing, one function per SPEC parameter type. Each failure is -32602 naming the
 * parameter and quoting the value. Leniency, applied the same way everywhere:
 * - hex data (hashes, addresses, call data, rlp): the 0x prefix is optional and digits may be
 *   upper or lower case, but lengths are exact;
 * - quantities (block numbers, transaction indexes): 0x hex in both variants, leading zero
 *   digits accepted ("0x01"), as SDKs that pad numbers send them; decimal digits too in the
 *   later variant, as FISCO's jsToInt reads them (codec's parseDecimalOrHex: a leading-zero
 *   decimal that FISCO would read as another octal number is refused, not guessed);
 * - call value: FISCO's jsToU256 (callValueParam).
 */

/** Largest group id: FISCO declares groupID as a C++ int. */
export const MAX_GROUP_ID = 2 ** 31 - 1;

export function invalidParam(name: string, value: unknown, reason: string): RpcError {
  return rpcError('invalidParams', `${name}: ${reason} (got ${describeValue(value)})`);
}

function codec<T>(parse: () => T): T {
  try {
    return parse();
  } catch (e) {
    if (e instanceof CodecError) throw rpcError('invalidParams', e.message);
    throw e;
  }
}

/** groupID: a JSON integer in 0 .. 2^31-1. */
export function groupIdParam(value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    throw invalidParam('groupID', value, 'expected an unsigned integer (a JSON number)');
  }
  if (value < 0) throw invalidParam('groupID', value, 'a group id is unsigned');
  if (value > MAX_GROUP_ID) throw invalidParam('groupID', value, `a group id is at most ${MAX_GROUP_ID}`);
  return value;
}

export function booleanParam(value: unknown, name: string): boolean {
  if (typeof value !== 'boolean') throw invalidParam(name, value, 'expected true or false (a JSON boolean)');
  return value;
}

export function stringParam(value: unknown, name: string): string {
  if (typeof value !== 'string') throw invalidParam(name, value, 'expected a string');
  return value;
}

/** A 32-byte hash. */
export function hashParam(value: unknown, name: string): Uint8Array {
  return codec(() => parseHexBytes(value, name, { prefix: 'optional', length: 32 }));
}

/** FISCO's fromHex/toAddress strip a lower-case "0x" only; "0X" leaves an X, a bad hex character. */
function noUpperPrefix(value: unknown, name: string): void {
  if (typeof value === 'string' && value.startsWith('0X')) throw invalidParam(name, value, 'the hex prefix must be lower-case 0x');
}

/** A 20-byte address (FISCO toAddress: optional lower-case 0x, exactly 20 bytes). */
export function addressParam(value: unknown, name: string): Uint8Array {
  noUpperPrefix(value, name);
  return codec(() => parseHexBytes(value, name, { prefix: 'optional', length: 20 }));
}

/** Hex bytes of any length ("0x" is empty); FISCO jsToBytes: optional lower-case 0x. */
export function bytesParam(value: unknown, name: string): Uint8Array {
  noUpperPrefix(value, name);
  return codec(() => parseHexBytes(value, name, { prefix: 'optional' }));
}

/** A block number: hex in both variants, decimal too in the later one. At most 2^63-1. */
export function blockNumberParam(value: unknown, variant: InterfaceVariant, name = 'blockNumber'): bigint {
  if (typeof value !== 'string') {
    throw invalidParam(name, value, variant === 'later' ? 'expected a decimal or 0x-prefixed hex string' : 'expected a 0x-prefixed hex string');
  }
  return codec(() => parseBlockNumber(value, variant, name));
}

/** transactionIndex: FISCO reads it with jsToInt, decimal or hex, in the later variant; hex only in the earlier one (SPEC). */
export function transactionIndexParam(value: unknown, variant: InterfaceVariant, name = 'transactionIndex'): bigint {
  if (typeof value !== 'string') {
    throw invalidParam(name, value, variant === 'later' ? 'expected a decimal or 0x-prefixed hex string' : 'expected a 0x-prefixed hex string');
  }
  return codec(() => parseQuantityParam(value, variant, name));
}

const U256_MAX = (1n << 256n) - 1n;
/** jsoncpp reads integers up to 2^64 - 1 exactly; larger ones become doubles, whose text is not digits. */
const JSON_UINT64_MAX = 2 ** 64;

/**
 * The call request's `value`, read as FISCO reads it: `jsToU256(request["value"].asString())`.
 * jsoncpp's asString turns a JSON integer into its decimal text; jsToU256 takes "0x" + hex
 * digits (either case, any count, "0x" alone is 0) or digits, which boost's cpp_int reads as
 * decimal, or after a leading "0" as octal ("" is 0; "08" throws), and throws on anything else
 * ("0X1", "-1", "1.5", "true"). Absent or null is 0. Twinchain moves no value, so the result is
 * only checked (octal or decimal, a valid number is accepted). Beyond 256 bits FISCO wraps; we refuse.
 */
export function callValueParam(value: unknown, name = 'request.value'): bigint {
  if (value === undefined || value === null) return 0n;
  let text: string;
  if (typeof value === 'number') {
    if (!Number.isInteger(value) || value < 0 || value >= JSON_UINT64_MAX) {
      throw invalidParam(name, value, 'expected a non-negative integer, a decimal string or a 0x-prefixed hex string');
    }
    text = BigInt(value).toString();
  } else if (typeof value === 'string') {
    text = value;
  } else {
    throw invalidParam(name, value, 'expected a non-negative integer, a decimal string or a 0x-prefixed hex string');
  }
  let parsed: bigint;
  if (text.startsWith('0x')) {
    const digits = text.slice(2);
    if (!/^[0-9a-fA-F]*$/.test(digits)) throw invalidParam(name, value, 'not a hex number after 0x');
    parsed = digits === '' ? 0n : BigInt(text);
  } else if (text === '') {
    parsed = 0n;
  } else if (/^0[0-7]*$/.test(text)) {
    parsed = BigInt(`0o${text}`);
  } else if (/^[1-9][0-9]*$/.test(text)) {
    parsed = BigInt(text);
  } else if (/^0[0-9]+$/.test(text)) {
    throw invalidParam(name, value, 'a number with a leading zero is octal to FISCO (boost cpp_int), and 8 and 9 are no octal digits');
  } else {
    throw invalidParam(name, value, 'expected decimal digits or 0x followed by hex digits (lower-case 0x)');
  }
  if (parsed > U256_MAX) throw invalidParam(name, value, 'exceeds 2^256 - 1');
  return parsed;
}

/**
 * A parameter FISCO declares JSON_INTEGER and then ignores (getPeers, getNodeIDList in the later
 * variant): libjson-rpc-cpp's type check is jsoncpp's isInt, a JSON integer in -2^31 .. 2^31-1.
 */
export function jsonIntParam(value: unknown, name: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value)) throw invalidParam(name, value, 'expected an integer (a JSON number)');
  if (value < -(2 ** 31) || value > MAX_GROUP_ID) throw invalidParam(name, value, `expected an integer in -2147483648 .. ${MAX_GROUP_ID}`);
  return value;
}
