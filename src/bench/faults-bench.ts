// `twinchain bench faults`: fault trials on real node processes, with their figures: kill -9 of
// followers and leaders under load, freezes, two of four down, failing disks, a peer outside the
// group, and the two flood targets (250 idle connections on every p2p port while a node restarts:
// back to all its peers within 10 s; 1,200 idle JSON-RPC connections: ≥ 99% of a client's
// requests served).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchIo } from './bench-io.js';
import { holdConnections, LocalChain, needOpenFiles, openFilesLimit, sleep, strangerSession, waitFor, type LocalNode } from './local-chain.js';
import { table } from './measure.js';

/** The flood process: the compiled module beside this one, or the source through tsx. */
const FLOOD_MAIN = import.meta.url.endsWith('.ts')
  ? ['--import', 'tsx', fileURLToPath(new URL('./flood-main.ts', import.meta.url))]
  : [fileURLToPath(new URL('./flood-main.js', import.meta.url))];

const KILL_TRIALS = 3;
const FREEZE_MS = 10_000;
const DOWN_MS = 3_000;
const P2P_FLOOD = 250;
const P2P_TARGET_MS = 10_000;
const P2P_TRIALS = 3;
const RPC_FLOOD = 1_200;
const RPC_TARGET = 0.99;
const RPC_REQUESTS = 400;

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? NaN : sorted[Math.floor((sorted.length - 1) / 2)]!;
};
const spread = (values: readonly number[]) => `median ${seconds(median(values))} (${values.map(seconds).join(', ')})`;

interface Row {
  readonly trial: string;
  readonly n: number;
  readonly figure: string;
  readonly target: string;
}

class Trials {
  constructor(
    readonly chain: LocalChain,
    readonly io: BenchIo,
  ) {}

  get nodes(): readonly LocalNode[] {
    return this.chain.nodes;
  }

  others(...out: LocalNode[]): LocalNode[] {
    return this.nodes.filter((n) => !out.includes(n));
  }

  async top(nodes: readonly LocalNode[]): Promise<number> {
    return Math.max(...(await this.chain.heights(nodes)));
  }

  /** ms until one of `nodes` commits past `height`. */
  async nextCommit(nodes: readonly LocalNode[], height: number, timeoutMs = 60_000): Promise<number> {
    const started = Date.now();
    await waitFor(`a commit past ${height}`, async () => (await this.top(nodes)) > height, timeoutMs, 50);
    return Date.now() - started;
  }

  async consistent(): Promise<string> {
    const { ok, top } = await this.chain.consistent();
    if (!ok) throw new Error(`the nodes disagree on blocks 1..${top}`);
    return `consistent to ${top}`;
  }

  async leader(): Promise<LocalNode> {
    return waitFor('a leader', () => this.chain.leader(this.nodes.find((n) => this.chain.pid(n) !== undefined)), 30_000);
  }

  /** kill -9 under load; returns when the others committed again and when the node caught up after start.sh. */
  async kill(role: 'leader' | 'follower'): Promise<{ recommitMs: number; catchUpMs: number }> {
    const leader = await this.leader();
    const victim = role === 'leader' ? leader : this.others(leader)[0]!;
    const load = this.chain.load(() => this.others(victim));
    try {
      await this.nextCommit(this.nodes, await this.top(this.nodes));
      const killedAt = Date.now();
      await this.chain.kill9(victim);
      const recommitMs = await this.nextCommit(this.others(victim), await this.top(this.others(victim)));
      await sleep(Math.max(0, DOWN_MS - (Date.now() - killedAt)));
      await this.chain.start(victim);
      const catchUpMs = await this.chain.caughtUp([victim], await this.top(this.others(victim)), 60_000);
      const note = await this.consistent();
      this.io.out(`  kill -9 ${role} ${victim.name}: the others committed again after ${seconds(recommitMs)}; restarted after ${seconds(DOWN_MS)}, caught up in ${seconds(catchUpMs)}; ${note}`);
      return { recommitMs, catchUpMs };
    } finally {
      await load.stop();
    }
  }

