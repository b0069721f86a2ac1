// What the node pushes to channel sessions after a commit, besides block notify (fisco notes §7):
//
// * 0x1000 transaction-receipt notify. A session's 0x12 `sendRawTransaction` that got a tx hash
//   back is remembered as (group, hash) → seq; when the group commits the block holding that
//   hash, the session gets a 0x1000 frame on the SAME seq whose data is the receipt exactly as
//   `getTransactionReceipt` returns it (taken from the RPC service itself). FISCO:
//   ChannelRPCServer.cpp onClientRPCRequest (m_callbackSetter → TRANSACTION_NOTIFY, seq of the
//   request, result 0, data = receipt JSON); TxPool.cpp removeTrans/notifyReceipt call it.
// * 0x15 / 0x16 event-log filters and 0x1002 pushes. FISCO: ChannelRPCServer.cpp
//   onClientRegisterEventLogRequest / onClientUnregisterEventLogRequest (request data = topic
//   prefix, then the JSON; reply on the request seq = empty-topic prefix 0x01 + `{"result":N}\n`),
//   libeventfilter/EventLogFilterParams.cpp (request fields), EventLogFilterManager.cpp
//   (fromBlock "latest" = the current head; toBlock < start → -41003; batches of blocks; at
//   next > toBlock the completion push result 1), EventLogFilter.cpp (the log element),
//   libeventfilter/Common.h (response codes). Pushes go on seq 32 × '0' with data
//   `{"filterID":…,"logs":[…],"result":0}\n` (jsoncpp FastWriter: sorted keys, newline).
//
// No sockets and no timers here: sessions are ChannelSessions, and the host hands in how to
// give the event loop a turn between batches.
import { TX_STATUS } from '../chain/index.js';
import { fromHex, toHex } from '../codec/index.js';
import type { GroupApi, NodeApi } from '../node/index.js';
import { ChannelType, ZERO_SEQ, type ChannelFrame } from './channel-frame.js';
import type { ChannelRpcHandler, ChannelSession } from './channel-session.js';

/** FISCO libeventfilter/Common.h ResponseCode (NONEXISTENT_EVENT as the unregister code). */
export const EventLogResult = {
  SUCCESS: 0,
  PUSH_COMPLETED: 1,
  INVALID_PARAMS: -41000,
  INVALID_REQUEST: -41001,
  GROUP_NOT_EXIST: -41002,
  INVALID_REQUEST_RANGE: -41003,
  INVALID_RESPONSE: -41004,
  REQUEST_TIMEOUT: -41005,
  SDK_PERMISSION_DENIED: -41006,
  NONEXISTENT_EVENT: -41007,
} as const;

/** FISCO's MAX_NUM_TOPIC_EVENT_LOG. */
const MAX_TOPICS = 4;
/** FISCO's block number sentinel for "latest". */
const LATEST = Number.MAX_SAFE_INTEGER;

export interface ChannelPushesOptions {
  node: NodeApi;
  /** The JSON-RPC service; receipts are asked of it so they are getTransactionReceipt's. */
  service: ChannelRpcHandler;
  log?: (message: string) => void;
  /** Gives the event loop a turn between batches of a long historic range (default: a resolved promise). */
  yieldTurn?: () => Promise<void>;
  /** Receipt registrations one session may have outstanding; the oldest goes beyond (default 10,000). */
  maxPendingReceipts?: number;
  /** Filters one session may have (default 100); more are refused with -41001. */
  maxFilters?: number;
  /** Blocks scanned per batch of a filter (default 16). */
  blocksPerBatch?: number;
}

/** A parsed 0x15 request. */
export interface EventLogFilterParams {
  filterId: string;
  groupId: number;
  /** LATEST for "latest". */
  fromBlock: number;
  /** LATEST for "latest" (never completes). */
  toBlock: number;
  /** Lower-case 0x addresses; empty = any. */
  addresses: Set<string>;
  /** Per position 0..3: the accepted lower-case topics; empty = any. */
  topics: Set<string>[];
}

export class EventLogParamsError extends Error {
  override readonly name = 'EventLogParamsError';
}

