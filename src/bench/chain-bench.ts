import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { contractBytecode } from '../fixture-contracts.js';
import { TransactionBuilder } from '../chain/index.js';
import { toHex } from '../codec/index.js';
import { getSuite } from '../crypto/index.js';
import type { BenchIo } from './bench-io.js';
import type { LoadPlan, LoadResult } from './chain-load.js';
import { measureExecutor } from './exec-bench.js';
import { freePortBlock } from './free-ports.js';
import { formatRate, table } from './measure.js';
import { packageRoot } from '../package-root.js';

const exec = promisify(execFile);
const ROOT = packageRoot();
const BIN = path.join(ROOT, 'bin/twinchain.js');
/** The load process: the compiled module beside this one, or the source through tsx. */
const LOAD_MAIN = import.meta.url.endsWith('.ts')
  ? ['--import', 'tsx', fileURLToPath(new URL('./chain-load-main.ts', import.meta.url))]
  : [fileURLToPath(new URL('./chain-load-main.js', import.meta.url))];
const NODES = 4;
const WINDOW_SECONDS = 30;
const WARMUP_SECONDS = 5;
const TARGET = 0.6;

async function rpc<T>(url: string, method: string, params: unknown[]): Promise<T> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    signal: AbortSignal.timeout(10_000),
  });
  const reply = (await response.json()) as { result?: T; error?: { message: string } };
  if (reply.error) throw new Error(`${method}: ${reply.error.message}`);
  return reply.result as T;
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

function rpcUrls(ipDir: string): string[] {
  return readdirSync(ipDir)
    .filter((d) => /^node\d+$/.test(d))
    .sort((a, b) => Number(a.slice(4)) - Number(b.slice(4)))
    .map((d) => {
      const ini = readFileSync(path.join(ipDir, d, 'config.ini'), 'utf8');
      return `http://127.0.0.1:${/jsonrpc_listen_port=(\d+)/.exec(ini)![1]}/`;
    });
}

/** CPU seconds (user + system) a process has used so far, from /proc (Linux). */
function cpuSeconds(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return NaN;
  }
}

function nodePids(ipDir: string): number[] {
  return readdirSync(ipDir)
    .filter((d) => /^node\d+$/.test(d))
    .map((d) => Number(readFileSync(path.join(ipDir, d, 'node.pid'), 'utf8').trim()));
}

async function deployHelloWorld(url: string): Promise<string> {
  const suite = getSuite('ecdsa');
  const random = (n: number) => new Uint8Array(randomBytes(n));
  const builder = new TransactionBuilder({ suite, generation: 'rc2', key: suite.generateKeyPair(random), random, groupId: 1n });
  const height = Number(await rpc<string>(url, 'getBlockNumber', [1]));
  const tx = builder.build({ data: contractBytecode('HelloWorld'), blockLimit: BigInt(height + 500) });
  const hash = await rpc<string>(url, 'sendRawTransaction', [1, toHex(tx.raw)]);
  const receipt = await until('the HelloWorld deploy receipt', () => rpc<{ contractAddress: string } | null>(url, 'getTransactionReceipt', [1, hash]).then((r) => r ?? undefined), 30_000);
  return receipt.contractAddress;
}

