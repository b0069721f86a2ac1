import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildChain, parseBuildChainArgs } from './index.js';
import { ALIVE } from './scripts.js';

// start.sh runs "<TWINCHAIN_NODE_EXE> <TWINCHAIN_BIN> node -c config.ini"; a bash stand-in
// for the node prints the lines the real one prints and exits on SIGTERM.
const FAKE_NODE = `#!/bin/bash
[ "$1" = node ] && [ "$2" = -c ] && [ -f "$3" ] || { echo "bad arguments: $*"; exit 2; }
echo "[2024-01-01 00:00:00] Initializing..."
if [ "$(basename "$PWD")" = "$FAKE_FAILING_NODE" ]; then echo "Init failed!!! boom"; exit 1; fi
trap 'echo "[2024-01-01 00:00:01] Twinchain program exit normally."; exit 0' TERM
echo "[2024-01-01 00:00:00] The Twinchain node is running... ($(basename "$PWD"), umask $(umask))"
while true; do sleep 0.05; done
`;

const scratch = mkdtempSync(path.join(tmpdir(), 'twinchain-scripts-'));
const out = path.join(scratch, 'nodes');
const ipDir = path.join(out, '127.0.0.1');
const fake = path.join(scratch, 'fake-twinchain.sh');
const started = new Set<number>();

function sh(script: string, extraEnv: Record<string, string> = {}, umask?: string): { status: number | null; stdout: string } {
  // run from an unrelated folder: the scripts must find their own
  const args = umask === undefined ? [script] : ['-c', `umask ${umask} && exec bash "$0"`, script];
  const r = spawnSync('bash', args, { cwd: scratch, encoding: 'utf8', env: { ...process.env, TWINCHAIN_NODE_EXE: '/bin/bash', TWINCHAIN_BIN: fake, ...extraEnv } });
  for (const n of ['node0', 'node1']) {
    const pidFile = path.join(ipDir, n, 'node.pid');
    if (existsSync(pidFile)) started.add(Number(readFileSync(pidFile, 'utf8')));
  }
  return { status: r.status, stdout: r.stdout + r.stderr };
}

function alive(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8') !== '';
  } catch {
    return false;
  }
}

beforeAll(async () => {
  writeFileSync(fake, FAKE_NODE, { mode: 0o755 });
  const options = parseBuildChainArgs(['-l', '127.0.0.1:2', '-o', out]);
  if (options === 'help') throw new Error('help');
  await buildChain(options);
});

afterAll(() => {
  for (const pid of started) {
    if (alive(pid) && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(fake)) process.kill(pid, 'SIGKILL');
  }
  rmSync(scratch, { recursive: true, force: true });
});

