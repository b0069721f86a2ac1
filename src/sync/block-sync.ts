import { bytesEqual, compareBytes, fromHex, toHex } from '../codec/index.js';
import type { Block } from '../chain/index.js';

/** FISCO: shards of at most 32 blocks, at most 4 at once, 200 ms per block before re-asking. */
export const MAX_BLOCKS_PER_REQUEST = 32;
export const MAX_SHARDS = 4;
export const REQUEST_TIMEOUT_PER_BLOCK_MS = 200;
/** FISCO's c_maintainBlocksTimeout: status to peers at least this often. */
export const STATUS_INTERVAL_MS = 5000;
/** How long a peer that served a bad block is left out of downloads. */
export const BAD_PEER_PENALTY_MS = 30_000;

export interface ChainStatus {
  readonly number: number;
  readonly genesisHash: Uint8Array;
  readonly latestHash: Uint8Array;
}

export interface SyncRequest {
  readonly to: string;
  readonly from: number;
  readonly count: number;
}

export interface SyncOutput {
  /** Send our status to every group peer. */
  broadcastStatus: boolean;
  readonly requests: SyncRequest[];
  /** Blocks to verify and apply, in order; report each with onApplied or onApplyFailed. */
  apply: Block[];
  readonly events: Array<{ kind: string; fields: Record<string, unknown> }>;
}

interface Shard {
  readonly from: number;
  readonly count: number;
  readonly peer: string;
  readonly deadline: number;
}

interface PeerState {
  number: number;
  latestHash: Uint8Array;
  penalisedUntil: number;
}

const empty = (): SyncOutput => ({ broadcastStatus: false, requests: [], apply: [], events: [] });

/**
 * Block sync for one group, as a pure state machine: tracks peers' heights from their status,
 * downloads missing blocks in shards from peers that have them, and hands complete, in-order
 * runs of blocks to the caller to verify (signature list) and apply.
 */
export class BlockSync {
  private readonly peers = new Map<string, PeerState>();
  private shards: Shard[] = [];
  private readonly downloaded = new Map<number, { block: Block; peer: string }>();
  private applying = false;
  private nextStatusAt: number;
  private roundRobin = 0;

  constructor(
    private readonly genesisHash: Uint8Array,
    private head: { number: number; hash: Uint8Array },
    now: number,
  ) {
    this.nextStatusAt = now;
  }

