import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { ProtocolVersion, TransactionBuilder } from '../chain/index.js';
import { fromHex, toHex } from '../codec/index.js';
import { getSuite, type SuiteName } from '../crypto/index.js';
import { helloWorldSet } from './raw-evm.js';

/** What the load process is told (as JSON on its command line). */
export interface LoadPlan {
  readonly urls: readonly string[];
  readonly contract: string;
  readonly suite: SuiteName;
  readonly supportedVersion: string;
  /** Transactions signed before the clock starts. */
  readonly transactions: number;
  /** Measurement window after the warm-up, in seconds. */
  readonly seconds: number;
  readonly warmupSeconds: number;
  /** Most transactions submitted and not yet seen committed. */
  readonly window: number;
  /** sendRawTransaction requests per JSON-RPC batch. */
  readonly batch: number;
}

/** What it prints (as JSON) when done. */
export interface LoadResult {
  readonly signed: number;
  readonly signSeconds: number;
  readonly submitted: number;
  readonly refused: number;
  readonly firstRefusal?: string;
  /** Transactions in blocks committed inside the measurement window. */
  readonly committedInWindow: number;
  readonly windowSeconds: number;
  readonly tps: number;
  /** Submit-to-commit latency (commit as node0 reports it, polled every 50 ms), ms. */
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly blocks: number;
  /** CPU seconds the load process used from the first submission to the end of the window. */
  readonly loadCpuSeconds: number;
  /** True when the signed transactions ran out before the window ended (the load was not saturating for all of it). */
  readonly ranOut: boolean;
}

interface RpcReply {
  readonly id: number;
  readonly result?: unknown;
  readonly error?: { readonly code: number; readonly message: string };
}

async function post(url: string, body: unknown): Promise<unknown> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal: AbortSignal.timeout(30_000) });
  return response.json();
}

async function call<T>(url: string, method: string, params: unknown[]): Promise<T> {
  const reply = (await post(url, { jsonrpc: '2.0', id: 1, method, params })) as RpcReply;
  if (reply.error) throw new Error(`${method}: ${reply.error.code} ${reply.error.message}`);
  return reply.result as T;
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/**
 * Drives HelloWorld set(string) transactions into a chain through JSON-RPC, round-robin over the
 * nodes in batches, keeping `window` transactions in flight (a saturating load the pool can
 * hold), and watches node0's blocks to time each transaction from submit to commit.
 */
export async function runLoad(plan: LoadPlan): Promise<LoadResult> {
  const suite = getSuite(plan.suite);
  const generation = ProtocolVersion.parse(plan.supportedVersion).txGeneration;
  const watcher = plan.urls[0]!;
  const senders = Array.from({ length: 64 }, () => {
    const key = suite.generateKeyPair((n) => new Uint8Array(randomBytes(n)));
    return new TransactionBuilder({ suite, generation, key, random: (n) => new Uint8Array(randomBytes(n)), groupId: 1n });
  });
  const to = fromHex(plan.contract);
  const height = Number(await call<string>(watcher, 'getBlockNumber', [1]));
  const signStart = performance.now();
  const payloads: Array<{ raw: string; hash: string }> = [];
  for (let i = 0; i < plan.transactions; i++) {
    const tx = senders[i % senders.length]!.build({ to, data: helloWorldSet(i), blockLimit: BigInt(height + 1000) });
    payloads.push({ raw: toHex(tx.raw), hash: toHex(tx.hash) });
  }
  const signSeconds = (performance.now() - signStart) / 1000;

  const submittedAt = new Map<string, number>();
  const latencies: number[] = [];
  let next = 0;
  let refused = 0;
  let firstRefusal: string | undefined;
  let inFlight = 0;
  const start = performance.now();
  const cpuStart = process.cpuUsage();
  const windowStart = start + plan.warmupSeconds * 1000;
  const windowEnd = windowStart + plan.seconds * 1000;
  let committedInWindow = 0;
  let blocks = 0;
  let done = false;
  let ranOut = false;

  const watch = async () => {
    let seen = height;
    while (!done) {
      const now = Number(await call<string>(watcher, 'getBlockNumber', [1]));
      const observed = performance.now();
      for (let n = seen + 1; n <= now; n++) {
        const block = await call<{ transactions: string[] }>(watcher, 'getBlockByNumber', [1, `0x${n.toString(16)}`, false]);
        blocks++;
        for (const hash of block.transactions) {
          const at = submittedAt.get(hash);
          if (at === undefined) continue;
          submittedAt.delete(hash);
          inFlight--;
          if (observed >= windowStart && observed < windowEnd) {
            committedInWindow++;
            latencies.push(observed - at);
          }
        }
      }
      seen = now;
      if (observed >= windowEnd) done = true;
      else await new Promise((r) => setTimeout(r, 50));
    }
  };

  const submitter = async (worker: number) => {
    let url = worker % plan.urls.length;
    while (!done) {
      if (next >= payloads.length) {
        ranOut = true;
        return;
      }
      if (inFlight >= plan.window) {
        await new Promise((r) => setTimeout(r, 5));
        continue;
      }
      const slice = payloads.slice(next, next + plan.batch);
      next += slice.length;
      inFlight += slice.length;
      const sentAt = performance.now();
      for (const p of slice) submittedAt.set(p.hash, sentAt);
      const target = plan.urls[url]!;
      url = (url + 1) % plan.urls.length;
      let replies: RpcReply[];
      try {
        replies = (await post(
          target,
          slice.map((p, i) => ({ jsonrpc: '2.0', id: i, method: 'sendRawTransaction', params: [1, p.raw] })),
        )) as RpcReply[];
      } catch (error) {
        replies = slice.map((_, i) => ({ id: i, error: { code: -1, message: (error as Error).message } }));
      }
      for (const reply of Array.isArray(replies) ? replies : []) {
        if (!reply.error) continue;
        const p = slice[reply.id];
        if (!p || !submittedAt.delete(p.hash)) continue;
        inFlight--;
        refused++;
        firstRefusal ??= `${reply.error.code} ${reply.error.message}`;
      }
    }
  };

  await Promise.all([watch(), ...plan.urls.map((_, i) => submitter(i)), ...plan.urls.map((_, i) => submitter(i + 1))]);
  const cpu = process.cpuUsage(cpuStart);
  latencies.sort((a, b) => a - b);
  return {
    signed: payloads.length,
    signSeconds,
    submitted: next,
    refused,
    ...(firstRefusal ? { firstRefusal } : {}),
    committedInWindow,
    windowSeconds: plan.seconds,
    tps: committedInWindow / plan.seconds,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    blocks,
    loadCpuSeconds: (cpu.user + cpu.system) / 1e6,
    ranOut,
  };
}
