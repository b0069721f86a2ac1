import { Address } from '@ethereumjs/util';
import { describe, expect, it } from 'vitest';
import { ProtocolVersion, TX_STATUS } from '../chain/index.js';
import { fromHex, toHex } from '../codec/index.js';
import { decodeAbi, decodeErrorString, encodeAbi, encodeFunctionCall } from '../abi/index.js';
import { getSuite, keccak256 } from '../crypto/index.js';
import { WorldState } from '../state/index.js';
import { MemoryStore } from '../storage/index.js';
import { ExecutionEngine, intrinsicGas } from './execution-engine.js';
import { writeGenesisTables } from './genesis-state.js';
import { harness, type Harness } from './exec-harness.test-helper.js';

const at = (n: number) => fromHex(n.toString(16).padStart(40, '0'));
const SYSTEM_CONFIG = at(0x1000);
const CONSENSUS = at(0x1003);
const CNS = at(0x1004);
const PERMISSION = at(0x1005);

/** Send a transaction to a system contract and decode its int256 result. */
async function codeOf(h: Harness, from: number, to: Uint8Array, signature: string, args: unknown[]): Promise<number> {
  const receipt = await h.run(from, to, h.callData(signature, args));
  expect(receipt.status, `${signature} status`).toBe(0);
  return Number(decodeAbi('int256', receipt.output)[0]);
}

async function callString(h: Harness, to: Uint8Array, signature: string, args: unknown[]): Promise<string> {
  return (await h.call(to, signature, args, 'string'))[0] as string;
}

const nodeId = (c: string) => c.repeat(128);

describe('SystemConfig 0x1000', () => {
  it('sets tx_count_limit, tx_gas_limit and consensus_timeout, in force from the next block', async () => {
    const h = await harness();
    expect(await h.executor.systemConfig('tx_count_limit', h.number + 1)).toBe('1000');
    expect(await codeOf(h, 0, SYSTEM_CONFIG, 'setValueByKey(string,string)', ['tx_count_limit', '5'])).toBe(1);
    // written at block N, in force from block N + 1
    expect(await h.executor.systemConfig('tx_count_limit', h.number)).toBe('1000');
    expect(await h.executor.systemConfig('tx_count_limit', h.number + 1)).toBe('5');
    expect(await codeOf(h, 0, SYSTEM_CONFIG, 'setValueByKey(string,string)', ['TX_GAS_LIMIT', '100000'])).toBe(1);
    expect(await h.executor.systemConfig('tx_gas_limit', h.number + 1)).toBe('100000');
    expect(await codeOf(h, 0, SYSTEM_CONFIG, 'setValueByKey(string,string)', ['consensus_timeout', '5'])).toBe(1);
    expect(await h.executor.systemConfig('consensus_timeout', h.number + 1)).toBe('5');
  });

  it.each([
    ['tx_count_limit', '0'],
    ['tx_gas_limit', '99999'],
    ['tx_gas_limit', 'lots'],
    ['tx_count_limit', '9223372036854775808'], // 2^63: beyond int64
    ['consensus_timeout', '2'],
    ['consensus_timeout', '4294967'], // SystemConfigPrecompiled: below SYSTEM_CONSENSUS_TIMEOUT_MAX (UINT_MAX / 1000)
    ['no_such_key', '1'],
  ])('rejects %s = %s with -51300 and changes nothing', async (key, value) => {
    const h = await harness();
    const before = await h.executor.systemConfig(key, h.number + 1);
    expect(await codeOf(h, 0, SYSTEM_CONFIG, 'setValueByKey(string,string)', [key, value])).toBe(-51300);
    expect(await h.executor.systemConfig(key, h.number + 1)).toBe(before);
  });

  it('has no consensus_timeout before 2.6.0', async () => {
    const h = await harness({ version: '2.5.0' });
    expect(await h.executor.systemConfig('consensus_timeout', 1)).toBeUndefined();
    expect(await codeOf(h, 0, SYSTEM_CONFIG, 'setValueByKey(string,string)', ['consensus_timeout', '5'])).toBe(-51300);
  });

  it('answers an unknown function as each FISCO 2.x contract does: CRUD -50101, SystemConfig and Consensus 0, the others nothing', async () => {
    const h = await harness();
    const unknown = async (to: Uint8Array) => {
      const data = h.callData('noSuchFunction(string)', ['x']);
      const receipt = await h.run(0, to, data);
      expect(receipt.status).toBe(0);
      return { output: toHex(receipt.output), gas: receipt.gasUsed - intrinsicGas(data, false) };
    };
    const word = (n: bigint) => toHex(encodeAbi('int256', [n]));
    // memory gas only: 3 per word of the larger of the output and (CRUD, TableFactory, CNS) the input, 100 bytes here
    expect(await unknown(at(0x1002))).toEqual({ output: word(-50101n), gas: 12n });
    expect(await unknown(SYSTEM_CONFIG)).toEqual({ output: word(0n), gas: 3n });
    expect(await unknown(CONSENSUS)).toEqual({ output: word(0n), gas: 3n });
    expect(await unknown(at(0x1001))).toEqual({ output: '0x', gas: 12n });
    expect(await unknown(CNS)).toEqual({ output: '0x', gas: 12n });
    expect(await unknown(PERMISSION)).toEqual({ output: '0x', gas: 0n });
  });

  it('accepts keccak selectors on SM chains too (guomi SDKs use SM3)', async () => {
    const h = await harness({ suite: 'sm' });
    expect(await codeOf(h, 0, SYSTEM_CONFIG, 'setValueByKey(string,string)', ['tx_count_limit', '7'])).toBe(1);
    const { encodeFunctionCall } = await import('../abi/index.js');
    const { keccak256 } = await import('../crypto/index.js');
    const receipt = await h.run(0, SYSTEM_CONFIG, encodeFunctionCall('setValueByKey(string,string)', ['tx_count_limit', '8'], keccak256));
    expect(Number(decodeAbi('int256', receipt.output)[0])).toBe(1);
    expect(await h.executor.systemConfig('tx_count_limit', h.number + 1)).toBe('8');
  });
});

