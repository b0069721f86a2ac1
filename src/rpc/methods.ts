import { ProtocolVersion } from '../chain/index.js';
import { toHex, toQuantity, type InterfaceVariant } from '../codec/index.js';
import type { GroupApi, NodeApi } from '../node/index.js';
import { noPbftViewError, rejectionError, rpcError } from './errors.js';
import {
  formatBlock,
  formatClientVersion,
  formatConsensusStatus,
  formatPeers,
  formatPending,
  formatReceipt,
  formatSyncStatus,
  formatTotals,
  formatTransaction,
} from './format.js';
import {
  addressParam,
  blockNumberParam,
  booleanParam,
  bytesParam,
  callValueParam,
  groupIdParam,
  jsonIntParam,
  hashParam,
  invalidParam,
  stringParam,
  transactionIndexParam,
} from './params.js';

export interface MethodContext {
  readonly node: NodeApi;
  /** The interface variant in force: the group's for group-scoped methods, else the node's. */
  readonly variant: InterfaceVariant;
}

export interface GroupMethodContext extends MethodContext {
  readonly group: GroupApi;
}

interface NodeMethod {
  readonly scope: 'node';
  /**
   * Parameter names, in order; the count must match exactly. A method declared without
   * parameters takes any `params` (extra values, an object, none): FISCO's JSON-RPC library
   * (libjson-rpc-cpp 0.7.0, Procedure::ValdiateParameters) skips the check when a procedure
   * declares no parameters.
   */
  readonly params: readonly string[];
  run(args: readonly unknown[], ctx: MethodContext): unknown;
}

/**
 * A method whose first parameter is groupID. Before `run`, the group is resolved: an id the node
 * keeps no ledger for is -40001; a group whose ledger the node keeps while it is neither sealer
 * nor observer (e.g. removed) is -40009. FISCO's checkRequest does both for every group-scoped
 * method, getPeers and getNodeIDList included, and so do we.
 */
interface GroupMethod {
  readonly scope: 'group';
  readonly params: readonly string[];
  run(args: readonly unknown[], ctx: GroupMethodContext): unknown;
  /**
   * getPeers and getNodeIDList of the later variant: FISCO ≥ 2.x declares them `getPeers(int)`
   * and never reads the value (no checkRequest), so any JSON integer FISCO's library accepts
   * (isInt: -2^31 .. 2^31-1) answers, known group or not. The earlier variant checks the group.
   */
  readonly runNodeLevel?: (ctx: MethodContext) => unknown;
}

export type MethodSpec = NodeMethod | GroupMethod;

/** SPEC's Limits: only these two keys are queryable. consensus_timeout (FISCO ≥ 2.6) is -40008, as SPEC lists no more. */
const QUERYABLE_CONFIG = new Set(['tx_count_limit', 'tx_gas_limit']);

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

function noPrefix(id: string): string {
  return id.startsWith('0x') ? id.slice(2) : id;
}

/** The variant of the node as a whole (getClientVersion), from its supported_version. */
export function nodeVariant(node: NodeApi): InterfaceVariant {
  try {
    return ProtocolVersion.parse(node.clientVersion().supportedVersion).interfaceVariant;
  } catch {
    return 'later';
  }
}

async function blockAt(group: GroupApi, number: bigint) {
  const head = group.blockNumber();
  if (number > BigInt(head) || number > MAX_SAFE) {
    throw rpcError('blockNumberNotFound', `block ${toQuantity(number)} is beyond the head ${toQuantity(head)} of group ${group.groupId}`);
  }
  const stored = await group.blockByNumber(Number(number));
  if (!stored) throw rpcError('blockNumberNotFound', `group ${group.groupId} has no block ${toQuantity(number)}`);
  return stored;
}

async function blockWithHash(group: GroupApi, hash: Uint8Array) {
  const stored = await group.blockByHash(hash);
  if (!stored) throw rpcError('blockHashNotFound', `group ${group.groupId} has no block with hash ${toHex(hash)}`);
  return stored;
}

function transactionAt(stored: Awaited<ReturnType<typeof blockAt>>, indexValue: unknown, variant: InterfaceVariant) {
  const index = transactionIndexParam(indexValue, variant);
  const count = stored.block.transactions.length;
  if (index >= BigInt(count)) {
    throw rpcError(
      'transactionIndexOutOfRange',
      `block ${toQuantity(stored.block.header.number)} has ${count} transaction${count === 1 ? '' : 's'}, index ${toQuantity(index)} is beyond them`,
    );
  }
  const i = Number(index);
  return formatTransaction(
    stored.block.transactions[i]!,
    stored.senders[i]!,
    { blockHash: stored.hash, blockNumber: stored.block.header.number, index: i },
    variant,
  );
}

