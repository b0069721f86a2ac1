import { Account, Address } from '@ethereumjs/util';
import { describe, expect, it } from 'vitest';
import { toHex } from '../codec/index.js';
import { keccak256 } from '../crypto/index.js';
import { MemoryStore } from '../storage/index.js';
import { StorageStateManager } from './storage-state-manager.js';
import { StorageWorldState } from './storage-world-state.js';

const options = (store: MemoryStore) => ({
  store,
  dbHash: { rule: 'v2.5', hash: keccak256, sm: false } as const,
  accounts: { binaryCode: true, binaryCodeHash: true },
});
const alice = new Address(new Uint8Array(20).fill(0xa1));
const bob = new Address(new Uint8Array(20).fill(0xb0));

async function block(state: StorageWorldState, write: () => Promise<void>) {
  await state.begin();
  await write();
  return state.finishBlock();
}

describe('StorageWorldState', () => {
  it('finishes a block with its dbHash as root, reads it as pending, keeps it on commit and after reopening', async () => {
    const store = new MemoryStore();
    const state = await StorageWorldState.open(options(store));
    expect(state.root).toEqual(new Uint8Array(32));
    const done = await block(state, () => state.stateManager.putAccount(alice, new Account(1n, 0n)));
    expect(done.touched).toEqual([toHex(alice.bytes).slice(2)]);
    expect(state.hasPending).toBe(true);
    // the live state reads the finished block; a read view sees only what is committed
    expect((await state.stateManager.getAccount(alice))?.nonce).toBe(1n);
    expect(await state.readView().getAccount(alice)).toBeUndefined();
    let persisted: Uint8Array | undefined;
    await state.commitPending(async (writes, root) => {
      persisted = root;
      await store.batch(writes);
    });
    expect(persisted).toEqual(done.root);
    expect(state.root).toEqual(keccak256(new Uint8Array([...new Uint8Array(32), ...done.root])));
    expect((await state.readView().getAccount(alice))?.nonce).toBe(1n);

    const reopened = await StorageWorldState.open(options(store));
    expect(reopened.root).toEqual(state.root);
    expect((await reopened.stateManager.getAccount(alice))?.nonce).toBe(1n);
  });

  it('discards a finished block, and undoes a failed one', async () => {
    const state = await StorageWorldState.open(options(new MemoryStore()));
    await block(state, () => state.stateManager.putAccount(alice, new Account(1n, 0n)));
    await state.discardPending();
    expect(await state.stateManager.getAccount(alice)).toBeUndefined();
    await state.begin();
    await state.stateManager.putAccount(bob, new Account(2n, 0n));
    await state.abortBlock();
    expect(await state.stateManager.getAccount(bob)).toBeUndefined();
    expect(state.inBlock).toBe(false);
    await expect(block(state, () => state.stateManager.putAccount(bob, new Account(3n, 0n)))).resolves.toBeDefined();
  });

  it('adopts a block computed by another replica on the same parent: same reads, same root and state id', async () => {
    const [a, b] = [new MemoryStore(), new MemoryStore()];
    const one = await StorageWorldState.open(options(a));
    const two = await StorageWorldState.open(options(b));
    const done = await block(one, async () => {
      await one.stateManager.putAccount(alice, new Account(1n, 0n));
      await one.stateManager.putAccount(bob, new Account(5n, 0n));
    });
    await two.adoptPending(done.root, done.writes, done.touched);
    expect((await two.stateManager.getAccount(bob))?.nonce).toBe(5n);
    await one.commitPending((w) => a.batch(w));
    await two.commitPending((w) => b.batch(w));
    expect(two.root).toEqual(one.root);
    // the next block's ids continue from the adopted counter on both
    const next1 = await block(one, () => one.stateManager.putStorage(bob, new Uint8Array(32), Uint8Array.of(7)));
    const next2 = await block(two, () => two.stateManager.putStorage(bob, new Uint8Array(32), Uint8Array.of(7)));
    expect(next2.root).toEqual(next1.root);
    expect(next2.writes).toEqual(next1.writes);
  });

  it('reads what the tables hold after writes, nested reverts and a new block, though it caches accounts, code and slots', async () => {
    const state = await StorageWorldState.open(options(new MemoryStore()));
    const sm = state.stateManager;
    const slot = new Uint8Array(32).fill(1);
    await state.begin();
    await sm.putAccount(alice, new Account(1n, 0n));
    await sm.putStorage(alice, slot, Uint8Array.of(1));
    await sm.checkpoint();
    await sm.putStorage(alice, slot, Uint8Array.of(2));
    await sm.putAccount(alice, new Account(2n, 0n));
    await sm.putCode(alice, Uint8Array.of(0x60, 0x00));
    await sm.checkpoint();
    await sm.putStorage(alice, slot, Uint8Array.of(3));
    expect(await sm.getStorage(alice, slot)).toEqual(Uint8Array.of(3));
    await sm.revert();
    expect(await sm.getStorage(alice, slot)).toEqual(Uint8Array.of(2));
    expect((await sm.getAccount(alice))?.nonce).toBe(2n);
    // a checkpoint without writes keeps what was read
    await sm.checkpoint();
    expect(await sm.getCode(alice)).toEqual(Uint8Array.of(0x60, 0x00));
    await sm.revert();
    await sm.revert();
    expect(await sm.getStorage(alice, slot)).toEqual(Uint8Array.of(1));
    expect((await sm.getAccount(alice))?.nonce).toBe(1n);
    expect(await sm.getCode(alice)).toEqual(new Uint8Array(0));
    expect((await sm.getAccount(alice))?.codeHash).toEqual(keccak256(new Uint8Array(0)));
    // the same entries read back from the tables by a fresh manager
    const fresh = () => new StorageStateManager(() => sm.blockTables(), sm.options);
    expect(await fresh().getStorage(alice, slot)).toEqual(Uint8Array.of(1));
    await state.finishBlock();
    await state.discardPending();
    // the block was dropped: its cached reads must not survive into the next one
    await state.begin();
    expect(await sm.getAccount(alice)).toBeUndefined();
    expect(await sm.getStorage(alice, slot)).toEqual(new Uint8Array(0));
    await state.abortBlock();
  });

  it('does not write a slot set to the value it holds (FISCO\'s host reports it unchanged), so the dbHash leaves it out', async () => {
    const state = await StorageWorldState.open(options(new MemoryStore()));
    const slot = new Uint8Array(32);
    const first = await block(state, async () => {
      await state.stateManager.putAccount(alice, new Account(1n, 0n));
      await state.stateManager.putStorage(alice, slot, Uint8Array.of(9));
    });
    await state.commitPending(async () => undefined);
    const same = await block(state, () => state.stateManager.putStorage(alice, slot, Uint8Array.of(9)));
    expect(same.touched).toEqual([]);
    expect(same.writes.filter((w) => w.type === 'put' && new TextDecoder().decode(w.key).startsWith('t/c_'))).toEqual([]);
    await state.discardPending();
    const empty = await block(state, async () => undefined);
    expect(same.root).toEqual(empty.root);
    await state.discardPending();
    const changed = await block(state, () => state.stateManager.putStorage(alice, slot, Uint8Array.of(10)));
    expect(changed.root).not.toEqual(empty.root);
    expect(first.root).not.toEqual(empty.root);
  });
});
