// The console's commands: SPEC's queries, deploy and call, node management, group switching.
// Each prints what FISCO's console 2.x prints for it, or close to it, through `out`.
import type { Abi, AbiParameter, Hex } from 'viem';
import type { ReturnCodeEncoding } from '../chain/index.js';
import { bytesToBigint, fromHex } from '../codec/index.js';
import { decodeLogs, decodeOutputs, encodeDeployData, encodeFunctionData, findFunction, formatValues, isReadOnly, revertReason, signatureOf, toAbiArguments } from './abi-values.js';
import { ConsoleError } from './console-error.js';
import { statusDescription, type ConsoleSession, type Receipt } from './console-session.js';

export interface CommandContext {
  readonly session: ConsoleSession;
  out(text: string): void;
}

export interface ConsoleCommand {
  readonly name: string;
  readonly aliases?: readonly string[];
  /** Argument words after the name, for the usage line. */
  readonly usage: string;
  readonly summary: string;
  readonly minArgs: number;
  /** Most argument words; Infinity for contract arguments. */
  readonly maxArgs: number;
  run(ctx: CommandContext, args: string[]): Promise<void>;
}

export const SEPARATOR = '-'.repeat(93);

const json = (value: unknown) => JSON.stringify(value, null, 4);

function quantityArg(word: string, what: string): string {
  if (!/^(0x[0-9a-fA-F]+|\d+)$/.test(word) || BigInt(word) > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new ConsoleError(`${what} must be a non-negative integer (got "${word}")`);
  }
  return `0x${BigInt(word).toString(16)}`;
}

function hashArg(word: string, what: string): string {
  if (!/^0x[0-9a-fA-F]{64}$/.test(word)) throw new ConsoleError(`${what} must be 0x and 64 hex digits (got "${word}")`);
  return word.toLowerCase();
}

function addressArg(word: string, what: string): string {
  if (!/^0x[0-9a-fA-F]{40}$/.test(word)) throw new ConsoleError(`${what} must be an address, 0x and 40 hex digits (got "${word}")`);
  return word.toLowerCase();
}

function boolArg(word: string | undefined, what: string): boolean {
  if (word === undefined) return false;
  if (word !== 'true' && word !== 'false') throw new ConsoleError(`${what} must be true or false (got "${word}")`);
  return word === 'true';
}

function nodeIdArg(word: string): string {
  const id = word.startsWith('0x') ? word.slice(2) : word;
  if (!/^[0-9a-fA-F]{128}$/.test(id)) throw new ConsoleError(`the node id must be 128 hex digits (a node's conf/node.nodeid), got ${word.length} characters`);
  return id.toLowerCase();
}

/** A query that prints the node's answer: JSON, or a quantity in decimal. */
function query(
  name: string,
  method: string,
  summary: string,
  options: { usage?: string; min?: number; max?: number; params?: (args: string[]) => unknown[]; print?: (result: unknown) => string; nodeLevel?: boolean } = {},
): ConsoleCommand {
  return {
    name,
    usage: options.usage ?? '',
    summary,
    minArgs: options.min ?? 0,
    maxArgs: options.max ?? 0,
    async run(ctx, args) {
      const params = options.nodeLevel ? [] : [ctx.session.group, ...(options.params?.(args) ?? [])];
      const result = await ctx.session.rpc(method, params);
      if (result === null) throw new ConsoleError(`${name}: the node has no such ${/Receipt/.test(method) ? 'receipt' : /Transaction/.test(method) ? 'transaction' : 'item'} (null)`);
      ctx.out(options.print ? options.print(result) : json(result));
    },
  };
}

/** `status 0x16 (revert instruction), revert reason: …` */
function failure(status: string, output: string | undefined): string {
  const reason = revertReason(output);
  return `status ${status} (${statusDescription(status)})${reason !== undefined ? `, revert reason: ${reason}` : ''}`;
}

const decimal = (result: unknown) => String(Number(result as string));

function printReceipt(ctx: CommandContext, contract: { abi: Abi } | undefined, receipt: Receipt, outputs?: readonly AbiParameter[]): boolean {
  const ok = Number(receipt.status) === 0;
  ctx.out(SEPARATOR);
  ctx.out(`transaction status: ${receipt.status}`);
  const reason = revertReason(receipt.output);
  ctx.out(`description: ${statusDescription(receipt.status)}${reason !== undefined ? `, revert reason: ${reason}` : ''}`);
  ctx.out(SEPARATOR);
  if (ok && outputs) {
    ctx.out('Receipt message: Success');
    ctx.out('Return message: Success');
    const values = decodeOutputs(outputs, (receipt.output ?? '0x') as Hex);
    ctx.out(`Return value size:${values.length}`);
    ctx.out(`Return types: (${outputs.map((o) => o.type).join(', ')})`);
    ctx.out(`Return values:${formatValues(values)}`);
    ctx.out(SEPARATOR);
  }
  // a reverted call emitted nothing: no empty "Event logs" under its failure
  if (ok && contract && receipt.logs) {
    ctx.out('Event logs');
    const logs = decodeLogs(contract.abi, receipt.logs);
    ctx.out(logs.length === 0 ? 'Event: {}' : logs.map((l) => `Event: ${l}`).join('\n'));
  }
  return ok;
}

