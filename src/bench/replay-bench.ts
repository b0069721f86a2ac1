// `twinchain bench replay`: replay speed on every recording in fixtures/chains/ next to the
// executor's own tx/s (exec bench, storage state) measured in the same run; then the recorder
// reading a local dev node over real HTTP.
import { readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { constants as perfConstants, performance, PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';
import { contractBytecode } from '../fixture-contracts.js';
import { TransactionBuilder } from '../chain/index.js';
import { encodeFunctionCall } from '../abi/index.js';
import { keccak256, recoveryLibrary } from '../crypto/index.js';
import { record, replayRecording } from '../replay/index.js';
import { createRpcService, inProcessFetch, startHttpServer } from '../rpc/index.js';
import { DevNode, seededRandom } from '../rpc/testing/index.js';
import type { BenchIo } from './bench-io.js';
import { measureExecutor } from './exec-bench.js';
import { formatRate, medianInterval, percentNear, table, verdict } from './measure.js';
import { cpuNow, cpuSince, wallByState, type CpuSample } from './thread-cpu.js';
import { packagePath } from '../package-root.js';

const FIXTURES = `${packagePath('fixtures', 'chains')}${path.sep}`;
/** Replay's tx/s at least this share of the executor's. */
const REPLAY_SHARE = 0.9;
const RECORD_BLOCKS = 300;
const RECORD_TX_PER_BLOCK = 5;
const RECORD_TARGET = 200;

export interface ReplayMeasurement {
  readonly file: string;
  readonly blocks: number;
  readonly transactions: number;
  readonly seconds: number;
  /** Of `seconds`, executing and committing the blocks (ReplayReport.executionSeconds). */
  readonly executionSeconds: number;
}

/** Replays `file` (warm: once untimed first when `warm`) and times it. */
export async function measureReplay(file: string, warm = false): Promise<ReplayMeasurement> {
  // as `twinchain replay` runs it
  const options = {};
  if (warm) await replayRecording(file, options);
  const started = performance.now();
  const report = await replayRecording(file, options);
  const seconds = (performance.now() - started) / 1000;
  if (report.verdict !== 'pass') throw new Error(`${file} does not replay: ${JSON.stringify(report.divergence)}`);
  return { file: path.basename(file), blocks: report.blocks, transactions: report.transactions, seconds, executionSeconds: report.executionSeconds };
}

/** A dev node (storage state) loaded with HelloWorld.set blocks of `perBlock` transactions from `senders` accounts, after a deploy block. */
async function loadedDevNode(seed: string, blocks: number, perBlock: number, senders = 1): Promise<DevNode> {
  const node = await DevNode.create({ seed, poolLimit: Math.max(10_000, perBlock * 2) });
  const group = node.mainGroup;
  const users = Array.from(
    { length: senders },
    (_, i) => new TransactionBuilder({ suite: group.suite, generation: group.version.txGeneration, key: group.suite.generateKeyPair(seededRandom(`${seed}-user-${i}`)), random: seededRandom(`${seed}-nonces-${i}`) }),
  );
  let sent = 0;
  const send = async (to: Uint8Array | null, data: Uint8Array) => {
    const result = await group.submit(users[sent++ % senders]!.build({ to, data, blockLimit: BigInt(group.blockNumber() + 500) }).raw);
    if (!result.accepted) throw new Error(`refused: ${result.rejection.reason}`);
  };
  await send(null, contractBytecode('HelloWorld'));
  const deployed = await node.seal();
  const hello = deployed!.block.receipts[0]!.contractAddress;
  for (let b = 1; b <= blocks; b++) {
    for (let i = 0; i < perBlock; i++) await send(hello, encodeFunctionCall('set(string)', [`block ${b} tx ${i}`], keccak256));
    await node.seal();
  }
  return node;
}

/**
 * The exec bench's workload as a recording: blocks of 1,000 signed HelloWorld set(string) calls
 * from 50 senders on the storage state, made by a dev node and recorded in process; replayed and timed.
 */
export async function measureDenseReplay(dir: string): Promise<ReplayMeasurement> {
  const file = await denseRecording(dir);
  const m = await measureReplay(file, true);
  return { ...m, file: DENSE_NAME };
}

const DENSE_NAME = 'exec-bench workload (4 x 1,000 HelloWorld set, dev node)';

async function denseRecording(dir: string): Promise<string> {
  const node = await loadedDevNode('bench-replay-dense', 4, 1000, 50);
  const file = path.join(dir, 'dense.jsonl.gz');
  await record({ url: 'http://dev.in-process/', out: file, fetch: inProcessFetch(createRpcService(node)) });
  return file;
}

/**
 * Rounds of the executor and the replay of its workload, alternating: the same machine moments for
 * both. This machine's speed wanders by ±30-40% from one second to the next (the executor alone
 * took 0.47-0.79 s within a minute), so that the median of 5 rounds still gave 68-99% for the
 * same code. Single rounds gave 63-137%: the median of 11 still moved by about ±5 points between
 * runs minutes apart (its printed interval about 25 points wide); 21 narrow that by about a
 * third, for about 17 s more.
 */
const ROUNDS = 21;

/** A share as replay-bench prints it: see percentNear. */
const shareText = (share: number) => percentNear(share, REPLAY_SHARE);
/** Rounds' shares, whole percentages in a list. */
const shareList = (shares: readonly number[]) => (shares.length === 0 ? 'none' : shares.map((x) => `${(x * 100).toFixed(0)}%`).join(', '));

const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/**
 * Why the dense replay trails the executor, measured: the CPU each used per run (all threads, and
 * the main thread alone where /proc tells it) against the cores there are.
 */
function cpuLine(executor: ReadonlyArray<{ cpu: CpuSample; seconds: number }>, replay: ReadonlyArray<{ cpu: CpuSample; seconds: number }>, allowed: number): string {
  const cores = availableParallelism();
  const m = (xs: number[]) => median(xs).toFixed(2);
  const describe = (runs: ReadonlyArray<{ cpu: CpuSample; seconds: number }>, own: string) => {
    const mains = runs.flatMap((r) => (r.cpu.main === undefined ? [] : [r.cpu.main]));
    const mainPart = mains.length === runs.length ? ` (${m(mains)} s on ${own})` : '';
    return `${m(runs.map((r) => r.cpu.process))} s of CPU${mainPart} in ${m(runs.map((r) => r.seconds))} s, ${median(runs.map((r) => r.cpu.process / r.seconds)).toFixed(2)} of the ${cores} cores busy`;
  };
  const replayMains = replay.flatMap((r) => (r.cpu.main === undefined ? [] : [r.cpu.main]));
  const executorMains = executor.flatMap((e) => (e.cpu.main === undefined ? [] : [e.cpu.main]));
  const thread =
    replayMains.length === replay.length && executorMains.length === executor.length
      ? ` The replay's own thread alone used ${(median(replayMains) / median(executorMains)).toFixed(2)}× the CPU of the executor's: on that thread by itself, with every other core free for the rest, the replay would reach at most ${((median(executorMains) / median(replayMains)) * 100).toFixed(0)}% of the executor.`
      : '';
  // however the work is spread, the cores must run all of it
  const replayCpu = median(replay.map((r) => r.cpu.process));
  const executorSeconds = median(executor.map((e) => e.seconds));
  const all = ` All threads together the replay needs ${replayCpu.toFixed(2)} s of CPU, at least ${(replayCpu / cores).toFixed(2)} s of wall time on ${cores} cores: at most ${Math.min(100, (executorSeconds / (replayCpu / cores)) * 100).toFixed(0)}% of the executor however it is spread.`;
  return `CPU by run (medians): the executor ${describe(executor, 'its thread')}; the replay of its workload ${describe(replay, "the replay's own thread; the rest is the reader and crypto workers, V8's garbage-collector threads and gunzip")}. ${REPLAY_SHARE * 100}% of the executor means at most ${allowed.toFixed(2)} s of wall time.${thread}${all}${wallLine(executor, replay)}`;
}

/**
 * Where each main thread's wall time went (medians; Linux with schedstats): running, waiting for
 * a core while other threads ran on every core, and neither (waiting on other threads or for
 * work: the replay's start, the workers' answers, V8's collector threads finishing their part).
 */
function wallLine(executor: ReadonlyArray<{ cpu: CpuSample; seconds: number }>, replay: ReadonlyArray<{ cpu: CpuSample; seconds: number }>): string {
  const split = (runs: ReadonlyArray<{ cpu: CpuSample; seconds: number }>) => {
    const parts = runs.flatMap(({ cpu, seconds }) => wallByState(cpu, seconds) ?? []);
    if (parts.length !== runs.length || parts.length === 0) return undefined;
    const ms = (xs: number[]) => `${(median(xs) * 1000).toFixed(0)} ms`;
    return `${ms(parts.map((p) => p.running))} running, ${ms(parts.map((p) => p.queued))} ready but waiting for a core, ${ms(parts.map((p) => p.waiting))} waiting on other threads or for work`;
  };
  const [e, r] = [split(executor), split(replay)];
  if (!e || !r) return '';
  return ` Wall time by thread state (medians): the replay's own thread ${r}; the executor's ${e}.`;
}

/**
 * How far the rounds pin the median down: a confidence interval for it (measure.ts's
 * medianInterval), and whether the target lies inside, so that a verdict within the machine's
 * noise reads as such.
 */
function intervalText(shares: readonly number[]): string {
  const interval = medianInterval(shares);
  if (!interval) return '';
  const { low, high, coverage, k } = interval;
  const where =
    low >= REPLAY_SHARE
      ? `the whole interval meets the target of ${REPLAY_SHARE * 100}%`
      : high < REPLAY_SHARE
        ? `the whole interval is below the target of ${REPLAY_SHARE * 100}%`
        : `the target of ${REPLAY_SHARE * 100}% lies inside it: this run alone cannot tell whether the replay meets it`;
  return `; the median is between ${shareText(low)} and ${shareText(high)} with ${Math.floor(coverage * 100)}% confidence (the ${ordinal(k)} smallest and largest of the ${shares.length} rounds, were the rounds independent): ${where}`;
}

function ordinal(k: number): string {
  const tens = k % 100;
  const suffix = tens >= 11 && tens <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][k % 10] ?? 'th');
  return `${k}${suffix}`;
}

