import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { StorageError, StorageFailure, type KvStore } from './kv-store.js';
import { LevelStore, LevelStoreFactory } from './level-store.js';
import { MemoryStore, MemoryStoreFactory } from './memory-store.js';
import { FailStopStore } from './fail-stop-store.js';
import { FaultyStore } from './faulty-store.js';

const b = (s: string) => new TextEncoder().encode(s);
const s = (x: Uint8Array | undefined) => (x ? new TextDecoder().decode(x) : undefined);

async function collect(store: KvStore, range = {}): Promise<string[]> {
  const out: string[] = [];
  for await (const [k, v] of store.entries(range)) out.push(`${s(k)}=${s(v)}`);
  return out;
}

const dirs: string[] = [];
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'twinchain-kv-'));
  dirs.push(dir);
  return dir;
}
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

describe.each([
  ['memory', async () => new MemoryStore() as KvStore],
  ['leveldb', async () => (await LevelStore.open(await tempDir())) as KvStore],
])('%s store', (_name, open) => {
  it('puts, gets, deletes and batches', async () => {
    const store = await open();
    await store.put(b('a'), b('1'));
    await store.batch([
      { type: 'put', key: b('b'), value: b('2') },
      { type: 'put', key: b('c'), value: b('3') },
      { type: 'del', key: b('a') },
    ]);
    expect(s(await store.get(b('a')))).toBeUndefined();
    expect(s(await store.get(b('b')))).toBe('2');
    await store.del(b('b'));
    expect(await store.get(b('b'))).toBeUndefined();
    await store.close();
  });

  it('iterates in key order with ranges, reverse and limit', async () => {
    const store = await open();
    await store.batch(['d', 'a', 'c', 'b', 'e'].map((k) => ({ type: 'put' as const, key: b(k), value: b(k.toUpperCase()) })));
    expect(await collect(store)).toEqual(['a=A', 'b=B', 'c=C', 'd=D', 'e=E']);
    expect(await collect(store, { gte: b('b'), lt: b('e') })).toEqual(['b=B', 'c=C', 'd=D']);
    expect(await collect(store, { reverse: true, limit: 2 })).toEqual(['e=E', 'd=D']);
    await store.close();
  });

  it('copies values so later mutation of the caller buffer does not leak in', async () => {
    const store = await open();
    const value = b('x');
    await store.put(b('k'), value);
    value[0] = 0x79;
    expect(s(await store.get(b('k')))).toBe('x');
    await store.close();
  });
});

describe('MemoryStore durability', () => {
  it('a crash loses exactly the writes since the last sync', async () => {
    const store = new MemoryStore();
    await store.batch([{ type: 'put', key: b('kept'), value: b('1') }], { sync: true });
    await store.put(b('lost'), b('2'));
    await store.del(b('kept'));
    expect(store.unsyncedWrites).toBe(2);
    store.crash();
    expect(s(await store.get(b('kept')))).toBe('1');
    expect(await store.get(b('lost'))).toBeUndefined();
    await store.put(b('later'), b('3'));
    await store.sync();
    store.crash();
    expect(s(await store.get(b('later')))).toBe('3');
    expect(store.size).toBe(2);
  });

  it('counts its keys: a delete of a key never synced takes nothing away, a put over a synced key adds nothing', async () => {
    const store = new MemoryStore();
    await store.batch([{ type: 'put', key: b('a'), value: b('1') }], { sync: true });
    await store.put(b('fresh'), b('2'));
    await store.del(b('fresh'));
    await store.del(b('never'));
    await store.put(b('a'), b('3'));
    expect(store.size).toBe(1);
    await store.del(b('a'));
    expect(store.size).toBe(0);
  });

  it('the factory hands back the same disk after a crash', async () => {
    const factory = new MemoryStoreFactory();
    const a = await factory.open('group1');
    await a.batch([{ type: 'put', key: b('h'), value: b('7') }], { sync: true });
    await a.put(b('u'), b('8'));
    factory.crash();
    const again = await factory.open('group1');
    expect(again).toBe(a);
    expect(s(await again.get(b('h')))).toBe('7');
    expect(await again.get(b('u'))).toBeUndefined();
  });

  it('the factory reopens a closed store with its data', async () => {
    const factory = new MemoryStoreFactory();
    const a = await factory.open('g');
    await a.batch([{ type: 'put', key: b('k'), value: b('v') }], { sync: true });
    await a.close();
    expect(s(await (await factory.open('g')).get(b('k')))).toBe('v');
  });

  it('refuses use after close', async () => {
    const store = new MemoryStore();
    await store.close();
    await expect(store.get(b('a'))).rejects.toThrowError('store is closed');
  });
});

