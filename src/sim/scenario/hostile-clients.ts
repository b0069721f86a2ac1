import { encodeFunctionCall } from '../../abi/index.js';
import { fromHex, toHexNoPrefix } from '../../codec/index.js';
import { keccak256 } from '../../crypto/index.js';
import type { Rng } from '../../runtime/index.js';
import { BLOCK_LIMIT_RANGE } from '../../txpool/index.js';
import type { Workload } from './scenario-schema.js';
import type { TxRecord } from './tx-tracker.js';
import { helloWorldCode, scheduleWorkload, type WorkloadCheck, type WorkloadContext } from './workloads.js';

import { HOSTILE_BEHAVIOURS, type HostileBehaviour } from './hostile-behaviours.js';

export type HostileWorkload = Extract<Workload, { kind: 'hostile' }>;

/** FISCO's answers to a transaction that is already on chain (TxPool::verify: dropped cache, nonce, blockLimit), or still pooled by a lagging node. */
const ON_CHAIN_REFUSALS = ['AlreadyInChain', 'NonceCheckFail', 'BlockLimitCheckFail'];
const POOL_FULL = ['TxPoolIsFull', 'OverGroupMemoryLimit'];

/** One request a hostile client made, and what FISCO would answer. */
export interface HostileSend {
  readonly behaviour: HostileBehaviour;
  readonly node: string;
  readonly hash: string;
  /** The signed payload (hex without 0x). */
  readonly raw: string;
  /** The node's height when it answered (same event). */
  readonly height: number;
  /** Answer: 'accepted', the refusal's status name, or `error <code>: <message>` for anything else. */
  readonly outcome: string;
  /** What FISCO may answer: 'accepted' and refusal names. */
  readonly allowed: readonly string[];
  /** Why (for the check's detail). */
  readonly expectation: string;
}

/** The transactions of one nonce race. */
interface Race {
  readonly hashes: readonly [string, string];
}

/** One burst at one node. */
interface Burst {
  readonly node: string;
  readonly room: number;
  readonly sent: number;
  accepted: number;
}

const refusalName = (error: { data?: unknown } | undefined): string | undefined => {
  const data = error?.data;
  return typeof data === 'object' && data !== null && typeof (data as { name?: unknown }).name === 'string' ? (data as { name: string }).name : undefined;
};

/**
 * Hostile clients of one workload: each tick runs one case (drawn from the workload's
 * behaviours), straight through the nodes' JSON-RPC as an SDK would, and records every answer.
 * The end-of-run checks hold the nodes to FISCO's answers and outcomes: each refusal is the one
 * FISCO gives in that case, no node takes again a transaction it has on chain, a nonce race puts
 * at most one of its transactions on chain, and a burst stops at the pool's limit. (No
 * transaction twice on chain and no nonce reused are also the invariant monitor's
 * `block-validity`, on every honest commit.) Accepted transactions that must commit are tracked
 * as any workload's, so `allReceipted` holds them to one receipt on every live honest node.
 */
export class HostileClients {
  private readonly rng: Rng;
  private readonly behaviours: readonly HostileBehaviour[];
  private hello: Uint8Array | undefined;
  private readonly sends: HostileSend[] = [];
  private readonly races: Race[] = [];
  private readonly bursts: Burst[] = [];
  private readonly cases = new Map<HostileBehaviour, number>();

  /** Every request made so far, with its answer and what FISCO may answer (tests, reports). */
  get log(): readonly HostileSend[] {
    return this.sends;
  }

  /** Cases run so far, by behaviour. */
  get caseCounts(): ReadonlyMap<HostileBehaviour, number> {
    return this.cases;
  }
  private sequence = 0;
  skipped = 0;

  constructor(
    private readonly ctx: WorkloadContext,
    private readonly spec: HostileWorkload,
    private readonly index: number,
    /** The nodes' `[tx_pool] limit`. */
    private readonly poolLimit: number,
  ) {
    this.rng = ctx.chain.sim.random(`workload/${index}`);
    this.behaviours = spec.behaviours ?? HOSTILE_BEHAVIOURS;
  }

  private get group(): number {
    return this.spec.group;
  }

  start(): void {
    scheduleWorkload(this.ctx, this.spec, this.index, () => this.setUp(), () => this.tick());
  }

