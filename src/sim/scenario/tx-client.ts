import { TransactionBuilder, type Transaction, type TxRequest } from '../../chain/index.js';
import { toHexNoPrefix } from '../../codec/index.js';
import type { KeyPair } from '../../crypto/index.js';
import type { Rng } from '../../runtime/index.js';
import type { NodeRpc } from '../node-rpc.js';
import type { SimChain } from '../sim-chain.js';
import type { TxKind, TxRecord, TxTracker } from './tx-tracker.js';

/** How long a client waits for a receipt before sending the same payload again (an SDK's retry). */
export const RESEND_AFTER_MS = 10_000;
/** How long a client waits before trying again a payload no node took (all down, or pools full). */
export const RETRY_REFUSED_MS = 2_000;
export const MAX_ATTEMPTS = 6;
const HEAD_REFRESH_MS = 1_000;
/** Pool refusals that may pass later or at another node: the pool had no room. */
const POOL_FULL: ReadonlySet<string> = new Set(['TxPoolIsFull', 'OverGroupMemoryLimit']);

/** The transaction status name of a refused sendRawTransaction (the node puts it in error.data). */
function refusalName(error: { data?: unknown } | undefined): string | undefined {
  const data = error?.data;
  return typeof data === 'object' && data !== null && typeof (data as { name?: unknown }).name === 'string' ? (data as { name: string }).name : undefined;
}

/**
 * The scenario's clients: accounts with deterministic keys that sign transactions and send them
 * through a node's JSON-RPC (sendRawTransaction), like an SDK. They pick a live node of the group
 * for each request, learn the height with getBlockNumber for blockLimit, and re-send a payload
 * that got no receipt in RESEND_AFTER_MS to another node (the pool of a crashed node is lost).
 */
export class TxClient {
  private readonly builders = new Map<string, TransactionBuilder>();
  private readonly keys = new Map<string, KeyPair>();
  private readonly heads = new Map<number, { height: number; at: number }>();
  private readonly rng: Rng;
  /** Nodes that may take a group's transactions (set by the runner: live members). */
  candidates: (group: number, targets?: readonly string[]) => string[] = () => [];

  constructor(
    private readonly chain: SimChain,
    private readonly rpc: NodeRpc,
    readonly tracker: TxTracker,
  ) {
    this.rng = chain.sim.random('clients');
  }

  /** The account `name` signing for `group` (keys derive from the scenario seed and the name). */
  account(name: string, group: number): TransactionBuilder {
    const key = `${name}/${group}`;
    let builder = this.builders.get(key);
    if (!builder) {
      let keys = this.keys.get(name);
      if (!keys) {
        const keyStream = this.chain.sim.random(`account/${name}`);
        keys = this.chain.suite.generateKeyPair((n) => keyStream.bytes(n));
        this.keys.set(name, keys);
      }
      const nonces = this.chain.sim.random(`account/${name}/${group}/nonces`);
      builder = new TransactionBuilder({
        suite: this.chain.suite,
        generation: this.chain.version.txGeneration,
        key: keys,
        random: (n) => nonces.bytes(n),
        groupId: BigInt(group),
      });
      this.builders.set(key, builder);
    }
    return builder;
  }

  /** Signs `request` (its blockLimit filled in from the group's height) and sends it. */
  async send(account: string, group: number, kind: TxKind, request: Omit<TxRequest, 'blockLimit'>, targets?: readonly string[]): Promise<TxRecord | undefined> {
    const target = this.pick(group, targets);
    if (target === undefined) return undefined;
    const height = await this.height(group, target);
    if (height === undefined) return undefined;
    const tx: Transaction = this.account(account, group).build({ ...request, blockLimit: BigInt(height + 500) });
    const record = this.tracker.add(`0x${toHexNoPrefix(tx.hash)}`, kind, group, toHexNoPrefix(tx.raw), this.chain.sim.now);
    await this.transmit(record, target);
    return record;
  }

  /** Sends a transaction signed elsewhere (a recording's), hex without 0x, to `target` or a live node of the group. */
  async sendRaw(hash: string, raw: string, group: number, kind: TxKind, targets?: readonly string[], target = this.pick(group, targets)): Promise<TxRecord> {
    const record = this.tracker.add(hash, kind, group, raw, this.chain.sim.now);
    await this.transmit(record, target);
    return record;
  }

  /** Sends a record's payload (again) to `target` or a live node of its group it was not sent to yet. */
  async transmit(record: TxRecord, target = this.pick(record.group, undefined, record.tried)): Promise<void> {
    record.attempts++;
    record.lastTryAt = this.chain.sim.now;
    if (target === undefined) {
      if (record.rejection === undefined) record.retryable = true;
      record.rejection ??= `no node of group ${record.group} was up`;
      return;
    }
    if (!record.tried.includes(target)) record.tried.push(target);
    const reply = await this.rpc.call(target, 'sendRawTransaction', [record.group, `0x${record.raw}`]);
    if (!reply) {
      if (record.rejection === undefined) record.retryable = true;
      record.rejection ??= `${target} went down`;
      return;
    }
    const refusal = refusalName(reply.error);
    if (reply.error === undefined || refusal === 'AlreadyKnown' || refusal === 'AlreadyInChain') {
      record.accepted = true;
      record.node = target;
      return;
    }
    if (!record.accepted) {
      record.rejection = `${reply.error.code}: ${reply.error.message}`;
      record.retryable = refusal !== undefined && POOL_FULL.has(refusal);
    } else if (refusal === 'BlockLimitCheckFail') {
      // accepted once, but not on chain by its blockLimit (a node answers AlreadyInChain first):
      // no node will take it again, so it counts as refused rather than pending for ever
      record.accepted = false;
      record.rejection = `${reply.error.code}: ${reply.error.message}`;
      record.retryable = false;
    }
  }

  /** Re-sends what waited too long for a receipt, and what no node could take. */
  async resendOverdue(): Promise<void> {
    const now = this.chain.sim.now;
    for (const record of this.tracker.records.values()) {
      const wait = record.accepted ? RESEND_AFTER_MS : RETRY_REFUSED_MS;
      if (record.committedAt !== undefined || record.mayVanish !== undefined || record.attempts >= MAX_ATTEMPTS || now - record.lastTryAt < wait) continue;
      if (record.accepted || record.retryable) await this.transmit(record);
    }
  }

  /** A live candidate node of the group, drawn from the client stream; one not in `avoid` if there is one. */
  pick(group: number, targets?: readonly string[], avoid: readonly string[] = []): string | undefined {
    const live = this.candidates(group, targets);
    const fresh = live.filter((n) => !avoid.includes(n));
    const from = fresh.length > 0 ? fresh : live;
    return from.length === 0 ? undefined : from[this.rng.int(from.length)];
  }

  /** The group's height as the client knows it (getBlockNumber at most once a second). */
  private async height(group: number, target: string): Promise<number | undefined> {
    const now = this.chain.sim.now;
    const known = this.heads.get(group);
    if (known && now - known.at < HEAD_REFRESH_MS) return known.height;
    const reply = await this.rpc.call(target, 'getBlockNumber', [group]);
    if (!reply || typeof reply.result !== 'string') return known?.height;
    const height = Number.parseInt(reply.result, reply.result.startsWith('0x') ? 16 : 10);
    this.heads.set(group, { height, at: now });
    return height;
  }
}