describe('Consensus 0x1003', () => {
  it('adds and removes sealers and observers from the next block', async () => {
    const h = await harness();
    const [s0] = h.genesis.sealers;
    expect(await codeOf(h, 0, CONSENSUS, 'addObserver(string)', [nodeId('a')])).toBe(1);
    expect((await h.executor.consensusNodes(h.number)).observers).toEqual([]);
    expect((await h.executor.consensusNodes(h.number + 1)).observers).toEqual([nodeId('a')]);
    expect(await codeOf(h, 0, CONSENSUS, 'addSealer(string)', [nodeId('a').toUpperCase()])).toBe(1);
    const next = await h.executor.consensusNodes(h.number + 1);
    expect(next.sealers).toContain(nodeId('a'));
    expect(next.observers).toEqual([]);
    expect(next.sealers).toEqual([...next.sealers].sort());
    expect(await codeOf(h, 0, CONSENSUS, 'remove(string)', [s0])).toBe(1);
    expect((await h.executor.consensusNodes(h.number + 1)).sealers).not.toContain(s0);
    expect(await codeOf(h, 0, CONSENSUS, 'remove(string)', [nodeId('b')])).toBe(0);
  });

  it('removes an observer, and takes the limits of consensus_timeout', async () => {
    const h = await harness();
    expect(await codeOf(h, 0, CONSENSUS, 'addObserver(string)', [nodeId('c')])).toBe(1);
    expect((await h.executor.consensusNodes(h.number + 1)).observers).toEqual([nodeId('c')]);
    expect(await codeOf(h, 0, CONSENSUS, 'remove(string)', [nodeId('c')])).toBe(1);
    expect((await h.executor.consensusNodes(h.number + 1)).observers).toEqual([]);
    expect(await codeOf(h, 0, SYSTEM_CONFIG, 'setValueByKey(string,string)', ['consensus_timeout', '4294966'])).toBe(1);
    expect(await codeOf(h, 0, SYSTEM_CONFIG, 'setValueByKey(string,string)', ['consensus_timeout', '3'])).toBe(1);
    expect(await h.executor.systemConfig('consensus_timeout', h.number + 1)).toBe('3');
  });

  it('rejects an invalid node id with -51100', async () => {
    const h = await harness();
    expect(await codeOf(h, 0, CONSENSUS, 'addSealer(string)', ['abc'])).toBe(-51100);
    expect(await codeOf(h, 0, CONSENSUS, 'addObserver(string)', [nodeId('g')])).toBe(-51100);
  });

  it("checks the account last, as MemoryTable2's write does: an invalid id, the last sealer or an invalid configuration value first", async () => {
    const h = await harness({ genesis: { sealers: [nodeId('1')] } });
    for (const table of ['_sys_consensus_', '_sys_config_']) expect(await codeOf(h, 0, PERMISSION, 'insert(string,string)', [table, toHex(h.account(0).address)])).toBe(1);
    await h.block([]);
    expect(await codeOf(h, 1, CONSENSUS, 'addSealer(string)', ['abc'])).toBe(-51100);
    expect(await codeOf(h, 1, CONSENSUS, 'remove(string)', [nodeId('1')])).toBe(-51101);
    expect(await codeOf(h, 1, CONSENSUS, 'addObserver(string)', [nodeId('2')])).toBe(-50000);
    // a remove that finds nothing is refused to an account off the list, 0 for one on it
    expect(await codeOf(h, 1, CONSENSUS, 'remove(string)', [nodeId('3')])).toBe(-50000);
    expect(await codeOf(h, 0, CONSENSUS, 'remove(string)', [nodeId('3')])).toBe(0);
    expect(await codeOf(h, 1, SYSTEM_CONFIG, 'setValueByKey(string,string)', ['tx_count_limit', '0'])).toBe(-51300);
    expect(await codeOf(h, 1, SYSTEM_CONFIG, 'setValueByKey(string,string)', ['tx_count_limit', '5'])).toBe(-50000);
  });

  it('refuses to remove the last sealer with -51101', async () => {
    const h = await harness({ genesis: { sealers: [nodeId('1')] } });
    expect(await codeOf(h, 0, CONSENSUS, 'remove(string)', [nodeId('1')])).toBe(-51101);
    expect(await codeOf(h, 0, CONSENSUS, 'addObserver(string)', [nodeId('1')])).toBe(-51101);
    expect((await h.executor.consensusNodes(h.number + 1)).sealers).toEqual([nodeId('1')]);
  });
});