/** A stretch of the main thread's time: a timed run. */
export interface Window {
  readonly from: number;
  readonly to: number;
}

/**
 * The main thread's full garbage collections (V8's mark-compact), by the timed run they fell in.
 * Executor and replay run in one process, so one collects the other's garbage as well as its own:
 * a round's ratio depends on which of its two runs a full collection lands in.
 */
class FullCollections {
  private readonly entries: PerformanceEntry[] = [];
  private readonly observer = new PerformanceObserver((list) => this.entries.push(...list.getEntries()));

  constructor() {
    this.observer.observe({ entryTypes: ['gc'] });
  }

  /** Whether a full collection started within `window`. */
  within(window: Window): boolean {
    return this.entries.some((e) => (e as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind === perfConstants.NODE_PERFORMANCE_GC_MAJOR && e.startTime >= window.from && e.startTime < window.to);
  }

  /** The entries observed so far delivered (they come in a later turn), then no more observed. */
  async stop(): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    this.observer.disconnect();
  }
}

/**
 * Which runs of the rounds a full collection fell in, and the rounds' ratios by whether one fell in
 * their replay. About one falls per round (the two runs' garbage together), in one run or the
 * other, and costs that run 60-70 ms of the main thread's time beyond its pauses (marking, and
 * slower scavenges while it marks): so each run is also compared with runs of the other kind
 * that had the same luck.
 */