describe('LevelStore', () => {
  it('keeps data across close and reopen', async () => {
    const factory = new LevelStoreFactory(await tempDir());
    const first = await factory.open('group1/ledger');
    await first.batch([{ type: 'put', key: b('height'), value: b('42') }], { sync: true });
    await first.close();
    const second = await factory.open('group1/ledger');
    expect(s(await second.get(b('height')))).toBe('42');
    await second.close();
  });

  it('explains why a store cannot be opened: a StorageFailure naming the directory and the operation', async () => {
    const dir = await tempDir();
    const held = await LevelStore.open(dir);
    const refused = await LevelStore.open(dir).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(StorageFailure);
    expect(refused).toMatchObject({ operation: 'open', location: dir });
    expect((refused as Error).message).toMatch(new RegExp(`^open of ${dir} failed: .*lock`, 'i'));
    await held.close();
    await expect(new LevelStoreFactory(dir).open('../escape')).rejects.toThrowError('invalid store name');
    // a file where the database's folder should be
    const file = path.join(dir, 'a-file');
    await writeFile(file, 'x');
    await expect(LevelStore.open(file)).rejects.toMatchObject({ name: 'StorageFailure', operation: 'open', location: file });
  });

  it('its folder is created 0700 whatever the umask', async () => {
    const dir = path.join(await tempDir(), 'data', 'group1');
    const old = process.umask(0);
    try {
      await (await LevelStore.open(dir)).close();
    } finally {
      process.umask(old);
    }
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
  });

  it('sync() with nothing to write still writes a synced batch (its mark), so the call reaches the disk', async () => {
    const store = await LevelStore.open(await tempDir());
    const marks = async () => {
      let n = 0;
      for await (const [key] of store.entries()) if (s(key)?.includes('twinchain/sync')) n++;
      return n;
    };
    expect(await marks()).toBe(0);
    await store.sync();
    expect(await marks()).toBe(1);
    await store.close();
  });

  it('use after close is a plain StorageError, not a failure of the disk', async () => {
    const store = await LevelStore.open(await tempDir());
    await store.close();
    const error = await store.put(b('k'), b('v')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StorageError);
    expect(error).not.toBeInstanceOf(StorageFailure);
  });
});

describe('FaultyStore and FailStopStore', () => {
  it('a FaultyStore fails the call a fault names, then every write and sync, as a dead disk; the write is not applied', async () => {
    const disk = new MemoryStore();
    const store = new FaultyStore(disk, '/data/group1');
    await store.put(b('a'), b('1'));
    const fired = store.failNext({ when: (call) => call.operations.some((op) => s(op.key) === 'head') });
    await store.put(b('b'), b('2'));
    const error = await store.batch([{ type: 'put', key: b('head'), value: b('9') }], { sync: true }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StorageFailure);
    expect(error).toMatchObject({ operation: 'write', location: '/data/group1', message: 'write of /data/group1 failed: EIO: input/output error (injected fault)' });
    expect((await fired).sync).toBe(true);
    expect(await disk.get(b('head'))).toBeUndefined();
    await expect(store.sync()).rejects.toMatchObject({ operation: 'sync' });
    await expect(store.put(b('c'), b('3'))).rejects.toBeInstanceOf(StorageFailure);
    expect(s(await store.get(b('b')))).toBe('2');
  });

  it('a FailStopStore reports the first failure once, before its caller sees it, then refuses every operation with it', async () => {
    const faulty = new FaultyStore(new MemoryStore(), '/data/group1');
    const order: string[] = [];
    const seen: StorageFailure[] = [];
    const store = new FailStopStore(faulty, (f) => {
      order.push('reported');
      seen.push(f);
    });
    await store.put(b('a'), b('1'));
    void faulty.failNext();
    await store.put(b('b'), b('2')).catch(() => order.push('caller'));
    expect(order).toEqual(['reported', 'caller']);
    await expect(store.get(b('a'))).rejects.toBe(seen[0]);
    await expect(store.sync()).rejects.toBe(seen[0]);
    await expect(collect(store)).rejects.toBe(seen[0]);
    expect(seen).toHaveLength(1);
    expect(store.failure).toBe(seen[0]);
  });

  it('plain StorageErrors (use after close) pass a FailStopStore without stopping it', async () => {
    const inner = new MemoryStore();
    const reported: unknown[] = [];
    const store = new FailStopStore(inner, (f) => reported.push(f));
    await inner.close();
    await expect(store.get(b('a'))).rejects.toThrow('store is closed');
    inner.reopen();
    expect(await store.get(b('a'))).toBeUndefined();
    expect(reported).toEqual([]);
  });
});