  /** A HelloWorld contract for the clients to call (deployed by the workload's owner, retried each second). */
  private async setUp(): Promise<void> {
    const client = this.ctx.client;
    const record = await client.send(`w${this.index}/owner`, this.group, 'setup', { to: null, data: helloWorldCode() });
    if (!record) {
      if (this.ctx.chain.sim.now + 1000 < this.ctx.endMs) this.ctx.chain.sim.after(1000, () => this.setUp(), `workload ${this.index} setup`);
      return;
    }
    client.tracker.whenCommitted(record.hash, (r) => {
      if (r.status === 0 && r.contractAddress) this.hello = fromHex(r.contractAddress);
    });
  }

  private async tick(): Promise<void> {
    if (!this.hello) return void this.skipped++;
    const behaviour = this.behaviours[this.rng.int(this.behaviours.length)]!;
    const live = this.ctx.client.candidates(this.group, this.targets);
    if (live.length === 0) return void this.skipped++;
    let ran: boolean;
    switch (behaviour) {
      case 'multi-submit':
        ran = await this.multiSubmit(live);
        break;
      case 'nonce-race':
        ran = await this.nonceRace(live);
        break;
      case 'replay-committed':
        ran = await this.replayCommitted(live);
        break;
      case 'block-limit-edges':
        ran = await this.blockLimitEdges(live);
        break;
      case 'pool-burst':
        ran = await this.poolBurst(live);
        break;
    }
    if (ran) this.cases.set(behaviour, (this.cases.get(behaviour) ?? 0) + 1);
    else this.skipped++;
  }

  private get targets(): readonly string[] | undefined {
    return this.spec.targets === undefined ? undefined : typeof this.spec.targets === 'string' ? [this.spec.targets] : this.spec.targets;
  }

  /** A signed call of HelloWorld.set by one of the workload's clients. */
  private build(blockLimit: number, nonce?: bigint): { hash: string; raw: string } {
    const n = this.sequence++;
    const data = encodeFunctionCall('set(string)', [`hostile #${n} of workload ${this.index}`], keccak256);
    const account = this.ctx.client.account(`w${this.index}/client${n % 4}`, this.group);
    const tx = account.build({ to: this.hello!, data, blockLimit: BigInt(blockLimit), ...(nonce !== undefined ? { nonce } : {}) });
    return { hash: `0x${toHexNoPrefix(tx.hash)}`, raw: toHexNoPrefix(tx.raw) };
  }

  private async height(node: string): Promise<number | undefined> {
    const reply = await this.ctx.rpc.call(node, 'getBlockNumber', [this.group]);
    return typeof reply?.result === 'string' ? Number.parseInt(reply.result, 16) : undefined;
  }

  /** Sends a payload to a node and records the answer against what FISCO may answer. */
  private async submit(behaviour: HostileBehaviour, node: string, tx: { hash: string; raw: string }, allowed: readonly string[], expectation: string): Promise<string> {
    const reply = await this.ctx.rpc.call(node, 'sendRawTransaction', [this.group, `0x${tx.raw}`]);
    if (!reply) return 'down';
    const height = (await this.height(node)) ?? -1;
    const name = refusalName(reply.error);
    const outcome = reply.error === undefined ? 'accepted' : (name ?? `error ${reply.error.code}: ${reply.error.message}`);
    // FISCO's pool answers TxPoolIsFull before any other check once it holds its limit: fair for any request then
    const full = POOL_FULL.includes(outcome) && (await this.pooled(node)) >= this.poolLimit;
    this.sends.push({ behaviour, node, hash: tx.hash, raw: tx.raw, height, outcome, allowed: full ? [...allowed, outcome] : allowed, expectation });
    return outcome;
  }

  private async pooled(node: string): Promise<number> {
    const reply = await this.ctx.rpc.call(node, 'getPendingTxSize', [this.group]);
    return typeof reply?.result === 'string' ? Number.parseInt(reply.result, 16) : -1;
  }

  /** Tracks a transaction that must end on chain with one receipt (resent like any workload's if it stalls). */
  private track(tx: { hash: string; raw: string }, node: string, mayVanish?: string): TxRecord {
    const tracker = this.ctx.client.tracker;
    const record = tracker.records.get(tx.hash) ?? tracker.add(tx.hash, 'hostile', this.group, tx.raw, this.ctx.chain.sim.now);
    record.attempts++;
    record.accepted = true;
    record.node = node;
    if (!record.tried.includes(node)) record.tried.push(node);
    if (mayVanish !== undefined) record.mayVanish = mayVanish;
    return record;
  }

