// A local chain of real node processes for fault trials (the `faults` bench and test/real/faults):
// build-chain into a temporary folder, the nodes' own scripts, signals, a transaction load, and
// hostile connections. Every process it starts is killed when the chain is disposed, and at
// process exit if it never was.
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import { promisify } from 'node:util';
import { TransactionBuilder } from '../chain/index.js';
import { toHex } from '../codec/index.js';
import { getSuite } from '../crypto/index.js';
import { encodeFrame } from '../node/index.js';
import { encodeSyncMessage, type SyncMessage } from '../sync/index.js';
import { freePortBlock } from './free-ports.js';
import { packageRoot } from '../package-root.js';

export { holdConnections } from './hostile-connections.js';

const run = promisify(execFile);
const ROOT = packageRoot();
export const TWINCHAIN_BIN = path.join(ROOT, 'bin/twinchain.js');

export interface LocalNode {
  readonly index: number;
  readonly name: string;
  readonly dir: string;
  readonly rpcUrl: string;
  readonly rpcPort: number;
  readonly p2pPort: number;
  readonly channelPort: number;
  readonly nodeId: string;
}

export interface CommandResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a command to completion within `timeoutMs`; never throws on a non-zero exit. */
export async function command(file: string, args: readonly string[], options: { cwd?: string; timeoutMs?: number; env?: NodeJS.ProcessEnv } = {}): Promise<CommandResult> {
  try {
    const { stdout, stderr } = await run(file, [...args], { cwd: options.cwd ?? ROOT, timeout: options.timeoutMs ?? 60_000, env: options.env ?? process.env, killSignal: 'SIGKILL' });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number | string; stdout?: string; stderr?: string; killed?: boolean };
    return { code: typeof e.code === 'number' ? e.code : 1, stdout: e.stdout ?? '', stderr: (e.stderr ?? String(error)) + (e.killed ? `\n(killed after ${options.timeoutMs ?? 60_000} ms)` : '') };
  }
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return !existsSync(`/proc/${pid}/stat`) || !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

const live = new Set<LocalChain>();
process.on('exit', () => {
  for (const chain of live) chain.killEverything();
});

