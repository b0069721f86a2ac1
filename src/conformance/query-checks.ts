import { check, expectEqual, expectNoProblems, fail, skip, type Check } from './check.js';
import type { ConformanceContext } from './conformance-context.js';
import { fieldProblems, isNodeId, isObject, isQuantity, isUint, matches, presentFields, show } from './shape.js';
import {
  BLOCK_FIELDS,
  CLIENT_VERSION_LATER_ONLY,
  clientVersionFields,
  PBFT_CACHE_ELEMENTS,
  PBFT_STATUS_FIELDS,
  PEER_FIELDS,
  pendingFields,
  RAFT_STATUS_FIELDS,
  SYNC_LATER_ONLY,
  SYNC_PEER_FIELDS,
  syncStatusFields,
  totalsFields,
} from './spec-shapes.js';

function expectQuantity(value: unknown, what: string): void {
  if (!isQuantity(value)) fail(`${what} should be a 0x hex quantity, got ${show(value)}`);
}

function expectNodeIds(value: unknown, what: string): string[] {
  if (!Array.isArray(value)) fail(`${what} should be an array, got ${show(value)}`);
  const bad = value.filter((v) => !isNodeId(v));
  if (bad.length > 0) fail(`${what}: ${show(bad[0])} is not a node id (128 hex characters without 0x)`);
  return value as string[];
}

/** sealer.0 … sealer.(n-1): one key per sealer, each a node id, in the sealer list's order. */
function sealerKeyProblems(status: Record<string, unknown>, sealers: readonly string[]): string[] {
  const keys = Object.keys(status).filter((k) => k.startsWith('sealer.'));
  const problems: string[] = [];
  if (keys.length !== sealers.length) problems.push(`${keys.length} sealer.<index> keys for ${sealers.length} sealers`);
  sealers.forEach((id, i) => {
    if (status[`sealer.${i}`] !== id) problems.push(`sealer.${i} is ${show(status[`sealer.${i}`])}, getSealerList says ${id.slice(0, 16)}...`);
  });
  return problems;
}

/**
 * FISCO's protocolId of the group's module: (groupId << 16) | module, but (groupId << 8) | module
 * while supported_version is 2.0.0-rc1 (an rc1 node, the earlier variant, or a later one so configured).
 */
function protocolIdProblems(status: Record<string, unknown>, ctx: ConformanceContext, module: number, what: string): string[] {
  const rc1 = ctx.variant === 'earlier' || (isObject(ctx.clientVersion) && ctx.clientVersion['Supported Version'] === '2.0.0-rc1');
  const expected = ctx.groupId * (rc1 ? 256 : 65536) + module;
  return isUint(status.protocolId) && status.protocolId !== expected ? [`${what}.protocolId is ${status.protocolId}, FISCO's for group ${ctx.groupId} is ${expected}`] : [];
}

async function genesis(ctx: ConformanceContext): Promise<Record<string, unknown>> {
  const block = await ctx.call<unknown>('getBlockByNumber', [ctx.groupId, '0x0', false]);
  if (!isObject(block)) fail(`getBlockByNumber(0x0) is not an object: ${show(block)}`);
  return block;
}