  private pickDistinct(live: readonly string[], k: number): string[] {
    const pool = [...live];
    const out: string[] = [];
    while (out.length < k && pool.length > 0) out.push(pool.splice(this.rng.int(pool.length), 1)[0]!);
    return out;
  }

  private async multiSubmit(live: readonly string[]): Promise<boolean> {
    const nodes = this.pickDistinct(live, Math.min(3, live.length));
    const height = await this.height(nodes[0]!);
    if (height === undefined) return false;
    const tx = this.build(height + 500);
    let first: string | undefined;
    for (const node of nodes) {
      // the first copy is new to the node; the others may already be in its pool by gossip (same event: not yet)
      const outcome = await this.submit('multi-submit', node, tx, ['accepted', 'AlreadyKnown'], 'a copy of a valid transaction: taken, or AlreadyKnown where the pool has it');
      if (outcome === 'accepted' && !first) first = node;
    }
    if (!first) return true;
    const record = this.track(tx, first);
    // again once it is committed, a little later, to any live node
    this.ctx.client.tracker.whenCommitted(record.hash, (r) => {
      const delay = 200 + this.rng.int(2800);
      this.ctx.chain.sim.after(delay, async () => void (await this.resubmitCommitted('multi-submit', r)), `workload ${this.index} resubmit`);
    });
    return true;
  }

  /** A committed transaction sent again: a node at or past its height must refuse it as FISCO does. */
  private async resubmitCommitted(behaviour: HostileBehaviour, record: TxRecord, live: readonly string[] = this.ctx.client.candidates(this.group, this.targets)): Promise<boolean> {
    if (live.length === 0 || record.height === undefined) return false;
    const node = live[this.rng.int(live.length)]!;
    const before = await this.height(node);
    if (before === undefined) return false;
    const behind = before < record.height;
    const allowed = behind ? ['accepted', 'AlreadyKnown', ...ON_CHAIN_REFUSALS] : ON_CHAIN_REFUSALS;
    const expectation = behind
      ? `committed at block ${record.height}, sent to a node at height ${before} (behind: it may take it)`
      : `committed at block ${record.height}, sent to a node at height ${before}: FISCO refuses it (${ON_CHAIN_REFUSALS.join(', ')})`;
    await this.submit(behaviour, node, { hash: record.hash, raw: record.raw }, allowed, expectation);
    return true;
  }

  private async nonceRace(live: readonly string[]): Promise<boolean> {
    if (live.length < 2) return false;
    const [x, y] = this.pickDistinct(live, 2) as [string, string];
    const height = await this.height(x);
    if (height === undefined) return false;
    const nonce = BigInt(`0x${toHexNoPrefix(this.rng.bytes(31))}`);
    const a = this.build(height + 500, nonce);
    const b = this.build(height + 500, nonce);
    const allowed = ['accepted', 'NonceCheckFail'];
    const expectation = 'one of two transactions sharing a nonce: taken, or NonceCheckFail where the other is pooled or on chain';
    const outcomes = [await this.submit('nonce-race', x, a, allowed, expectation), await this.submit('nonce-race', y, b, allowed, expectation)];
    this.races.push({ hashes: [a.hash, b.hash] });
    if (outcomes[0] === 'accepted') this.track(a, x, 'the loser of a nonce race is never committed');
    if (outcomes[1] === 'accepted') this.track(b, y, 'the loser of a nonce race is never committed');
    return true;
  }

  private async replayCommitted(live: readonly string[]): Promise<boolean> {
    const committed = [...this.ctx.client.tracker.records.values()].filter((r) => r.group === this.group && r.height !== undefined);
    if (committed.length === 0) return false;
    return this.resubmitCommitted('replay-committed', committed[this.rng.int(committed.length)]!, live);
  }

