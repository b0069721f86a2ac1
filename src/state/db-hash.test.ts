// dbHash against blocks of real FISCO BCOS 2.x chains (fixtures/realdata): the table changes
// each block made are rebuilt from its transaction, and the hash must equal the block's
// stateRoot / dbHash bit for bit.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fromHex, toHex, toHexNoPrefix } from '../codec/index.js';
import { keccak256, sm3 } from '../crypto/index.js';
import { computeDbHash, isHashedField, tableDump, type DumpEntry, type TableChanges } from './db-hash.js';

type Json = Record<string, Record<string, string> & Record<string, unknown>>;
const realdata = (file: string) => JSON.parse(readFileSync(new URL(`../../fixtures/realdata/${file}`, import.meta.url), 'utf8')) as Json;
const text = (value: string) => new TextEncoder().encode(value);

function entry(fields: Record<string, string | Uint8Array>, id = 0n, status = 0): DumpEntry {
  return { id, status, fields: new Map(Object.entries(fields).map(([k, v]) => [k, typeof v === 'string' ? text(v) : v])) };
}

/** An account table's rows as FISCO writes them: key/value entries. */
function accountTable(address: string, rows: Array<[string, string | Uint8Array]>): TableChanges {
  return { name: `c_${address}`, keyField: 'key', changed: [], created: rows.map(([key, value]) => entry({ key, value })) };
}

describe('the dump of one table', () => {
  it('orders fields by name bytes, skips _bookkeeping_ fields, ends each entry with its status byte', () => {
    const dump = tableDump({
      name: 't',
      keyField: 'k',
      changed: [entry({ k: 'b', _id_: '7', zeta: 'z', Alpha: 'A', _status_: '0' }, 7n)],
      created: [entry({ k: 'y', v: '2' }), entry({ k: 'x', v: '1' }, 0n, 1)],
    });
    // changed first (by id), then created (by key value); "Alpha" < "k" < "zeta" in byte order
    expect(Buffer.from(dump).toString('latin1')).toBe('AlphaAkbzetaz\x00kxv1\x01kyv2\x00');
    expect(isHashedField('_id_')).toBe(false);
    expect(isHashedField('num_')).toBe(false);
    expect(isHashedField('node_id')).toBe(true);
  });
});

describe('dbHash of a block that changed no table', () => {
  it('is 32 zero bytes under both rules (MemoryTableFactory2::hash hashes nothing), unless the 2.4 rule counts an opened table', () => {
    for (const rule of ['v2.4', 'v2.5'] as const) {
      expect(computeDbHash([], { rule, hash: keccak256, sm: false })).toEqual(new Uint8Array(32));
      expect(computeDbHash([], { rule, hash: sm3, sm: true })).toEqual(new Uint8Array(32));
    }
    // 2.5 skips an opened table; 2.4 hashes its 32 zero bytes
    expect(computeDbHash([], { rule: 'v2.5', hash: keccak256, sm: false }, ['_sys_config_'])).toEqual(new Uint8Array(32));
    const opened = computeDbHash([], { rule: 'v2.4', hash: keccak256, sm: false }, ['_sys_config_']);
    expect(toHex(opened)).toBe('0x66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925'); // sha256 of 32 zero bytes
  });
});

describe('dbHash of real blocks', () => {
  it('block 3 of an ECDSA chain at supported_version 2.4 (addObserver): sha256, opened tables count as zeros', () => {
    const data = realdata('ecdsa-block3-addobserver-godoc.json');
    const block = data['getBlockByNumber_3_true']!;
    const derivation = data['stateRoot_derivation']!;
    const node = '42ae2ae3950a2933b6f576dc946b90b242b7f9a2a8d45aae53c1a1664cd582bd759fa69e4b52f7a453dce702878b9ef11fd34fce1bd15c9bdcabcbbee43e1302';
    // addObserver updates the existing row of the node (its id is not in the data; one changed entry sorts alone)
    const consensus: TableChanges = {
      name: '_sys_consensus_',
      keyField: 'name',
      changed: [entry({ name: 'node', type: 'observer', node_id: node, enable_num: '3', _id_: '1', _status_: '0' }, 1n)],
      created: [],
    };
    expect(Buffer.from(tableDump(consensus)).toString('latin1')).toBe(`${derivation['sys_consensus_dump_ascii']}\x00`);
    const root = computeDbHash([consensus], { rule: 'v2.4', hash: keccak256, sm: false }, ['_sys_table_access_']);
    expect(toHex(root)).toBe(block.stateRoot);
    expect(toHex(root)).toBe(block.dbHash);
    expect(toHex(root)).toBe(data['getTransactionReceipt']!['root']);
    // without the opened-but-unchanged permission table the hash differs: the 2.4 rule counts it
    expect(toHex(computeDbHash([consensus], { rule: 'v2.4', hash: keccak256, sm: false }))).not.toBe(block.stateRoot);
  });

  it('block 2 of an SM chain at supported_version ≥ 2.5 (a contract deployment): SM3, changed tables only', () => {
    const data = realdata('sm-block2-deploy-webase.json');
    const receipt = data['receipt']!;
    const sender = receipt['from']!.slice(2);
    const contract = receipt['contractAddress']!.slice(2);
    const input = fromHex(receipt['input']!);
    const runtime = input.subarray(0x20, 0x20 + 0x3e3);
    expect(toHexNoPrefix(input.subarray(0, 0x20))).toMatch(/6103e3806100206000396000f3/); // the constructor copies 0x3e3 bytes from 0x20
    const sysTables: TableChanges = {
      name: '_sys_tables_',
      keyField: 'table_name',
      changed: [],
      created: [contract, sender].map((a) => entry({ table_name: `c_${a}`, key_field: 'key', value_field: 'value' })),
    };
    const changes = [
      sysTables,
      accountTable(sender, [['alive', 'true'], ['balance', '0'], ['code', ''], ['codeHash', sm3(new Uint8Array(0))], ['nonce', '1']]),
      accountTable(contract, [['alive', 'true'], ['authority', sender], ['balance', '0'], ['code', runtime], ['codeHash', sm3(runtime)], ['nonce', '0']]),
    ];
    const root = computeDbHash(changes, { rule: 'v2.5', hash: sm3, sm: true });
    expect(toHex(root)).toBe(data['block']!.stateRoot);
    expect(toHex(root)).toBe(data['block']!.dbHash);
    // the order of the inputs does not matter: tables sort by name, entries by id and key
    expect(toHex(computeDbHash([...changes].reverse(), { rule: 'v2.5', hash: sm3, sm: true }))).toBe(data['block']!.stateRoot);
    // one byte less of code and the hash is another
    const tampered = [changes[0]!, changes[1]!, accountTable(contract, [['alive', 'true'], ['authority', sender], ['balance', '0'], ['code', runtime.subarray(1)], ['codeHash', sm3(runtime)], ['nonce', '0']])];
    expect(toHex(computeDbHash(tampered, { rule: 'v2.5', hash: sm3, sm: true }))).not.toBe(data['block']!.stateRoot);
  });
});