/** One log as FISCO's EventLogFilter::matches writes it (keys in jsoncpp's sorted order). */
export interface PushedLog {
  address: string;
  blockHash: string;
  /** Decimal text (FISCO: toString(number)). */
  blockNumber: string;
  data: string;
  logIndex: string;
  topics: string[];
  transactionHash: string;
  transactionIndex: string;
}

function hexNumber(value: unknown, what: string): number {
  const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : undefined;
  if (text === undefined) throw new EventLogParamsError(`${what} must be a number or a string`);
  let n: number;
  if (/^0x[0-9a-f]+$/i.test(text)) n = parseInt(text.slice(2), 16);
  else if (/^[0-9]+$/.test(text)) n = Number(text);
  else throw new EventLogParamsError(`${what} ${JSON.stringify(text.slice(0, 40))} is not a number`);
  if (!Number.isSafeInteger(n)) throw new EventLogParamsError(`${what} is out of range`);
  return n;
}

function blockParam(value: unknown, what: string): number {
  if (value === undefined || value === null || value === 'latest') return LATEST;
  return hexNumber(value, what);
}

function hexBytes(value: unknown, length: number, what: string): string {
  if (typeof value !== 'string') throw new EventLogParamsError(`${what} must be a string`);
  const text = value.toLowerCase();
  const body = text.startsWith('0x') ? text.slice(2) : text;
  if (body.length !== length * 2 || !/^[0-9a-f]*$/.test(body)) {
    throw new EventLogParamsError(`${what} ${JSON.stringify(value.slice(0, 80))} is not ${length} bytes of hex`);
  }
  return `0x${body}`;
}

/** Parses the JSON of a 0x15 request the way EventLogFilterParams::buildEventLogFilterParamsObject does. */
export function parseEventLogFilterParams(json: string): EventLogFilterParams {
  let root: unknown;
  try {
    root = JSON.parse(json);
  } catch {
    throw new EventLogParamsError('not json string, parser failed');
  }
  if (root === null || typeof root !== 'object' || Array.isArray(root)) throw new EventLogParamsError('not a JSON object');
  const r = root as Record<string, unknown>;
  const filterId = typeof r.filterID === 'string' || typeof r.filterID === 'number' ? String(r.filterID) : '';
  if (!filterId) throw new EventLogParamsError('get filterID failed');
  if (!('groupID' in r)) throw new EventLogParamsError('get groupID failed');
  const groupId = hexNumber(r.groupID, 'groupID');
  if (groupId < 1 || groupId > 32767) throw new EventLogParamsError(`get groupID failed: ${groupId} is not a valid group id`);
  const fromBlock = blockParam(r.fromBlock, 'fromBlock');
  const toBlock = blockParam(r.toBlock, 'toBlock');
  if (!('addresses' in r)) throw new EventLogParamsError('get addresses failed');
  const rawAddresses = Array.isArray(r.addresses) ? r.addresses : [r.addresses];
  const addresses = new Set(rawAddresses.map((a, i) => hexBytes(a, 20, `addresses[${i}]`)));
  if (!('topics' in r)) throw new EventLogParamsError('get topics failed');
  const topics = Array.from({ length: MAX_TOPICS }, () => new Set<string>());
  if (Array.isArray(r.topics)) {
    if (r.topics.length > MAX_TOPICS) throw new EventLogParamsError(`get topics failed: ${r.topics.length} positions, at most ${MAX_TOPICS}`);
    r.topics.forEach((position: unknown, i) => {
      const options = Array.isArray(position) ? position : [position];
      for (const t of options) if (t !== null && t !== undefined) topics[i]!.add(hexBytes(t, 32, `topics[${i}]`));
    });
  } else if (r.topics !== null) {
    topics[0]!.add(hexBytes(r.topics, 32, 'topics'));
  }
  return { filterId, groupId, fromBlock, toBlock, addresses, topics };
}

/** FISCO's EventLogFilter::matches for one log (a missing topic at a constrained position does not match). */
export function logMatches(params: Pick<EventLogFilterParams, 'addresses' | 'topics'>, log: { address: string; topics: readonly string[] }): boolean {
  if (params.addresses.size > 0 && !params.addresses.has(log.address)) return false;
  for (let i = 0; i < MAX_TOPICS; i++) {
    const wanted = params.topics[i]!;
    if (wanted.size === 0) continue;
    const topic = log.topics[i];
    if (topic === undefined || !wanted.has(topic)) return false;
  }
  return true;
}

