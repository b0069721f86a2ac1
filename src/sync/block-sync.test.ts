import { describe, expect, it } from 'vitest';
import type { Block } from '../chain/index.js';
import { BlockSync } from './block-sync.js';
import { decodeSyncMessage, encodeSyncMessage } from './sync-wire.js';

const genesis = new Uint8Array(32).fill(1);
const h = (n: number) => new Uint8Array(32).fill(n % 256);
const peer = (c: string) => c.repeat(128);
const block = (n: number) => ({ header: { number: n } }) as unknown as Block;

describe('BlockSync', () => {
  it('asks peers that have the blocks, in shards of 32, at most 4 at once', () => {
    const sync = new BlockSync(genesis, { number: 0, hash: genesis }, 0);
    const out = sync.onStatus(peer('a'), { number: 200, genesisHash: genesis, latestHash: h(200) }, 0);
    expect(out.requests).toEqual([
      { to: peer('a'), from: 1, count: 32 },
      { to: peer('a'), from: 33, count: 32 },
      { to: peer('a'), from: 65, count: 32 },
      { to: peer('a'), from: 97, count: 32 },
    ]);
    expect(sync.status()).toMatchObject({ isSyncing: true, knownHighestNumber: 200 });
  });

  it('spreads shards over the peers that have them', () => {
    const sync = new BlockSync(genesis, { number: 0, hash: genesis }, 0);
    sync.onStatus(peer('b'), { number: 40, genesisHash: genesis, latestHash: h(40) }, 0);
    const out = sync.onStatus(peer('a'), { number: 10, genesisHash: genesis, latestHash: h(10) }, 0);
    expect(out.requests).toEqual([]); // blocks 1..32 are already asked of b; a lacks 33..40
    expect(sync.status().outstanding).toBe(2);
  });

  it('ignores peers of another chain', () => {
    const sync = new BlockSync(genesis, { number: 0, hash: genesis }, 0);
    const out = sync.onStatus(peer('c'), { number: 99, genesisHash: h(9), latestHash: h(99) }, 0);
    expect(out.requests).toEqual([]);
    expect(out.events[0]!.kind).toBe('sync-peer-ignored');
    expect(sync.status().isSyncing).toBe(false);
  });

  it('hands over contiguous runs in order and moves on as the head advances', () => {
    const sync = new BlockSync(genesis, { number: 0, hash: genesis }, 0);
    sync.onStatus(peer('a'), { number: 3, genesisHash: genesis, latestHash: h(3) }, 0);
    expect(sync.onBlocks(peer('a'), [block(2), block(3)], 10).apply).toEqual([]); // 1 missing
    const out = sync.onBlocks(peer('a'), [block(1)], 20);
    expect(out.apply.map((b) => b.header.number)).toEqual([1, 2, 3]);
    sync.onHeadChanged({ number: 3, hash: h(3) }, 30);
    expect(sync.status()).toMatchObject({ isSyncing: false, blockNumber: 3, downloaded: 0 });
  });

  it('drops unrequested blocks', () => {
    const sync = new BlockSync(genesis, { number: 0, hash: genesis }, 0);
    sync.onStatus(peer('a'), { number: 2, genesisHash: genesis, latestHash: h(2) }, 0);
    expect(sync.onBlocks(peer('b'), [block(1)], 1).apply).toEqual([]);
  });

  it('re-asks another peer when a shard times out (200 ms per block)', () => {
    const sync = new BlockSync(genesis, { number: 0, hash: genesis }, 0);
    sync.onStatus(peer('a'), { number: 2, genesisHash: genesis, latestHash: h(2) }, 0);
    sync.onStatus(peer('b'), { number: 2, genesisHash: genesis, latestHash: h(2) }, 0);
    expect(sync.onTick(399).requests).toEqual([]);
    const out = sync.onTick(400);
    expect(out.events[0]!.kind).toBe('sync-request-timeout');
    expect(out.requests).toHaveLength(1);
  });

  it('forgets peers that are no longer connected and re-asks their shards of those still there', () => {
    const sync = new BlockSync(genesis, { number: 0, hash: genesis }, 0);
    sync.onStatus(peer('a'), { number: 50, genesisHash: genesis, latestHash: h(50) }, 0);
    sync.onStatus(peer('b'), { number: 10, genesisHash: genesis, latestHash: h(10) }, 0);
    expect(sync.retainPeers([peer('a'), peer('b')], 1).requests).toEqual([]);
    const out = sync.retainPeers([peer('b')], 2);
    expect(sync.status().peers.map((p) => p.nodeId)).toEqual([peer('b')]);
    expect(sync.status().knownHighestNumber).toBe(10);
    expect(out.requests).toEqual([{ to: peer('b'), from: 1, count: 10 }]);
  });

  it('shuns a peer that served a bad block and asks someone else', () => {
    const sync = new BlockSync(genesis, { number: 0, hash: genesis }, 0);
    const first = sync.onStatus(peer('a'), { number: 1, genesisHash: genesis, latestHash: h(1) }, 0);
    sync.onStatus(peer('b'), { number: 1, genesisHash: genesis, latestHash: h(1) }, 0);
    const from = first.requests[0]!.to;
    sync.onBlocks(from, [block(1)], 5);
    const out = sync.onApplyFailed(1, 'bad signatures', 6);
    expect(out.events[0]).toMatchObject({ kind: 'sync-block-rejected', fields: { peer: from } });
    expect(out.requests).toEqual([{ to: from === peer('a') ? peer('b') : peer('a'), from: 1, count: 1 }]);
  });

  it('broadcasts status on a new head and every 5 s', () => {
    const sync = new BlockSync(genesis, { number: 0, hash: genesis }, 0);
    expect(sync.onTick(0).broadcastStatus).toBe(true);
    expect(sync.onTick(4999).broadcastStatus).toBe(false);
    expect(sync.onHeadChanged({ number: 1, hash: h(1) }, 100).broadcastStatus).toBe(true);
    expect(sync.onTick(5099).broadcastStatus).toBe(false);
    expect(sync.onTick(5100).broadcastStatus).toBe(true);
  });
});

describe('sync wire', () => {
  it('round-trips and rejects malformed packets', () => {
    for (const m of [
      { type: 'status' as const, status: { number: 7, genesisHash: genesis, latestHash: h(7) } },
      { type: 'reqBlocks' as const, from: 5, count: 32 },
      { type: 'blocks' as const, blocks: [Uint8Array.of(1, 2)] },
      { type: 'transactions' as const, transactions: [Uint8Array.of(3)] },
    ]) {
      expect(decodeSyncMessage(encodeSyncMessage(m))).toEqual(m);
    }
    expect(() => decodeSyncMessage(encodeSyncMessage({ type: 'reqBlocks', from: 1, count: 33 }))).toThrowError('not in 1..32');
    expect(() => decodeSyncMessage(Uint8Array.of(0xc2, 0x09, 0x80))).toThrowError('sync type 9 is unknown');
    expect(() => decodeSyncMessage(Uint8Array.of(0xc1, 0x09))).toThrowError('at least 2 items');
    expect(() => decodeSyncMessage(Uint8Array.of(0xff))).toThrowError();
  });
});