export function fullCollectionLine(collections: { within(window: Window): boolean }, rounds: ReadonlyArray<{ executor: Window; replay: Window; executorRate: number; replayRate: number }>): string {
  const hit: number[] = [];
  const clear: number[] = [];
  for (const r of rounds) (collections.within(r.replay) ? hit : clear).push(r.replayRate / r.executorRate);
  const inExecutor = rounds.filter((r) => collections.within(r.executor)).length;
  const alike = (withCollection: boolean) => {
    const executor = rounds.filter((r) => collections.within(r.executor) === withCollection).map((r) => r.executorRate);
    const replay = rounds.filter((r) => collections.within(r.replay) === withCollection).map((r) => r.replayRate);
    if (executor.length === 0 || replay.length === 0) return undefined;
    const [e, p] = [median(executor), median(replay)];
    return `${withCollection ? 'with one' : 'without one'}, the executor's median ${formatRate(e)} tx/s (${executor.length} runs) and the replay's ${formatRate(p)} tx/s (${replay.length}): ${shareText(p / e)}`;
  };
  const byLuck = [alike(false), alike(true)].filter((x) => x !== undefined);
  const luckText = byLuck.length === 0 ? '' : ` Runs of the same luck against each other (not the verdict's measure: it pairs runs a second apart and not by luck): ${byLuck.join('; ')}.`;
  return `Full garbage collections (V8 mark-compact, the main thread): in ${hit.length} of the ${rounds.length} replays and ${inExecutor} of the ${rounds.length} executor runs; the rounds with one in their replay: ${shareList(hit)}; the others: ${shareList(clear)}.${luckText}`;
}

