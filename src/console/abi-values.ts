// Console words ↔ ABI values: arguments typed on the console line are checked and converted for
// their Solidity types, call data is encoded, return values and event logs are decoded and printed.
// The codec is ox's AbiParameters (what src/abi uses), not viem's root module: the console starts
// as a new process for every `-e` command, and viem's root module alone loads some 340 modules.
import * as AbiParameters from 'ox/AbiParameters';
import type { Abi, AbiEvent, AbiFunction, AbiParameter, Hex } from 'viem';
import { keccak_256 as keccak256 } from '@noble/hashes/sha3.js';
import { functionSelector } from '../abi/index.js';
import { concatBytes, fromHex, toHex } from '../codec/index.js';
import { ConsoleError } from './console-error.js';

/** Call data of `fn` (its keccak selector, as solc's code compares) with `args`. */
export function encodeFunctionData(fn: { name: string; inputs: readonly AbiParameter[] }, args: readonly unknown[]): Hex {
  const selector = functionSelector(signatureOf(fn), keccak256);
  return toHex(concatBytes(selector, encodeParameters(fn.inputs, args))) as Hex;
}

/** A creation's data: the code, then the constructor's arguments. */
export function encodeDeployData(abi: Abi, bytecode: Hex, args: readonly unknown[]): Hex {
  const constructor = abi.find((item) => item.type === 'constructor') as { inputs: readonly AbiParameter[] } | undefined;
  return toHex(concatBytes(fromHex(bytecode), encodeParameters(constructor?.inputs ?? [], args))) as Hex;
}

function encodeParameters(inputs: readonly AbiParameter[], args: readonly unknown[]): Uint8Array {
  if (inputs.length === 0) return new Uint8Array(0);
  return fromHex(AbiParameters.encode(inputs as AbiParameters.AbiParameters, args as never));
}

function decodeParameters(params: readonly AbiParameter[], data: Hex): unknown[] {
  return [...(AbiParameters.decode(params as AbiParameters.AbiParameters, data) as readonly unknown[])];
}

export function abiFunctions(abi: Abi): AbiFunction[] {
  return abi.filter((item): item is AbiFunction => item.type === 'function');
}

export function signatureOf(fn: { name?: string; inputs: readonly AbiParameter[] }): string {
  return `${fn.name ?? 'constructor'}(${fn.inputs.map(typeText).join(',')})`;
}

function typeText(p: AbiParameter): string {
  if (p.type.startsWith('tuple')) {
    const components = (p as { components?: readonly AbiParameter[] }).components ?? [];
    return `(${components.map(typeText).join(',')})${p.type.slice(5)}`;
  }
  return p.type;
}

export function isReadOnly(fn: AbiFunction): boolean {
  return fn.stateMutability === 'view' || fn.stateMutability === 'pure';
}

/** The function `name` of `contract` taking `argCount` arguments. */
export function findFunction(abi: Abi, contract: string, name: string, argCount: number): AbiFunction {
  const all = abiFunctions(abi);
  const named = all.filter((f) => f.name === name);
  if (named.length === 0) {
    const names = [...new Set(all.map((f) => f.name))];
    throw new ConsoleError(`${contract} has no function ${name}; it has ${names.length === 0 ? 'none' : names.join(', ')}`);
  }
  const fits = named.filter((f) => f.inputs.length === argCount);
  if (fits.length === 1) return fits[0]!;
  const usage = named.map((f) => signatureOf(f)).join(' or ');
  if (fits.length === 0) throw new ConsoleError(`${contract}.${name} takes ${named.map((f) => f.inputs.length).join(' or ')} argument(s), got ${argCount}: ${usage}`);
  throw new ConsoleError(`${contract}.${name} is overloaded with ${argCount} argument(s): ${usage}; the console cannot tell them apart`);
}

function fail(what: string, value: unknown, expected: string): never {
  throw new ConsoleError(`${what}: ${JSON.stringify(value)} is not ${expected}`);
}

