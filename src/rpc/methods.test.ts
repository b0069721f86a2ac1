import { describe, expect, it } from 'vitest';
import { encodeSignedTransaction } from '../chain/index.js';
import { fromHex, toHex } from '../codec/index.js';
import { decodeAbi } from '../abi/index.js';
import { SECP256K1_N } from '../crypto/index.js';
import { rpcHarness } from './rpc-harness.test-helper.js';

const HASH = /^0x[0-9a-f]{64}$/;
const QUANTITY = /^0x(0|[1-9a-f][0-9a-f]*)$/;
const NODE_ID = /^[0-9a-f]{128}$/;
const ZERO_ADDRESS = `0x${'0'.repeat(40)}`;

describe.each([
  ['earlier', '2.0.0-rc1'],
  ['later', '2.11.0'],
] as const)('the %s interface variant (supported_version %s)', (variant, supportedVersion) => {
  const later = variant === 'later';

  it('getClientVersion has the product "Version" key, and Chain Id / Supported Version only in the later variant', async () => {
    const h = await rpcHarness({ supportedVersion });
    const version = await h.result<Record<string, string>>('getClientVersion');
    const keys = ['Build Time', 'Build Type', 'FISCO-BCOS Version', 'Git Branch', 'Git Commit Hash'];
    expect(Object.keys(version).sort()).toEqual((later ? [...keys, 'Chain Id', 'Supported Version'] : keys).sort());
    expect(Object.values(version).every((v) => typeof v === 'string')).toBe(true);
    if (later) expect(version).toMatchObject({ 'Chain Id': '1', 'Supported Version': '2.11.0' });
  });

  it('runs a transaction through its life: pending, sealed, receipt, indexes, totals', async () => {
    const h = await rpcHarness({ supportedVersion });
    const deploy = h.deployTx();
    const sent = await h.send(deploy);
    expect(sent).toEqual({ jsonrpc: '2.0', id: expect.any(Number), result: toHex(deploy.hash) });

    const pending = await h.result<Array<Record<string, unknown>>>('getPendingTransactions', [1]);
    const pendingKeys = ['from', 'gas', 'gasPrice', 'hash', 'input', 'nonce', 'to', 'value'];
    const laterKeys = ['blockLimit', 'chainId', 'groupId', 'extraData', 'signature'];
    expect(Object.keys(pending[0]!).sort()).toEqual((later ? [...pendingKeys, ...laterKeys] : [...pendingKeys, 'blockHash', 'blockNumber', 'contractAddress']).sort());
    expect(pending[0]).toMatchObject({ hash: toHex(deploy.hash), from: toHex(h.user.address), to: null, value: '0x0' });
    if (later) {
      // FISCO 2.11 parseTransactionIntoResponse: hex quantities, hex data, and the signature object
      const { r, s, v } = deploy.signature as { r: bigint; s: bigint; v: number };
      const r32 = `0x${r.toString(16).padStart(64, '0')}`;
      const s32 = `0x${s.toString(16).padStart(64, '0')}`;
      expect(pending[0]).toMatchObject({
        blockLimit: `0x${deploy.body.blockLimit.toString(16)}`,
        chainId: '0x1',
        groupId: '0x1',
        extraData: '0x',
        signature: { r: r32, s: s32, v: `0x${v.toString(16)}`, signature: `${r32}${s32.slice(2)}${v.toString(16).padStart(2, '0')}` },
      });
    }
    expect(await h.result('getPendingTxSize', [1])).toBe('0x1');
    expect(await h.result('getSyncStatus', [1])).toMatchObject({ txPoolSize: '1' });
    expect(await h.result('getTransactionReceipt', [1, toHex(deploy.hash)])).toBeNull();
    expect(await h.result('getTransactionByHash', [1, toHex(deploy.hash)])).toBeNull();

    const block = await h.node.seal();
    expect(block?.block.header.number).toBe(1);
    expect(await h.result('getBlockNumber', [1])).toBe('0x1');
    expect(await h.result('getPendingTxSize', [1])).toBe('0x0');
    expect(await h.result('getPendingTransactions', [1])).toEqual([]);

    const receipt = await h.result<Record<string, unknown>>('getTransactionReceipt', [1, toHex(deploy.hash)]);
    const created = block!.block.receipts[0]!.contractAddress;
    expect(receipt).toMatchObject({
      blockHash: toHex(block!.hash),
      blockNumber: '0x1',
      contractAddress: later ? toHex(created) : ZERO_ADDRESS,
      from: toHex(h.user.address),
      logs: [],
      status: '0x0',
      to: null,
      transactionHash: toHex(deploy.hash),
      transactionIndex: '0x0',
    });
    expect(receipt.gasUsed).toMatch(QUANTITY);
    expect(receipt.logsBloom).toMatch(/^0x[0-9a-f]{512}$/);
    expect('input' in receipt).toBe(later);
    expect(toHex(created)).not.toBe(ZERO_ADDRESS);

    const tx = await h.result<Record<string, unknown>>('getTransactionByHash', [1, toHex(deploy.hash)]);
    expect(tx).toMatchObject({
      blockHash: toHex(block!.hash),
      blockNumber: '0x1',
      from: toHex(h.user.address),
      gas: '0x11e1a300',
      gasPrice: '0x11e1a300',
      hash: toHex(deploy.hash),
      nonce: `0x${deploy.body.nonce.toString(16)}`,
      to: later ? ZERO_ADDRESS : null,
      transactionIndex: '0x0',
      value: '0x0',
    });
    expect(tx.input).toBe(toHex(deploy.body.data));
    const txKeys = ['blockHash', 'blockNumber', 'from', 'gas', 'gasPrice', 'hash', 'input', 'nonce', 'to', 'transactionIndex', 'value'];
    if (later) expect(Object.keys(tx)).toEqual(expect.arrayContaining([...txKeys, 'blockLimit', 'chainId', 'groupId', 'signature']));
    else expect(Object.keys(tx).sort()).toEqual(txKeys.sort());
    expect(await h.result('getTransactionByBlockHashAndIndex', [1, toHex(block!.hash), '0x0'])).toEqual(tx);
    expect(await h.result('getTransactionByBlockNumberAndIndex', [1, '0x1', '0x0'])).toEqual(tx);
    expect(await h.result('getTransactionByBlockNumberAndIndex', [1, '0x01', '0x00'])).toEqual(tx);

    const byNumber = await h.result<Record<string, unknown>>('getBlockByNumber', [1, '0x1', false]);
    expect(byNumber).toMatchObject({ number: '0x1', hash: toHex(block!.hash), transactions: [toHex(deploy.hash)], sealer: '0x0', sealerList: [h.node.nodeId] });
    for (const key of ['parentHash', 'stateRoot', 'transactionsRoot']) expect(byNumber[key]).toMatch(HASH);
    for (const key of ['gasLimit', 'gasUsed', 'timestamp']) expect(byNumber[key]).toMatch(QUANTITY);
    expect(byNumber.extraData).toEqual([]);
    expect(await h.result('getBlockByHash', [1, toHex(block!.hash), false])).toEqual(byNumber);
    const full = await h.result<Record<string, unknown>>('getBlockByNumber', [1, '0x1', true]);
    expect(full.transactions).toEqual([tx]);
    expect('signatureList' in full).toBe(later);
    expect(await h.result('getBlockHashByNumber', [1, '0x1'])).toBe(toHex(block!.hash));

    const totals = await h.result('getTotalTransactionCount', [1]);
    expect(totals).toEqual(later ? { blockNumber: '0x1', txSum: '0x1', failedTxSum: '0x0' } : { blockNumber: '0x1', txSum: '0x1' });
    expect(await h.result('getCode', [1, toHex(created)])).toMatch(/^0x[0-9a-f]{100,}$/);
    expect(await h.result('getCode', [1, ZERO_ADDRESS])).toBe('0x');

    const get = toHex(h.abi('get()'));
    const call = await h.result<Record<string, string>>('call', [1, { from: toHex(h.user.address), to: toHex(created), data: get }]);
    expect(call).toMatchObject({ currentBlockNumber: '0x1', status: '0x0' });
    expect(decodeAbi('string', fromHex(call.output!))).toEqual(['Hello, World!']);
    expect(await h.result('getBlockNumber', [1])).toBe('0x1');

    const set = h.callTx(created, h.abi('set(string)', ['conformance']));
    expect((await h.send(set)).result).toBe(toHex(set.hash));
    const bad = h.callTx(created, fromHex('deadbeef'));
    await h.send(bad);
    await h.node.seal();
    const setReceipt = await h.result<{ logs: Array<{ address: string; topics: string[]; data: string }>; status: string }>('getTransactionReceipt', [1, toHex(set.hash)]);
    expect(setReceipt.status).toBe('0x0');
    expect(setReceipt.logs).toHaveLength(1);
    expect(setReceipt.logs[0]).toMatchObject({ address: toHex(created), topics: [expect.stringMatching(HASH), expect.stringMatching(HASH)] });
    expect(((await h.result('getTransactionReceipt', [1, toHex(bad.hash)])) as { status: string }).status).toBe('0x16');
    expect(await h.result('getTotalTransactionCount', [1])).toEqual(
      later ? { blockNumber: '0x2', txSum: '0x3', failedTxSum: '0x1' } : { blockNumber: '0x2', txSum: '0x3' },
    );
    const after = await h.result<Record<string, string>>('call', [1, { from: toHex(h.user.address), to: toHex(created), data: get, value: '0x0' }]);
    expect(decodeAbi('string', fromHex(after.output!))).toEqual(['conformance']);
    expect(await h.result('getTransactionByBlockNumberAndIndex', [1, '0x2', '0x1'])).toMatchObject({ hash: toHex(bad.hash), transactionIndex: '0x1' });
  });

  it(`block numbers: hex always, decimal ${later ? 'accepted' : 'refused'}`, async () => {
    const h = await rpcHarness({ supportedVersion });
    const genesis = await h.result<{ hash: string }>('getBlockByNumber', [1, '0x0', false]);
    const decimal = await h.rpc('getBlockByNumber', [1, '0', false]);
    if (later) expect(decimal.result).toEqual(genesis);
    else expect(decimal.error).toMatchObject({ code: -32602, message: expect.stringContaining('blockNumber') });
    expect((await h.rpc('getBlockHashByNumber', [1, '00'])).result ?? null).toBe(later ? genesis.hash : null);
  });

  it(`transaction indexes: hex always, decimal ${later ? 'accepted (FISCO jsToInt)' : 'refused (SPEC: hex)'}, in both lookups`, async () => {
    const h = await rpcHarness({ supportedVersion });
    const deploy = h.deployTx();
    await h.send(deploy);
    await h.node.seal();
    const block = await h.result<{ hash: string }>('getBlockByNumber', [1, '0x1', false]);
    const byHex = await h.result('getTransactionByBlockNumberAndIndex', [1, '0x1', '0x0']);
    expect(byHex).toMatchObject({ hash: toHex(deploy.hash), transactionIndex: '0x0' });
    // what FISCO's Node.js SDK sends: decimal heights and indexes
    for (const [method, where] of [['getTransactionByBlockNumberAndIndex', later ? '1' : '0x1'], ['getTransactionByBlockHashAndIndex', block.hash]] as const) {
      for (const index of ['0', '00']) {
        const reply = await h.rpc(method, [1, where, index]);
        if (later) expect(reply.result).toEqual(byHex);
        else expect(reply.error).toMatchObject({ code: -32602, message: expect.stringContaining('transactionIndex') });
      }
      const beyond = await h.rpc(method, [1, where, later ? '1' : '0x1']);
      expect(beyond.error?.code).toBe(-40005);
      expect((await h.rpc(method, [1, where, '0x00'])).result).toEqual(byHex);
      expect((await h.rpc(method, [1, where, '0X0'])).error?.code).toBe(-32602);
    }
    if (later) expect((await h.rpc('getTransactionByBlockNumberAndIndex', [1, '01', '0'])).result).toEqual(byHex);
  });

  it('reports missing blocks, hashes and indexes with -40003, -40004, -40005; unknown transactions as null', async () => {
    const h = await rpcHarness({ supportedVersion });
    const hash = `0x${'ab'.repeat(32)}`;
    expect((await h.rpc('getBlockByHash', [1, hash, false])).error).toMatchObject({ code: -40003, message: 'BlockHash does not exist' });
    expect((await h.rpc('getTransactionByBlockHashAndIndex', [1, hash, '0x0'])).error?.code).toBe(-40003);
    expect((await h.rpc('getBlockByNumber', [1, '0x1', true])).error).toMatchObject({ code: -40004, message: 'BlockNumber does not exist' });
    expect((await h.rpc('getBlockHashByNumber', [1, '0x7fffffffffffffff'])).error?.code).toBe(-40004);
    expect((await h.rpc('getTransactionByBlockNumberAndIndex', [1, '0x5', '0x0'])).error?.code).toBe(-40004);
    const genesis = await h.result<{ hash: string }>('getBlockByNumber', [1, '0x0', false]);
    expect((await h.rpc('getTransactionByBlockNumberAndIndex', [1, '0x0', '0x0'])).error).toMatchObject({
      code: -40005,
      message: 'TransactionIndex is out of range',
    });
    expect((await h.rpc('getTransactionByBlockHashAndIndex', [1, genesis.hash, '0xffffffffffffffffffffffff'])).error?.code).toBe(-40005);
    expect(await h.rpc('getTransactionByHash', [1, hash])).toMatchObject({ result: null });
    expect(await h.rpc('getTransactionReceipt', [1, hash])).toMatchObject({ result: null });
  });
});