describe('CNS 0x1004', () => {
  it('registers names and versions and answers queries', async () => {
    const h = await harness();
    const address = toHex(await h.deploy(0, 'HelloWorld'));
    expect(await codeOf(h, 0, CNS, 'insert(string,string,string,string)', ['Hello', '1.0', address, '[]'])).toBe(1);
    expect(await codeOf(h, 0, CNS, 'insert(string,string,string,string)', ['Hello', '2.0', address, '[]'])).toBe(1);
    expect(await codeOf(h, 0, CNS, 'insert(string,string,string,string)', ['Hello', '1.0', address, '[]'])).toBe(-51200);
    expect(await codeOf(h, 0, CNS, 'insert(string,string,string,string)', ['Hello', 'v'.repeat(129), address, '[]'])).toBe(-51201);
    const all = JSON.parse(await callString(h, CNS, 'selectByName(string)', ['Hello'])) as Array<Record<string, string>>;
    expect(all.map((r) => r.version)).toEqual(['1.0', '2.0']);
    expect(all[0]).toEqual({ abi: '[]', address, name: 'Hello', version: '1.0' });
    const one = await callString(h, CNS, 'selectByNameAndVersion(string,string)', ['Hello', '2.0']);
    expect(one).toBe(`[{"abi":"[]","address":"${address}","name":"Hello","version":"2.0"}]\n`);
    expect(await h.call(CNS, 'getContractAddress(string,string)', ['Hello', '1.0'], 'address')).toEqual([expect.stringMatching(new RegExp(address.slice(2), 'i'))]);
    expect(await h.call(CNS, 'getContractAddress(string,string)', ['Nope', '1.0'], 'address')).toEqual(['0x0000000000000000000000000000000000000000']);
  });
});

