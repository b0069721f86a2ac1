import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { vectors } from '../chain/vectors.test-helper.js';
import { benchmarks } from '../bench/index.js';
import { commands } from './commands.js';
import { captureIo as capture } from './capture-io.test-helper.js';
import { main } from './main.js';

describe('twinchain CLI', () => {
  it('--help lists every command', async () => {
    const io = capture();
    expect(await main(['--help'], io)).toBe(0);
    for (const c of commands) expect(io.stdout).toContain(c.synopsis);
  });

  it('an unknown command exits 2 with a pointer to --help', async () => {
    const io = capture();
    expect(await main(['frobnicate'], io)).toBe(2);
    expect(io.stderr).toContain('unknown command "frobnicate"');
  });

  it('help <command> prints that command\'s help, as <command> --help does', async () => {
    for (const c of commands) {
      const io = capture();
      const viaFlag = capture();
      expect(await main(['help', ...c.name.split(' ')], io)).toBe(0);
      await main([...c.name.split(' '), '--help'], viaFlag);
      expect(io.stdout).toBe(viaFlag.stdout);
      expect(io.stdout).toContain(`Usage: twinchain ${c.name}`);
    }
    const top = capture();
    expect(await main(['help'], top)).toBe(0);
    expect(top.stdout).toContain('Usage: twinchain <command>');
  });

  it('help of an unknown command says so and exits 2', async () => {
    const io = capture();
    expect(await main(['help', 'nosuch'], io)).toBe(2);
    expect(io.stderr.trim()).toBe('twinchain help: unknown command "nosuch". Run `twinchain --help` for the list.');
    expect(io.stdout).toBe('');
  });

  it('each command has its own --help', async () => {
    for (const c of commands) {
      const io = capture();
      expect(await main([...c.name.split(' '), '--help'], io)).toBe(0);
      expect(io.stdout).toContain(`Usage: twinchain ${c.name}`);
    }
  });
});

describe('help for a group of commands (issue 44)', () => {
  it('`help tx`, `tx --help` and `tx` list the tx commands; `tx nosuch` says so and lists them', async () => {
    for (const args of [['help', 'tx'], ['tx', '--help'], ['tx', '-h'], ['tx']]) {
      const io = capture();
      expect(await main(args, io)).toBe(0);
      expect(io.stdout).toContain('Usage: twinchain tx <command>');
      expect(io.stdout).toContain(commands.find((c) => c.name === 'tx decode')!.synopsis);
      expect(io.stderr).toBe('');
    }
    const io = capture();
    expect(await main(['tx', 'nosuch'], io)).toBe(2);
    expect(io.stderr).toContain('unknown command "tx nosuch"');
    expect(io.stderr).toContain('tx decode <hex>');
  });
});

describe('bench --help (issue 44)', () => {
  it('lists every benchmark of the registry, with its description, in its help and synopsis', async () => {
    const io = capture();
    expect(await main(['bench', '--help'], io)).toBe(0);
    const names = Object.keys(benchmarks);
    expect(names).toContain('replay');
    for (const name of names) {
      expect(io.stdout).toMatch(new RegExp(`^  ${name} +\\S`, 'm'));
      expect(io.stdout.replace(/\s+/g, ' ')).toContain(benchmarks[name]!.description.replace(/\s+/g, ' '));
    }
    const bench = commands.find((c) => c.name === 'bench')!;
    for (const name of names) expect(bench.synopsis).toContain(name);
    for (const line of io.stdout.split('\n')) expect(line.length).toBeLessThanOrEqual(92);
  });
});

