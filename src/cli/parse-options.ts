import { parseArgs, type ParseArgsConfig } from 'node:util';
import { CliError, UsageError } from './cli-error.js';

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

/** How an option is written in a message: `--name`, or `-c` for a short one given as such. */
function shown(token: { rawName: string }): string {
  return token.rawName;
}

/**
 * The first thing wrong with `args`, in our words: an unknown option (with the nearest known one),
 * an option without its value, a flag given a value. Found from parseArgs' tokens, not its message.
 */
function usageProblem(args: string[], options: NonNullable<ParseArgsConfig['options']>, allowPositionals: boolean): string {
  const { tokens } = parseArgs({ args, options, allowPositionals: true, strict: false, tokens: true });
  const known = Object.entries(options).flatMap(([name, o]) => [`--${name}`, ...(o.short ? [`-${o.short}`] : [])]);
  for (const token of tokens) {
    if (token.kind === 'positional' && !allowPositionals) return `unexpected argument "${token.value}" (this command takes options only)`;
    if (token.kind !== 'option') continue;
    const option = options[token.name];
    if (!option) {
      const near = nearestOption(token.rawName, known);
      return `unknown option ${token.rawName}${near ? ` (did you mean ${near}?)` : ''}`;
    }
    if (option.type === 'string') {
      if (token.value === undefined) return `${shown(token)} needs a value`;
      if (!token.inlineValue && token.value.startsWith('-')) {
        return `${shown(token)} needs a value, but the next argument "${token.value}" is an option (write ${shown(token)}=${token.value} if that is the value)`;
      }
    } else if (token.value !== undefined) return `${shown(token)} takes no value (got "${token.value}")`;
  }
  return 'the arguments cannot be read';
}

function nearestOption(given: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = given.length <= 3 ? 2 : 3;
  for (const k of known) {
    const d = editDistance(given, k);
    if (d < bestDistance) [best, bestDistance] = [k, d];
  }
  return best;
}

function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) next.push(Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1)));
    row = next;
  }
  return row[b.length]!;
}

/**
 * node:util parseArgs, strict, with its errors turned into one-line usage errors in our words
 * (main adds the pointer to the command's --help).
 */
export function parseOptions<T extends NonNullable<ParseArgsConfig['options']>>(
  args: string[],
  options: T,
  allowPositionals = true,
): ReturnType<typeof parseArgs<{ args: string[]; options: T; allowPositionals: boolean; strict: true }>> {
  const joined = joinNegativeValues(args, options);
  try {
    return parseArgs({ args: joined, options, allowPositionals, strict: true });
  } catch {
    throw new UsageError(usageProblem(joined, options, allowPositionals));
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
