import { Account, createAddressFromString } from '@ethereumjs/util';
import { describe, expect, it } from 'vitest';
import { toHex } from '../codec/index.js';
import { MemoryStore } from '../storage/index.js';
import { WorldState } from './world-state.js';

const alice = createAddressFromString('0x00000000000000000000000000000000000000a1');
const slot = new Uint8Array(32).fill(1);

async function setNonce(state: WorldState, nonce: bigint) {
  await state.stateManager.putAccount(alice, new Account(nonce, 0n));
}

describe('WorldState', () => {

  it('commits a block atomically through persist, and reopens at the root', async () => {
    const store = new MemoryStore();
    const state = await WorldState.open({ store });
    const empty = state.root;
    await state.begin();
    await setNonce(state, 5n);
    await state.stateManager.putStorage(alice, slot, Uint8Array.of(7));
    const pending = await state.pendingRoot();
    expect(toHex(pending)).not.toBe(toHex(empty));
    let persisted = 0;
    await state.finishBlock();
    await state.commitPending(async (writes) => {
      persisted = writes.length;
      await store.batch(writes, { sync: true });
    });
    expect(persisted).toBeGreaterThan(0);
    expect(toHex(state.root)).toBe(toHex(pending));

    const reopened = await WorldState.open({ store, root: state.root });
    expect((await reopened.stateManager.getAccount(alice))?.nonce).toBe(5n);
    expect(await reopened.stateManager.getStorage(alice, slot)).toEqual(Uint8Array.of(7));
  });

  it('an aborted block leaves no trace, in memory or in the store', async () => {
    const store = new MemoryStore();
    const state = await WorldState.open({ store });
    const before = state.root;
    await state.begin();
    await setNonce(state, 9n);
    await state.pendingRoot();
    await state.abortBlock();
    expect(toHex(state.root)).toBe(toHex(before));
    expect(await state.stateManager.getAccount(alice)).toBeUndefined();
    expect(store.size).toBe(0);
  });

  it('a finished but discarded block returns the state to its parent', async () => {
    const store = new MemoryStore();
    const state = await WorldState.open({ store });
    await state.begin();
    await setNonce(state, 3n);
    const { root, writes } = await state.finishBlock();
    expect(writes.length).toBeGreaterThan(0);
    expect((await state.stateManager.getAccount(alice))?.nonce).toBe(3n); // reads the pending result
    await state.discardPending();
    expect(await state.stateManager.getAccount(alice)).toBeUndefined();
    expect(toHex(state.root)).not.toBe(toHex(root));
    expect(store.size).toBe(0);
  });

  it('adopts a block result computed on another state with the same parent', async () => {
    const a = await WorldState.open({ store: new MemoryStore() });
    const bStore = new MemoryStore();
    const b = await WorldState.open({ store: bStore });
    await a.begin();
    await setNonce(a, 8n);
    const { root, writes, touched } = await a.finishBlock();
    expect(touched).toEqual([alice.toString().slice(2)]);
    await b.adoptPending(root, writes, touched);
    expect((await b.stateManager.getAccount(alice))?.nonce).toBe(8n);
    await b.commitPending((w) => bStore.batch(w, { sync: true }));
    expect(toHex(b.root)).toBe(toHex(root));
    const reopened = await WorldState.open({ store: bStore, root });
    expect((await reopened.stateManager.getAccount(alice))?.nonce).toBe(8n);
  });

  it('a read view keeps seeing the root it was taken at', async () => {
    const store = new MemoryStore();
    const state = await WorldState.open({ store });
    await state.begin();
    await setNonce(state, 1n);
    await state.finishBlock();
    await state.commitPending((w) => store.batch(w));
    const view = state.readView();
    await state.begin();
    await setNonce(state, 2n);
    await state.finishBlock();
    expect((await view.getAccount(alice))?.nonce).toBe(1n);
    await state.commitPending((w) => store.batch(w));
    expect((await view.getAccount(alice))?.nonce).toBe(1n);
    expect((await state.readView().getAccount(alice))?.nonce).toBe(2n);
  });

  it('refuses to open at a root the store does not have', async () => {
    await expect(WorldState.open({ store: new MemoryStore(), root: new Uint8Array(32).fill(3) })).rejects.toThrowError(
      'is not in the store',
    );
  });

  it('refuses nested blocks', async () => {
    const state = await WorldState.open({ store: new MemoryStore() });
    await state.begin();
    await expect(state.begin()).rejects.toThrowError('already being applied');
  });
});

describe('precompile code override', () => {
  it('reports code only where the override says so, and survives shallow copies', async () => {
    const precompile = createAddressFromString('0x0000000000000000000000000000000000001000');
    const state = await WorldState.open({
      store: new MemoryStore(),
      codeOverride: (a) => (a.equals(precompile) ? Uint8Array.of(0xfe) : undefined),
    });
    expect(await state.stateManager.getCode(precompile)).toEqual(Uint8Array.of(0xfe));
    expect(await state.stateManager.getStoredCode(precompile)).toEqual(new Uint8Array(0));
    expect(await state.stateManager.getCode(alice)).toEqual(new Uint8Array(0));
    expect(await state.readView().getCode(precompile)).toEqual(Uint8Array.of(0xfe));
  });
});