  async freeze(role: 'leader' | 'follower'): Promise<{ recommitMs: number; catchUpMs: number }> {
    const leader = await this.leader();
    const victim = role === 'leader' ? leader : this.others(leader)[0]!;
    const load = this.chain.load(() => this.others(victim));
    try {
      const frozenAt = Date.now();
      this.chain.signal(victim, 'SIGSTOP');
      const recommitMs = await this.nextCommit(this.others(victim), await this.top(this.others(victim)));
      await sleep(Math.max(0, FREEZE_MS - (Date.now() - frozenAt)));
      this.chain.signal(victim, 'SIGCONT');
      const catchUpMs = await this.chain.caughtUp([victim], await this.top(this.others(victim)), 60_000);
      const note = await this.consistent();
      this.io.out(`  SIGSTOP ${role} ${victim.name} for ${seconds(FREEZE_MS)}: the others committed again after ${seconds(recommitMs)}; resumed, caught up in ${seconds(catchUpMs)}; ${note}`);
      return { recommitMs, catchUpMs };
    } finally {
      this.chain.signal(victim, 'SIGCONT');
      await load.stop();
    }
  }

  async twoDown(): Promise<{ stalledBlocks: number; resumeMs: number; catchUpMs: number }> {
    const [a, b] = [this.nodes[1]!, this.nodes[2]!];
    const load = this.chain.load(() => this.others(a, b));
    try {
      await this.chain.kill9(a);
      await this.chain.kill9(b);
      const before = await this.top(this.others(a, b));
      await sleep(DOWN_MS);
      const stalledBlocks = (await this.top(this.others(a, b))) - before;
      await Promise.all([this.chain.start(a), this.chain.start(b)]);
      const resumeMs = await this.nextCommit(this.nodes, await this.top(this.nodes));
      const catchUpMs = await this.chain.caughtUp([a, b], await this.top(this.others(a, b)), 60_000);
      const note = await this.consistent();
      this.io.out(`  two of four down (${a.name}, ${b.name}) for ${seconds(DOWN_MS)}: ${stalledBlocks} blocks meanwhile; both back, a new block after ${seconds(resumeMs)}, both caught up in ${seconds(catchUpMs)}; ${note}`);
      return { stalledBlocks, resumeMs, catchUpMs };
    } finally {
      await load.stop();
    }
  }

  /** A node whose disk fails at the first `kind` write: its exit and what it said; restarted, its catch-up. */
  async disk(kind: 'commit' | 'lock' | 'vote', victim: LocalNode, provoke?: () => Promise<void>): Promise<{ exitMs: number; code: number | null; catchUpMs: number }> {
    const load = this.chain.load(() => this.others(victim));
    try {
      await this.chain.kill9(victim);
      const node = this.chain.runDirect(victim, { TWINCHAIN_STORAGE_FAULT: kind });
      if (provoke) {
        await waitFor(`${victim.name} up`, async () => (await this.chain.height(victim)) >= 0, 30_000).catch(() => undefined);
        await provoke();
      }
      const exit = await Promise.race([node.exit, sleep(60_000).then(() => undefined)]);
      if (exit === undefined) throw new Error(`${victim.name} did not stop on a failing disk at ${kind}`);
      const said = /storage failure in group 1: .*/.exec(exit.stdout)?.[0] ?? '(no stdout line)';
      const logged = /\[g:1\]\[STORAGE\] storage failure, the group stops,operation=\w+/.test(this.chain.log(victim));
      for (const n of this.nodes) if (this.chain.pid(n) === undefined) await this.chain.start(n);
      const catchUpMs = await this.chain.caughtUp([victim], await this.top(this.others(victim)), 60_000);
      const note = await this.consistent();
      this.io.out(
        `  failing disk at ${kind} on ${victim.name}: exit ${exit.code} after ${seconds(exit.ms)} (from its start), error line ${logged ? 'logged' : 'MISSING'}; stdout: ${said}; restarted, caught up in ${seconds(catchUpMs)}; ${note}`,
      );
      if (exit.code !== 1 || !logged) throw new Error(`a failing disk at ${kind}: exit ${exit.code}, error line ${logged}`);
      return { exitMs: exit.ms, code: exit.code, catchUpMs };
    } finally {
      await load.stop();
    }
  }
}

