import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { alive, command, type CommandResult } from '../../src/bench/local-chain.js';

export { freePortBlock } from '../../src/bench/free-ports.js';
export { alive, waitFor, type CommandResult } from '../../src/bench/local-chain.js';

/** Helpers for the end-to-end suites on real node processes: free ports, temp dirs, and no process left behind. */

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const BIN = path.join(ROOT, 'bin/twinchain.js');

/** Runs a command to completion (bounded by `timeoutMs`), never throwing on a non-zero exit. */
export const sh = command;

/** What a command said, for an assertion's message: a failed start should show why. */
export function said(result: CommandResult): string {
  return `exit ${result.code}\n--- stdout\n${result.stdout.slice(-4_000)}\n--- stderr\n${result.stderr.slice(-4_000)}`;
}

export function twinchain(args: readonly string[], options: { cwd?: string; timeoutMs?: number } = {}): Promise<CommandResult> {
  return sh(process.execPath, [BIN, ...args], options);
}

const livingDirs = new Set<string>();

/** Every node.pid under `dir` whose process still runs. */
export function runningPids(dir: string): number[] {
  const pids: number[] = [];
  const walk = (d: string, depth: number) => {
    if (depth > 3 || !existsSync(d)) return;
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, entry.name);
      if (entry.isDirectory()) walk(p, depth + 1);
      else if (entry.name === 'node.pid') {
        const pid = Number(readFileSync(p, 'utf8').trim());
        if (pid > 0 && alive(pid)) pids.push(pid);
      }
    }
  };
  walk(dir, 0);
  return pids;
}

function killAll(dir: string): void {
  for (const pid of runningPids(dir)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

process.on('exit', () => {
  for (const dir of livingDirs) killAll(dir);
});

/** A temporary folder whose node processes are killed (and the folder removed) by `dispose`, or at exit. */
export async function tempChainDir(prefix: string): Promise<{ dir: string; dispose(): void }> {
  const dir = await mkdtemp(path.join(tmpdir(), `twinchain-${prefix}-`));
  livingDirs.add(dir);
  return {
    dir,
    dispose: () => {
      killAll(dir);
      livingDirs.delete(dir);
      if (!process.env['TWINCHAIN_KEEP_E2E']) rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface ChainNode {
  readonly name: string;
  readonly ip: string;
  readonly dir: string;
  readonly rpcUrl: string;
  readonly p2pPort: number;
}

/** The nodes build-chain wrote under `out`, from their config.ini. */
export function chainNodes(out: string): ChainNode[] {
  const nodes: ChainNode[] = [];
  for (const ip of readdirSync(out).filter((d) => /^\d+\.\d+\.\d+\.\d+$/.test(d)).sort()) {
    for (const name of readdirSync(path.join(out, ip)).filter((d) => /^node\d+$/.test(d)).sort((a, b) => Number(a.slice(4)) - Number(b.slice(4)))) {
      const dir = path.join(out, ip, name);
      const ini = readFileSync(path.join(dir, 'config.ini'), 'utf8');
      const value = (key: string) => new RegExp(`^\\s*${key}=(.*)$`, 'm').exec(ini)![1]!.trim();
      const rpcHost = value('jsonrpc_listen_ip');
      nodes.push({
        name: `${ip}/${name}`,
        ip,
        dir,
        rpcUrl: `http://${rpcHost === '0.0.0.0' ? '127.0.0.1' : rpcHost}:${value('jsonrpc_listen_port')}/`,
        p2pPort: Number(value('listen_port')),
      });
    }
  }
  return nodes;
}

let rpcId = 1;

/** One JSON-RPC call; throws on a transport error or an error reply. */
export async function rpc<T = unknown>(url: string, method: string, params: unknown[] = [], timeoutMs = 5_000): Promise<T> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: rpcId++, method, params }),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const body = (await response.json()) as { result?: T; error?: { code: number; message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.code} ${body.error.message}`);
  return body.result as T;
}

export async function blockNumber(url: string): Promise<number> {
  return Number(await rpc<string>(url, 'getBlockNumber', [1]));
}

/** The text of every log file of a node. */
export function nodeLog(node: ChainNode): string {
  const dir = path.join(node.dir, 'log');
  if (!existsSync(dir)) return '';
  return readdirSync(dir)
    .filter((f) => f.startsWith('log_'))
    .sort()
    .map((f) => readFileSync(path.join(dir, f), 'utf8'))
    .join('');
}

export function pidOf(node: ChainNode): number | undefined {
  const file = path.join(node.dir, 'node.pid');
  if (!existsSync(file)) return undefined;
  const pid = Number(readFileSync(file, 'utf8').trim());
  return pid > 0 && alive(pid) ? pid : undefined;
}

export function kill9(node: ChainNode): void {
  const pid = pidOf(node);
  if (pid === undefined) throw new Error(`${node.name} is not running`);
  process.kill(pid, 'SIGKILL');
  // the zombie is reaped by init (nohup'ed from a finished shell), so poll until it is gone
  for (let i = 0; i < 100 && alive(pid); i++) execFileSync('sleep', ['0.05']);
}

/** Spawns a detached process whose output is discarded (load generators). */
export function background(file: string, args: readonly string[]): { stop(): void } {
  const child = spawn(file, [...args], { stdio: 'ignore' });
  return { stop: () => child.kill('SIGKILL') };
}