  private async blockLimitEdges(live: readonly string[]): Promise<boolean> {
    const node = live[this.rng.int(live.length)]!;
    const h = await this.height(node);
    if (h === undefined) return false;
    const edges: Array<{ limit: number; ok: boolean }> = [
      { limit: h, ok: false },
      { limit: h + 1, ok: true },
      { limit: h + BLOCK_LIMIT_RANGE, ok: true },
      { limit: h + BLOCK_LIMIT_RANGE + 1, ok: false },
    ];
    for (const edge of edges) {
      const tx = this.build(edge.limit);
      const expectation = `blockLimit ${edge.limit} at height ${h}: FISCO ${edge.ok ? 'takes it' : 'refuses it (BlockLimitCheckFail)'}, as it admits (${h}, ${h + BLOCK_LIMIT_RANGE}]`;
      const outcome = await this.submit('block-limit-edges', node, tx, edge.ok ? ['accepted'] : ['BlockLimitCheckFail'], expectation);
      if (outcome === 'accepted') this.track(tx, node, edge.limit === h + 1 ? `its blockLimit ${edge.limit} lets only block ${edge.limit} include it` : undefined);
    }
    return true;
  }

  private async poolBurst(live: readonly string[]): Promise<boolean> {
    const node = live[this.rng.int(live.length)]!;
    const reply = await this.ctx.rpc.call(node, 'getPendingTxSize', [this.group]);
    const h = await this.height(node);
    if (typeof reply?.result !== 'string' || h === undefined) return false;
    const pooled = Number.parseInt(reply.result, 16);
    const room = Math.max(0, this.poolLimit - pooled);
    const size = Math.min(this.spec.burst, room + 1 + this.rng.int(10));
    const burst: Burst = { node, room, sent: size, accepted: 0 };
    for (let i = 0; i < size; i++) {
      const tx = this.build(h + 500);
      const outcome = await this.submit('pool-burst', node, tx, ['accepted'], `a burst of ${size} at a pool with room for ${room}: taken while there is room, ${POOL_FULL.join(' / ')} once full`);
      if (outcome === 'down') break;
      if (outcome === 'accepted') {
        burst.accepted++;
        this.track(tx, node);
      }
    }
    this.bursts.push(burst);
    return true;
  }

  /** The end-of-run checks (see the class comment). */
  async checks(): Promise<WorkloadCheck[]> {
    const name = (what: string) => `workloads[${this.index}] (hostile): ${what}`;
    const ran = [...this.cases].map(([b, n]) => `${n} ${b}`).join(', ') || 'no case ran';
    const wrong = this.sends.filter((s) => !s.allowed.includes(s.outcome));
    const answers: WorkloadCheck = {
      name: name("every answer is FISCO's for its case"),
      ok: wrong.length === 0,
      detail:
        wrong.length === 0
          ? `${this.sends.length} requests (${ran})`
          : `${wrong.length} of ${this.sends.length}; first: ${wrong[0]!.behaviour}: ${wrong[0]!.node} at height ${wrong[0]!.height} answered ${wrong[0]!.outcome} to ${wrong[0]!.hash} (${wrong[0]!.expectation})`,
    };
    const tracker = this.ctx.client.tracker;
    const doubled = this.races.filter((r) => r.hashes.every((h) => tracker.records.get(h)?.committedAt !== undefined));
    const races: WorkloadCheck = {
      name: name('a nonce race puts at most one of its two transactions on chain'),
      ok: doubled.length === 0,
      detail: doubled.length === 0 ? `${this.races.length} races, ${this.races.filter((r) => r.hashes.some((h) => tracker.records.get(h)?.committedAt !== undefined)).length} with a winner on chain` : `both ${doubled[0]!.hashes.join(' and ')} were committed`,
    };
    const overfull = this.bursts.filter((b) => b.accepted !== Math.min(b.sent, b.room));
    const bursts: WorkloadCheck = {
      name: name("a burst stops at the pool's limit"),
      ok: overfull.length === 0,
      detail:
        overfull.length === 0
          ? `${this.bursts.length} bursts of ${this.bursts.reduce((n, b) => n + b.sent, 0)} transactions, ${this.bursts.reduce((n, b) => n + b.accepted, 0)} taken`
          : `${overfull[0]!.node} took ${overfull[0]!.accepted} of a burst of ${overfull[0]!.sent} with room for ${overfull[0]!.room} (limit ${this.poolLimit}); FISCO takes exactly what fits`,
    };
    return [answers, races, bursts];
  }
}