function callRequest(value: unknown) {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalidParam('request', value, 'expected an object with from, to, value and data');
  }
  const request = value as Record<string, unknown>;
  if (request.from === undefined || request.from === null || request.from === '') {
    throw rpcError('callNeedsFrom', 'the call request object has no from address');
  }
  if (request.to === undefined || request.to === null) throw invalidParam('request.to', request.to, 'the address to call is required');
  const from = addressParam(request.from, 'request.from');
  const to = addressParam(request.to, 'request.to');
  // FISCO reads value with jsToU256(asString()): 0, "0", "0x0" and absent all pass. It moves no value here.
  callValueParam(request.value);
  // FISCO reads data only when it is a string (toTransactionSkeleton: `_json["data"].isString()`); other types are ignored.
  const data = typeof request.data === 'string' ? bytesParam(request.data, 'request.data') : new Uint8Array(0);
  return { from, to, data };
}

/** The 25 methods; docs/json-rpc.md documents each (src/rpc/json-rpc-doc.test.ts holds it to this table). */
export const METHODS: Readonly<Record<string, MethodSpec>> = {
  getClientVersion: {
    scope: 'node',
    params: [],
    run: (_args, { node, variant }) => formatClientVersion(node.clientVersion(), variant),
  },
  getGroupList: {
    scope: 'node',
    params: [],
    // "the group IDs the node belongs to": a group it was removed from (-40009) is not listed.
    run: (_args, { node }) => node.groupIds().filter((id) => (node.group(id)?.membership() ?? 'none') !== 'none'),
  },
  getBlockNumber: {
    scope: 'group',
    params: ['groupID'],
    run: (_args, { group }) => toQuantity(group.blockNumber()),
  },
  getPbftView: {
    scope: 'group',
    params: ['groupID'],
    run: (_args, { group, variant }) => {
      const view = group.pbftView();
      if (view === undefined) throw noPbftViewError(variant, `group ${group.groupId} runs ${group.consensusType} consensus`);
      return toQuantity(view);
    },
  },
  getSealerList: {
    scope: 'group',
    params: ['groupID'],
    run: (_args, { group }) => group.sealers().map(noPrefix),
  },
  getObserverList: {
    scope: 'group',
    params: ['groupID'],
    run: (_args, { group }) => group.observers().map(noPrefix),
  },
  getConsensusStatus: {
    scope: 'group',
    params: ['groupID'],
    run: (_args, { group }) => formatConsensusStatus(group.consensusStatus()),
  },
  getSyncStatus: {
    scope: 'group',
    params: ['groupID'],
    run: (_args, { group, variant }) => formatSyncStatus(group.syncStatus(), variant),
  },
  getPeers: {
    scope: 'group',
    params: ['groupID'],
    run: (_args, { node, variant }) => formatPeers(node.peers(), variant),
    runNodeLevel: ({ node, variant }) => formatPeers(node.peers(), variant),
  },
  getGroupPeers: {
    scope: 'group',
    params: ['groupID'],
    run: (_args, { group }) => group.groupPeers().map(noPrefix),
  },
  getNodeIDList: {
    scope: 'group',
    params: ['groupID'],
    run: (_args, { group }) => group.nodeIdList().map(noPrefix),
    // FISCO: this node's id, then every connected session's.
    runNodeLevel: ({ node }) => [noPrefix(node.nodeId), ...node.peers().map((p) => noPrefix(p.nodeId)).filter((id) => id !== noPrefix(node.nodeId))],
  },
  getBlockByHash: {
    scope: 'group',
    params: ['groupID', 'blockHash', 'includeTransactions'],
    run: async ([, hash, include], { group, variant }) => {
      const h = hashParam(hash, 'blockHash');
      const full = booleanParam(include, 'includeTransactions');
      return formatBlock(await blockWithHash(group, h), full, variant);
    },
  },
  getBlockByNumber: {
    scope: 'group',
    params: ['groupID', 'blockNumber', 'includeTransactions'],
    run: async ([, number, include], { group, variant }) => {
      const n = blockNumberParam(number, variant);
      const full = booleanParam(include, 'includeTransactions');
      return formatBlock(await blockAt(group, n), full, variant);
    },
  },
  getBlockHashByNumber: {
    scope: 'group',
    params: ['groupID', 'blockNumber'],
    run: async ([, number], { group, variant }) => toHex((await blockAt(group, blockNumberParam(number, variant))).hash),
  },
  getTransactionByHash: {
    scope: 'group',
    params: ['groupID', 'transactionHash'],
    run: async ([, hash], { group, variant }) => {
      const record = await group.transaction(hashParam(hash, 'transactionHash'));
      if (!record) return null;
      return formatTransaction(record.transaction, record.sender, { blockHash: record.blockHash, blockNumber: record.blockNumber, index: record.index }, variant);
    },
  },
  getTransactionByBlockHashAndIndex: {
    scope: 'group',
    params: ['groupID', 'blockHash', 'transactionIndex'],
    run: async ([, hash, index], { group, variant }) => {
      const h = hashParam(hash, 'blockHash');
      transactionIndexParam(index, variant);
      return transactionAt(await blockWithHash(group, h), index, variant);
    },
  },
  getTransactionByBlockNumberAndIndex: {
    scope: 'group',
    params: ['groupID', 'blockNumber', 'transactionIndex'],
    run: async ([, number, index], { group, variant }) => {
      const n = blockNumberParam(number, variant);
      transactionIndexParam(index, variant);
      return transactionAt(await blockAt(group, n), index, variant);
    },
  },
  getTransactionReceipt: {
    scope: 'group',
    params: ['groupID', 'transactionHash'],
    run: async ([, hash], { group, variant }) => {
      const record = await group.transaction(hashParam(hash, 'transactionHash'));
      return record ? formatReceipt(record, variant) : null;
    },
  },
  getPendingTransactions: {
    scope: 'group',
    params: ['groupID'],
    run: (_args, { group, variant }) => group.pendingTransactions().map((p) => formatPending(p, variant)),
  },
  getPendingTxSize: {
    scope: 'group',
    params: ['groupID'],
    run: (_args, { group }) => toQuantity(group.pendingCount()),
  },
  getCode: {
    scope: 'group',
    params: ['groupID', 'address'],
    run: async ([, address], { group }) => toHex(await group.code(addressParam(address, 'address'))),
  },
  getTotalTransactionCount: {
    scope: 'group',
    params: ['groupID'],
    run: (_args, { group, variant }) => formatTotals(group.totals(), variant),
  },
  getSystemConfigByKey: {
    scope: 'group',
    params: ['groupID', 'key'],
    run: async ([, keyValue], { group }) => {
      const key = stringParam(keyValue, 'key');
      if (!QUERYABLE_CONFIG.has(key)) {
        throw rpcError('invalidSystemConfig', `${JSON.stringify(key.slice(0, 64))} is not a queryable key; use tx_count_limit or tx_gas_limit`);
      }
      const value = await group.systemConfig(key);
      if (value === undefined) throw rpcError('invalidSystemConfig', `group ${group.groupId} has no value for ${key}`);
      return value;
    },
  },
  call: {
    scope: 'group',
    params: ['groupID', 'request'],
    run: async ([, request], { group }) => {
      const result = await group.call(callRequest(request));
      // SPEC's example object; `status` is an extra FISCO sends.
      return { currentBlockNumber: toQuantity(result.blockNumber), output: toHex(result.output), status: toQuantity(result.status) };
    },
  },
  sendRawTransaction: {
    scope: 'group',
    params: ['groupID', 'rlp'],
    run: async ([, rlp], { group }) => {
      const raw = bytesParam(stringParam(rlp, 'rlp'), 'rlp');
      const result = await group.submit(raw);
      if (!result.accepted) throw rejectionError(result.rejection);
      return toHex(result.hash);
    },
  },
};

