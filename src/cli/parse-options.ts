import { parseArgs, type ParseArgsConfig } from 'node:util';
import { CliError } from './cli-error.js';

const NEGATIVE_NUMBER = /^-(\d+(\.\d*)?|\.\d+)$/;

/**
 * `--seed -1` as `--seed=-1` (and `-g -2` as `-g-2`): parseArgs takes a value
 * that starts with a dash only when joined to its option, and calls the separate form ambiguous.
 * Only a negative number is joined; anything else that starts with a dash stays an option.
 */
function joinNegativeValues(args: readonly string[], options: NonNullable<ParseArgsConfig['options']>): string[] {
  const takesValue = (arg: string): boolean => {
    if (arg.startsWith('--')) return options[arg.slice(2)]?.type === 'string';
    if (/^-[^-]$/.test(arg)) return Object.values(options).some((o) => o.short === arg[1] && o.type === 'string');
    return false;
  };
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') return [...out, ...args.slice(i)];
    const next = args[i + 1];
    if (next !== undefined && NEGATIVE_NUMBER.test(next) && takesValue(arg)) {
      out.push(arg.startsWith('--') ? `${arg}=${next}` : `${arg}${next}`);
      i++;
    } else out.push(arg);
  }
  return out;
}

/** node:util parseArgs, strict, with its errors turned into one-line CliErrors. */
export function parseOptions<T extends NonNullable<ParseArgsConfig['options']>>(
  args: string[],
  options: T,
  allowPositionals = true,
): ReturnType<typeof parseArgs<{ args: string[]; options: T; allowPositionals: boolean; strict: true }>> {
  try {
    return parseArgs({ args: joinNegativeValues(args, options), options, allowPositionals, strict: true });
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