describe('node and group information', () => {
  it('PBFT: view, sealers, observers, consensus status with SPEC\'s element layout', async () => {
    const h = await rpcHarness();
    expect(await h.result('getPbftView', [1])).toBe('0x0');
    expect(await h.result('getSealerList', [1])).toEqual([h.node.nodeId]);
    expect(await h.result('getObserverList', [1])).toEqual([]);
    expect(await h.result('getGroupPeers', [1])).toEqual([h.node.nodeId]);
    expect(await h.result('getNodeIDList', [1])).toEqual([h.node.nodeId]);
    expect(await h.result('getPeers', [1])).toEqual([]);
    expect(await h.result('getGroupList')).toEqual([1]);
    const status = await h.result<Array<Record<string, unknown>>>('getConsensusStatus', [1]);
    expect(status).toHaveLength(8);
    expect(status[0]).toMatchObject({
      accountType: 1,
      allowFutureBlocks: true,
      cfgErr: false,
      connectedNodes: 0,
      consensusedBlockNumber: 1,
      currentView: 0,
      groupId: 1,
      highestblockNumber: 0,
      leaderFailed: false,
      max_faulty_leader: 0,
      'node index': 0,
      node_index: 0,
      nodeId: h.node.nodeId,
      nodeNum: 1,
      omitEmptyBlock: true,
      protocolId: 65544,
      'sealer.0': h.node.nodeId,
      toView: 0,
    });
    expect(status[0]!.highestblockHash).toMatch(HASH);
    expect(status[1]).toEqual({
      prepareCache_blockHash: `0x${'0'.repeat(64)}`,
      prepareCache_height: -1,
      prepareCache_idx: '65535',
      prepareCache_view: '0',
    });
    expect(Object.keys(status[2]!)[0]).toBe('rawPrepareCache_blockHash');
    expect(Object.keys(status[3]!)[0]).toBe('committedPrepareCache_blockHash');
    expect(Object.keys(status[4]!)).toEqual(['futureCache_blockHash', 'futureCache_height', 'futureCache_idx', 'futureCache_view']);
    expect(status.slice(5)).toEqual([{ signCache_cachedSize: '0' }, { commitCache_cachedSize: '0' }, { viewChangeCache_cachedSize: '0' }]);
  });

  it('Raft: one status object with leaderId and leaderIdx; getPbftView is -40007', async () => {
    const h = await rpcHarness({ consensus: 'raft' });
    const status = await h.result<Array<Record<string, unknown>>>('getConsensusStatus', [1]);
    expect(status).toHaveLength(1);
    expect(status[0]).toMatchObject({ leaderId: h.node.nodeId, leaderIdx: 0, protocolId: 65547, 'node index': 0, nodeNum: 1 });
    expect(status[0]).not.toHaveProperty('currentView');
    expect((await h.rpc('getPbftView', [1])).error).toEqual({ code: -40007, message: 'Only pbft consensus supports the view property', data: 'group 1 runs raft consensus' });
  });

  it('Raft, earlier variant: getPbftView answers code 7 with the same message and data null, as its example shows', async () => {
    const h = await rpcHarness({ consensus: 'raft', supportedVersion: '2.0.0-rc1' });
    expect((await h.rpc('getPbftView', [1])).error).toEqual({ code: 7, message: 'Only pbft consensus supports the view property', data: null });
  });

  it('getSyncStatus: JSON numbers, 0x hashes, decimal-string txPoolSize; known* only in the later variant', async () => {
    const later = await (await rpcHarness()).result<Record<string, unknown>>('getSyncStatus', [1]);
    expect(later).toMatchObject({ blockNumber: 0, isSyncing: false, knownHighestNumber: 0, protocolId: 65545, txPoolSize: '0', peers: [] });
    for (const key of ['genesisHash', 'latestHash', 'knownLatestHash']) expect(later[key]).toMatch(HASH);
    expect(later.nodeId).toMatch(NODE_ID);
    const earlier = await (await rpcHarness({ supportedVersion: '2.0.0-rc1' })).result<Record<string, unknown>>('getSyncStatus', [1]);
    expect(Object.keys(earlier).sort()).toEqual(['blockNumber', 'genesisHash', 'isSyncing', 'latestHash', 'nodeId', 'peers', 'protocolId', 'txPoolSize']);
  });

  it('getSystemConfigByKey answers tx_count_limit and tx_gas_limit only (-40008 otherwise)', async () => {
    const h = await rpcHarness({ txCountLimit: 500 });
    expect(await h.result('getSystemConfigByKey', [1, 'tx_count_limit'])).toBe('500');
    expect(await h.result('getSystemConfigByKey', [1, 'tx_gas_limit'])).toBe('300000000');
    for (const key of ['consensus_timeout', 'TX_COUNT_LIMIT', '', 'x'.repeat(10_000)]) {
      expect((await h.rpc('getSystemConfigByKey', [1, key])).error).toMatchObject({ code: -40008, message: 'Invalid System Config' });
    }
  });

  it('group checks: -40001 for an unknown group, -40009 for a group the node keeps without belonging to it', async () => {
    const h = await rpcHarness({ removedGroupIds: [2] });
    expect(await h.result('getGroupList')).toEqual([1]);
    expect((await h.rpc('getBlockNumber', [3])).error).toMatchObject({ code: -40001, message: 'GroupID does not exist' });
    expect((await h.rpc('getBlockNumber', [0])).error?.code).toBe(-40001);
    for (const method of ['getBlockNumber', 'getSealerList', 'getGroupPeers', 'getPendingTxSize']) {
      expect((await h.rpc(method, [2])).error).toMatchObject({
        code: -40009,
        message: "Don't send requests to this group, the node doesn't belong to the group",
      });
    }
    expect((await h.rpc('sendRawTransaction', [2, 'f8'])).error?.code).toBe(-40009);
  });

  it('a group whose store failed answers nothing from memory: -32603 saying why, for every group method', async () => {
    const h = await rpcHarness();
    expect(await h.result('getBlockNumber', [1])).toBe('0x0');
    const node = h.node as unknown as { group: (id: number) => unknown; stoppedGroup: (id: number) => string | undefined };
    node.group = () => undefined;
    node.stoppedGroup = (id) => (id === 1 ? 'group 1 stopped after a storage failure (write of /n/data/group1 failed: EIO)' : undefined);
    for (const method of ['getBlockNumber', 'getSyncStatus', 'getPendingTxSize']) {
      const { error } = await h.rpc(method, [1]);
      expect(error?.code).toBe(-32603);
      expect(error?.message).toMatch(/^INTERNAL ERROR: group 1 stopped after a storage failure \(write of \/n\/data\/group1 failed: EIO\); the node is stopping$/);
    }
    expect((await h.rpc('getBlockNumber', [2])).error?.code).toBe(-40001);
  });

  it('call: -40006 without from; -32602 for a malformed request object', async () => {
    const h = await rpcHarness();
    const to = `0x${'11'.repeat(20)}`;
    for (const request of [{ to }, { from: '', to }, { from: null, to }]) {
      expect((await h.rpc('call', [1, request])).error).toMatchObject({ code: -40006, message: "Call needs a 'from' field" });
    }
    const bad = [
      [[1, 'not an object'], 'request'],
      [[1, [to]], 'request'],
      [[1, { from: 'xyz', to }], 'request.from'],
      [[1, { from: to }], 'request.to'],
      [[1, { from: to, to: `${to}00` }], 'request.to'],
      [[1, { from: to, to, data: '0x123' }], 'request.data'],
      [[1, { from: to, to, value: 'ten' }], 'request.value'],
    ] as const;
    for (const [params, name] of bad) {
      const error = (await h.rpc('call', [...params])).error;
      expect(error?.code).toBe(-32602);
      expect(error?.message).toContain(name);
    }
    const ok = await h.result<Record<string, string>>('call', [1, { from: to, to, gas: '0x1' }]);
    expect(ok).toMatchObject({ currentBlockNumber: '0x0', status: '0x1a' }); // CallAddressError: no contract there
  });
});

