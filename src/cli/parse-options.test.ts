import { describe, expect, it } from 'vitest';
import { CliError } from './cli-error.js';
import { integerOption, parseOptions } from './parse-options.js';

describe('integerOption', () => {
  it('takes the fallback when absent and the value when in range', () => {
    expect(integerOption(undefined, 'nodes', 4, 1, 64)).toBe(4);
    expect(integerOption('64', 'nodes', 4, 1, 64)).toBe(64);
    expect(integerOption('0', 'rpc-port', 8545, 0, 65535)).toBe(0);
  });

  it('names the option, the range and the value it refuses', () => {
    expect(() => integerOption('65', 'nodes', 4, 1, 64)).toThrow(new CliError('--nodes must be an integer from 1 to 64 (got "65")'));
    expect(() => integerOption('0', 'seeds', 10, 1)).toThrow(new CliError('--seeds must be a positive integer (got "0")'));
    expect(() => integerOption('-1', 'from', 1, 0)).toThrow(new CliError('--from must be an integer ≥ 0 (got "-1")'));
    expect(() => integerOption('1.5', 'timeout', 30, 1)).toThrow(CliError);
    expect(() => integerOption('9007199254740993', 'seed', 0, 0)).toThrow(CliError);
    expect(() => integerOption('', 'seed', 0, 0)).toThrow(CliError);
  });
});

describe('parseOptions', () => {
  const options = { seed: { type: 'string' }, quiet: { type: 'boolean' }, group: { type: 'string', short: 'g' } } as const;

  it('takes a negative number as the value of a string option, as --seed=-1 does', () => {
    expect(parseOptions(['s.yaml', '--seed', '-1'], options).values.seed).toBe('-1');
    expect(parseOptions(['--seed', '-1.5', 's.yaml'], options)).toMatchObject({ values: { seed: '-1.5' }, positionals: ['s.yaml'] });
    expect(parseOptions(['-g', '-2'], options).values.group).toBe('-2');
    expect(parseOptions(['--seed=-1'], options).values.seed).toBe('-1');
  });

  it('still refuses an option where a value should be, and leaves what follows -- alone', () => {
    expect(() => parseOptions(['--seed', '--quiet'], options)).toThrow(CliError);
    expect(() => parseOptions(['--seed', '-x'], options)).toThrow(CliError);
    expect(() => parseOptions(['--quiet', '-1'], options)).toThrow(CliError);
    expect(parseOptions(['--seed', '7', '--', '--seed', '-1'], options)).toMatchObject({ values: { seed: '7' }, positionals: ['--seed', '-1'] });
  });
});