/** The matching logs of one block, as EventLogFilter::matches lists them. */
export async function matchingLogs(group: GroupApi, number: number, params: Pick<EventLogFilterParams, 'addresses' | 'topics'>): Promise<PushedLog[]> {
  const stored = await group.blockByNumber(number);
  if (!stored) return [];
  const out: PushedLog[] = [];
  const blockHash = toHex(stored.hash);
  const txs = stored.block.transactions;
  for (let i = 0; i < txs.length; i++) {
    const record = await group.transaction(txs[i]!.hash);
    if (!record) continue;
    record.receipt.logs.forEach((log, j) => {
      const address = toHex(log.address);
      const topics = log.topics.map((t) => toHex(t));
      if (!logMatches(params, { address, topics })) return;
      out.push({
        address,
        blockHash,
        blockNumber: String(number),
        data: toHex(log.data),
        logIndex: `0x${j.toString(16)}`,
        topics,
        transactionHash: toHex(txs[i]!.hash),
        transactionIndex: `0x${i.toString(16)}`,
      });
    });
  }
  return out;
}

/** `{"result":N}\n` behind an empty topic (one byte, 0x01), as FISCO replies to 0x15 / 0x16. */
export function eventLogReplyData(result: number): Buffer {
  return Buffer.concat([Buffer.of(1), Buffer.from(`${JSON.stringify({ result })}\n`, 'utf8')]);
}

/** A 0x1002 push: logs, or the completion (result 1, logs null). */
export function eventLogPushFrame(filterId: string, result: number, logs: PushedLog[] | null): ChannelFrame {
  const body = `${JSON.stringify({ filterID: filterId, logs, result })}\n`;
  return { type: ChannelType.EVENT_LOG_PUSH, seq: ZERO_SEQ, result: 0, data: Buffer.from(body, 'utf8') };
}

/** The JSON of a 0x15 / 0x16 request: its first byte is the topic length + 1, then the topic. */
export function eventLogRequestJson(data: Uint8Array): string {
  if (data.length === 0) throw new EventLogParamsError('empty request');
  const topicLength = data[0]!;
  return Buffer.from(data.subarray(Math.max(1, topicLength))).toString('utf8');
}

interface ReceiptWatch {
  session: ChannelSession;
  seq: string;
  groupId: number;
  hash: string;
  /** Head of the group when registered: a drop is only judged on later commits. */
  sinceBlock: number;
}

interface Filter {
  session: ChannelSession;
  params: EventLogFilterParams;
  next: number;
  active: boolean;
  running: boolean;
  /** A commit came while running: look again when done. */
  again: boolean;
}

export class ChannelPushes {
  private readonly log: (message: string) => void;
  private readonly yieldTurn: () => Promise<void>;
  private readonly maxPendingReceipts: number;
  private readonly maxFilters: number;
  private readonly blocksPerBatch: number;
  /** `${group}:${hash}` → watch. */
  private readonly receipts = new Map<string, ReceiptWatch>();
  /** Per session, its watch keys in registration order. */
  private readonly sessionReceipts = new Map<ChannelSession, Set<string>>();
  private readonly filters = new Map<ChannelSession, Map<string, Filter>>();
  /** Per group, the commit handling in progress (commits of a group are handled in order). */
  private readonly groupWork = new Map<number, Promise<void>>();

  constructor(private readonly options: ChannelPushesOptions) {
    this.log = options.log ?? (() => {});
    this.yieldTurn = options.yieldTurn ?? (() => Promise.resolve());
    this.maxPendingReceipts = options.maxPendingReceipts ?? 10_000;
    this.maxFilters = options.maxFilters ?? 100;
    this.blocksPerBatch = Math.max(1, options.blocksPerBatch ?? 16);
  }

  /** Outstanding receipt registrations (all sessions). */
  get pendingReceipts(): number {
    return this.receipts.size;
  }

  /** Active filters (all sessions). */
  get filterCount(): number {
    let n = 0;
    for (const m of this.filters.values()) n += m.size;
    return n;
  }

