import { describe, expect, it } from 'vitest';
import type { Block } from '../chain/index.js';
import { BAD_PEER_PENALTY_MS, BlockSync, STATUS_INTERVAL_MS } from './block-sync.js';

const genesis = new Uint8Array(32).fill(1);
const h = (n: number) => new Uint8Array(32).fill(n % 256);
const peer = (c: string) => c.repeat(128);
const block = (n: number, tag = 0) => ({ header: { number: n }, tag }) as unknown as Block;
const at = (head: number) => new BlockSync(genesis, { number: head, hash: h(head) }, 0);
const status = (number: number, latestHash = h(number)) => ({ number, genesisHash: genesis, latestHash });

describe('BlockSync at the edges of what it asked for and what it holds', () => {
  it('reports the best peer’s latest hash only while that peer is ahead, and the peers in id order', () => {
    const sync = at(5);
    sync.onStatus(peer('b'), status(5, h(77)), 0);
    expect(sync.status()).toMatchObject({ isSyncing: false, knownHighestNumber: 5, knownLatestHash: h(5) });
    sync.onStatus(peer('a'), status(4, h(44)), 0);
    expect(sync.status().knownLatestHash).toEqual(h(5));
    sync.onStatus(peer('c'), status(6, h(66)), 0);
    expect(sync.status()).toMatchObject({ isSyncing: true, knownHighestNumber: 6, knownLatestHash: h(66) });
    expect(sync.status().peers.map((p) => p.nodeId)).toEqual([peer('a'), peer('b'), peer('c')]);
  });

  it('keeps only blocks inside a shard asked of that peer: not the one before it, not the one after it, not another peer’s', () => {
    const sync = at(0);
    // b has 1..3 only: one shard of 3 from b
    expect(sync.onStatus(peer('b'), status(3), 0).requests).toEqual([{ to: peer('b'), from: 1, count: 3 }]);
    sync.onStatus(peer('a'), status(3), 0);
    expect(sync.onBlocks(peer('b'), [block(4), block(0)], 1).apply).toEqual([]);
    expect(sync.onBlocks(peer('a'), [block(1)], 2).apply).toEqual([]);
    expect(sync.status().downloaded).toBe(0);
    const out = sync.onBlocks(peer('b'), [block(1), block(2), block(3)], 3);
    expect(out.apply.map((b) => b.header.number)).toEqual([1, 2, 3]);
  });

  it('keeps no block below the start of the peer’s shard, nor one at the head inside a shard still open', () => {
    const sync = at(0);
    expect(sync.onStatus(peer('a'), status(2), 0).requests).toEqual([{ to: peer('a'), from: 1, count: 2 }]);
    expect(sync.onStatus(peer('b'), status(40), 0).requests.map((r) => [r.to, r.from])).toEqual([
      [peer('b'), 3],
      [peer('b'), 35],
    ]);
    sync.onBlocks(peer('b'), [block(2)], 1); // b was asked from 3 on
    expect(sync.status().downloaded).toBe(0);
    sync.onHeadChanged({ number: 1, hash: h(1) }, 2); // consensus got block 1; a's shard (1..2) stays open
    sync.onBlocks(peer('a'), [block(1)], 3);
    expect(sync.status().downloaded).toBe(0);
  });

  it('with two peers at the best height, keeps reporting the hash of the one heard first', () => {
    const sync = at(0);
    sync.onStatus(peer('b'), status(9, h(91)), 0);
    sync.onStatus(peer('a'), status(9, h(92)), 0);
    sync.onStatus(peer('b'), status(9, h(91)), 1);
    expect(sync.status().knownLatestHash).toEqual(h(91));
  });

  it('re-plans when a peer leaves only if that took outstanding shards with it', () => {
    const sync = at(0);
    sync.onStatus(peer('a'), status(3), 0); // 1..3 asked of a
    sync.onStatus(peer('b'), status(3), 0);
    // a's block 2 is bad: a is shunned, and 2..3 go to b
    sync.onBlocks(peer('a'), [block(1), block(2), block(3)], 1);
    expect(sync.onApplyFailed(2, 'bad', 2).requests).toEqual([{ to: peer('b'), from: 2, count: 2 }]);
    sync.onHeadChanged({ number: 1, hash: h(1) }, 3);
    // a, still shunned, now has 4..5, which nobody else has; c has nothing we need
    expect(sync.onStatus(peer('a'), status(5), 4).requests).toEqual([]);
    sync.onStatus(peer('c'), status(1), 4);
    // c leaves after a's penalty ran out: it took no shard, so there is nothing to re-plan (the periodic tick asks a)
    const later = 2 + BAD_PEER_PENALTY_MS + 1;
    expect(sync.retainPeers([peer('a'), peer('b')], later).requests).toEqual([]);
    // b leaves with its shard: re-planned at once, all of 2..5 to a whose penalty is over
    expect(sync.retainPeers([peer('a')], later + 1).requests).toEqual([{ to: peer('a'), from: 2, count: 4 }]);
  });

  it('keeps the first copy of a block it holds, and none at or below its head', () => {
    const sync = at(2);
    sync.onStatus(peer('a'), status(4), 0); // asks a for 3..4
    expect(sync.onBlocks(peer('a'), [block(2), block(4, 1)], 1).apply).toEqual([]);
    expect(sync.status().downloaded).toBe(1);
    sync.onBlocks(peer('a'), [block(4, 2)], 2);
    const out = sync.onBlocks(peer('a'), [block(3)], 3);
    expect(out.apply.map((b) => [b.header.number, (b as unknown as { tag: number }).tag])).toEqual([
      [3, 0],
      [4, 1],
    ]);
  });

  it('closes a shard once every block of it above the head is in, though a block below the head never came', () => {
    const sync = at(0);
    sync.onStatus(peer('a'), status(3), 0); // 1..3 asked of a
    sync.onHeadChanged({ number: 1, hash: h(1) }, 1); // consensus got block 1
    expect(sync.status().outstanding).toBe(1);
    sync.onBlocks(peer('a'), [block(2), block(3)], 2);
    expect(sync.status().outstanding).toBe(0);
  });

  it('a head change that does not move the head changes nothing; one that passes a shard’s last block drops the shard', () => {
    const sync = at(0);
    sync.onStatus(peer('a'), status(40), 0); // 1..32 and 33..40
    expect(sync.status().outstanding).toBe(2);
    const moved = sync.onHeadChanged({ number: 32, hash: h(32) }, 10);
    expect(moved.broadcastStatus).toBe(true);
    expect(sync.status().outstanding).toBe(1);
    const same = sync.onHeadChanged({ number: 32, hash: h(32) }, 20);
    expect(same).toMatchObject({ broadcastStatus: false, requests: [], apply: [] });
    // and the status timer was not pushed back by it
    expect(sync.onTick(10 + STATUS_INTERVAL_MS).broadcastStatus).toBe(true);
  });

  it('a failure reported for a block it does not hold shuns nobody and says nothing', () => {
    const sync = at(0);
    sync.onStatus(peer('a'), status(3), 0);
    sync.onBlocks(peer('a'), [block(2)], 1);
    const out = sync.onApplyFailed(1, 'not downloaded', 2);
    expect(out.events).toEqual([]);
    // a is not shunned: block 2 (dropped with everything from 1 up) is asked again at once of a
    expect(sync.status()).toMatchObject({ downloaded: 0 });
    const bad = sync.onApplyFailed(1, 'again', 3);
    expect(bad.events).toEqual([]);
    expect(sync.onBlocks(peer('a'), [block(1), block(2), block(3)], 4).apply.map((b) => b.header.number)).toEqual([1, 2, 3]);
  });
});