async function pbftTrials(io: BenchIo): Promise<Row[]> {
  const chain = await LocalChain.build({ count: 4, prefix: 'bench-faults' });
  try {
    await chain.startAll();
    await waitFor('every node to see its three peers', async () => (await Promise.all(chain.nodes.map((n) => chain.peers(n)))).every((p) => p === 3), 60_000);
    const t = new Trials(chain, io);
    const rows: Row[] = [];
    io.out('PBFT, 4 nodes (quorum 3), one signed transaction every 50 ms to the nodes that are up:');
    for (const role of ['follower', 'leader'] as const) {
      const trials = [];
      for (let i = 0; i < KILL_TRIALS; i++) trials.push(await t.kill(role));
      rows.push({ trial: `PBFT kill -9 ${role}: others commit again`, n: trials.length, figure: spread(trials.map((r) => r.recommitMs)), target: '—' });
      rows.push({ trial: `PBFT kill -9 ${role}: catch-up after start.sh`, n: trials.length, figure: spread(trials.map((r) => r.catchUpMs)), target: '—' });
    }
    for (const role of ['follower', 'leader'] as const) {
      const r = await t.freeze(role);
      rows.push({ trial: `PBFT SIGSTOP ${role} ${seconds(FREEZE_MS)}: others commit again`, n: 1, figure: seconds(r.recommitMs), target: '—' });
      rows.push({ trial: `PBFT SIGSTOP ${role}: catch-up after SIGCONT`, n: 1, figure: seconds(r.catchUpMs), target: '—' });
    }
    const two = await t.twoDown();
    rows.push({ trial: `PBFT two of four down ${seconds(DOWN_MS)}: blocks meanwhile`, n: 1, figure: String(two.stalledBlocks), target: '0' });
    rows.push({ trial: 'PBFT two of four back: next block, catch-up', n: 1, figure: `${seconds(two.resumeMs)}, ${seconds(two.catchUpMs)}`, target: '—' });
    for (const kind of ['commit', 'lock'] as const) {
      const r = await t.disk(kind, chain.nodes[3]!);
      rows.push({ trial: `PBFT failing disk at ${kind}: exit, catch-up`, n: 1, figure: `exit ${r.code} in ${seconds(r.exitMs)}, ${seconds(r.catchUpMs)}`, target: 'exit 1' });
    }

    const sdk = path.join(chain.ipDir, 'sdk');
    const identity = { key: readFileSync(path.join(sdk, 'sdk.key')), cert: readFileSync(path.join(sdk, 'sdk.crt')), ca: readFileSync(path.join(sdk, 'ca.crt')) };
    const [genesis] = await chain.blockHashes(chain.nodes[0]!, 0, 0);
    const stranger = await strangerSession(
      chain.nodes[0]!,
      identity,
      [
        { type: 'status', status: { number: 2 ** 40, genesisHash: Buffer.from(genesis!.slice(2), 'hex'), latestHash: new Uint8Array(32).fill(7) } },
        { type: 'reqBlocks', from: 1, count: 32 },
      ],
      3_000,
    );
    const syncing = (await chain.rpc<{ isSyncing: boolean }>(chain.nodes[0]!, 'getSyncStatus')).isSyncing;
    io.out(`  the SDK certificate as a p2p peer: connected ${stranger.connected}, ${stranger.frames} frames back in 3 s to a 2^40 status and a request for 32 blocks; isSyncing ${syncing}`);
    rows.push({ trial: 'PBFT peer with the SDK certificate: frames answered', n: 1, figure: String(stranger.frames), target: '0' });

    rows.push(...(await p2pFlood(chain, io)));
    rows.push(...(await rpcFlood(chain, io)));
    return rows;
  } finally {
    await chain.stopAll();
    chain.dispose();
  }
}

