import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { BenchIo } from './bench-io.js';
import { whatRuns } from './cli-bench.js';
import { table } from './measure.js';
import { packageRoot } from '../package-root.js';

const ROUNDS = 9;
const COLD_ROUNDS = 3;
const TARGET_MS = 600;
const ROOT = `${packageRoot()}${path.sep}`;
const BIN = path.join(ROOT, 'bin', 'twinchain.js');

const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

/** GNU time, where installed: the CPU time of each process too, which a loaded machine inflates far less than the wall time. */
const GNU_TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;

interface Sample {
  readonly wall: number;
  /** User + system CPU milliseconds, where GNU time measures them. */
  readonly cpu?: number;
}

/** One new process, which must exit 0: its wall time, and its CPU time where GNU time is there. */
function sample(args: string[], cwd: string): Sample {
  const start = performance.now();
  if (!GNU_TIME) {
    execFileSync(process.execPath, args, { cwd, stdio: 'ignore', timeout: 120_000 });
    return { wall: performance.now() - start };
  }
  const result = spawnSync(GNU_TIME, ['-f', 'cpu %U %S', process.execPath, ...args], { cwd, encoding: 'utf8', timeout: 120_000 });
  const wall = performance.now() - start;
  if (result.status !== 0) throw new Error(`${args.join(' ')} failed (status ${result.status}): ${result.stderr}`);
  const cpu = /cpu (\d+\.\d+) (\d+\.\d+)\s*$/.exec(result.stderr);
  return cpu ? { wall, cpu: (Number(cpu[1]) + Number(cpu[2])) * 1000 } : { wall };
}

/** `twinchain serve` with one sealer and a channel port: resolves with the port and the SDK folder once it is ready. */
function startServe(): Promise<{ proc: ChildProcess; channel: number; sdk: string }> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [BIN, 'serve', '--nodes', '1', '--rpc-port', '0', '--channel-port', '0', '--seed', 'console-bench'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`serve did not get ready in 120 s: ${out}`));
    }, 120_000);
    proc.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const channel = /node0 +channel +127\.0\.0\.1:(\d+)/.exec(out)?.[1];
      const sdk = /SDK certificates: (\S+)/.exec(out)?.[1];
      if (channel && sdk && /\nready: /.test(out)) {
        clearTimeout(timer);
        resolve({ proc, channel: Number(channel), sdk });
      }
    });
    proc.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    proc.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited with status ${code}: ${out}`));
    });
  });
}

function stopServe(proc: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (proc.exitCode !== null) return resolve();
    const kill = setTimeout(() => proc.kill('SIGKILL'), 10_000);
    proc.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    proc.kill('SIGTERM');
  });
}

const spread = (xs: readonly number[]) => `${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)}`;

/**
 * `twinchain console <dir> -e 'call HelloWorld <address> get'` as a new process against a
 * one-sealer `twinchain serve`, its artifact in the console folder's cache (contracts/sdk), next
 * to `node -e ''`, to a process that only imports what the console imports, and to the same call
 * with the cache removed (compiling): interleaved rounds, medians and spread. Target: the cached
 * call ≤ 600 ms wall.
 */
export async function run(io: BenchIo): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'twinchain-console-bench-'));
  const consoleDir = path.join(dir, 'console');
  const { proc, channel, sdk } = await startServe();
  try {
    execFileSync(process.execPath, [BIN, 'console', 'init', consoleDir, '--sdk', sdk, '--peers', `127.0.0.1:${channel}`], { stdio: 'ignore' });
    const deployed = execFileSync(process.execPath, [BIN, 'console', consoleDir, '-e', 'deploy HelloWorld'], { encoding: 'utf8' });
    const address = /contract address: (0x[0-9a-f]{40})/.exec(deployed)?.[1];
    if (!address) throw new Error(`deploy HelloWorld printed no address: ${deployed}`);
    const call = [BIN, 'console', consoleDir, '-e', `call HelloWorld ${address} get`];
    // what the console imports, without connecting: the modules bin/twinchain.js loads for it
    const imports = ['--input-type=module', '-e', `await import(${JSON.stringify(path.join(ROOT, 'dist', 'cli', 'console-command.js'))})`];
    sample(call, dir); // untimed: the file system cache, the artifact cache written by deploy read once
    const rounds = { bare: [] as Sample[], imports: [] as Sample[], cached: [] as Sample[], compiling: [] as Sample[] };
    for (let i = 0; i < ROUNDS; i++) {
      rounds.bare.push(sample(['-e', ''], dir));
      rounds.imports.push(sample(imports, dir));
      rounds.cached.push(sample(call, dir));
      if (i < COLD_ROUNDS) {
        rmSync(path.join(consoleDir, 'contracts', 'sdk'), { recursive: true, force: true });
        rounds.compiling.push(sample(call, dir));
      }
    }
    const wall = (xs: readonly Sample[]) => xs.map((x) => x.wall);
    const cpu = (xs: readonly Sample[]) => (xs.every((x) => x.cpu !== undefined) ? median(xs.map((x) => x.cpu!)).toFixed(0) : 'n/a');
    const [bare, imported, cached, compiling] = [median(wall(rounds.bare)), median(wall(rounds.imports)), median(wall(rounds.cached)), median(wall(rounds.compiling))];
    io.out(`console: \`console -e 'call HelloWorld <address> get'\` as a new process against a 1-sealer \`twinchain serve\` (bin/twinchain.js runs ${await whatRuns()}), ${ROUNDS} rounds (${COLD_ROUNDS} without the cache), interleaved\n`);
    io.out(
      table(
        ['process', 'median ms', 'min–max ms', 'CPU ms', 'target'],
        [
          ['console call, artifact cached', cached.toFixed(0), spread(wall(rounds.cached)), cpu(rounds.cached), cached <= TARGET_MS ? `meets ≤ ${TARGET_MS}` : `ABOVE target ${TARGET_MS}`],
          ['console call, cache removed (compiles)', compiling.toFixed(0), spread(wall(rounds.compiling)), cpu(rounds.compiling), 'reference'],
          ["node importing the console's modules", imported.toFixed(0), spread(wall(rounds.imports)), cpu(rounds.imports), ''],
          ["node -e ''", bare.toFixed(0), spread(wall(rounds.bare)), cpu(rounds.bare), ''],
        ],
      ),
    );
    io.out('');
    io.out(
      `where the cached call's ${cached.toFixed(0)} ms go: Node's start ${bare.toFixed(0)} ms; loading the console's modules ${(imported - bare).toFixed(0)} ms; ` +
        `the rest ${(cached - imported).toFixed(0)} ms (config and key files, TLS handshake, getClientVersion, getGroupList, the call, decoding and printing). ` +
        `Compiling adds ${(compiling - cached).toFixed(0)} ms (solc-js loaded and run).`,
    );
    if (bare > 150) io.out(`(a bare \`node -e ''\` taking ${bare.toFixed(0)} ms says the machine is loaded: the wall times are inflated; the CPU column is what the process itself spent)`);
  } finally {
    await stopServe(proc);
    rmSync(dir, { recursive: true, force: true });
  }
}