describe('sendRawTransaction admission', () => {
  it('names the status and the reason for every refusal, in FISCO\'s order', async () => {
    const h = await rpcHarness();
    const message = async (raw: string) => (await h.rpc('sendRawTransaction', [1, raw])).error;
    const tx = h.deployTx();
    expect(await message('')).toMatchObject({ code: -32603, message: 'BadRLP (2): empty payload', data: { status: '0x2', name: 'BadRLP' } });
    expect((await message('c0'))?.message).toMatch(/^InvalidFormat \(3\): /);
    expect((await message('0xzz'))?.code).toBe(-32602);
    const signature = tx.signature.kind === 'ecdsa' ? { ...tx.signature, s: SECP256K1_N - tx.signature.s } : tx.signature;
    const highS = toHex(encodeSignedTransaction(tx.body, tx.generation, signature));
    expect((await message(highS))?.message).toMatch(/^InvalidSignature \(5\): field s: /);

    expect((await h.send(h.deployTx(0n))).error).toMatchObject({
      code: -32603,
      message: 'BlockLimitCheckFail (16): blockLimit 0 not in (0, 1000]',
      data: { status: '0x10', name: 'BlockLimitCheckFail' },
    });
    expect((await h.send(h.deployTx(1001n))).error?.message).toBe('BlockLimitCheckFail (16): blockLimit 1001 not in (0, 1000]');
    expect((await h.send(tx)).result).toBe(toHex(tx.hash));
    expect((await h.send(tx)).error?.message).toBe(`AlreadyKnown (10000): transaction ${toHex(tx.hash)} is already in the pool`);
    const sameNonce = h.user.build({ to: null, data: fromHex('00'), blockLimit: 10n, nonce: tx.body.nonce });
    expect((await h.send(sameNonce)).error?.message).toBe(`NonceCheckFail (15): nonce 0x${tx.body.nonce.toString(16)} is already used by a pending transaction`);
    await h.node.seal();
    expect((await h.send(tx)).error?.message).toBe(`AlreadyInChain (10001): transaction ${toHex(tx.hash)} is already on chain`);
    expect((await h.send(sameNonce)).error?.message).toBe(`NonceCheckFail (15): nonce 0x${tx.body.nonce.toString(16)} was already used in block 1`);
  });

  it('checks chainId and groupId of rc2 payloads', async () => {
    const h = await rpcHarness({ chainId: 7 });
    const { TransactionBuilder } = await import('../chain/index.js');
    const { seededRandom } = await import('./testing/index.js');
    const make = (chainId: bigint, groupId: bigint) =>
      new TransactionBuilder({ suite: h.group.suite, generation: 'rc2', key: h.group.suite.generateKeyPair(seededRandom('x')), random: seededRandom('y'), chainId, groupId }).build({
        to: null,
        blockLimit: 100n,
      });
    expect((await h.send(make(1n, 1n))).error?.message).toBe('InvalidChainId (10002): chainId 1, but this chain is 7');
    expect((await h.send(make(7n, 2n))).error?.message).toBe('InvalidGroupId (10003): groupId 2, but it was sent to group 1');
    expect((await h.send(make(7n, 1n))).result).toMatch(HASH);
  });

  it('takes the payload with or without 0x, and drops transactions whose blockLimit passed when sealing', async () => {
    const h = await rpcHarness({ txCountLimit: 1 });
    const first = h.deployTx(500n);
    const late = h.callTx(fromHex('11'.repeat(20)), new Uint8Array(0), 1n);
    expect((await h.rpc('sendRawTransaction', [1, toHex(first.raw)])).result).toBe(toHex(first.hash));
    expect((await h.send(late)).result).toBe(toHex(late.hash));
    expect((await h.node.seal())?.block.transactions).toHaveLength(1);
    expect(await h.result('getPendingTxSize', [1])).toBe('0x1');
    expect(await h.node.seal()).toBeUndefined();
    expect(await h.result('getPendingTxSize', [1])).toBe('0x0');
    expect(await h.result('getTransactionReceipt', [1, toHex(late.hash)])).toBeNull();
    expect(await h.result('getBlockNumber', [1])).toBe('0x1');
  });
});