describe('unknown and incomplete options, in our words (issue 44)', () => {
  /** Every command refuses an unknown option in one line of ours, with a pointer to its --help. */
  it.each(commands.map((c) => [c.name] as const))('%s --no-such-option', async (name) => {
    const io = capture();
    expect(await main([...name.split(' '), '--no-such-option'], io)).toBe(2);
    expect(io.stderr).toBe(`twinchain ${name}: unknown option --no-such-option${name === 'build-chain' ? ' (build-chain takes -l -p -o -i -c -g -v -C -T --state -h)' : ''}. Run \`twinchain ${name} --help\` for its options.\n`);
    expect(io.stdout).toBe('');
  });

  it.each([
    [['run', 'x.yaml', '--seed'], 'twinchain run: --seed needs a value. Run `twinchain run --help` for its options.'],
    [['run', 'x.yaml', '--sed', '3'], 'twinchain run: unknown option --sed (did you mean --seed?). Run `twinchain run --help` for its options.'],
    [['run', 'x.yaml', '--quiet=yes'], 'twinchain run: --quiet takes no value (got "yes"). Run `twinchain run --help` for its options.'],
    [['serve', '--rpc-port', '--quiet'], 'twinchain serve: --rpc-port needs a value, but the next argument "--quiet" is an option (write --rpc-port=--quiet if that is the value). Run `twinchain serve --help` for its options.'],
    [['run', 'x.yaml', '--seed', '-x'], 'twinchain run: --seed needs a value, but the next argument "-x" is an option (write --seed=-x if that is the value). Run `twinchain run --help` for its options.'],
    [['console', '-e'], 'twinchain console: -e needs a value. Run `twinchain console --help` for its options.'],
    [['swarm', 'x.yaml', '--seeds'], 'twinchain swarm: --seeds needs a value. Run `twinchain swarm --help` for its options.'],
    [['build-chain', '--state'], 'twinchain build-chain: --state needs a value. Run `twinchain build-chain --help` for its options.'],
    [['build-chain', '-l'], 'twinchain build-chain: -l needs a value. Run `twinchain build-chain --help` for its options.'],
  ])('%j', async (args, line) => {
    const io = capture();
    expect(await main(args, io)).toBe(2);
    expect(io.stderr).toBe(`${line}\n`);
    // parseArgs' own words (with its unclosed quote) never show
    expect(io.stderr).not.toMatch(/Unknown option '|argument missing|ambiguous|To specify a positional/);
  });
});

describe('twinchain tx decode', () => {
  it.each(vectors.transactions.map((v) => [v.name, v] as const))('%s: auto-detects suite and generation', async (_n, v) => {
    const io = capture();
    expect(await main(['tx', 'decode', v.raw], io)).toBe(0);
    const json = JSON.parse(io.stdout) as Record<string, unknown>;
    expect(json.hash).toBe(v.hash);
    expect(json.from).toBe(v.from);
    expect(json.generation).toBe(v.generation);
    expect(json.suite).toBe(v.suite.startsWith('sm') ? 'sm' : 'ecdsa');
    expect(typeof json.signingHash).toBe('string');
  });

  it('honours explicit --suite/--generation, and a wrong one is a clear error', async () => {
    const v = vectors.transactions.find((t) => t.name === 'rc1-ecdsa')!;
    const ok = capture();
    expect(await main(['tx', 'decode', `0x${v.raw}`, '--suite', 'ecdsa', '--generation', 'rc1'], ok)).toBe(0);
    const wrong = capture();
    expect(await main(['tx', 'decode', v.raw, '--generation', 'rc2'], wrong)).toBe(2);
    expect(wrong.stderr.trim()).toBe('twinchain tx decode: InvalidFormat: an rc2 transaction has 13 fields (10 + v, r, s), got 10');
  });

  it.each([
    [['zz12'], 'BadRLP: payload: not a hex string'],
    [['f8'], 'twinchain tx decode: BadRLP: invalid RLP: the length of the item at byte 0 runs past the end of the data'],
    [['b9004000'], 'twinchain tx decode: BadRLP: invalid RLP: the length of the item at byte 0 starts with a zero byte'],
    [[], 'expected exactly one hex payload, got 0'],
    [['00', '--suite', 'rsa'], '--suite must be one of ecdsa, sm (got "rsa")'],
    [['00', '--bogus'], 'unknown option --bogus. Run `twinchain tx decode --help` for its options.'],
  ])('bad input %j prints one line and exits 2', async (args, message) => {
    const io = capture();
    expect(await main(['tx', 'decode', ...args], io)).toBe(2);
    expect(io.stderr.trim().split('\n')).toHaveLength(1);
    expect(io.stderr).toContain(message);
    expect(io.stderr).not.toMatch(/invalid RLP.*invalid RLP/);
    expect(io.stdout).toBe('');
  });
});

describe('bin/twinchain.js', () => {
  const bin = new URL('../../bin/twinchain.js', import.meta.url).pathname;

  it('runs the CLI as a process', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [bin, '--help']);
    expect(stdout).toContain('Usage: twinchain <command>');
  });

  /** Runs the CLI with its stdout a pipe whose reader is gone (as `| head` after its lines); its exit code, signal and stderr. */
  async function withClosedStdout(args: string[]): Promise<{ code: number | null; signal: string | null; stderr: string }> {
    const child = spawn(process.execPath, [bin, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    const killer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    try {
      child.stdout.destroy();
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const [code, signal] = (await once(child, 'close')) as [number | null, string | null];
      return { code, signal, stderr };
    } finally {
      clearTimeout(killer);
      child.kill('SIGKILL');
    }
  }

  // before: "Error: write EPIPE ... Unhandled 'error' event", a stack trace and exit 1
  it.each([[['--help']], [['run', '--help']], [['tx', 'decode', vectors.transactions[0]!.raw]]])(
    'exits quietly when its stdout is a pipe whose reader has gone: %j',
    async (args) => {
      const { code, signal, stderr } = await withClosedStdout(args);
      expect(stderr).toBe('');
      expect(signal).toBeNull();
      expect(code).toBe(141);
    },
  );
});