  /** A 0x12 request was answered: remember a successful single sendRawTransaction. */
  rpcAnswered(session: ChannelSession, seq: string, request: string, answer: string): void {
    let req: unknown;
    let ans: unknown;
    try {
      req = JSON.parse(request);
      ans = JSON.parse(answer);
    } catch {
      return;
    }
    if (!req || typeof req !== 'object' || Array.isArray(req) || !ans || typeof ans !== 'object' || Array.isArray(ans)) return;
    const { method, params } = req as { method?: unknown; params?: unknown };
    const { result } = ans as { result?: unknown };
    if (method !== 'sendRawTransaction' || !Array.isArray(params) || typeof result !== 'string') return;
    let groupId: number;
    try {
      groupId = hexNumber(params[0], 'groupID');
    } catch {
      return;
    }
    const group = this.options.node.group(groupId);
    if (!group || !/^0x[0-9a-fA-F]{64}$/.test(result)) return;
    this.watchReceipt(session, group, result.toLowerCase(), seq);
  }

  private watchReceipt(session: ChannelSession, group: GroupApi, hash: string, seq: string): void {
    if (session.isClosed) return;
    const key = `${group.groupId}:${hash}`;
    this.forgetReceipt(key);
    let keys = this.sessionReceipts.get(session);
    if (!keys) this.sessionReceipts.set(session, (keys = new Set()));
    if (keys.size >= this.maxPendingReceipts) {
      const oldest = keys.values().next().value as string;
      this.forgetReceipt(oldest);
      this.log(`channel: session has ${this.maxPendingReceipts} receipts outstanding; no 0x1000 will come for ${oldest}`);
    }
    const watch: ReceiptWatch = { session, seq, groupId: group.groupId, hash, sinceBlock: group.blockNumber() };
    this.receipts.set(key, watch);
    keys.add(key);
    // The block may have committed between the submit and this reply.
    void this.pushIfCommitted(group, key).catch((error: unknown) => this.log(`channel: receipt check for ${hash} failed: ${(error as Error).message}`));
  }

  private forgetReceipt(key: string): ReceiptWatch | undefined {
    const watch = this.receipts.get(key);
    if (!watch) return undefined;
    this.receipts.delete(key);
    const keys = this.sessionReceipts.get(watch.session);
    keys?.delete(key);
    if (keys && keys.size === 0) this.sessionReceipts.delete(watch.session);
    return watch;
  }

  private async pushIfCommitted(group: GroupApi, key: string): Promise<boolean> {
    const watch = this.receipts.get(key);
    if (!watch) return false;
    const record = await group.transaction(fromHex(watch.hash));
    if (!record) return false;
    await this.pushReceipt(key);
    return true;
  }