async function resolveAddress(ctx: CommandContext, name: string, word: string): Promise<string> {
  if (word === 'latest') return ctx.session.contracts.latest(ctx.session.group, name);
  const address = addressArg(word, 'the contract address');
  const code = await ctx.session.rpc<string>('getCode', [ctx.session.group, address]);
  if (code === '0x' || code === '') throw new ConsoleError(`there is no contract at ${address} in group ${ctx.session.group}`);
  return address;
}

async function waitReceipt(ctx: CommandContext, hash: string, receipt: Promise<Receipt>): Promise<Receipt> {
  ctx.out(`transaction hash: ${hash}`);
  return receipt;
}

/** Precompiles FISCO's console calls for node and configuration management. */
const CONSENSUS_PRECOMPILE = '0x0000000000000000000000000000000000001003';
const SYSTEM_CONFIG_PRECOMPILE = '0x0000000000000000000000000000000000001000';

const PRECOMPILE_MESSAGES: Record<number, string> = {
  [-50000]: 'permission denied: this account may not do that',
  [-51100]: 'invalid node id',
  [-51101]: 'the last sealer cannot be removed',
  [-51300]: 'invalid configuration value',
  [-50100]: 'table does not exist',
  [-50101]: 'unknown function call',
};

/**
 * A system contract's return code as the node wrote it by its supported_version: an int256; in
 * 2.0.0-rc2 an error code's magnitude (50000 for -50000); in rc1 its magnitude's low byte (80
 * for -50000), read back through the codes this console knows, as FISCO's SDKs read them.
 */
export function readReturnCode(output: Uint8Array, encoding: ReturnCodeEncoding): number {
  const word = output.length >= 32 ? output.subarray(0, 32) : new Uint8Array(32);
  const unsigned = bytesToBigint(word);
  const signed = BigInt.asIntN(256, unsigned);
  if (encoding === 'rc2' && unsigned >= 128n && signed > 0n) return -Number(unsigned);
  if (encoding === 'rc1' && unsigned < 256n) {
    const known = Object.keys(PRECOMPILE_MESSAGES).map(Number).find((code) => (-code & 0xff) === Number(unsigned));
    if (known !== undefined) return known;
  }
  return Number(signed);
}

async function precompileTransaction(ctx: CommandContext, to: string, signature: string, args: string[]): Promise<void> {
  const name = signature.slice(0, signature.indexOf('('));
  const inputs = signature.slice(name.length + 1, -1).split(',').map((type) => ({ type, name: '' }));
  const data = encodeFunctionData({ name, inputs }, args);
  const { hash, receipt } = await ctx.session.transact(to, fromHex(data));
  const r = await receipt;
  if (Number(r.status) !== 0) throw new ConsoleError(`transaction ${hash} failed: ${failure(r.status, r.output)}`);
  const n = readReturnCode(fromHex(r.output ?? '0x'), ctx.session.returnCodes);
  if (n >= 0) {
    ctx.out(JSON.stringify({ code: 0, msg: 'success' }));
    return;
  }
  throw new ConsoleError(JSON.stringify({ code: n, msg: PRECOMPILE_MESSAGES[n] ?? 'the precompiled contract refused' }));
}

const CONFIG_KEYS = ['tx_count_limit', 'tx_gas_limit', 'rpbft_epoch_sealer_num', 'rpbft_epoch_block_num', 'consensus_timeout'];