  status() {
    const known = this.knownHighest();
    return {
      isSyncing: known.number > this.head.number,
      blockNumber: this.head.number,
      latestHash: this.head.hash,
      knownHighestNumber: Math.max(known.number, this.head.number),
      knownLatestHash: known.number > this.head.number ? known.hash : this.head.hash,
      peers: [...this.peers]
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([nodeId, p]) => ({ nodeId, blockNumber: p.number, latestHash: p.latestHash })),
      outstanding: this.shards.length,
      downloaded: this.downloaded.size,
    };
  }

  /** A peer's status. Peers of another chain (genesis) are ignored. */
  onStatus(peer: string, status: ChainStatus, now: number): SyncOutput {
    const out = empty();
    if (!bytesEqual(status.genesisHash, this.genesisHash)) {
      out.events.push({ kind: 'sync-peer-ignored', fields: { peer, reason: `genesis ${toHex(status.genesisHash).slice(0, 10)}… differs` } });
      this.peers.delete(peer);
      return out;
    }
    const known = this.peers.get(peer);
    this.peers.set(peer, { number: status.number, latestHash: status.latestHash, penalisedUntil: known?.penalisedUntil ?? 0 });
    this.download(now, out);
    return out;
  }

  /**
   * Only these peers are connected: the others are gone (crashed, cut off, out of the group), so
   * they leave the status and their outstanding downloads go to someone else.
   */
  retainPeers(connected: readonly string[], now: number): SyncOutput {
    const out = empty();
    if (this.peers.size === 0) return out;
    const keep = new Set(connected);
    let lostShards = false;
    for (const peer of [...this.peers.keys()]) {
      if (keep.has(peer)) continue;
      this.peers.delete(peer);
      const before = this.shards.length;
      this.shards = this.shards.filter((s) => s.peer !== peer);
      lostShards ||= this.shards.length < before;
    }
    if (lostShards) this.download(now, out);
    return out;
  }

  /** Blocks a peer sent. Only blocks we asked for (any outstanding shard) and still need are kept. */
  onBlocks(peer: string, blocks: readonly Block[], now: number): SyncOutput {
    const out = empty();
    for (const block of blocks) {
      const n = block.header.number;
      if (n <= this.head.number || this.downloaded.has(n)) continue;
      if (!this.shards.some((s) => s.peer === peer && n >= s.from && n < s.from + s.count)) continue;
      this.downloaded.set(n, { block, peer });
    }
    this.shards = this.shards.filter((s) => {
      for (let n = s.from; n < s.from + s.count; n++) if (n > this.head.number && !this.downloaded.has(n)) return true;
      return false;
    });
    this.offerApply(out);
    this.download(now, out);
    return out;
  }

  /** The next block was applied (by sync or consensus): the head moved. */
  onHeadChanged(head: { number: number; hash: Uint8Array }, now: number): SyncOutput {
    const out = empty();
    if (head.number <= this.head.number) return out;
    this.head = head;
    for (const n of [...this.downloaded.keys()]) if (n <= head.number) this.downloaded.delete(n);
    this.shards = this.shards.filter((s) => s.from + s.count - 1 > head.number);
    out.broadcastStatus = true;
    this.nextStatusAt = now + STATUS_INTERVAL_MS;
    this.offerApply(out);
    this.download(now, out);
    return out;
  }

  /** The caller finished applying the blocks it was handed (some may have been applied). */
  onApplyDone(now: number): SyncOutput {
    this.applying = false;
    const out = empty();
    this.offerApply(out);
    this.download(now, out);
    return out;
  }

  /** A downloaded block failed verification or re-execution: drop it and shun its sender for a while. */
  onApplyFailed(number: number, reason: string, now: number): SyncOutput {
    const out = empty();
    const bad = this.downloaded.get(number);
    for (const n of [...this.downloaded.keys()]) if (n >= number) this.downloaded.delete(n);
    if (bad) {
      const peer = this.peers.get(bad.peer);
      if (peer) peer.penalisedUntil = now + BAD_PEER_PENALTY_MS;
      this.shards = this.shards.filter((s) => s.peer !== bad.peer);
      out.events.push({ kind: 'sync-block-rejected', fields: { number, peer: bad.peer, reason } });
    }
    this.applying = false;
    this.download(now, out);
    return out;
  }

  /** Periodic: status every STATUS_INTERVAL_MS, and re-ask for shards whose time ran out. */
  onTick(now: number): SyncOutput {
    const out = empty();
    if (now >= this.nextStatusAt) {
      out.broadcastStatus = true;
      this.nextStatusAt = now + STATUS_INTERVAL_MS;
    }
    const expired = this.shards.filter((s) => s.deadline <= now);
    if (expired.length > 0) {
      this.shards = this.shards.filter((s) => s.deadline > now);
      out.events.push({ kind: 'sync-request-timeout', fields: { shards: expired.map((s) => `${s.from}+${s.count}@${s.peer.slice(0, 8)}`) } });
    }
    this.download(now, out);
    return out;
  }

  private knownHighest(): { number: number; hash: Uint8Array } {
    let best: { number: number; hash: Uint8Array } = { number: -1, hash: new Uint8Array(32) };
    for (const p of this.peers.values()) if (p.number > best.number) best = { number: p.number, hash: p.latestHash };
    return best;
  }

  private offerApply(out: SyncOutput): void {
    if (this.applying) return;
    const run: Block[] = [];
    for (let n = this.head.number + 1; this.downloaded.has(n); n++) run.push(this.downloaded.get(n)!.block);
    if (run.length === 0) return;
    this.applying = true;
    out.apply = run;
  }

  private download(now: number, out: SyncOutput): void {
    // as high as a peer we would ask can serve: a peer shunned for a bad block (say, one that
    // claimed heights it does not have) must not hold back the blocks the others do have
    let target = -1;
    for (const p of this.peers.values()) if (p.penalisedUntil <= now && p.number > target) target = p.number;
    if (target <= this.head.number) return;
    let next = this.head.number + 1;
    const covered = (n: number) => this.downloaded.has(n) || this.shards.some((s) => n >= s.from && n < s.from + s.count);
    while (this.shards.length < MAX_SHARDS && next <= target) {
      while (next <= target && covered(next)) next++;
      if (next > target) break;
      let count = 0;
      while (count < MAX_BLOCKS_PER_REQUEST && next + count <= target && !covered(next + count)) count++;
      const last = next + count - 1;
      const eligible = [...this.peers]
        .filter(([, p]) => p.number >= last && p.penalisedUntil <= now)
        .map(([id]) => id)
        .sort((a, b) => compareBytes(fromHex(a), fromHex(b)));
      if (eligible.length === 0) break;
      const peer = eligible[this.roundRobin++ % eligible.length]!;
      const shard: Shard = { from: next, count, peer, deadline: now + REQUEST_TIMEOUT_PER_BLOCK_MS * count };
      this.shards.push(shard);
      out.requests.push({ to: peer, from: next, count });
      next += count;
    }
  }
}