describe('SM (guomi) chains', () => {
  it('report " gm" in the version and take SM2-signed payloads', async () => {
    const h = await rpcHarness({ suite: 'sm' });
    expect((await h.result<Record<string, string>>('getClientVersion'))['FISCO-BCOS Version']).toBe('2.11.0 gm');
    const tx = h.deployTx();
    expect((await h.send(tx)).result).toBe(toHex(tx.hash));
    await h.node.seal();
    const full = await h.result<{ transactions: Array<{ signature: { v: string; signature: string } }> }>('getBlockByNumber', [1, '0x1', true]);
    expect(full.transactions[0]!.signature.v).toMatch(/^0x[0-9a-f]{128}$/);
    expect(full.transactions[0]!.signature.signature).toMatch(/^0x[0-9a-f]{256}$/);
  });
});

describe('concurrent submissions', () => {
  it('admit a transaction once when it arrives twice at the same time', async () => {
    const h = await rpcHarness();
    const tx = h.deployTx();
    const replies = await Promise.all([h.send(tx), h.send(tx), h.send(tx)]);
    expect(replies.filter((r) => r.result === toHex(tx.hash))).toHaveLength(1);
    expect(replies.filter((r) => r.error?.message.startsWith('AlreadyKnown'))).toHaveLength(2);
    expect(await h.result('getPendingTxSize', [1])).toBe('0x1');
  });
});

