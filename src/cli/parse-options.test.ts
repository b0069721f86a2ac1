import { describe, expect, it } from 'vitest';
import { CliError } from './cli-error.js';
import { integerOption } from './parse-options.js';

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
