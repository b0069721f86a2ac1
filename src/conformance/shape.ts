/*
 * SPEC.md's value conventions as predicates, and a field-table checker that lists every
 * mismatch of an object against a table of expected field types.
 */

export type FieldType =
  /** "0x" then hex digits (numeric ledger values). */
  | 'quantity'
  /** 0x-prefixed 32-byte hex. */
  | 'hash'
  /** 0x-prefixed 20-byte hex. */
  | 'address'
  | 'address|null'
  /** 0x-prefixed hex bytes, "0x" when empty. */
  | 'data'
  /** 128 hex characters, no prefix (64-byte public key). */
  | 'nodeId'
  | 'nodeId[]'
  | 'hash[]'
  | 'string'
  /** A string of decimal digits. */
  | 'decimalString'
  /** A JSON number, integer, ≥ 0. */
  | 'uint'
  /** Declared unsigned int, sent as a decimal string (PBFT cache fields). */
  | 'uint|decimalString'
  /** A JSON number, integer. */
  | 'int'
  | 'bool'
  | 'array'
  | 'object';

const QUANTITY = /^0x[0-9a-fA-F]+$/;
const HASH = /^0x[0-9a-fA-F]{64}$/;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const DATA = /^0x(?:[0-9a-fA-F]{2})*$/;
const NODE_ID = /^[0-9a-fA-F]{128}$/;
const DECIMAL = /^[0-9]+$/;

const str = (v: unknown): v is string => typeof v === 'string';

export const isQuantity = (v: unknown): v is string => str(v) && QUANTITY.test(v);
export const isHash = (v: unknown): v is string => str(v) && HASH.test(v);
export const isAddress = (v: unknown): v is string => str(v) && ADDRESS.test(v);
export const isData = (v: unknown): v is string => str(v) && DATA.test(v);
export const isNodeId = (v: unknown): v is string => str(v) && NODE_ID.test(v);
export const isUint = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0;
export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const PREDICATES: Record<FieldType, (v: unknown) => boolean> = {
  quantity: isQuantity,
  hash: isHash,
  address: isAddress,
  'address|null': (v) => v === null || isAddress(v),
  data: isData,
  nodeId: isNodeId,
  'nodeId[]': (v) => Array.isArray(v) && v.every(isNodeId),
  'hash[]': (v) => Array.isArray(v) && v.every(isHash),
  string: str,
  decimalString: (v) => str(v) && DECIMAL.test(v),
  uint: isUint,
  'uint|decimalString': (v) => isUint(v) || (str(v) && DECIMAL.test(v)),
  int: (v) => typeof v === 'number' && Number.isInteger(v),
  bool: (v) => typeof v === 'boolean',
  array: Array.isArray,
  object: isObject,
};

const DESCRIPTIONS: Record<FieldType, string> = {
  quantity: 'a 0x hex quantity',
  hash: 'a 0x-prefixed 32-byte hash',
  address: 'a 0x-prefixed 20-byte address',
  'address|null': 'an address or null',
  data: '0x-prefixed hex bytes',
  nodeId: 'a node id (128 hex, no 0x)',
  'nodeId[]': 'an array of node ids (128 hex, no 0x)',
  'hash[]': 'an array of 0x hashes',
  string: 'a string',
  decimalString: 'a decimal string',
  uint: 'an unsigned integer (JSON number)',
  'uint|decimalString': 'an unsigned integer or a decimal string',
  int: 'an integer (JSON number)',
  bool: 'a boolean',
  array: 'an array',
  object: 'an object',
};

export function show(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > 70 ? `${text.slice(0, 67)}...` : text;
}

export function matches(value: unknown, type: FieldType): boolean {
  return PREDICATES[type](value);
}

/** Problems of `value` against a field table: missing fields and wrong types (extra fields are allowed). */
export function fieldProblems(value: unknown, fields: Readonly<Record<string, FieldType>>, what: string): string[] {
  if (!isObject(value)) return [`${what} is not an object: ${show(value)}`];
  const problems: string[] = [];
  for (const [name, type] of Object.entries(fields)) {
    if (!(name in value)) problems.push(`${what} has no "${name}"`);
    else if (!matches(value[name], type)) problems.push(`${what}.${name} should be ${DESCRIPTIONS[type]}, got ${show(value[name])}`);
  }
  return problems;
}

/** Fields that must not be there (variant differences). */
export function presentFields(value: unknown, names: readonly string[], what: string, why: string): string[] {
  if (!isObject(value)) return [];
  return names.filter((n) => n in value).map((n) => `${what} has "${n}", which ${why}`);
}
