import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { vectors } from '../chain/vectors.test-helper.js';
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
    [['00', '--bogus'], "Unknown option '--bogus'"],
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
