import { benchmarks } from '../bench/index.js';
import { CliError } from './cli-error.js';
import type { CliIo } from './io.js';
import { parseOptions } from './parse-options.js';

export async function run(args: string[], io: CliIo): Promise<number> {
  const { positionals } = parseOptions(args, {});
  const names = positionals.length > 0 ? positionals : Object.keys(benchmarks);
  const unknown = names.filter((n) => !(n in benchmarks));
  if (unknown.length > 0) {
    throw new CliError(`unknown benchmark ${unknown.map((n) => `"${n}"`).join(', ')}; available: ${Object.keys(benchmarks).join(', ')}`);
  }
  for (const name of names) {
    const bench = await benchmarks[name]!.load();
    await bench.run({ out: (t) => io.out(t) });
    io.out('');
  }
  return 0;
}
