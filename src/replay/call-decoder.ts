// What a transaction calls, for divergence reports: the function selector looked up in the ABIs
// of the fixture contracts (fixtures/contracts/artifacts, the system precompile interfaces among
// them), with its arguments when they decode; otherwise the bare selector.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { toHex, toHexNoPrefix } from '../codec/index.js';
import { decodeAbi } from '../abi/index.js';
import { keccak256, type CryptoSuite } from '../crypto/index.js';
import { packagePath } from '../package-root.js';

const ARTIFACTS = packagePath('fixtures', 'contracts', 'artifacts');

/** FISCO 2.x system contracts by address. */
const SYSTEM_CONTRACTS: Record<string, string> = {
  '0x0000000000000000000000000000000000001000': 'SystemConfigPrecompiled',
  '0x0000000000000000000000000000000000001001': 'TableFactory',
  '0x0000000000000000000000000000000000001002': 'CRUDPrecompiled',
  '0x0000000000000000000000000000000000001003': 'ConsensusPrecompiled',
  '0x0000000000000000000000000000000000001004': 'CNSPrecompiled',
  '0x0000000000000000000000000000000000001005': 'PermissionPrecompiled',
};

interface AbiInput {
  readonly type: string;
  readonly components?: readonly AbiInput[];
}
interface AbiItem {
  readonly type: string;
  readonly name?: string;
  readonly inputs?: readonly AbiInput[];
}
interface KnownFunction {
  readonly signature: string;
  readonly types: string;
  readonly contracts: string[];
}

function typeOf(input: AbiInput): string {
  if (input.type.startsWith('tuple')) return `(${(input.components ?? []).map(typeOf).join(',')})${input.type.slice('tuple'.length)}`;
  return input.type;
}

let abis: Array<{ contract: string; abi: AbiItem[] }> | undefined;

function loadAbis(): Array<{ contract: string; abi: AbiItem[] }> {
  if (!abis) {
    abis = [];
    try {
      for (const file of readdirSync(ARTIFACTS).filter((f) => f.endsWith('.json')).sort()) {
        const artifact = JSON.parse(readFileSync(path.join(ARTIFACTS, file), 'utf8')) as { contractName?: string; abi?: AbiItem[] };
        abis.push({ contract: artifact.contractName ?? file.replace(/\.json$/, ''), abi: artifact.abi ?? [] });
      }
    } catch {
      // no fixtures beside this checkout: selectors stay undecoded
    }
  }
  return abis;
}

const tables = new Map<string, Map<string, KnownFunction>>();

/**
 * Selectors under the chain's hash, then (SM chains) under keccak256: the fixture artifacts are
 * compiled with keccak selectors, while the system precompiles dispatch on the chain's hash.
 */
function selectorTable(suite: CryptoSuite): Map<string, KnownFunction> {
  let table = tables.get(suite.name);
  if (table) return table;
  table = new Map();
  const hashes = suite.name === 'sm' ? [(d: Uint8Array) => suite.hash(d), keccak256] : [(d: Uint8Array) => suite.hash(d)];
  for (const hash of hashes) {
    for (const { contract, abi } of loadAbis()) {
      for (const item of abi) {
        if (item.type !== 'function' || !item.name) continue;
        const types = (item.inputs ?? []).map(typeOf).join(',');
        const signature = `${item.name}(${types})`;
        const selector = toHexNoPrefix(hash(new TextEncoder().encode(signature)).subarray(0, 4));
        const known = table.get(selector);
        if (!known) table.set(selector, { signature, types, contracts: [contract] });
        else if (known.signature === signature && !known.contracts.includes(contract)) known.contracts.push(contract);
      }
    }
  }
  tables.set(suite.name, table);
  return table;
}

function show(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 80 ? `${value.slice(0, 77)}...` : value);
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Uint8Array) return toHex(value);
  if (Array.isArray(value)) return `[${value.map(show).join(', ')}]`;
  return String(value);
}

/**
 * One line naming the call: `ConsensusPrecompiled.addObserver(string)("ab12…") at 0x…1003`,
 * `creation of a contract (1,234 bytes of init code)`, or the bare selector when unknown.
 */
export function describeCall(to: Uint8Array | null, input: Uint8Array, suite: CryptoSuite): string {
  if (to === null) return `creation of a contract (${input.length.toLocaleString('en-US')} bytes of init code)`;
  const address = toHex(to);
  const system = SYSTEM_CONTRACTS[address];
  if (input.length < 4) return `call to ${system ?? address} with ${input.length} bytes of input (no function selector)`;
  const selector = toHexNoPrefix(input.subarray(0, 4));
  const known = selectorTable(suite).get(selector);
  if (!known) return `call of selector 0x${selector} (not in the fixture ABIs) at ${system ?? address}`;
  const owner = system && known.contracts.includes(system) ? system : known.contracts.join('|');
  let args = '';
  try {
    args = `(${decodeAbi(known.types, input.subarray(4)).map(show).join(', ')})`;
  } catch {
    args = ' (arguments do not decode)';
  }
  return `${owner}.${known.signature}${args} at ${address}`;
}