describe('what FISCO accepts (issue 14)', () => {
  const to = `0x${'11'.repeat(20)}`;

  it('call: value 0 (a number), "0", "0x0" and absent are all accepted and answer the same', async () => {
    const h = await rpcHarness();
    const base = { from: to, to };
    const expected = await h.result('call', [1, base]);
    // "" is 0 to jsToU256 (boost's cpp_int reads an empty string as 0), "010" octal 8
    for (const value of [0, '0', '0x0', null, 7, '15', '0xff', '0xFF', '0x', '007', '010', '', 2 ** 60]) {
      expect(await h.result('call', [1, { ...base, value }]), `value ${JSON.stringify(value)}`).toEqual(expected);
    }
  });

  it('call: a value FISCO\'s jsToU256 throws on is -32602 naming request.value', async () => {
    const h = await rpcHarness();
    // "08" and "09" start like octal, which boost's cpp_int then refuses
    for (const value of ['0X0', '-1', -1, 1.5, '1.5', true, 'ten', '0xzz', ' 1', '08', '0179', {}, [0], `0x1${'0'.repeat(64)}`, 2 ** 64]) {
      const error = (await h.rpc('call', [1, { from: to, to, value }])).error;
      expect(error?.code, `value ${JSON.stringify(value)}`).toBe(-32602);
      expect(error?.message).toContain('request.value');
    }
  });

  it('call: data that is not a string is ignored, as FISCO reads data only when it is a string', async () => {
    const h = await rpcHarness();
    const expected = await h.result('call', [1, { from: to, to }]);
    for (const data of [5, true, { a: 1 }, null]) expect(await h.result('call', [1, { from: to, to, data }])).toEqual(expected);
  });

  it.each(['getClientVersion', 'getGroupList'])('%s (declared without parameters) takes any params: none, [], [1], [1, 2, 3], an object', async (method) => {
    const h = await rpcHarness();
    const expected = await h.result(method, []);
    for (const params of [undefined, [], [1], [1, 'x', null], { groupID: 1 }]) {
      const reply = (await h.raw({ jsonrpc: '2.0', id: 5, method, ...(params === undefined ? {} : { params }) })) as { result?: unknown; error?: unknown };
      expect(reply.error, `${method} ${JSON.stringify(params)}`).toBeUndefined();
      expect(reply.result).toEqual(expected);
    }
  });

  it.each(['getPeers', 'getNodeIDList'])('%s takes [1] and refuses [] in both variants', async (method) => {
    for (const supportedVersion of ['2.0.0-rc1', '2.11.0']) {
      const h = await rpcHarness({ supportedVersion });
      expect((await h.rpc(method, [1])).error).toBeUndefined();
      expect((await h.rpc(method, [])).error?.code).toBe(-32602);
      expect((await h.rpc(method, [1, 2])).error?.code).toBe(-32602);
    }
  });

  it.each(['getPeers', 'getNodeIDList'])('%s: the later variant ignores the group id (FISCO never checks it); the earlier checks it', async (method) => {
    const later = await rpcHarness({ removedGroupIds: [2] });
    const expected = await later.result(method, [1]);
    for (const groupId of [2, 99, 0, -5, 2 ** 31 - 1]) expect(await later.result(method, [groupId])).toEqual(expected);
    const earlier = await rpcHarness({ supportedVersion: '2.0.0-rc1', removedGroupIds: [2] });
    expect((await earlier.rpc(method, [2])).error?.code).toBe(-40009);
    expect((await earlier.rpc(method, [99])).error?.code).toBe(-40001);
  });

  it('getNodeIDList (later, node level) lists this node first, as the group-level one does', async () => {
    const h = await rpcHarness();
    const list = await h.result<string[]>('getNodeIDList', [1]);
    expect(list[0]).toBe(h.node.nodeId.replace(/^0x/, ''));
  });

  it('getGroupPeers still checks the group in both variants', async () => {
    for (const supportedVersion of ['2.0.0-rc1', '2.11.0']) {
      const h = await rpcHarness({ supportedVersion });
      expect((await h.rpc('getGroupPeers', [99])).error?.code).toBe(-40001);
      expect((await h.rpc('getGroupPeers', [])).error?.code).toBe(-32602);
    }
  });
});