/** One value for `param` from a console word (or, inside arrays and tuples, a JSON value). */
export function toAbiValue(param: AbiParameter, value: unknown, what: string): unknown {
  const type = param.type;
  const array = /^(.*)\[(\d*)\]$/.exec(type);
  if (array) {
    let items = value;
    if (typeof value === 'string') {
      try {
        items = JSON.parse(value);
      } catch {
        fail(what, value, `a JSON array for ${type} (e.g. [1,2])`);
      }
    }
    if (!Array.isArray(items)) fail(what, value, `an array for ${type}`);
    if (array[2] !== '' && items.length !== Number(array[2])) fail(what, value, `an array of ${array[2]} items for ${type}`);
    const inner = { ...param, type: array[1]! } as AbiParameter;
    return items.map((item, i) => toAbiValue(inner, item, `${what}[${i}]`));
  }
  if (type === 'tuple') {
    const components = (param as { components: readonly AbiParameter[] }).components;
    let items = value;
    if (typeof value === 'string') {
      try {
        items = JSON.parse(value);
      } catch {
        fail(what, value, `a JSON array of the tuple's ${components.length} fields`);
      }
    }
    if (!Array.isArray(items) || items.length !== components.length) fail(what, value, `a JSON array of the tuple's ${components.length} fields`);
    return components.map((c, i) => toAbiValue(c, items[i], `${what}.${c.name || i}`));
  }
  if (/^u?int\d*$/.test(type)) {
    const text = typeof value === 'number' ? String(value) : value;
    if (typeof text !== 'string' || !/^-?(0x[0-9a-fA-F]+|\d+)$/.test(text.trim())) fail(what, value, `an integer for ${type}`);
    const trimmed = text.trim();
    const n = trimmed.startsWith('-') ? -BigInt(trimmed.slice(1)) : BigInt(trimmed);
    const bits = Number(/\d+$/.exec(type)?.[0] ?? 256);
    const unsigned = type.startsWith('u');
    const min = unsigned ? 0n : -(1n << BigInt(bits - 1));
    const max = unsigned ? (1n << BigInt(bits)) - 1n : (1n << BigInt(bits - 1)) - 1n;
    if (n < min || n > max) fail(what, value, `within ${type} (${min}..${max})`);
    return n;
  }
  if (type === 'bool') {
    if (value === true || value === 'true') return true;
    if (value === false || value === 'false') return false;
    fail(what, value, 'true or false');
  }
  if (type === 'address') {
    if (typeof value !== 'string' || !/^0x[0-9a-fA-F]{40}$/.test(value)) fail(what, value, 'an address (0x and 40 hex digits)');
    return value.toLowerCase();
  }
  if (type === 'string') {
    if (typeof value !== 'string') fail(what, value, 'a string');
    return value;
  }
  const fixed = /^bytes(\d+)$/.exec(type);
  if (type === 'bytes' || fixed) {
    if (typeof value !== 'string' || !/^0x([0-9a-fA-F]{2})*$/.test(value)) fail(what, value, `hex bytes for ${type} (0x…)`);
    if (fixed && (value.length - 2) / 2 !== Number(fixed[1])) fail(what, value, `${fixed[1]} bytes for ${type}`);
    return value.toLowerCase();
  }
  throw new ConsoleError(`${what}: the console cannot pass a ${type}`);
}

/** The arguments of `fn` from console words. */
export function toAbiArguments(inputs: readonly AbiParameter[], words: readonly string[], signature: string): unknown[] {
  return inputs.map((param, i) => toAbiValue(param, words[i], `argument ${i + 1} (${param.name || param.type}) of ${signature}`));
}

/** A decoded value as the console prints it: integers in decimal, bytes in hex, arrays in brackets. */
export function formatValue(value: unknown): string {
  if (typeof value === 'bigint') return value.toString();
  if (Array.isArray(value)) return `[${value.map(formatValue).join(', ')}]`;
  if (value !== null && typeof value === 'object') return `{${Object.entries(value).map(([k, v]) => `${k}: ${formatValue(v)}`).join(', ')}}`;
  return String(value);
}