describe('CNS 0x1004 at FISCO 2.x limits (CNSPrecompiled::checkCNSParam)', () => {
  it('takes a version of 128 bytes, refuses 129, and refuses an address Address(string) throws on with -50102', async () => {
    const h = await harness();
    const address = toHex(await h.deploy(0, 'HelloWorld'));
    const insert = (version: string, at: string) => codeOf(h, 0, CNS, 'insert(string,string,string,string)', ['Hello', version, at, '[]']);
    expect(await insert('v'.repeat(128), address)).toBe(1);
    expect(await insert('é'.repeat(65), address)).toBe(-51201); // 130 bytes in 65 characters
    // only a character fromHex cannot read throws (an upper-case 0X included); a size other than
    // 20 bytes leaves FISCO's FixedHash zero without throwing, so the row is inserted
    for (const bad of [`0x${'zz'.repeat(20)}`, `0X${'11'.repeat(20)}`]) expect(await insert(`bad-${bad.length}-${bad.slice(0, 4)}`, bad), bad).toBe(-50102);
    for (const odd of ['0x1234', `0x${'11'.repeat(21)}`, '']) expect(await insert(`size-${odd.length}`, odd), odd).toBe(1);
    expect(await h.call(CNS, 'getContractAddress(string,string)', ['Hello', 'size-6'], 'address')).toEqual(['0x0000000000000000000000000000000000000000']);
    // an existing version is reported before a bad address
    expect(await insert('v'.repeat(128), '0x12')).toBe(-51200);
    // without 0x, and 39 digits (an odd count: its first digit is a byte of its own), are addresses
    expect(await insert('bare', address.slice(2))).toBe(1);
    expect(await insert('odd', `0x${'1'.repeat(39)}`)).toBe(1);
  });

  it('refuses a name over 255 bytes with the StorageException of checkLengthValidate (status 1), and checks the account after the row and the address', async () => {
    const h = await harness();
    const address = toHex(await h.deploy(0, 'HelloWorld'));
    const send = (from: number, name: string, version: string) => h.run(from, CNS, h.callData('insert(string,string,string,string)', [name, version, address, '[]']));
    const long = await send(0, 'n'.repeat(256), '1.0');
    expect(long.status).toBe(TX_STATUS.Unknown);
    expect(decodeErrorString(long.output)).toBe('size of value/key greater than255');
    expect(await codeOf(h, 0, CNS, 'insert(string,string,string,string)', ['n'.repeat(255), '1.0', address, '[]'])).toBe(1);
    // with _sys_cns_ granted to account 0, account 1 gets -51200 for an existing version before -50000
    expect(await codeOf(h, 0, PERMISSION, 'insert(string,string)', ['_sys_cns_', toHex(h.account(0).address)])).toBe(1);
    await h.block([]);
    expect(await codeOf(h, 1, CNS, 'insert(string,string,string,string)', ['n'.repeat(255), '1.0', address, '[]'])).toBe(-51200);
    expect(await codeOf(h, 1, CNS, 'insert(string,string,string,string)', ['n'.repeat(255), '2.0', address, '[]'])).toBe(-50000);
  });

  it('keeps the address as written (the row the dbHash covers) and answers getContractAddress with the address it reads', async () => {
    const h = await harness();
    const address = toHex(await h.deploy(0, 'HelloWorld'));
    const mixed = `0x${address.slice(2).toUpperCase()}`;
    expect(await codeOf(h, 0, CNS, 'insert(string,string,string,string)', ['Hello', '1.0', mixed, '[]'])).toBe(1);
    expect(await codeOf(h, 0, CNS, 'insert(string,string,string,string)', ['Hello', '2.0', `0x${'1'.repeat(39)}`, '[]'])).toBe(1);
    const rows = JSON.parse(await callString(h, CNS, 'selectByName(string)', ['Hello'])) as Array<Record<string, string>>;
    expect(rows.map((r) => r.address)).toEqual([mixed, `0x${'1'.repeat(39)}`]);
    expect(await h.call(CNS, 'getContractAddress(string,string)', ['Hello', '1.0'], 'address')).toEqual([expect.stringMatching(new RegExp(`^${address}$`, 'i'))]);
    expect(await h.call(CNS, 'getContractAddress(string,string)', ['Hello', '2.0'], 'address')).toEqual([expect.stringMatching(new RegExp(`^0x0${'1'.repeat(39)}$`, 'i'))]);
  });
});