describe('start.sh / stop.sh', () => {
  it('start.sh starts the node in the background, from any directory, and waits for "is running"', () => {
    const r = sh(path.join(ipDir, 'node0/start.sh'));
    expect(r).toEqual({ status: 0, stdout: ' node0 start successfully\n' });
    const pid = Number(readFileSync(path.join(ipDir, 'node0/node.pid'), 'utf8'));
    expect(alive(pid)).toBe(true);
    expect(readFileSync(path.join(ipDir, 'node0/nohup.out'), 'utf8')).toContain('is running... (node0, umask 0077)');
  });

  it('under umask 000 too, nohup.out and node.pid are 0600 and the node runs with umask 077 (its data and logs its user\'s alone)', () => {
    for (const f of ['nohup.out', 'node.pid']) rmSync(path.join(ipDir, 'node1', f), { force: true });
    const r = sh(path.join(ipDir, 'node1/start.sh'), {}, '000');
    expect(r).toEqual({ status: 0, stdout: ' node1 start successfully\n' });
    for (const f of ['nohup.out', 'node.pid']) expect((statSync(path.join(ipDir, 'node1', f)).mode & 0o777).toString(8), f).toBe('600');
    expect(readFileSync(path.join(ipDir, 'node1/nohup.out'), 'utf8')).toContain('is running... (node1, umask 0077)');
    expect(sh(path.join(ipDir, 'node1/stop.sh'))).toEqual({ status: 0, stdout: ' stop node1 success.\n' });
    rmSync(path.join(ipDir, 'node1/nohup.out'));
  });

  it('start.sh of a running node says so and starts nothing', () => {
    const pid = Number(readFileSync(path.join(ipDir, 'node0/node.pid'), 'utf8'));
    expect(sh(path.join(ipDir, 'node0/start.sh'))).toEqual({ status: 0, stdout: ` node0 is running, pid is ${pid}.\n` });
  });

  it('stop.sh stops it with SIGTERM; a second stop.sh says it is not running', () => {
    const pid = Number(readFileSync(path.join(ipDir, 'node0/node.pid'), 'utf8'));
    expect(sh(path.join(ipDir, 'node0/stop.sh'))).toEqual({ status: 0, stdout: ' stop node0 success.\n' });
    expect(alive(pid)).toBe(false);
    expect(existsSync(path.join(ipDir, 'node0/node.pid'))).toBe(false);
    expect(readFileSync(path.join(ipDir, 'node0/nohup.out'), 'utf8')).toContain('exit normally');
    expect(sh(path.join(ipDir, 'node0/stop.sh'))).toEqual({ status: 0, stdout: " node0 isn't running.\n" });
  });

  it('stop.sh never signals a process that is not this node, even if node.pid names it', () => {
    writeFileSync(path.join(ipDir, 'node1/node.pid'), `${process.pid}\n`);
    expect(sh(path.join(ipDir, 'node1/stop.sh'))).toEqual({ status: 0, stdout: " node1 isn't running.\n" });
    expect(alive(process.pid)).toBe(true);
    // a stale pid of a process long gone: quietly not running
    writeFileSync(path.join(ipDir, 'node1/node.pid'), '999999999\n');
    expect(sh(path.join(ipDir, 'node1/stop.sh'))).toEqual({ status: 0, stdout: " node1 isn't running.\n" });
    rmSync(path.join(ipDir, 'node1/node.pid'));
  });

  it('start.sh reports a node that exits during start-up with the lines of this start, and fails', () => {
    const r = sh(path.join(ipDir, 'node1/start.sh'), { FAKE_FAILING_NODE: 'node1' });
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/^ node1 start failed: the node exited\n/);
    expect(r.stdout).toContain('Init failed!!! boom');
    expect(r.stdout).toContain(`see ${path.join(ipDir, 'node1')}/nohup.out`);
    expect(existsSync(path.join(ipDir, 'node1/node.pid'))).toBe(false);
  });

  it('start_all.sh starts every node and exits 1 if any failed; stop_all.sh stops them', () => {
    const failing = sh(path.join(ipDir, 'start_all.sh'), { FAKE_FAILING_NODE: 'node1' });
    expect(failing.status).toBe(1);
    expect(failing.stdout).toMatch(/^try to start node0\ntry to start node1\n/);
    expect(failing.stdout).toContain(' node0 start successfully');
    expect(failing.stdout).toContain(' node1 start failed');
    expect(failing.stdout).toContain('[ERROR] 1 of 2 nodes failed to start: node1');
    // node1's earlier failure is in nohup.out too; only this start's lines count, so it now starts
    const ok = sh(path.join(ipDir, 'start_all.sh'));
    expect(ok.status).toBe(0);
    expect(ok.stdout).toContain(' node0 is running, pid is ');
    expect(ok.stdout).toContain(' node1 start successfully');
    const pids = ['node0', 'node1'].map((n) => Number(readFileSync(path.join(ipDir, n, 'node.pid'), 'utf8')));
    const stop = sh(path.join(ipDir, 'stop_all.sh'));
    expect(stop.status).toBe(0);
    expect(stop.stdout).toMatch(/^try to stop node0\ntry to stop node1\n/);
    expect(stop.stdout).toContain(' stop node0 success.');
    expect(stop.stdout).toContain(' stop node1 success.');
    for (const pid of pids) expect(alive(pid)).toBe(false);
  });
});

describe("the scripts' alive check", () => {
  const aliveSays = (pid: number) => spawnSync('bash', ['-c', `${ALIVE}\nalive ${pid} && echo alive || echo gone`], { encoding: 'utf8' }).stdout.trim();

  it('a running process is alive; a pid no process has is gone', () => {
    expect(aliveSays(process.pid)).toBe('alive');
    expect(aliveSays(999_999_999)).toBe('gone');
  });

  it('a zombie (exited, not yet reaped) is gone', () => {
    // the exec'd sleep never reaps the short sleep started before it
    const r = spawnSync('bash', ['-c', `${ALIVE}\nf=$(mktemp); bash -c "sleep 0.01 & echo \\$! > $f; exec sleep 2" & p=$!; sleep 0.3; z=$(cat $f); rm -f $f; echo "$(cut -d' ' -f3 /proc/$z/stat) $(alive $z && echo alive || echo gone)"; kill $p`], { encoding: 'utf8' });
    expect(r.stdout.trim()).toBe('Z gone');
  });

  it('a live process whose /proc cmdline reads empty (as during execve, when nohup starts the node) is alive', () => {
    // kernel threads read an empty cmdline all the time; the check once took that for a dead node
    const emptyCmdline = readdirSync('/proc')
      .filter((d) => /^\d+$/.test(d))
      .map(Number)
      .find((pid) => {
        try {
          return readFileSync(`/proc/${pid}/cmdline`, 'utf8') === '' && !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
        } catch {
          return false;
        }
      });
    if (emptyCmdline === undefined) return void expect.soft(emptyCmdline, 'no process with an empty cmdline to check here').toBeUndefined();
    expect(aliveSays(emptyCmdline)).toBe('alive');
  });
});
