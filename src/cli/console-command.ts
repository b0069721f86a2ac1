import { runConsole } from '../console/index.js';
import { CliError } from './cli-error.js';
import type { CliIo } from './io.js';
import { integerOption, parseOptions } from './parse-options.js';

/** twinchain console [dir] [--group N] [-e command]...: FISCO's console over the channel port. */
export async function run(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseOptions(args, {
    group: { type: 'string', short: 'g' },
    exec: { type: 'string', short: 'e', multiple: true },
  });
  if (positionals.length > 1) throw new CliError(`unexpected argument "${positionals[1]}" (one console folder at most)`);
  const group = integerOption(values.group, 'group', 1, 1, 32767);
  const interactive = values.exec === undefined && Boolean(process.stdin.isTTY) && Boolean(process.stdout.isTTY);
  return runConsole({
    dir: positionals[0] ?? '.',
    group,
    ...(values.exec ? { commands: values.exec } : {}),
    input: process.stdin,
    output: process.stdout,
    interactive,
    io,
  });
}
