import type { SelectorHashes } from './precompile.js';
import {
  code,
  CODE_INVALID_CONFIGURATION_VALUES,
  CODE_NO_AUTHORIZED,
  PrecompiledContract,
} from './precompile.js';
import { SYS_CONFIG } from './system-tables.js';

/** Keys settable on chain and their lower bounds (FISCO `SystemConfigPrecompiled`). */
export const CONFIG_BOUNDS: Readonly<Record<string, { min: bigint; max?: bigint }>> = {
  tx_count_limit: { min: 1n },
  tx_gas_limit: { min: 100_000n },
  consensus_timeout: { min: 3n, max: 4_294_967n },
};

const INT64_MAX = 2n ** 63n - 1n;

/** Why a system config value is invalid, or null. */
export function configValueError(key: string, value: string, allowConsensusTimeout = true): string | null {
  const bounds = CONFIG_BOUNDS[key];
  if (!bounds || (key === 'consensus_timeout' && !allowConsensusTimeout)) return `unsupported key "${key}"`;
  if (!/^\d+$/.test(value)) return `${key} must be a non-negative integer, got "${value}"`;
  const n = BigInt(value);
  // FISCO reads every value as an int64 and refuses what does not fit
  if (n > INT64_MAX) return `${key} must be at most 2^63-1 (${INT64_MAX}), got ${value}`;
  if (n < bounds.min) return `${key} must be at least ${bounds.min}, got ${value}`;
  if (bounds.max !== undefined && n >= bounds.max) return `${key} must be below ${bounds.max}, got ${value}`;
  return null;
}

/** 0x1000: `setValueByKey(string,string)`; the new value applies from the next block. */
export function systemConfigPrecompile(hash: SelectorHashes, allowConsensusTimeout: boolean): PrecompiledContract {
  return new PrecompiledContract(
    'SystemConfig',
    [
      {
        signature: 'setValueByKey(string,string)',
        outputs: 'code',
        async run(ctx, [rawKey, rawValue]) {
          const key = String(rawKey).toLowerCase();
          const value = String(rawValue).trim();
          // SystemConfigPrecompiled checks the value first; the account last, as MemoryTable2's write does
          if (configValueError(key, value, allowConsensusTimeout)) return code(CODE_INVALID_CONFIGURATION_VALUES);
          if (!(await ctx.tables.mayWrite(SYS_CONFIG, ctx.origin, ctx.number))) return code(CODE_NO_AUTHORIZED);
          await ctx.tables.setConfig(key, value, ctx.number);
          return code(1);
        },
      },
    ],
    hash,
    false,
    'zero',
  );
}