describe('Permission 0x1005', () => {
  it.each([
    ['2.11.0', 'u_t_test'],
    ['2.2.0', 'u_t_test'],
    ['2.1.0', '_user_t_test'],
  ])('grants, refuses duplicates and unknowns, and lists (supported_version %s: the table is %s, as FISCO names it)', async (version, stored) => {
    const h = await harness({ version });
    const user = toHex(h.account(1).address);
    expect(await codeOf(h, 0, PERMISSION, 'insert(string,string)', ['t_test', user])).toBe(1);
    expect(await codeOf(h, 0, PERMISSION, 'insert(string,string)', ['t_test', user])).toBe(-51000);
    const listed = JSON.parse(await callString(h, PERMISSION, 'queryByName(string)', ['t_test'])) as Array<Record<string, string>>;
    expect(listed).toEqual([{ address: user, enable_num: String(h.number), table_name: stored }]);
    expect(await codeOf(h, 0, PERMISSION, 'remove(string,string)', ['t_test', toHex(h.account(2).address)])).toBe(-51001);
    expect(await codeOf(h, 1, PERMISSION, 'remove(string,string)', ['t_test', user])).toBe(1);
    expect(JSON.parse(await callString(h, PERMISSION, 'queryByName(string)', ['t_test']))).toEqual([]);
  });

  it('refuses a table name over 64 bytes with its prefix (-51002), then an address Address(string) throws on (-50102)', async () => {
    const h = await harness();
    const user = toHex(h.account(1).address);
    const insert = (table: string, address: string) => codeOf(h, 0, PERMISSION, 'insert(string,string)', [table, address]);
    expect(await insert('t'.repeat(62), user)).toBe(1); // u_ + 62 = 64
    expect(await insert('t'.repeat(63), user)).toBe(-51002);
    expect(await insert('t'.repeat(63), '0x12')).toBe(-51002);
    expect(await insert('t_bad', `0x${'zz'.repeat(20)}`)).toBe(-50102);
    // a size other than 20 bytes does not throw in FISCO's Address(string): granted as written
    for (const odd of ['0x12', `0x${'11'.repeat(21)}`, '']) expect(await insert(`t_size${odd.length}`, odd), odd).toBe(1);
    // an upper-case address is lower-cased first, as FISCO does
    expect(await insert('t_upper', `0x${user.slice(2).toUpperCase()}`)).toBe(1);
    expect(JSON.parse(await callString(h, PERMISSION, 'queryByName(string)', ['t_upper']))).toEqual([{ address: user, enable_num: expect.stringMatching(/^\d+$/), table_name: 'u_t_upper' }]);
  });

  it('guards deploys: with _sys_tables_ granted to one account, others get status 25', async () => {
    const h = await harness();
    const admin = toHex(h.account(0).address);
    expect(await codeOf(h, 0, PERMISSION, 'insert(string,string)', ['_sys_tables_', admin])).toBe(1);
    await h.block([]); // in force from the next block
    await expect(h.deploy(0, 'Counter')).resolves.toBeInstanceOf(Uint8Array);
    const other = h.account(1).address;
    const nonce = await h.nonce(other);
    const denied = await h.run(1, null, fromHex((await import('./exec-harness.test-helper.js')).artifact('Counter').bytecode));
    expect(denied.status).toBe(TX_STATUS.PermissionDenied);
    expect(await h.nonce(other)).toBe(nonce);
  });

  it('guards system tables: an account off the list gets -50000', async () => {
    const h = await harness();
    expect(await codeOf(h, 0, PERMISSION, 'insert(string,string)', ['_sys_config_', toHex(h.account(0).address)])).toBe(1);
    await h.block([]);
    expect(await codeOf(h, 1, SYSTEM_CONFIG, 'setValueByKey(string,string)', ['tx_count_limit', '5'])).toBe(-50000);
    expect(await codeOf(h, 0, SYSTEM_CONFIG, 'setValueByKey(string,string)', ['tx_count_limit', '5'])).toBe(1);
    // the access list itself is guarded once someone is on it
    expect(await codeOf(h, 0, PERMISSION, 'insert(string,string)', ['_sys_table_access_', toHex(h.account(0).address)])).toBe(1);
    await h.block([]);
    expect(await codeOf(h, 1, PERMISSION, 'insert(string,string)', ['_sys_config_', toHex(h.account(1).address)])).toBe(-50000);
    // the row is looked up before the account's permission (MemoryTable2 checks it on the write)
    expect(await codeOf(h, 1, PERMISSION, 'insert(string,string)', ['_sys_config_', toHex(h.account(0).address)])).toBe(-51000);
    expect(await codeOf(h, 1, PERMISSION, 'remove(string,string)', ['_sys_config_', toHex(h.account(2).address)])).toBe(-51001);
    expect(await codeOf(h, 1, PERMISSION, 'remove(string,string)', ['_sys_config_', toHex(h.account(0).address)])).toBe(-50000);
  });

  it('grantWrite limits who may write a contract\'s storage (status 25 for others)', async () => {
    const h = await harness();
    const counter = await h.deploy(0, 'Counter');
    expect(await codeOf(h, 0, PERMISSION, 'grantWrite(address,address)', [toHex(counter), toHex(h.account(0).address)])).toBe(1);
    const perms = JSON.parse(await callString(h, PERMISSION, 'queryPermission(address)', [toHex(counter)])) as Array<Record<string, string>>;
    // FISCO's getContractTableName: the contract's own table, c_<address>
    expect(perms).toEqual([{ address: toHex(h.account(0).address), enable_num: expect.any(String) as unknown, table_name: `c_${toHex(counter).slice(2)}` }]);
    await h.block([]);
    expect((await h.run(0, counter, h.callData('increment()'))).status).toBe(0);
    const denied = await h.run(1, counter, h.callData('increment()'));
    expect(denied.status).toBe(TX_STATUS.PermissionDenied);
    expect(await h.call(counter, 'get()', [], 'uint256')).toEqual([1n]);
    expect(await codeOf(h, 0, PERMISSION, 'revokeWrite(address,address)', [toHex(counter), toHex(h.account(0).address)])).toBe(1);
    await h.block([]);
    expect((await h.run(1, counter, h.callData('increment()'))).status).toBe(0);
  });

  it('before 2.3.0 Permission has no grantWrite, revokeWrite or queryPermission: their selectors get no output, and the storage stays open', async () => {
    const h = await harness({ version: '2.2.0' });
    const counter = await h.deploy(0, 'Counter');
    for (const [signature, args] of [
      ['grantWrite(address,address)', [toHex(counter), toHex(h.account(0).address)]],
      ['revokeWrite(address,address)', [toHex(counter), toHex(h.account(0).address)]],
      ['queryPermission(address)', [toHex(counter)]],
    ] as const) {
      const receipt = await h.run(0, PERMISSION, h.callData(signature, [...args]));
      expect(receipt.status, signature).toBe(0);
      expect(receipt.output, signature).toHaveLength(0);
    }
    await h.block([]);
    expect((await h.run(1, counter, h.callData('increment()'))).status).toBe(0);
    // the table methods are there in every version
    expect(await codeOf(h, 0, PERMISSION, 'insert(string,string)', ['t_any', toHex(h.account(1).address)])).toBe(1);
  });
});

