import { describe, expect, it } from 'vitest';
import { expectRefusal } from '../codec/refusal.test-helper.js';
import { rlpEncode, type RlpValue } from '../codec/index.js';
import { decodeSyncMessage, encodeSyncMessage, SYNC_TYPES, SyncDecodeError, type SyncMessage } from './sync-wire.js';

const h = (b: number) => new Uint8Array(32).fill(b);

describe('sync wire', () => {
  it("encodes FISCO's packet layouts: [type, …fields] with minimal integers", () => {
    expect(SYNC_TYPES).toEqual({ status: 0, transactions: 1, blocks: 2, reqBlocks: 3 });
    expect(encodeSyncMessage({ type: 'status', status: { number: 258, genesisHash: h(1), latestHash: h(2) } })).toEqual(rlpEncode([new Uint8Array(), Uint8Array.of(1, 2), h(1), h(2)]));
    expect(encodeSyncMessage({ type: 'transactions', transactions: [Uint8Array.of(5)] })).toEqual(rlpEncode([Uint8Array.of(1), [Uint8Array.of(5)]]));
    expect(encodeSyncMessage({ type: 'blocks', blocks: [Uint8Array.of(6), Uint8Array.of(7)] })).toEqual(rlpEncode([Uint8Array.of(2), [Uint8Array.of(6), Uint8Array.of(7)]]));
    expect(encodeSyncMessage({ type: 'reqBlocks', from: 0, count: 32 })).toEqual(rlpEncode([Uint8Array.of(3), new Uint8Array(), Uint8Array.of(32)]));
  });

  it.each<SyncMessage>([
    { type: 'status', status: { number: 0, genesisHash: h(1), latestHash: h(1) } },
    { type: 'transactions', transactions: [] },
    { type: 'blocks', blocks: [Uint8Array.of(1, 2, 3)] },
    { type: 'reqBlocks', from: 7, count: 1 },
    { type: 'reqBlocks', from: 2 ** 40, count: 32 },
  ])('round-trips %j', (m) => {
    expect(decodeSyncMessage(encodeSyncMessage(m))).toEqual(m);
  });

  it.each<[string, RlpValue | Uint8Array, string]>([
    ['bytes for the whole message', Uint8Array.of(5), 'a sync message is a list of at least 2 items'],
    ['2 bytes for the whole message', Uint8Array.of(5, 6), 'a sync message is a list of at least 2 items'],
    ['a list of 1 item', [Uint8Array.of(1)], 'a sync message is a list of at least 2 items'],
    ['a list for its type', [[], Uint8Array.of(1)], 'sync type: expected bytes'],
    ['a 2-byte type', [Uint8Array.of(1, 0), Uint8Array.of(1)], 'sync type'],
    ['an unknown type', [Uint8Array.of(9), Uint8Array.of(1)], 'sync type 9 is unknown'],
    ['a status of 3 items', [new Uint8Array(), Uint8Array.of(1), h(1)], 'sync status: expected 4 items'],
    ['a status number wider than 7 bytes', [new Uint8Array(), new Uint8Array(8).fill(1), h(1), h(2)], 'sync number'],
    ['a status number with a leading zero', [new Uint8Array(), Uint8Array.of(0, 1), h(1), h(2)], 'sync number'],
    ['a 31-byte genesis hash', [new Uint8Array(), Uint8Array.of(1), new Uint8Array(31), h(2)], 'sync genesisHash: expected 32 bytes'],
    ['a list for the latest hash', [new Uint8Array(), Uint8Array.of(1), h(1), []], 'sync latestHash: expected 32 bytes'],
    ['bytes for the transactions', [Uint8Array.of(1), Uint8Array.of(1)], 'sync transactions: expected a list of byte strings'],
    ['a list inside the blocks', [Uint8Array.of(2), [Uint8Array.of(1), []]], 'sync blocks: expected a list of byte strings'],
    ['a block request of 4 items', [Uint8Array.of(3), Uint8Array.of(1), Uint8Array.of(1), Uint8Array.of(1)], 'sync reqBlocks: expected 3 items'],
    ['a block request for 0 blocks', [Uint8Array.of(3), Uint8Array.of(1), new Uint8Array()], 'sync reqBlocks: count 0 not in 1..32'],
    ['a block request for 33 blocks', [Uint8Array.of(3), Uint8Array.of(1), Uint8Array.of(33)], 'sync reqBlocks: count 33 not in 1..32'],
    ['a block request count wider than 2 bytes', [Uint8Array.of(3), Uint8Array.of(1), Uint8Array.of(1, 0, 0)], 'sync count'],
    ['a block request from a list', [Uint8Array.of(3), [], Uint8Array.of(1)], 'sync from: expected bytes'],
  ])('refuses %s, saying what is wrong', (_what, value, message) => {
    expectRefusal(() => decodeSyncMessage(rlpEncode(value as never)), SyncDecodeError, message);
  });

  it('refuses bytes that are not RLP with the decoder’s own words', () => {
    expect(() => decodeSyncMessage(Uint8Array.of(0xf8))).toThrow(SyncDecodeError);
    expect(() => decodeSyncMessage(Uint8Array.of(0xf8))).toThrow(/^sync message: invalid RLP: /);
  });
});