/** A node killed and restarted while every p2p port holds 250 idle connections: how long until it has all its peers again. */
async function p2pFlood(chain: LocalChain, io: BenchIo): Promise<Row[]> {
  // from the node being up (start.sh saw "is running") until it has every peer; the start itself apart
  const measure = async (victim: LocalNode): Promise<{ peersMs: number; startMs: number }> => {
    await chain.kill9(victim);
    const started = Date.now();
    await chain.start(victim);
    const up = Date.now();
    await waitFor(`${victim.name} back with all its peers`, async () => (await chain.peers(victim)) === chain.nodes.length - 1, 60_000, 50);
    return { peersMs: Date.now() - up, startMs: up - started };
  };
  const quiet = await measure(chain.nodes[1]!);
  needOpenFiles(chain.nodes.length * P2P_FLOOD, `holding ${P2P_FLOOD} connections on each of ${chain.nodes.length} p2p ports`);
  const floods = chain.nodes.map((n) => holdConnections(n.p2pPort, P2P_FLOOD));
  const trials: Array<{ peersMs: number; startMs: number }> = [];
  try {
    await waitFor('the floods in place', () => floods.every((f) => f.open() >= P2P_FLOOD - 10), 30_000, 100);
    for (let i = 0; i < P2P_TRIALS; i++) trials.push(await measure(chain.nodes[(i % 3) + 1]!));
    const reopened = floods.reduce((sum, f) => sum + f.reopened(), 0);
    io.out(
      `  ${P2P_FLOOD} idle connections held on each of the ${chain.nodes.length} p2p ports (${reopened} re-opened as the nodes cut them at the handshake deadline): ` +
        `a node killed and restarted had all its peers ${spread(trials.map((t) => t.peersMs))} after it was up (its start.sh took ${spread(trials.map((t) => t.startMs))}); ` +
        `without the flood ${seconds(quiet.peersMs)} after a ${seconds(quiet.startMs)} start`,
    );
  } finally {
    for (const f of floods) f.stop();
  }
  const times = trials.map((t) => t.peersMs);
  const worst = Math.max(...times);
  return [
    { trial: `p2p flood ${P2P_FLOOD}/port: restarted node back to all peers`, n: times.length, figure: `${spread(times)}; worst ${seconds(worst)}`, target: `≤ ${seconds(P2P_TARGET_MS)} ${worst <= P2P_TARGET_MS ? 'MET' : 'MISSED'}` },
  ];
}