/** This process's limit of open files (Node raises the soft limit to the hard one at start), or undefined off Linux. */
export function openFilesLimit(): number | undefined {
  try {
    const line = readFileSync('/proc/self/limits', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Max open files'));
    const soft = line?.split(/\s{2,}/)[1];
    return soft === undefined || soft === 'unlimited' ? undefined : Number(soft);
  } catch {
    return undefined;
  }
}

/** Throws a clear error when this process may not hold `needed` more open files. */
export function needOpenFiles(needed: number, what: string): void {
  const limit = openFilesLimit();
  if (limit !== undefined && limit < needed + 256) {
    throw new Error(`${what} needs about ${needed + 256} open files, and this process may hold ${limit}: raise the hard limit (ulimit -Hn ${needed + 1024})`);
  }
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls `probe` until it gives a value other than undefined or false; throws after `timeoutMs` naming `what`. */
export async function waitFor<T>(what: string, probe: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs: number, everyMs = 200): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? ` (last error: ${(last as Error).message})` : ''}`);
    await sleep(everyMs);
  }
}

let rpcId = 1;

export class LocalChain {
  private readonly extraPids = new Set<number>();

  private constructor(
    /** The temporary folder (removed by dispose). */
    readonly dir: string,
    /** build-chain's output folder. */
    readonly out: string,
    readonly nodes: readonly LocalNode[],
  ) {
    live.add(this);
  }

  /**
   * Builds a chain of `count` nodes on 127.0.0.1 with free ports, under `umask` when given (as a
   * careless operator's shell would have it).
   */
  static async build(options: { count: number; consensus?: 'pbft' | 'raft'; prefix: string; umask?: string; args?: readonly string[] }): Promise<LocalChain> {
    const dir = await mkdtemp(path.join(tmpdir(), `twinchain-${options.prefix}-`));
    const out = path.join(dir, 'nodes');
    const n = options.count;
    const base = await freePortBlock(n * 3);
    const args = ['build-chain', '-l', `127.0.0.1:${n}`, '-p', `${base},${base + n},${base + 2 * n}`, '-o', out, '-c', options.consensus ?? 'pbft', ...(options.args ?? [])];
    const built = await LocalChain.shell([process.execPath, TWINCHAIN_BIN, ...args], options.umask, { timeoutMs: 90_000 });
    if (built.code !== 0) {
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`build-chain failed (exit ${built.code}): ${built.stderr || built.stdout}`);
    }
    const ipDir = path.join(out, '127.0.0.1');
    const nodes = readdirSync(ipDir)
      .filter((d) => /^node\d+$/.test(d))
      .sort((a, b) => Number(a.slice(4)) - Number(b.slice(4)))
      .map((name, index): LocalNode => {
        const nodeDir = path.join(ipDir, name);
        const ini = readFileSync(path.join(nodeDir, 'config.ini'), 'utf8');
        const value = (key: string) => new RegExp(`^\\s*${key}=(.*)$`, 'm').exec(ini)![1]!.trim();
        const rpcPort = Number(value('jsonrpc_listen_port'));
        return {
          index,
          name,
          dir: nodeDir,
          rpcPort,
          rpcUrl: `http://127.0.0.1:${rpcPort}/`,
          p2pPort: Number(value('listen_port')),
          channelPort: Number(value('channel_listen_port')),
          nodeId: readFileSync(path.join(nodeDir, 'conf', 'node.nodeid'), 'utf8').trim(),
        };
      });
    return new LocalChain(dir, out, nodes);
  }

  /** `argv` through `sh`, with `umask` set first when given. */
  private static shell(argv: readonly string[], umask: string | undefined, options: { cwd?: string; timeoutMs?: number; env?: NodeJS.ProcessEnv }): Promise<CommandResult> {
    if (umask === undefined) return command(argv[0]!, argv.slice(1), options);
    return command('sh', ['-c', `umask ${umask} && exec "$@"`, 'sh', ...argv], options);
  }

  get ipDir(): string {
    return path.join(this.out, '127.0.0.1');
  }

  /** start_all.sh; throws with what it said when a node did not start. */
  async startAll(umask?: string): Promise<CommandResult> {
    const started = await LocalChain.shell(['bash', path.join(this.ipDir, 'start_all.sh')], umask, { timeoutMs: 150_000 });
    if (started.code !== 0) throw new Error(`start_all.sh failed (exit ${started.code}):\n${started.stdout}\n${started.stderr}`);
    return started;
  }

  /** The node's start.sh (with extra environment variables); throws when it fails. */
  async start(node: LocalNode, env: Record<string, string> = {}): Promise<CommandResult> {
    const started = await command('bash', [path.join(node.dir, 'start.sh')], { timeoutMs: 90_000, env: { ...process.env, ...env } });
    if (started.code !== 0) throw new Error(`${node.name}/start.sh failed (exit ${started.code}):\n${started.stdout}\n${started.stderr}`);
    return started;
  }

  async stopAll(): Promise<CommandResult> {
    return command('bash', [path.join(this.ipDir, 'stop_all.sh')], { timeoutMs: 60_000 });
  }

  /**
   * Runs the node in the foreground of a child process (as `twinchain node -c config.ini` in its
   * folder, node.pid written), with `env` added: for watching its exit status and stdout.
   */
  runDirect(node: LocalNode, env: Record<string, string> = {}): { readonly pid: number; readonly exit: Promise<{ code: number | null; signal: string | null; stdout: string; ms: number }> } {
    const started = Date.now();
    const child = spawn(process.execPath, [TWINCHAIN_BIN, 'node', '-c', 'config.ini'], { cwd: node.dir, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    const pid = child.pid!;
    this.extraPids.add(pid);
    writeFileSync(path.join(node.dir, 'node.pid'), `${pid}\n`);
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stdout += d.toString()));
    const exit = new Promise<{ code: number | null; signal: string | null; stdout: string; ms: number }>((resolve) =>
      child.on('exit', (code, signal) => {
        this.extraPids.delete(pid);
        resolve({ code, signal, stdout, ms: Date.now() - started });
      }),
    );
    return { pid, exit };
  }

  pid(node: LocalNode): number | undefined {
    const file = path.join(node.dir, 'node.pid');
    if (!existsSync(file)) return undefined;
    const pid = Number(readFileSync(file, 'utf8').trim());
    return pid > 0 && alive(pid) ? pid : undefined;
  }

  /** kill -9, then waits until the process is gone. */
  async kill9(node: LocalNode): Promise<void> {
    const pid = this.pid(node);
    if (pid === undefined) throw new Error(`${node.name} is not running`);
    process.kill(pid, 'SIGKILL');
    await waitFor(`${node.name} (pid ${pid}) to be gone`, () => !alive(pid), 10_000, 20);
  }

  /** SIGSTOP (freeze) or SIGCONT (resume). */
  signal(node: LocalNode, signal: 'SIGSTOP' | 'SIGCONT'): void {
    const pid = this.pid(node);
    if (pid === undefined) throw new Error(`${node.name} is not running`);
    process.kill(pid, signal);
  }

  async rpc<T = unknown>(node: LocalNode, method: string, params: unknown[] = [1], timeoutMs = 5_000): Promise<T> {
    const response = await fetch(node.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: rpcId++, method, params }),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const body = (await response.json()) as { result?: T; error?: { code: number; message: string } };
    if (body.error) throw new Error(`${node.name} ${method}: ${body.error.code} ${body.error.message}`);
    return body.result as T;
  }

  async height(node: LocalNode): Promise<number> {
    return Number(await this.rpc<string>(node, 'getBlockNumber'));
  }

  /** Heights of the nodes that answer (-1 for one that does not). */
  async heights(nodes: readonly LocalNode[] = this.nodes): Promise<number[]> {
    return Promise.all(nodes.map((n) => this.height(n).catch(() => -1)));
  }

  async peers(node: LocalNode): Promise<number> {
    return (await this.rpc<unknown[]>(node, 'getPeers')).length;
  }

  /** The current leader as `asking` sees it: PBFT's (view + height) % n over the sorted sealers, or Raft's leaderId. */
  async leader(asking: LocalNode = this.nodes[0]!): Promise<LocalNode | undefined> {
    const [status] = await this.rpc<Array<Record<string, unknown>>>(asking, 'getConsensusStatus');
    let id: string | undefined;
    if (typeof status!['leaderId'] === 'string') id = status!['leaderId'] as string;
    else {
      const view = Number(await this.rpc<string>(asking, 'getPbftView'));
      const height = await this.height(asking);
      id = status![`sealer.${(view + height) % Number(status!['nodeNum'])}`] as string | undefined;
    }
    return this.nodes.find((n) => n.nodeId === id);
  }

  async blockHashes(node: LocalNode, from: number, to: number): Promise<string[]> {
    const hashes: string[] = [];
    for (let n = from; n <= to; n++) hashes.push((await this.rpc<{ hash: string }>(node, 'getBlockByNumber', [1, `0x${n.toString(16)}`, false])).hash);
    return hashes;
  }

  /** Waits until every node of `nodes` answers and is at least at `height`; returns the ms it took. */
  async caughtUp(nodes: readonly LocalNode[], height: number, timeoutMs: number): Promise<number> {
    const started = Date.now();
    await waitFor(`${nodes.map((n) => n.name).join(', ')} at height ≥ ${height}`, async () => (await this.heights(nodes)).every((h) => h >= height), timeoutMs, 100);
    return Date.now() - started;
  }

  /** Whether every node reports the same block hashes up to the lowest height among them. */
  async consistent(nodes: readonly LocalNode[] = this.nodes): Promise<{ ok: boolean; top: number }> {
    const top = Math.min(...(await this.heights(nodes)));
    const reference = await this.blockHashes(nodes[0]!, 1, top);
    for (const n of nodes.slice(1)) {
      const hashes = await this.blockHashes(n, 1, top);
      if (hashes.join() !== reference.join()) return { ok: false, top };
    }
    return { ok: true, top };
  }

  /** The text of every log file of a node. */
  log(node: LocalNode): string {
    const dir = path.join(node.dir, 'log');
    if (!existsSync(dir)) return '';
    return readdirSync(dir)
      .filter((f) => f.startsWith('log_'))
      .sort()
      .map((f) => readFileSync(path.join(dir, f), 'utf8'))
      .join('');
  }

  /**
   * Signed transactions (to an address without code) every `intervalMs`, round-robin over the
   * nodes `targets()` names at that moment; a node that does not answer is skipped.
   */
  load(targets: () => readonly LocalNode[], intervalMs = 50): { stop(): Promise<{ sent: number; failed: number }> } {
    const suite = getSuite('ecdsa');
    const random = (k: number) => new Uint8Array(randomBytes(k));
    const builder = new TransactionBuilder({ suite, generation: 'rc2', key: suite.generateKeyPair(random), random, groupId: 1n });
    let running = true;
    let sent = 0;
    let failed = 0;
    const done = (async () => {
      for (let i = 0; running; i++) {
        const list = targets();
        const node = list[i % Math.max(1, list.length)];
        if (node !== undefined) {
          try {
            const height = await this.height(node);
            const tx = builder.build({ to: new Uint8Array(20).fill(0x11), blockLimit: BigInt(height + 500) });
            await this.rpc(node, 'sendRawTransaction', [1, toHex(tx.raw)]);
            sent++;
          } catch {
            failed++;
          }
        }
        await sleep(intervalMs);
      }
    })();
    return {
      stop: async () => {
        running = false;
        await done;
        return { sent, failed };
      },
    };
  }

  /** Kills (SIGCONT first, for a frozen one, then SIGKILL) every process of the chain; synchronous, for exit handlers too. */
  killEverything(): void {
    const pids = new Set(this.extraPids);
    for (const n of this.nodes) {
      const pid = this.pid(n);
      if (pid !== undefined) pids.add(pid);
    }
    for (const pid of pids) {
      for (const signal of ['SIGCONT', 'SIGKILL'] as const) {
        try {
          process.kill(pid, signal);
        } catch {
          // already gone
        }
      }
    }
  }

  /** Kills every process of the chain and removes its folder (kept when TWINCHAIN_KEEP_E2E is set). */
  dispose(): void {
    this.killEverything();
    live.delete(this);
    if (!process.env['TWINCHAIN_KEEP_E2E']) rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * A p2p session with a certificate of the chain's CA that is no node of the group (the SDK's):
 * sends `messages` for group 1's sync and collects every non-empty frame the node sends back
 * within `listenMs`.
 */
