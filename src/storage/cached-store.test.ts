import { describe, expect, it } from 'vitest';
import { CachedStore } from './cached-store.js';
import { MemoryStore } from './memory-store.js';

const k = (s: string) => new TextEncoder().encode(s);

describe('CachedStore', () => {
  it('answers repeated reads from memory and sees its own writes and deletes', async () => {
    const inner = new MemoryStore();
    await inner.put(k('a'), k('1'));
    let reads = 0;
    const get = inner.get.bind(inner);
    inner.get = (key) => {
      reads++;
      return get(key);
    };
    const store = new CachedStore(inner);
    expect(await store.get(k('a'))).toEqual(k('1'));
    expect(await store.get(k('a'))).toEqual(k('1'));
    expect(reads).toBe(1);
    await store.batch([{ type: 'put', key: k('a'), value: k('2') }, { type: 'put', key: k('b'), value: k('3') }]);
    expect(await store.get(k('a'))).toEqual(k('2'));
    expect(await store.get(k('b'))).toEqual(k('3'));
    expect(reads).toBe(1);
    await store.del(k('a'));
    expect(await store.get(k('a'))).toBeUndefined();
    expect(await inner.get(k('a'))).toBeUndefined();
  });

  it('evicts the least recently used past its byte budget', async () => {
    const store = new CachedStore(new MemoryStore(), 160);
    for (let i = 0; i < 10; i++) await store.put(k(`key${i}`), new Uint8Array(10));
    expect(store.cachedBytes).toBe(100);
    await store.get(k('key0'));
    for (let i = 10; i < 17; i++) await store.put(k(`key${i}`), new Uint8Array(10));
    expect(store.cachedBytes).toBeLessThanOrEqual(160);
    expect(await store.get(k('key5'))).toEqual(new Uint8Array(10));
  });

  it('caches nothing a failed write did not store', async () => {
    const inner = new MemoryStore();
    inner.batch = () => Promise.reject(new Error('disk full'));
    const store = new CachedStore(inner);
    await expect(store.put(k('a'), k('1'))).rejects.toThrow('disk full');
    expect(await store.get(k('a'))).toBeUndefined();
  });
});