describe('precompile failures', () => {
  it("a direct transaction that runs a system contract out of gas gets status 21 and the PrecompiledException's Error(string), and pays no precompiled gas", async () => {
    const state = await WorldState.open({ store: new MemoryStore() });
    const engine = new ExecutionEngine(state.stateManager, getSuite('ecdsa'), false);
    await writeGenesisTables(engine.tables, { groupId: 1, consensusType: 'pbft', sealers: ['1'.repeat(128)], timestamp: 0 }, ProtocolVersion.parse('2.11.0'));
    const data = encodeFunctionCall('createTable(string,string,string)', ['t_x', 'k', 'v'], keccak256);
    const gasLimit = intrinsicGas(data, false) + 1_000n;
    const outcome = await engine.run({ from: new Address(fromHex('0x4ca29e9e8cb79c863c04f83827ab540315f25e67')), to: new Address(at(0x1001)), data, gasLimit }, 1);
    expect(outcome.status).toBe(TX_STATUS.PrecompiledError);
    expect(decodeErrorString(outcome.output)).toMatch(/^OutOfGas when executing precompiled Contract, gasUsed: \d+, leftGas:1000$/);
    expect(outcome.gasUsed).toBe(intrinsicGas(data, false));
  });

  it.each([
    ['2.11.0', 'Invalid key.'],
    ['2.2.0', undefined],
  ])("%s: a CRUD insert naming a field the table lacks throws MemoryTable2's std::invalid_argument: status 1 (Unknown), its message as Error(string) from 2.3.0", async (version, message) => {
    const h = await harness({ version });
    expect(await codeOf(h, 0, at(0x1001), 'createTable(string,string,string)', ['t_x', 'k', 'v'])).toBe(0);
    const receipt = await h.run(0, at(0x1002), h.callData('insert(string,string,string,string)', ['t_x', 'a', '{"nope":"1"}', '']));
    expect(receipt.status).toBe(TX_STATUS.Unknown);
    if (message === undefined) expect(receipt.output).toHaveLength(0);
    else expect(decodeErrorString(receipt.output)).toBe(message);
    const select = await h.call(at(0x1002), 'select(string,string,string,string)', ['t_x', 'a', '{}', ''], 'string');
    expect(JSON.parse(select[0] as string)).toEqual([]);
  });

  it('a CRUD insert whose key has more than 255 bytes throws a StorageException before the table is opened: status 1 (Unknown)', async () => {
    const h = await harness();
    expect(await codeOf(h, 0, at(0x1001), 'createTable(string,string,string)', ['t_x', 'k', 'v'])).toBe(0);
    const insert = (table: string, key: string) => h.run(0, at(0x1002), h.callData('insert(string,string,string,string)', [table, key, '{"v":"1"}', '']));
    for (const key of ['k'.repeat(256), 'é'.repeat(128)]) {
      for (const table of ['t_x', 't_missing']) {
        const receipt = await insert(table, key);
        expect(receipt.status, `${table}, a key of ${key.length} characters`).toBe(TX_STATUS.Unknown);
        expect(decodeErrorString(receipt.output)).toBe('size of value/key greater than255');
      }
    }
    const atLimit = await insert('t_x', `${'é'.repeat(127)}k`);
    expect(atLimit.status).toBe(0);
    expect(decodeAbi('int256', atLimit.output)).toEqual([1n]);
  });
});