  private async pushReceipt(key: string): Promise<void> {
    const watch = this.receipts.get(key);
    if (!watch) return;
    const request = JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'getTransactionReceipt', params: [watch.groupId, watch.hash] });
    const reply = JSON.parse(await this.options.service.handle(request)) as { result?: unknown };
    // Whoever removes the watch sends: one push per registration.
    if (reply.result === null || reply.result === undefined || this.receipts.get(key) !== watch) return;
    this.forgetReceipt(key);
    const data = Buffer.from(JSON.stringify(reply.result), 'utf8');
    watch.session.send({ type: ChannelType.TX_RECEIPT_NOTIFY, seq: watch.seq, result: 0, data });
  }

  /** A 0x15 (register) or 0x16 (unregister) frame from a session; replies on its seq. */
  async eventLogRequest(session: ChannelSession, frame: ChannelFrame): Promise<void> {
    const reply = (result: number) => session.send({ type: frame.type, seq: frame.seq, result: 0, data: eventLogReplyData(result) });
    let params: EventLogFilterParams;
    let json = '';
    try {
      json = eventLogRequestJson(frame.data);
      params = parseEventLogFilterParams(json);
    } catch (error) {
      if (!(error instanceof EventLogParamsError)) throw error;
      const what = frame.type === ChannelType.EVENT_LOG_REGISTER ? 'register' : 'unregister';
      // Unregistering needs only the filterID.
      const id = frame.type === ChannelType.EVENT_LOG_UNREGISTER ? filterIdOf(json) : undefined;
      if (id === undefined) {
        this.log(`channel: bad event log ${what} request (seq ${frame.seq}): ${error.message}: ${json.slice(0, 200)}`);
        reply(EventLogResult.INVALID_REQUEST);
        return;
      }
      reply(this.unregister(session, id));
      return;
    }
    if (frame.type === ChannelType.EVENT_LOG_UNREGISTER) {
      reply(this.unregister(session, params.filterId));
      return;
    }
    const code = this.register(session, params);
    reply(code);
    if (code === EventLogResult.SUCCESS) this.kick(this.filters.get(session)!.get(params.filterId)!);
  }

  private register(session: ChannelSession, params: EventLogFilterParams): number {
    const group = this.options.node.group(params.groupId);
    if (!group) {
      this.log(`channel: event log filter ${params.filterId}: group ${params.groupId} does not exist`);
      return EventLogResult.GROUP_NOT_EXIST;
    }
    const next = params.fromBlock === LATEST ? group.blockNumber() : params.fromBlock;
    if (params.toBlock < next) {
      this.log(`channel: event log filter ${params.filterId}: toBlock ${params.toBlock} is before the start ${next}`);
      return EventLogResult.INVALID_REQUEST_RANGE;
    }
    let mine = this.filters.get(session);
    if (!mine) this.filters.set(session, (mine = new Map()));
    const old = mine.get(params.filterId);
    if (!old && mine.size >= this.maxFilters) {
      this.log(`channel: event log filter ${params.filterId} refused: the session already has ${this.maxFilters} filters`);
      return EventLogResult.INVALID_REQUEST;
    }
    if (old) old.active = false;
    mine.set(params.filterId, { session, params, next, active: true, running: false, again: false });
    return EventLogResult.SUCCESS;
  }

  private unregister(session: ChannelSession, filterId: string): number {
    const mine = this.filters.get(session);
    const filter = mine?.get(filterId);
    if (!mine || !filter) return EventLogResult.NONEXISTENT_EVENT;
    filter.active = false;
    mine.delete(filterId);
    if (mine.size === 0) this.filters.delete(session);
    return EventLogResult.SUCCESS;
  }

  /** Runs a filter up to the head, in batches, unless it is already running. */
  private kick(filter: Filter): void {
    if (filter.running) {
      filter.again = true;
      return;
    }
    filter.running = true;
    void this.run(filter)
      .catch((error: unknown) => {
        this.log(`channel: event log filter ${filter.params.filterId} failed: ${(error as Error).message}`);
        this.dropFilter(filter);
      })
      .finally(() => {
        filter.running = false;
        if (filter.again && filter.active) {
          filter.again = false;
          this.kick(filter);
        }
      });
  }

  private async run(filter: Filter): Promise<void> {
    const group = this.options.node.group(filter.params.groupId);
    if (!group) return;
    for (;;) {
      filter.again = false;
      if (!filter.active || filter.session.isClosed) return;
      const head = group.blockNumber();
      const last = Math.min(head, filter.params.toBlock, filter.next + this.blocksPerBatch - 1);
      if (last >= filter.next) {
        const logs: PushedLog[] = [];
        for (let n = filter.next; n <= last; n++) logs.push(...(await matchingLogs(group, n, filter.params)));
        if (!filter.active) return;
        filter.next = last + 1;
        if (logs.length > 0 && !filter.session.send(eventLogPushFrame(filter.params.filterId, EventLogResult.SUCCESS, logs))) {
          this.dropFilter(filter);
          return;
        }
      }
      if (filter.next > filter.params.toBlock) {
        filter.session.send(eventLogPushFrame(filter.params.filterId, EventLogResult.PUSH_COMPLETED, null));
        this.log(`channel: event log filter ${filter.params.filterId} completed at block ${filter.params.toBlock}`);
        this.dropFilter(filter);
        return;
      }
      if (filter.next > head) return;
      await this.yieldTurn();
    }
  }

  private dropFilter(filter: Filter): void {
    filter.active = false;
    const mine = this.filters.get(filter.session);
    if (mine?.get(filter.params.filterId) === filter) {
      mine.delete(filter.params.filterId);
      if (mine.size === 0) this.filters.delete(filter.session);
    }
  }

  /** A group committed a block: receipts for its transactions, filters of the group move on. */
  blockCommitted(groupId: number, blockNumber: number): Promise<void> {
    const previous = this.groupWork.get(groupId) ?? Promise.resolve();
    const work = previous
      .then(() => this.handleCommit(groupId, blockNumber))
      .catch((error: unknown) => this.log(`channel: pushes for group ${groupId} block ${blockNumber} failed: ${(error as Error).message}`));
    this.groupWork.set(groupId, work);
    void work.finally(() => {
      if (this.groupWork.get(groupId) === work) this.groupWork.delete(groupId);
    });
    return work;
  }

  private async handleCommit(groupId: number, blockNumber: number): Promise<void> {
    const group = this.options.node.group(groupId);
    if (!group) return;
    for (const mine of this.filters.values()) {
      for (const filter of mine.values()) if (filter.params.groupId === groupId) this.kick(filter);
    }
    if (![...this.receipts.values()].some((w) => w.groupId === groupId)) return;
    const stored = await group.blockByNumber(blockNumber);
    for (const tx of stored?.block.transactions ?? []) {
      const key = `${groupId}:${toHex(tx.hash)}`;
      if (this.receipts.has(key)) await this.pushReceipt(key);
    }
    await this.forgetDropped(group, blockNumber);
  }

  /**
   * Registrations whose transaction left the pool without entering a block (an expired block
   * limit, say): as FISCO's TxPool::removeTrans does, the session gets a made-up receipt with
   * status TransactionRefused (0x1d) and nothing else set, so an SDK waiting on the seq is told.
   */
  private async forgetDropped(group: GroupApi, blockNumber: number): Promise<void> {
    const stale = [...this.receipts.entries()].filter(([, w]) => w.groupId === group.groupId && w.sinceBlock < blockNumber);
    if (stale.length === 0) return;
    const pending = new Set(group.pendingTransactions().map((p) => toHex(p.transaction.hash)));
    for (const [key, watch] of stale) {
      if (pending.has(watch.hash)) continue;
      if (await this.pushIfCommitted(group, key)) continue;
      if (!this.forgetReceipt(key)) continue;
      this.log(`channel: transaction ${watch.hash} of group ${group.groupId} left the pool without a block; refused receipt (0x1d) for seq ${watch.seq}`);
      const data = Buffer.from(JSON.stringify(refusedReceipt()), 'utf8');
      watch.session.send({ type: ChannelType.TX_RECEIPT_NOTIFY, seq: watch.seq, result: 0, data });
    }
  }

  /** A session ended: its receipt registrations and filters go. */
  sessionClosed(session: ChannelSession): void {
    for (const key of this.sessionReceipts.get(session) ?? []) this.receipts.delete(key);
    this.sessionReceipts.delete(session);
    for (const filter of this.filters.get(session)?.values() ?? []) filter.active = false;
    this.filters.delete(session);
  }
}