/** A client's requests to a node whose JSON-RPC port holds 1,200 idle connections (from another process). */
async function rpcFlood(chain: LocalChain, io: BenchIo): Promise<Row[]> {
  const node = chain.nodes[0]!;
  const client = async (count: number): Promise<{ ok: number; latencies: number[]; errors: Map<string, number> }> => {
    let ok = 0;
    const latencies: number[] = [];
    const errors = new Map<string, number>();
    for (let i = 0; i < count; i++) {
      const started = Date.now();
      try {
        await chain.rpc(node, 'getBlockNumber', [1], 5_000);
        ok++;
        latencies.push(Date.now() - started);
      } catch (error) {
        const why = ((error as Error).cause as Error | undefined)?.message ?? (error as Error).message;
        errors.set(why, (errors.get(why) ?? 0) + 1);
      }
      await sleep(25);
    }
    return { ok, latencies, errors };
  };
  const p = (values: number[], q: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * q))] ?? NaN;
  const quiet = await client(100);
  const flood = spawn(process.execPath, [...FLOOD_MAIN, String(node.rpcPort), String(RPC_FLOOD)], { stdio: ['ignore', 'pipe', 'inherit'] });
  let last = { open: 0, reopened: 0 };
  let pending = '';
  flood.stdout.on('data', (d: Buffer) => {
    pending += d.toString();
    const lines = pending.split('\n');
    pending = lines.pop()!;
    for (const line of lines) if (line.trim()) last = JSON.parse(line) as typeof last;
  });
  const exited = new Promise<void>((resolve) => flood.on('exit', () => resolve()));
  let loaded;
  let reopenedBefore = 0;
  try {
    await waitFor('the JSON-RPC flood in place', () => last.open >= 900, 30_000, 200);
    reopenedBefore = last.reopened;
    loaded = await client(RPC_REQUESTS);
  } finally {
    flood.kill('SIGTERM');
    await Promise.race([exited, sleep(5_000)]);
    if (flood.exitCode === null) flood.kill('SIGKILL');
  }
  const share = loaded.ok / RPC_REQUESTS;
  const errors = [...loaded.errors].map(([why, n]) => `${n}× ${why}`).join('; ');
  io.out(
    `  ${RPC_FLOOD} idle connections held on ${node.name}'s JSON-RPC port by another process (${last.reopened - reopenedBefore} re-opened while the client ran, as the node closed the oldest silent ones): ` +
      `${loaded.ok} of ${RPC_REQUESTS} getBlockNumber requests answered (${(share * 100).toFixed(1)}%), p50 ${p(loaded.latencies, 0.5)} ms, p99 ${p(loaded.latencies, 0.99)} ms` +
      `${errors ? `; failures: ${errors}` : ''}; without the flood ${quiet.ok}/100, p50 ${p(quiet.latencies, 0.5)} ms`,
  );
  return [{ trial: `JSON-RPC flood ${RPC_FLOOD} connections: requests answered`, n: RPC_REQUESTS, figure: `${(share * 100).toFixed(1)}%`, target: `≥ ${RPC_TARGET * 100}% ${share >= RPC_TARGET ? 'MET' : 'MISSED'}` }];
}

async function raftTrials(io: BenchIo): Promise<Row[]> {
  const chain = await LocalChain.build({ count: 3, consensus: 'raft', prefix: 'bench-faults-raft' });
  try {
    await chain.startAll();
    await waitFor('every node to see its two peers', async () => (await Promise.all(chain.nodes.map((n) => chain.peers(n)))).every((p) => p === 2), 60_000);
    const t = new Trials(chain, io);
    io.out('Raft, 3 nodes (majority 2):');
    const rows: Row[] = [];
    const trials = [];
    for (let i = 0; i < KILL_TRIALS; i++) trials.push(await t.kill('leader'));
    rows.push({ trial: 'Raft kill -9 leader: others commit again', n: trials.length, figure: spread(trials.map((r) => r.recommitMs)), target: '—' });
    rows.push({ trial: 'Raft kill -9 leader: catch-up after start.sh', n: trials.length, figure: spread(trials.map((r) => r.catchUpMs)), target: '—' });
    const leader = await t.leader();
    const voter = t.others(leader)[0]!;
    // with the leader gone the two left elect, and the voter's vote is the write that fails
    const r = await t.disk('vote', voter, async () => {
      if (chain.pid(leader) !== undefined) await chain.kill9(leader);
    });
    rows.push({ trial: 'Raft failing disk at a vote: exit, catch-up', n: 1, figure: `exit ${r.code} in ${seconds(r.exitMs)}, ${seconds(r.catchUpMs)}`, target: 'exit 1' });
    return rows;
  } finally {
    await chain.stopAll();
    chain.dispose();
  }
}

export async function run(io: BenchIo): Promise<void> {
  io.out(`faults: real node processes on 127.0.0.1 (build-chain, start.sh), each fault under load; times are wall clock on this machine (open files limit ${openFilesLimit() ?? 'unknown'})`);
  io.out(`catch-up: from the node being up again (start.sh returned, or SIGCONT) until its height reaches the others' at that moment; after every trial all nodes must agree on every block\n`);
  const rows = [...(await pbftTrials(io)), ...(await raftTrials(io))];
  io.out('');
  io.out(table(['trial', 'n', 'figure', 'target'], rows.map((r) => [r.trial, String(r.n), r.figure, r.target])));
}