/** One 4-node chain of `consensus` under saturating load, in a temporary directory it removes again. */
async function benchChain(consensus: 'pbft' | 'raft', transactions: number, io: BenchIo): Promise<LoadResult & { nodeCpu: number[]; wallSeconds: number }> {
  const dir = await mkdtemp(path.join(tmpdir(), `twinchain-bench-${consensus}-`));
  const out = path.join(dir, 'nodes');
  const ipDir = path.join(out, '127.0.0.1');
  try {
    const base = await freePortBlock(NODES * 3);
    const ports = `${base},${base + NODES},${base + 2 * NODES}`;
    await exec(process.execPath, [BIN, 'build-chain', '-l', `127.0.0.1:${NODES}`, '-p', ports, '-o', out, '-c', consensus], { timeout: 60_000 });
    await exec('bash', [path.join(ipDir, 'start_all.sh')], { timeout: 120_000 });
    const urls = rpcUrls(ipDir);
    await until('every node to see its three peers', async () => {
      const counts = await Promise.all(urls.map((u) => rpc<unknown[]>(u, 'getPeers', [1]).then((p) => p.length)));
      return counts.every((c) => c === NODES - 1) ? true : undefined;
    }, 60_000);
    const contract = await deployHelloWorld(urls[0]!);
    const plan: LoadPlan = {
      urls,
      contract,
      suite: 'ecdsa',
      supportedVersion: '2.11.0',
      transactions,
      seconds: WINDOW_SECONDS,
      warmupSeconds: WARMUP_SECONDS,
      window: 6_000,
      batch: 100,
    };
    io.out(`  ${consensus}: 4 nodes up, HelloWorld at ${contract}; signing ${formatRate(transactions)} transactions in the load process, then ${WARMUP_SECONDS} s warm-up + ${WINDOW_SECONDS} s measured`);
    const pids = nodePids(ipDir);
    const cpuBefore = pids.map(cpuSeconds);
    const wallStart = Date.now();
    const { stdout } = await exec(process.execPath, [...LOAD_MAIN, JSON.stringify(plan)], {
      cwd: ROOT,
      timeout: (WARMUP_SECONDS + WINDOW_SECONDS + 180) * 1000,
      maxBuffer: 16 * 1024 * 1024,
    });
    const nodeCpu = pids.map((pid, i) => cpuSeconds(pid) - cpuBefore[i]!);
    return { ...(JSON.parse(stdout.trim().split('\n').pop()!) as LoadResult), nodeCpu, wallSeconds: (Date.now() - wallStart) / 1000 };
  } finally {
    if (existsSync(path.join(ipDir, 'stop_all.sh'))) await exec('bash', [path.join(ipDir, 'stop_all.sh')], { timeout: 60_000 }).catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * The ceiling of a 4-node chain on this machine right now: executor tx/s on one core × cores ÷
 * nodes. The executor gets faster over its first few thousand transactions (the JIT warms up,
 * as it has in nodes that ran for a while), so it is measured three times and the best counts.
 */
async function ceilingNow(cores: number): Promise<{ executor: number; ceiling: number }> {
  let best = 0;
  for (let i = 0; i < 3; i++) best = Math.max(best, (await measureExecutor()).rate);
  return { executor: best, ceiling: (best * cores) / NODES };
}

export async function run(io: BenchIo): Promise<void> {
  const cores = availableParallelism();
  io.out(`chain: ${NODES} real node processes on 127.0.0.1 (build-chain, start_all.sh), saturating HelloWorld set(string) load through JSON-RPC from a separate load process`);
  io.out(`ceiling = executor tx/s on one core × ${cores} cores ÷ ${NODES} nodes (every node executes every transaction), the best of three runs right before and right after each chain (this machine's speed drifts)\n`);
  const rows: string[][] = [];
  for (const consensus of ['pbft', 'raft'] as const) {
    const before = await ceilingNow(cores);
    const transactions = Math.min(200_000, Math.ceil(before.ceiling * (WINDOW_SECONDS + WARMUP_SECONDS) * 1.5));
    const result = await benchChain(consensus, transactions, io);
    const after = await ceilingNow(cores);
    const ceiling = Math.max(before.ceiling, after.ceiling);
    const share = result.tps / ceiling;
    rows.push([
      `${consensus.toUpperCase()} 4 nodes`,
      formatRate(result.tps),
      `${Math.round(result.p50Ms)}`,
      `${Math.round(result.p99Ms)}`,
      formatRate(ceiling),
      `${(share * 100).toFixed(0)}%`,
      share >= TARGET ? `meets ≥ ${TARGET * 100}%` : `BELOW ${TARGET * 100}%`,
    ]);
    const notes = [
      `${formatRate(result.committedInWindow)} committed in ${result.windowSeconds} s, ${result.blocks} blocks`,
      `executor ${formatRate(before.executor)} tx/s before, ${formatRate(after.executor)} after`,
      `signed ${formatRate(result.signed)} in ${result.signSeconds.toFixed(1)} s before the clock started`,
      `node processes used ${result.nodeCpu.map((c) => c.toFixed(1)).join(' + ')} CPU s and the load process ${result.loadCpuSeconds.toFixed(1)} in ${result.wallSeconds.toFixed(0)} s (signing included)`,
      ...(result.refused > 0 ? [`${formatRate(result.refused)} refused (first: ${result.firstRefusal})`] : []),
      ...(result.ranOut ? ['the signed transactions ran out before the window ended: the load was not saturating'] : []),
    ];
    io.out(`  ${consensus}: ${notes.join('; ')}`);
  }
  io.out('');
  io.out(table(['chain', 'committed tx/s', 'p50 ms', 'p99 ms', 'ceiling tx/s', 'of ceiling', 'target'], rows));
}
