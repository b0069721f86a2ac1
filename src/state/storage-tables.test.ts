import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fromHex, toHex } from '../codec/index.js';
import { keccak256, sm3 } from '../crypto/index.js';
import { MemoryStore } from '../storage/index.js';
import { BlockTables, SYS_TABLES, TableStorage } from './storage-tables.js';

const text = (v: Uint8Array | undefined) => (v ? new TextDecoder().decode(v) : undefined);
const V25 = { rule: 'v2.5', hash: keccak256, sm: false } as const;

async function commit(block: BlockTables): Promise<void> {
  const { writes, cache, lastId } = await block.commitWrites();
  await block.storage.store.batch(writes);
  block.storage.applied(cache, lastId);
}

describe('BlockTables', () => {
  it('creates tables, inserts, selects, updates and removes, and keeps it all after commit with ids', async () => {
    const storage = new TableStorage(new MemoryStore());
    const block = new BlockTables(storage);
    expect(await block.createTable('t_user', 'name', ['age', 'city'])).toBe(true);
    expect(await block.createTable('t_user', 'name', ['age'])).toBe(false);
    await block.insert('t_user', 'alice', { age: '30', city: 'Shenzhen' });
    await block.insert('t_user', 'alice', { age: '31', city: 'Beijing' });
    await block.insert('t_user', 'bob', { age: '40', city: 'Shanghai' });
    expect((await block.select('t_user', 'alice')).map((e) => text(e.fields.get('age')))).toEqual(['30', '31']);
    expect(await block.update('t_user', 'alice', { city: 'Hangzhou' }, (f) => text(f.get('age')) === '31')).toBe(1);
    expect(await block.remove('t_user', 'bob')).toBe(1);
    expect(await block.select('t_user', 'bob')).toEqual([]);
    await commit(block);

    // a fresh storage over the same store reads what was committed, ids assigned in table then key order
    const reread = new TableStorage(storage.store);
    const next = new BlockTables(reread);
    expect(await next.openTable('t_user')).toEqual({ name: 't_user', keyField: 'name', valueFields: ['age', 'city'] });
    const alice = await next.select('t_user', 'alice');
    expect(alice.map((e) => [e.id, text(e.fields.get('name')), text(e.fields.get('age')), text(e.fields.get('city'))])).toEqual([
      [2n, 'alice', '30', 'Shenzhen'],
      [3n, 'alice', '31', 'Hangzhou'],
    ]);
    expect(await next.select('t_user', 'bob')).toEqual([]);
    expect(await next.openTable('t_missing')).toBeUndefined();
    expect(await reread.lastId()).toBe(3n); // _sys_tables_ row 1, alice 2 and 3 (bob was deleted before commit)
  });

  it('rolls back to a savepoint: entries, updates, deletions and created tables', async () => {
    const block = new BlockTables(new TableStorage(new MemoryStore()));
    await block.createTable('t', 'k', ['v']);
    await block.insert('t', 'a', { v: '1' });
    const sp = block.savepoint();
    await block.update('t', 'a', { v: '2' });
    await block.insert('t', 'b', { v: '3' });
    await block.createTable('u', 'k', ['v']);
    await block.remove('t', 'a');
    block.rollback(sp);
    expect((await block.select('t', 'a')).map((e) => text(e.fields.get('v')))).toEqual(['1']);
    expect(await block.select('t', 'b')).toEqual([]);
    expect(await block.openTable('u')).toBeUndefined();
  });

  it('hashes only what changed: a committed entry updated (even to the same value) is dumped, untouched ones are not', async () => {
    const storage = new TableStorage(new MemoryStore());
    const first = new BlockTables(storage);
    await first.createTable('t', 'k', ['v']);
    await first.insert('t', 'a', { v: '1' });
    await first.insert('t', 'b', { v: '2' });
    await commit(first);

    const second = new BlockTables(storage);
    expect(second.changes()).toEqual([]);
    await second.update('t', 'b', { v: '2' });
    const changes = second.changes();
    expect(changes).toHaveLength(1);
    expect(changes[0]!.name).toBe('t');
    expect(changes[0]!.changed.map((e) => e.id)).toEqual([3n]);
    expect(changes[0]!.created).toEqual([]);
    const sp = second.savepoint();
    await second.update('t', 'a', { v: '9' });
    expect(second.changes()[0]!.changed).toHaveLength(2);
    second.rollback(sp);
    expect(second.changes()[0]!.changed.map((e) => e.id)).toEqual([3n]);
    // the 2.5 rule: one changed table; the 2.4 rule also counts opened tables as zeros
    expect(second.dbHash(V25)).not.toEqual(new Uint8Array(32));
    expect(second.openedTables()).toEqual(['t']);
  });

  it('reproduces the dbHash of a real SM block (a contract deployment) from table operations', async () => {
    const data = JSON.parse(readFileSync(new URL('../../fixtures/realdata/sm-block2-deploy-webase.json', import.meta.url), 'utf8')) as {
      block: { stateRoot: string };
      receipt: { from: string; contractAddress: string; input: string };
    };
    const sender = data.receipt.from.slice(2);
    const contract = data.receipt.contractAddress.slice(2);
    const runtime = fromHex(data.receipt.input).subarray(0x20, 0x20 + 0x3e3);
    const block = new BlockTables(new TableStorage(new MemoryStore()));
    // FISCO's createAccount: the sender first (incNonce), then the contract, each a c_ table
    for (const [address, nonce, code, authority] of [[sender, '1', new Uint8Array(0), undefined], [contract, '0', runtime, sender]] as const) {
      const table = `c_${address}`;
      await block.createTable(table, 'key', ['value']);
      await block.insert(table, 'balance', { value: '0' });
      await block.insert(table, 'codeHash', { value: sm3(new Uint8Array(0)) });
      await block.insert(table, 'code', { value: '' });
      await block.insert(table, 'nonce', { value: nonce });
      await block.insert(table, 'alive', { value: 'true' });
      if (authority) await block.insert(table, 'authority', { value: authority });
      if (code.length > 0) {
        await block.update(table, 'code', { value: code });
        await block.update(table, 'codeHash', { value: sm3(code) });
      }
    }
    expect(toHex(block.dbHash({ rule: 'v2.5', hash: sm3, sm: true }))).toBe(data.block.stateRoot);
    expect(block.changes().map((c) => c.name).sort()).toEqual([SYS_TABLES, `c_${contract}`, `c_${sender}`].sort());
  });
});