/** A dev node served over HTTP on a free loopback port, loaded with `blocks` blocks, then recorded over HTTP. */
export async function measureRecord(dir: string, blocks = RECORD_BLOCKS, perBlock = RECORD_TX_PER_BLOCK): Promise<{ blocks: number; transactions: number; seconds: number; blocksPerSecond: number }> {
  const node = await loadedDevNode('bench-record', blocks - 1, perBlock);
  const server = await startHttpServer(createRpcService(node), { host: '127.0.0.1', port: 0 });
  try {
    const summary = await record({ url: server.url, out: path.join(dir, 'chain.jsonl.gz') });
    return { blocks: summary.blocks, transactions: summary.transactions, seconds: summary.seconds, blocksPerSecond: summary.blocks / summary.seconds };
  } finally {
    await server.close();
  }
}

export async function run(io: BenchIo): Promise<void> {
  const files = readdirSync(FIXTURES)
    .filter((f) => /\.jsonl(\.gz)?$/.test(f))
    .sort();
  const dir = await mkdtemp(path.join(tmpdir(), 'twinchain-bench-replay-'));
  try {
    // executor and dense replay alternate ROUNDS times; the dense replay's share of the executor is the median of each round's (the
    // two measured within the same second or two, so that the machine's wandering speed mostly cancels), the other figures medians
    const dense = await denseRecording(dir);
    await measureReplay(dense, true);
    const rates: number[] = [];
    const replays: ReplayMeasurement[] = [];
    const executorCpu: Array<{ cpu: CpuSample; seconds: number }> = [];
    const replayCpu: Array<{ cpu: CpuSample; seconds: number }> = [];
    const windows: Array<{ executor: Window; replay: Window }> = [];
    const collections = new FullCollections();
    for (let round = 0; round < ROUNDS; round++) {
      const executed = await measureExecutor('storage');
      const executorEnd = performance.now();
      executorCpu.push({ cpu: executed.cpu, seconds: executed.seconds });
      rates.push(executed.rate);
      const before = cpuNow();
      const replayStart = performance.now();
      const replayed = await measureReplay(dense);
      windows.push({ executor: { from: executorEnd - executed.seconds * 1000, to: executorEnd }, replay: { from: replayStart, to: performance.now() } });
      replayCpu.push({ cpu: cpuSince(before), seconds: replayed.seconds });
      replays.push({ ...replayed, file: DENSE_NAME });
    }
    await collections.stop();
    const executor = { rate: median(rates) };
    const denseReplay = replays.find((r) => r.seconds === median(replays.map((m) => m.seconds)))!;
    const floor = executor.rate * REPLAY_SHARE;
    const roundShares = replays.map((r, k) => r.transactions / r.seconds / rates[k]!);
    const denseShares = { share: median(roundShares), executing: median(replays.map((r, k) => r.transactions / r.executionSeconds / rates[k]!)) };
    io.out(`replay: recordings re-executed and verified (tx hashes, senders, receipts, roots, block hashes, sealer signatures); each replayed once untimed first; ECDSA keys recovered by ${recoveryLibrary()}\n`);
    io.out(
      `executor (exec bench, storage state, blocks of 1,000 HelloWorld set): ${formatRate(executor.rate)} tx/s, the median of ${ROUNDS} runs (${rates.map(formatRate).join(', ')}) alternating with ${ROUNDS} replays of its workload (${replays.map((r) => formatRate(r.transactions / r.seconds)).join(', ')} tx/s; the median below); each round's replay / executor ${shareList(roundShares)}, median ${shareText(denseShares.share)} (the workload's "of executor" below)${intervalText(roundShares)}\n`,
    );
    io.out(`${cpuLine(executorCpu, replayCpu, denseReplay.transactions / floor)}\n`);
    io.out(`${fullCollectionLine(collections, windows.map((w, k) => ({ ...w, executorRate: rates[k]!, replayRate: replays[k]!.transactions / replays[k]!.seconds })))}\n`);
    const measured: Array<{ m: ReplayMeasurement; paired?: typeof denseShares }> = [{ m: denseReplay, paired: denseShares }];
    for (const f of files) measured.push({ m: await measureReplay(path.join(FIXTURES, f), true) });
    const rows = measured.map(({ m, paired }) => {
      const txRate = m.transactions / m.seconds;
      const share = paired?.share ?? txRate / executor.rate;
      const executingShare = paired?.executing ?? m.transactions / m.executionSeconds / executor.rate;
      return [
        m.file,
        String(m.blocks),
        String(m.transactions),
        (m.transactions / m.blocks).toFixed(1),
        m.seconds.toFixed(2),
        formatRate(m.blocks / m.seconds),
        formatRate(txRate),
        shareText(share),
        share >= REPLAY_SHARE ? `meets ≥ ${REPLAY_SHARE * 100}%` : `BELOW ${REPLAY_SHARE * 100}%`,
        m.executionSeconds.toFixed(2),
        formatRate(m.transactions / m.executionSeconds),
        `${(executingShare * 100).toFixed(0)}%`,
      ];
    });
    io.out(table(['recording', 'blocks', 'txs', 'tx/block', 'seconds', 'blocks/s', 'tx/s', 'of executor', 'target', 'executing s', 'executing tx/s', 'of executor'], rows));
    io.out(
      '\n"of executor": for the exec-bench workload the median of each round\'s replay / executor (both measured within a second or two); for the fixture chains against the executor\'s median. "executing": the part of each replay spent in the executor itself (execute and commit, no checks). The executor figure is for blocks of 1,000 transactions with senders known; the fixture chains carry 1-2 transactions per block, where executing alone (the block\'s state root, dbHash, block hash and commit for every 2 transactions) stays far below it, so no replay of them can reach the target; on top come 4-5 sealer signatures per block, SM2 verification (pure JS) most of all.',
    );
    const rec = await measureRecord(dir);
    io.out(`\nrecord: a dev node on a free loopback port with ${rec.blocks} blocks (${formatRate(rec.transactions)} transactions), recorded over HTTP\n`);
    io.out(table(['path', 'blocks/s', 'seconds', 'target'], [['record over HTTP (batches, 8 requests in flight)', formatRate(rec.blocksPerSecond), rec.seconds.toFixed(2), verdict(rec.blocksPerSecond, RECORD_TARGET)]]));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