export const COMMANDS: readonly ConsoleCommand[] = [
  query('getNodeVersion', 'getClientVersion', "the node's version", { nodeLevel: true }),
  query('getPeers', 'getPeers', 'the peers the node is connected to'),
  query('getBlockNumber', 'getBlockNumber', 'the newest block number', { print: decimal }),
  query('getPbftView', 'getPbftView', 'the PBFT view', { print: decimal }),
  query('getSealerList', 'getSealerList', 'the sealers of the group'),
  query('getObserverList', 'getObserverList', 'the observers of the group'),
  query('getConsensusStatus', 'getConsensusStatus', 'the consensus state'),
  query('getSyncStatus', 'getSyncStatus', 'the block sync state'),
  query('getNodeIDList', 'getNodeIDList', 'the node and the nodes it is connected to'),
  query('getGroupPeers', 'getGroupPeers', "the group's sealers and observers"),
  query('getGroupList', 'getGroupList', 'the groups the node belongs to', { nodeLevel: true, print: (r) => JSON.stringify(r) }),
  query('getBlockByHash', 'getBlockByHash', 'a block by its hash', {
    usage: '<blockHash> [includeTransactions: true|false]',
    min: 1,
    max: 2,
    params: (a) => [hashArg(a[0]!, 'the block hash'), boolArg(a[1], 'includeTransactions')],
  }),
  query('getBlockByNumber', 'getBlockByNumber', 'a block by its number', {
    usage: '<blockNumber> [includeTransactions: true|false]',
    min: 1,
    max: 2,
    params: (a) => [quantityArg(a[0]!, 'the block number'), boolArg(a[1], 'includeTransactions')],
  }),
  query('getBlockHashByNumber', 'getBlockHashByNumber', 'the hash of a block', {
    usage: '<blockNumber>',
    min: 1,
    max: 1,
    params: (a) => [quantityArg(a[0]!, 'the block number')],
    print: String,
  }),
  query('getTransactionByHash', 'getTransactionByHash', 'a transaction by its hash', { usage: '<transactionHash>', min: 1, max: 1, params: (a) => [hashArg(a[0]!, 'the transaction hash')] }),
  query('getTransactionByBlockHashAndIndex', 'getTransactionByBlockHashAndIndex', 'a transaction by block hash and index', {
    usage: '<blockHash> <index>',
    min: 2,
    max: 2,
    params: (a) => [hashArg(a[0]!, 'the block hash'), quantityArg(a[1]!, 'the index')],
  }),
  query('getTransactionByBlockNumberAndIndex', 'getTransactionByBlockNumberAndIndex', 'a transaction by block number and index', {
    usage: '<blockNumber> <index>',
    min: 2,
    max: 2,
    params: (a) => [quantityArg(a[0]!, 'the block number'), quantityArg(a[1]!, 'the index')],
  }),
  query('getTransactionReceipt', 'getTransactionReceipt', 'the receipt of a transaction', { usage: '<transactionHash>', min: 1, max: 1, params: (a) => [hashArg(a[0]!, 'the transaction hash')] }),
  query('getPendingTransactions', 'getPendingTransactions', 'the transactions waiting in the pool'),
  query('getPendingTxSize', 'getPendingTxSize', 'how many transactions wait in the pool', { print: decimal }),
  query('getCode', 'getCode', 'the code at an address', { usage: '<address>', min: 1, max: 1, params: (a) => [addressArg(a[0]!, 'the address')], print: String }),
  query('getTotalTransactionCount', 'getTotalTransactionCount', 'transactions and blocks so far', {
    print: (r) => json(Object.fromEntries(Object.entries(r as Record<string, string>).map(([k, v]) => [k, Number(v)]))),
  }),
  query('getSystemConfigByKey', 'getSystemConfigByKey', 'a system configuration value', {
    usage: '<key: tx_count_limit|tx_gas_limit>',
    min: 1,
    max: 1,
    params: (a) => [a[0]],
    print: String,
  }),
  {
    name: 'deploy',
    usage: '<ContractName> [constructor arguments...]',
    summary: 'compile contracts/solidity/<ContractName>.sol and deploy it',
    minArgs: 1,
    maxArgs: Infinity,
    async run(ctx, [name, ...words]) {
      const contract = ctx.session.contracts.compile(name!);
      const constructor = contract.abi.find((item) => item.type === 'constructor') as { inputs: AbiParameter[] } | undefined;
      const inputs = constructor?.inputs ?? [];
      if (words.length !== inputs.length) {
        throw new ConsoleError(`${name}'s constructor takes ${inputs.length} argument(s), got ${words.length}${inputs.length ? `: constructor(${inputs.map((i) => `${i.type} ${i.name}`.trim()).join(', ')})` : ''}`);
      }
      const args = toAbiArguments(inputs, words, signatureOf({ name: `${name}.constructor`, inputs }));
      const data = encodeDeployData(contract.abi, contract.bytecode, args);
      const { hash, receipt } = await ctx.session.transact(null, fromHex(data));
      const r = await waitReceipt(ctx, hash, receipt);
      if (Number(r.status) !== 0) throw new ConsoleError(`deploying ${name} failed: ${failure(r.status, r.output)}`);
      if (!r.contractAddress || /^0x0{40}$/.test(r.contractAddress)) {
        // SPEC's earlier variant (2.0.0-rc1) reports the zero address in every receipt
        ctx.out(`contract address: unknown (the node's receipts carry no contract address: the earlier interface variant; find it with getTransactionReceipt ${hash} on a later-variant node)`);
        ctx.out(`currentAccount: ${ctx.session.account.address}`);
        return;
      }
      ctx.session.contracts.remember(ctx.session.group, name!, r.contractAddress, new Date());
      ctx.out(`contract address: ${r.contractAddress}`);
      ctx.out(`currentAccount: ${ctx.session.account.address}`);
    },
  },
  {
    name: 'call',
    usage: '<ContractName> <contractAddress|latest> <function> [arguments...]',
    summary: 'call a function: a view function is read, any other is sent as a transaction',
    minArgs: 3,
    maxArgs: Infinity,
    async run(ctx, [name, where, functionName, ...words]) {
      const contract = ctx.session.contracts.compile(name!);
      const fn = findFunction(contract.abi, name!, functionName!, words.length);
      const signature = signatureOf(fn);
      const args = toAbiArguments(fn.inputs, words, signature);
      const address = await resolveAddress(ctx, name!, where!);
      const data = encodeFunctionData(fn, args);
      if (isReadOnly(fn)) {
        const result = await ctx.session.call(address, data);
        const ok = Number(result.status) === 0;
        ctx.out(SEPARATOR);
        ctx.out(`Return code: ${Number(result.status)}`);
        const reason = revertReason(result.output);
        ctx.out(`description: ${statusDescription(result.status)}${reason !== undefined ? `, revert reason: ${reason}` : ''}`);
        ctx.out(`Return message: ${ok ? 'Success' : reason ?? statusDescription(result.status)}`);
        ctx.out(SEPARATOR);
        if (!ok) throw new ConsoleError(`${signature} failed: ${failure(result.status, result.output)}`);
        const values = decodeOutputs(fn.outputs, result.output as Hex);
        ctx.out(`Return value size:${values.length}`);
        ctx.out(`Return types: (${fn.outputs.map((o) => o.type).join(', ')})`);
        ctx.out(`Return values:${formatValues(values)}`);
        ctx.out(SEPARATOR);
        return;
      }
      const { hash, receipt } = await ctx.session.transact(address, fromHex(data));
      const r = await waitReceipt(ctx, hash, receipt);
      if (!printReceipt(ctx, contract, r, fn.outputs)) throw new ConsoleError(`${signature} failed: ${failure(r.status, r.output)}`);
    },
  },
  {
    name: 'addSealer',
    usage: '<nodeId>',
    summary: 'make a node a sealer of the group',
    minArgs: 1,
    maxArgs: 1,
    run: (ctx, [id]) => precompileTransaction(ctx, CONSENSUS_PRECOMPILE, 'addSealer(string)', [nodeIdArg(id!)]),
  },
  {
    name: 'addObserver',
    usage: '<nodeId>',
    summary: 'make a node an observer of the group',
    minArgs: 1,
    maxArgs: 1,
    run: (ctx, [id]) => precompileTransaction(ctx, CONSENSUS_PRECOMPILE, 'addObserver(string)', [nodeIdArg(id!)]),
  },
  {
    name: 'removeNode',
    usage: '<nodeId>',
    summary: 'remove a node from the group',
    minArgs: 1,
    maxArgs: 1,
    run: (ctx, [id]) => precompileTransaction(ctx, CONSENSUS_PRECOMPILE, 'remove(string)', [nodeIdArg(id!)]),
  },
  {
    name: 'setSystemConfigByKey',
    usage: `<key: ${CONFIG_KEYS.join('|')}> <value>`,
    summary: 'set a system configuration value',
    minArgs: 2,
    maxArgs: 2,
    run: (ctx, [key, value]) => {
      if (!CONFIG_KEYS.includes(key!)) throw new ConsoleError(`unknown system configuration key "${key}" (known: ${CONFIG_KEYS.join(', ')})`);
      if (!/^\d+$/.test(value!)) throw new ConsoleError(`the value of ${key} must be a non-negative integer (got "${value}")`);
      return precompileTransaction(ctx, SYSTEM_CONFIG_PRECOMPILE, 'setValueByKey(string,string)', [key!, value!]);
    },
  },
  {
    name: 'switch',
    aliases: ['s'],
    usage: '<groupId>',
    summary: 'use another group',
    minArgs: 1,
    maxArgs: 1,
    async run(ctx, [word]) {
      if (!/^\d+$/.test(word!) || Number(word) < 1 || Number(word) > 32767) throw new ConsoleError(`the group id must be an integer from 1 to 32767 (got "${word}")`);
      const groups = await ctx.session.rpc<number[]>('getGroupList', []);
      const group = Number(word);
      if (!groups.includes(group)) throw new ConsoleError(`the node is not in group ${group} (its groups: ${groups.join(', ') || 'none'})`);
      ctx.session.group = group;
      ctx.out(`Switched to group ${group}.`);
    },
  },
];
