import { describe, expect, it } from 'vitest';
import { bigintToBytes, rlpEncode } from '../codec/index.js';
import { LEDGER_KEYS } from '../ledger/index.js';
import { PBFT_LOCK_KEY, RAFT_STATE_KEY } from '../node/index.js';
import { FaultyStore, MemoryStore, StorageFailure } from '../storage/index.js';
import { armStorageFault, parseStorageFault } from './storage-faults.js';

const key = (s: string) => new TextEncoder().encode(s);
const raftState = (term: number, votedTerm: number) =>
  rlpEncode([bigintToBytes(BigInt(term)), bigintToBytes(BigInt(votedTerm)), votedTerm > 0 ? new Uint8Array(64).fill(1) : new Uint8Array(0), bigintToBytes(0n), []] as never);

describe('TWINCHAIN_STORAGE_FAULT', () => {
  it('reads kind[:n]; anything else is a clear error naming the variable', () => {
    expect(parseStorageFault(undefined)).toBeUndefined();
    expect(parseStorageFault('')).toBeUndefined();
    expect(parseStorageFault('commit')).toEqual({ kind: 'commit', nth: 1 });
    expect(parseStorageFault('vote:3')).toEqual({ kind: 'vote', nth: 3 });
    for (const bad of ['commit:0', 'disk', 'lock:x', 'commit:1:2']) {
      expect(() => parseStorageFault(bad)).toThrow(`TWINCHAIN_STORAGE_FAULT="${bad}": expected commit|lock|vote|write, optionally :N (the N-th such write fails), e.g. commit:3`);
    }
  });

  it('commit:2 fails the second block write and nothing before it', async () => {
    const store = new FaultyStore(new MemoryStore(), '/d/group1');
    const { fired } = await armStorageFault(store, { kind: 'commit', nth: 2 });
    const block = [{ type: 'put' as const, key: LEDGER_KEYS.head, value: key('1') }];
    await store.batch([{ type: 'put', key: PBFT_LOCK_KEY, value: key('l') }], { sync: true });
    await store.batch(block, { sync: true });
    await expect(store.batch(block, { sync: true })).rejects.toBeInstanceOf(StorageFailure);
    expect((await fired).operations).toEqual(block);
  });

  it('lock fails the PBFT lock write', async () => {
    const store = new FaultyStore(new MemoryStore(), '/d/group1');
    await armStorageFault(store, { kind: 'lock', nth: 1 });
    await store.batch([{ type: 'put', key: LEDGER_KEYS.head, value: key('1') }], { sync: true });
    await expect(store.batch([{ type: 'put', key: PBFT_LOCK_KEY, value: key('l') }], { sync: true })).rejects.toMatchObject({ operation: 'write' });
  });

  it('vote fails the first Raft state write with a new votedTerm, not a mere term change', async () => {
    const disk = new MemoryStore();
    await disk.put(RAFT_STATE_KEY, raftState(4, 4));
    const store = new FaultyStore(disk, '/d/group1');
    await armStorageFault(store, { kind: 'vote', nth: 1 });
    await store.batch([{ type: 'put', key: RAFT_STATE_KEY, value: raftState(5, 4) }], { sync: true });
    await expect(store.batch([{ type: 'put', key: RAFT_STATE_KEY, value: raftState(5, 5) }], { sync: true })).rejects.toBeInstanceOf(StorageFailure);
  });
});