export const METHOD_NAMES: readonly string[] = Object.keys(METHODS);

function arity(name: string, spec: MethodSpec, args: readonly unknown[]): void {
  if (args.length === spec.params.length || spec.params.length === 0) return;
  const expected = spec.params.length === 0 ? 'no parameters' : `${spec.params.length} parameter${spec.params.length === 1 ? '' : 's'} (${spec.params.join(', ')})`;
  throw rpcError('invalidParams', `${name} takes ${expected}, got ${args.length}`);
}

/** Validate the arguments' count and the group, then run the method. Throws RpcError (or a lower layer's typed error). */
export async function invokeMethod(node: NodeApi, name: string, spec: MethodSpec, args: readonly unknown[]): Promise<unknown> {
  arity(name, spec, args);
  if (spec.scope === 'node') return spec.run(args, { node, variant: nodeVariant(node) });
  if (spec.runNodeLevel) {
    const variant = nodeVariant(node);
    if (variant === 'later') {
      jsonIntParam(args[0], 'groupID');
      return spec.runNodeLevel({ node, variant });
    }
  }
  const groupId = groupIdParam(args[0]);
  const group = node.group(groupId);
  const stopped = group ? undefined : node.stoppedGroup?.(groupId);
  // a group whose store failed answers nothing from what it holds in memory
  if (stopped !== undefined) throw rpcError('internalError', `${stopped}; the node is stopping`);
  if (!group) throw rpcError('groupNotFound', `this node keeps no group ${groupId} (its groups: ${node.groupIds().join(', ') || 'none'})`);
  if (group.membership() === 'none') {
    throw rpcError('notInGroup', `this node keeps group ${groupId}'s ledger but is neither sealer nor observer of it`);
  }
  return spec.run(args, { node, group, variant: group.version.interfaceVariant });
}