export const queryChecks: readonly Check[] = [
  check('queries', `getClientVersion: the documented version fields`, async (ctx) => {
    const v = ctx.clientVersion;
    const problems = fieldProblems(v, clientVersionFields(ctx.variant), 'version');
    if (isObject(v)) {
      const product = Object.keys(v).filter((k) => k.endsWith(' Version') && k !== 'Supported Version');
      if (product.length !== 1) problems.push(`expected one "<product> Version" field, found ${show(product)}`);
      else if (typeof v[product[0]!] !== 'string') problems.push(`"${product[0]}" is not a string`);
    }
    expectNoProblems(problems);
  }),
  check('variant', 'getClientVersion: Chain Id and Supported Version only in the later variant', async (ctx) => {
    if (ctx.variant === 'later') return 'present, as the later variant has them';
    expectNoProblems(presentFields(ctx.clientVersion, CLIENT_VERSION_LATER_ONLY, 'version', 'only the later variant has'));
  }),
  check('queries', 'getBlockNumber: a hex quantity', async (ctx) => {
    expectQuantity(await ctx.call('getBlockNumber', [ctx.groupId]), 'block number');
  }),
  check('queries', 'getPbftView: a hex quantity (PBFT)', async (ctx) => {
    if (ctx.consensus !== 'pbft') skip('the group runs Raft (see the -40007 check)');
    expectQuantity(await ctx.call('getPbftView', [ctx.groupId]), 'view');
  }),
  check('queries', 'getSealerList: node ids without 0x', async (ctx) => {
    const sealers = expectNodeIds(await ctx.call('getSealerList', [ctx.groupId]), 'sealer list');
    if (sealers.length === 0) fail('a group has at least one sealer, the list is empty');
  }),
  check('queries', 'getObserverList: node ids without 0x', async (ctx) => {
    expectNodeIds(await ctx.call('getObserverList', [ctx.groupId]), 'observer list');
  }),
  check('queries', 'getConsensusStatus: the documented element layout (PBFT or Raft)', async (ctx) => {
    const status = await ctx.call<unknown>('getConsensusStatus', [ctx.groupId]);
    if (!Array.isArray(status) || status.length === 0) fail(`expected a non-empty array, got ${show(status)}`);
    const sealers = expectNodeIds(await ctx.call('getSealerList', [ctx.groupId]), 'sealer list');
    const first = status[0] as Record<string, unknown>;
    if (ctx.consensus === 'raft') {
      if (status.length !== 1) fail(`Raft: the array has one object, got ${status.length} elements`);
      const problems = [...fieldProblems(first, RAFT_STATUS_FIELDS, 'status'), ...(isObject(first) ? protocolIdProblems(first, ctx, 11, 'status') : [])];
      if (isObject(first) && first.leaderId !== '' && !isNodeId(first.leaderId)) problems.push(`leaderId ${show(first.leaderId)} is not a node id`);
      expectNoProblems([...problems, ...(isObject(first) ? sealerKeyProblems(first, sealers) : [])]);
      return 'Raft: one object';
    }
    const problems = [...fieldProblems(first, PBFT_STATUS_FIELDS, 'element 0'), ...(isObject(first) ? [...sealerKeyProblems(first, sealers), ...protocolIdProblems(first, ctx, 8, 'element 0')] : [])];
    if (status.length !== 1 + PBFT_CACHE_ELEMENTS.length) {
      problems.push(`PBFT: expected ${1 + PBFT_CACHE_ELEMENTS.length} elements (status, 4 caches, 3 cache sizes), got ${status.length}`);
    } else {
      PBFT_CACHE_ELEMENTS.forEach((fields, i) => problems.push(...fieldProblems(status[i + 1], fields, `element ${i + 1}`)));
    }
    expectNoProblems(problems);
    return 'PBFT: status and 7 cache elements';
  }),
  check('queries', 'getSyncStatus: JSON numbers, 0x hashes, decimal-string txPoolSize', async (ctx) => {
    const status = await ctx.call<unknown>('getSyncStatus', [ctx.groupId]);
    const problems = [...fieldProblems(status, syncStatusFields(ctx.variant), 'sync status'), ...(isObject(status) ? protocolIdProblems(status, ctx, 9, 'sync status') : [])];
    if (isObject(status) && Array.isArray(status.peers)) status.peers.forEach((p, i) => problems.push(...fieldProblems(p, SYNC_PEER_FIELDS, `peers[${i}]`)));
    expectNoProblems(problems);
  }),
  check('variant', 'getSyncStatus: knownHighestNumber and knownLatestHash only in the later variant', async (ctx) => {
    if (ctx.variant === 'later') return 'present, as the later variant has them';
    const status = await ctx.call<unknown>('getSyncStatus', [ctx.groupId]);
    expectNoProblems(presentFields(status, SYNC_LATER_ONLY, 'sync status', 'only the later variant has'));
  }),
  check('queries', 'getPeers: IPAndPort, nodeId and Topic per peer', async (ctx) => {
    const peers = await ctx.call<unknown>('getPeers', [ctx.groupId]);
    if (!Array.isArray(peers)) fail(`expected an array, got ${show(peers)}`);
    const problems = peers.flatMap((p, i) => fieldProblems(p, PEER_FIELDS, `peer ${i}`));
    peers.forEach((p: Record<string, unknown>, i) => {
      if (typeof p?.IPAndPort === 'string' && !/^.+:\d+$/.test(p.IPAndPort)) problems.push(`peer ${i}: IPAndPort ${show(p.IPAndPort)} is not <ip>:<port>`);
    });
    expectNoProblems(problems);
    return `${peers.length} peer${peers.length === 1 ? '' : 's'}`;
  }),
  check('queries', 'getGroupPeers: node ids of every sealer and observer', async (ctx) => {
    const peers = expectNodeIds(await ctx.call('getGroupPeers', [ctx.groupId]), 'group peers');
    const members = [
      ...expectNodeIds(await ctx.call('getSealerList', [ctx.groupId]), 'sealer list'),
      ...expectNodeIds(await ctx.call('getObserverList', [ctx.groupId]), 'observer list'),
    ];
    const missing = members.filter((id) => !peers.includes(id));
    if (missing.length > 0) fail(`${missing.length} sealer/observer id(s) missing, e.g. ${missing[0]!.slice(0, 16)}...`);
  }),
  check('queries', `getNodeIDList: node ids, this node's among them`, async (ctx) => {
    const ids = expectNodeIds(await ctx.call('getNodeIDList', [ctx.groupId]), 'node id list');
    const sync = await ctx.call<Record<string, unknown>>('getSyncStatus', [ctx.groupId]);
    if (isObject(sync) && typeof sync.nodeId === 'string' && !ids.includes(sync.nodeId)) fail(`this node's id (getSyncStatus.nodeId) is not listed`);
  }),
  check('queries', 'getGroupList: JSON numbers, the group among them', async (ctx) => {
    const groups = await ctx.call<unknown>('getGroupList', []);
    if (!Array.isArray(groups) || !groups.every(isUint)) fail(`expected an array of unsigned integers, got ${show(groups)}`);
    if (!groups.includes(ctx.groupId)) fail(`group ${ctx.groupId} is not in ${show(groups)}`);
  }),
  check('queries', `getBlockByNumber: the documented block fields (genesis block)`, async (ctx) => {
    const block = await genesis(ctx);
    const problems = fieldProblems(block, BLOCK_FIELDS, 'block 0');
    if (block.number !== '0x0') problems.push(`number is ${show(block.number)}, not "0x0"`);
    if (typeof block.logsBloom === 'string' && block.logsBloom.length !== 2 + 512) problems.push(`logsBloom has ${block.logsBloom.length - 2} hex digits, not 512`);
    expectNoProblems(problems);
  }),
  check('queries', 'getBlockByHash: the same block as by number', async (ctx) => {
    const byNumber = await genesis(ctx);
    const byHash = await ctx.call('getBlockByHash', [ctx.groupId, byNumber.hash, false]);
    expectEqual(byHash, byNumber, 'getBlockByHash(hash of block 0)');
  }),
  check('queries', 'getBlockHashByNumber: the block hash', async (ctx) => {
    const block = await genesis(ctx);
    expectEqual(await ctx.call('getBlockHashByNumber', [ctx.groupId, '0x0']), block.hash, 'getBlockHashByNumber(0x0)');
  }),
  check('variant', 'block number parameter: decimal accepted only in the later variant', async (ctx) => {
    const reply = await ctx.rpc('getBlockHashByNumber', [ctx.groupId, '0']);
    if (ctx.variant === 'later') {
      if (reply.error) fail(`"0" was refused: ${reply.error.code} ${reply.error.message}`);
      expectEqual(reply.result, (await genesis(ctx)).hash, 'getBlockHashByNumber("0")');
      return 'decimal "0" accepted';
    }
    if (!reply.error) fail(`the earlier variant takes 0x hex only, but "0" was accepted`);
    return `decimal "0" refused with ${reply.error.code}`;
  }),
  check('queries', 'getPendingTxSize: a hex quantity', async (ctx) => {
    expectQuantity(await ctx.call('getPendingTxSize', [ctx.groupId]), 'pending size');
  }),
  check('queries', 'getPendingTransactions: a list of pending transactions', async (ctx) => {
    const list = await ctx.call<unknown>('getPendingTransactions', [ctx.groupId]);
    if (!Array.isArray(list)) fail(`expected an array, got ${show(list)}`);
    expectNoProblems(list.flatMap((p, i) => fieldProblems(p, pendingFields(ctx.variant), `pending[${i}]`)));
    return `${list.length} pending now`;
  }),
  check('queries', 'getCode: "0x" where no contract lives', async (ctx) => {
    const code = await ctx.call('getCode', [ctx.groupId, `0x${'7c'.repeat(20)}`]);
    expectEqual(code, '0x', 'getCode(an address without code)');
  }),
  check('queries', 'getTotalTransactionCount: hex blockNumber and txSum (+ failedTxSum, later)', async (ctx) => {
    const totals = await ctx.call<unknown>('getTotalTransactionCount', [ctx.groupId]);
    const problems = fieldProblems(totals, totalsFields(ctx.variant), 'totals');
    if (ctx.variant === 'earlier') problems.push(...presentFields(totals, ['failedTxSum'], 'totals', 'only the later variant has'));
    expectNoProblems(problems);
  }),
  check('queries', 'getSystemConfigByKey: tx_count_limit and tx_gas_limit as strings', async (ctx) => {
    const values: string[] = [];
    for (const key of ['tx_count_limit', 'tx_gas_limit']) {
      const value = await ctx.call('getSystemConfigByKey', [ctx.groupId, key]);
      if (!matches(value, 'decimalString')) fail(`${key} is ${show(value)}, expected a string of digits`);
      values.push(`${key}=${String(value)}`);
    }
    return values.join(', ');
  }),
  check('queries', 'an unknown transaction hash gives null (getTransactionByHash, getTransactionReceipt)', async (ctx) => {
    const hash = `0x${'5e'.repeat(32)}`;
    expectEqual(await ctx.call('getTransactionByHash', [ctx.groupId, hash]), null, 'getTransactionByHash');
    expectEqual(await ctx.call('getTransactionReceipt', [ctx.groupId, hash]), null, 'getTransactionReceipt');
  }),
];