export async function strangerSession(
  node: LocalNode,
  identity: { key: Buffer; cert: Buffer; ca: Buffer },
  messages: readonly SyncMessage[],
  listenMs: number,
): Promise<{ connected: boolean; frames: number; error?: string }> {
  return new Promise((resolve) => {
    let frames = 0;
    let connected = false;
    let buffered = Buffer.alloc(0);
    const socket = tlsConnect({
      host: '127.0.0.1',
      port: node.p2pPort,
      key: identity.key,
      cert: identity.cert,
      ca: identity.ca,
      ecdhCurve: 'secp256k1:X25519:prime256v1',
      minVersion: 'TLSv1.2',
      maxVersion: 'TLSv1.2',
      checkServerIdentity: () => undefined,
    });
    const finish = (error?: string) => {
      socket.destroy();
      resolve({ connected, frames, ...(error ? { error } : {}) });
    };
    socket.on('error', (e) => finish(e.message));
    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      while (buffered.length >= 4) {
        const length = buffered.readUInt32BE(0);
        if (buffered.length < 4 + length) break;
        if (length > 0) frames++;
        buffered = buffered.subarray(4 + length);
      }
    });
    socket.once('secureConnect', () => {
      connected = true;
      for (const message of messages) {
        const payload = encodeFrame(1, 'sync', encodeSyncMessage(message));
        const header = Buffer.alloc(4);
        header.writeUInt32BE(payload.length);
        socket.write(Buffer.concat([header, payload]));
      }
      setTimeout(() => finish(), listenMs);
    });
  });
}