function filterIdOf(json: string): string | undefined {
  try {
    const value = (JSON.parse(json) as Record<string, unknown> | null)?.filterID;
    return typeof value === 'string' && value ? value : typeof value === 'number' ? String(value) : undefined;
  } catch {
    return undefined;
  }
}

/** Whether a frame type is one ChannelPushes answers. */
export function isEventLogRequest(frame: ChannelFrame): boolean {
  return frame.type === ChannelType.EVENT_LOG_REGISTER || frame.type === ChannelType.EVENT_LOG_UNREGISTER;
}

const ZERO_HASH = `0x${'0'.repeat(64)}`;
const ZERO_ADDRESS = `0x${'0'.repeat(40)}`;

/**
 * FISCO's LocalisedTransactionReceipt(TransactionRefused) as JSON: the receipt keys with their
 * empty values and status 0x1d (29, TransactionException::TransactionRefused).
 */
export function refusedReceipt(): Record<string, unknown> {
  return {
    blockHash: ZERO_HASH,
    blockNumber: '0x0',
    contractAddress: ZERO_ADDRESS,
    from: ZERO_ADDRESS,
    gasUsed: '0x0',
    input: '0x',
    logs: [],
    logsBloom: `0x${'0'.repeat(512)}`,
    output: '0x',
    root: ZERO_HASH,
    status: `0x${TX_STATUS.TransactionRefused.toString(16)}`,
    to: ZERO_ADDRESS,
    transactionHash: ZERO_HASH,
    transactionIndex: '0x0',
  };
}
