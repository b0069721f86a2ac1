import {
  CodecError,
  describeValue,
  parseBlockNumber,
  parseHexBytes,
  parseQuantity,
  type InterfaceVariant,
} from '../codec/index.js';
import { rpcError, type RpcError } from './errors.js';

/*
 * Parameter parsing, one function per SPEC parameter type. Each failure is -32602 naming the
 * parameter and quoting the value. Leniency, applied the same way everywhere:
 * - hex data (hashes, addresses, call data, rlp): the 0x prefix is optional and digits may be
 *   upper or lower case, but lengths are exact;
 * - hex quantities (block numbers, transaction indexes, call value): 0x is required, leading
 *   zero digits are accepted ("0x01"), as SDKs that pad numbers send them;
 * - decimal block numbers (later variant only): digits only, leading zeros accepted.
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

/** A 20-byte address. */
export function addressParam(value: unknown, name: string): Uint8Array {
  return codec(() => parseHexBytes(value, name, { prefix: 'optional', length: 20 }));
}

/** Hex bytes of any length ("0x" is empty). */
export function bytesParam(value: unknown, name: string): Uint8Array {
  return codec(() => parseHexBytes(value, name, { prefix: 'optional' }));
}

/** A block number: hex in both variants, decimal too in the later one. At most 2^63-1. */
export function blockNumberParam(value: unknown, variant: InterfaceVariant, name = 'blockNumber'): bigint {
  if (typeof value !== 'string') {
    throw invalidParam(name, value, variant === 'later' ? 'expected a decimal or 0x-prefixed hex string' : 'expected a 0x-prefixed hex string');
  }
  return codec(() => parseBlockNumber(value, variant, name, { allowLeadingZeros: true }));
}

/** A hex quantity such as transactionIndex. */
export function quantityParam(value: unknown, name: string): bigint {
  return codec(() => parseQuantity(value, name, { allowLeadingZeros: true }));
}
