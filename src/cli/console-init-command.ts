import { ConsoleError, initConsole } from '../console/index.js';
import { CliError } from './cli-error.js';
import type { CliIo } from './io.js';
import { parseOptions } from './parse-options.js';

/** twinchain console init <dir> --sdk <node sdk folder> [--peers host:port,...]. */
export async function run(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseOptions(args, { sdk: { type: 'string' }, peers: { type: 'string' } });
  if (positionals.length === 0) throw new CliError('the console folder to create is required: twinchain console init <dir> --sdk <node sdk folder>');
  if (positionals.length > 1) throw new CliError(`unexpected argument "${positionals[1]}"`);
  if (values.sdk === undefined) throw new CliError("--sdk <folder> is required: a node's sdk/ folder with ca.crt, sdk.crt and sdk.key (build-chain writes nodes/<ip>/sdk)");
  try {
    const result = initConsole(positionals[0]!, values.sdk, values.peers);
    io.out(`console folder ${result.dir} ready:`);
    io.out(`  conf/config.toml   peers ${result.peers.map((p) => `${p.host}:${p.port}`).join(', ')} (from ${result.peersFrom})`);
    io.out(`  conf/              ${result.certificates.map((c) => c.slice(5)).join(', ')}`);
    io.out(`  contracts/solidity ${result.contracts.join(', ')}`);
    io.out(`Start it with: twinchain console ${result.dir}`);
    return 0;
  } catch (error) {
    if (error instanceof ConsoleError) throw new CliError(error.message, 1);
    throw error;
  }
}
