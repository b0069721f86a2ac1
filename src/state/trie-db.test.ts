import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../storage/index.js';
import { BufferedTrieDb } from './trie-db.js';

const PREFIX = new TextEncoder().encode('s/');

describe('BufferedTrieDb', () => {
  it('drops write-backs of exactly what the store handed out, and nothing else', async () => {
    const store = new MemoryStore();
    await store.batch([{ type: 'put', key: Uint8Array.of(0x73, 0x2f, 0xaa), value: Uint8Array.of(1, 2, 3) }]);
    const db = new BufferedTrieDb(store, PREFIX);
    const read = await db.get('aa');
    expect(read).toEqual(Uint8Array.of(1, 2, 3));
    await db.put('aa', read!); // the trie's checkpoint layer writes back what it read
    await db.batch([{ type: 'put', key: 'aa', value: read! }]);
    expect(db.peekWrites()).toEqual([]);
    await db.put('aa', Uint8Array.of(1, 2, 3)); // an equal copy is a real write (cheap to keep)
    expect(db.peekWrites()).toHaveLength(1);
    db.discardWrites();
    const again = (await db.get('aa'))!;
    await db.del('aa');
    await db.put('aa', again); // undoing a buffered delete must be written
    expect(db.peekWrites()).toEqual([{ type: 'put', key: Uint8Array.of(0x73, 0x2f, 0xaa), value: again }]);
  });
});