export function formatValues(values: readonly unknown[]): string {
  return `(${values.map(formatValue).join(', ')})`;
}

/** ox checksums decoded addresses; FISCO's tools print them in lower case. */
function lowerAddresses(value: unknown, param: AbiParameter): unknown {
  const array = /^(.*)\[\d*\]$/.exec(param.type);
  if (array && Array.isArray(value)) return value.map((v) => lowerAddresses(v, { ...param, type: array[1]! } as AbiParameter));
  if (param.type === 'tuple' && value !== null && typeof value === 'object') {
    const components = (param as { components: readonly AbiParameter[] }).components;
    return Array.isArray(value) ? value.map((v, i) => lowerAddresses(v, components[i]!)) : Object.fromEntries(components.map((c) => [c.name, lowerAddresses((value as Record<string, unknown>)[c.name ?? ''], c)]));
  }
  return param.type === 'address' && typeof value === 'string' ? value.toLowerCase() : value;
}

export function decodeOutputs(outputs: readonly AbiParameter[], data: Hex): unknown[] {
  if (outputs.length === 0) return [];
  try {
    return decodeParameters(outputs, data).map((v, i) => lowerAddresses(v, outputs[i]!));
  } catch (error) {
    throw new ConsoleError(`cannot decode the return values as (${outputs.map(typeText).join(',')}): ${(error as Error).message.split('\n')[0]}`);
  }
}

/** Solidity's `Error(string)` revert reason in call output, if that is what it is. */
export function revertReason(output: string | undefined): string | undefined {
  if (!output || !output.toLowerCase().startsWith('0x08c379a0')) return undefined;
  try {
    const [reason] = decodeParameters([{ type: 'string' }], `0x${output.slice(10)}` as Hex);
    return reason as string;
  } catch {
    return undefined;
  }
}

export interface ReceiptLog {
  readonly address: string;
  readonly topics: readonly string[];
  readonly data: string;
}

/** Indexed parameters whose topic is the hash of the value (strings, bytes, arrays, tuples) rather than the value. */
const hashedInTopic = (p: AbiParameter) => p.type === 'string' || p.type === 'bytes' || p.type.endsWith(']') || p.type.startsWith('tuple');

/** One log as the event `event` it was emitted as: the values in the event's input order, or undefined when it is not that event. */
function decodeEvent(event: AbiEvent, log: ReceiptLog): unknown[] | undefined {
  const topic0 = toHex(keccak256(new TextEncoder().encode(signatureOf(event))));
  if (log.topics[0]?.toLowerCase() !== topic0) return undefined;
  const indexed = event.inputs.filter((input) => input.indexed);
  if (log.topics.length !== indexed.length + 1) return undefined;
  const data = decodeParameters(event.inputs.filter((input) => !input.indexed), log.data as Hex);
  let topic = 1;
  let field = 0;
  return event.inputs.map((input) => {
    if (!input.indexed) return data[field++];
    const value = log.topics[topic++]! as Hex;
    return hashedInTopic(input) ? value : decodeParameters([input], value)[0];
  });
}

/** Logs decoded with the events of `abi`; logs it cannot decode are shown raw. */
export function decodeLogs(abi: Abi, logs: readonly ReceiptLog[]): string[] {
  const events = abi.filter((item): item is AbiEvent => item.type === 'event' && !item.anonymous);
  return logs.map((log) => {
    for (const event of events) {
      try {
        const values = decodeEvent(event, log);
        if (values) return `${event.name}${formatValues(values.map((v, i) => lowerAddresses(v, event.inputs[i]!)))}`;
      } catch {
        // not this event's layout: try the next, else show it raw
      }
    }
    return `log of ${log.address}: topics ${log.topics.join(', ')} data ${log.data}`;
  });
}
