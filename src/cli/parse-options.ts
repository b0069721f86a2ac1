import { parseArgs, type ParseArgsConfig } from 'node:util';
import { CliError } from './cli-error.js';

/** node:util parseArgs, strict, with its errors turned into one-line CliErrors. */
export function parseOptions<T extends NonNullable<ParseArgsConfig['options']>>(args: string[], options: T, allowPositionals = true) {
  try {
    return parseArgs({ args, options, allowPositionals, strict: true });
  } catch (e) {
    throw new CliError((e as Error).message.split('\n')[0]!);
  }
}

export function oneOf<T extends string>(value: string | undefined, allowed: readonly T[], option: string): T | undefined {
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value)) {
    throw new CliError(`--${option} must be one of ${allowed.join(', ')} (got "${value}")`);
  }
  return value as T;
}

/** An integer option in [min, max], or `fallback` when it is absent. */
export function integerOption(value: string | undefined, option: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!/^-?[0-9]+$/.test(value) || !Number.isSafeInteger(n) || n < min || n > max) {
    const range = max !== Number.MAX_SAFE_INTEGER ? `from ${min} to ${max}` : min === 1 ? '' : `≥ ${min}`;
    throw new CliError(`--${option} must be ${range === '' ? 'a positive integer' : `an integer ${range}`} (got "${value}")`);
  }
  return n;
}
