import { randomBytes } from 'node:crypto';
import { ProtocolVersion } from '../chain/index.js';
import { fromHex, toHex } from '../codec/index.js';
import { decodeAbi, encodeFunctionCall } from '../abi/index.js';
import { check, expectEqual, expectNoProblems, fail, skip, type Check } from './check.js';
import type { ConformanceContext } from './conformance-context.js';
import { fieldProblems, isObject, presentFields, show } from './shape.js';
import { PENDING_EARLIER_ONLY, PENDING_LATER_EXTRAS, pendingFields, receiptFields, TRANSACTION_FIELDS } from './spec-shapes.js';

const ZERO_ADDRESS = `0x${'0'.repeat(40)}`;

const same = (a: unknown, b: unknown) => typeof a === 'string' && typeof b === 'string' && a.toLowerCase() === b.toLowerCase();

function deployed(ctx: ConformanceContext) {
  const tx = ctx.state.deploy;
  if (!tx) skip('needs the HelloWorld deployment, which did not go through');
  return { tx, hash: toHex(tx.hash) };
}

function included(ctx: ConformanceContext): Record<string, unknown> {
  deployed(ctx);
  if (!ctx.state.receipt) skip('needs the deployment to be included, which did not happen');
  return ctx.state.receipt;
}

function contract(ctx: ConformanceContext): string {
  included(ctx);
  if (!ctx.state.contract) skip('the contract address is not known (see the contractAddress check)');
  return ctx.state.contract;
}

async function totals(ctx: ConformanceContext): Promise<{ txSum: bigint; failedTxSum?: bigint }> {
  const t = await ctx.call<Record<string, unknown>>('getTotalTransactionCount', [ctx.groupId]);
  if (!isObject(t) || typeof t.txSum !== 'string') fail(`getTotalTransactionCount gave ${show(t)}`);
  return { txSum: BigInt(t.txSum), ...(typeof t.failedTxSum === 'string' ? { failedTxSum: BigInt(t.failedTxSum) } : {}) };
}

async function helloGet(ctx: ConformanceContext, address: string): Promise<{ value: string; currentBlockNumber: string }> {
  const result = await ctx.call<unknown>('call', [ctx.groupId, { from: ctx.sender, to: address, value: '0x0', data: toHex(ctx.abi('get()')) }]);
  expectNoProblems(fieldProblems(result, { currentBlockNumber: 'quantity', output: 'data' }, 'call result'));
  const { output, currentBlockNumber } = result as { output: string; currentBlockNumber: string };
  let value: unknown;
  try {
    [value] = decodeAbi('string', fromHex(output));
  } catch {
    fail(`get() output ${show(output)} is not an ABI string`);
  }
  return { value: String(value), currentBlockNumber };
}

async function sendAndWait(ctx: ConformanceContext, data: Uint8Array): Promise<{ hash: string; receipt: Record<string, unknown> }> {
  const tx = ctx.builder.build({ to: fromHex(contract(ctx)), data, blockLimit: await ctx.blockLimit() });
  const hash = await ctx.send(tx);
  expectEqual(hash, toHex(tx.hash), 'sendRawTransaction result');
  return { hash, receipt: await ctx.waitForReceipt(hash) };
}

const TABLE_FACTORY = fromHex(`0x${'0'.repeat(36)}1001`);
const CRUD = `0x${'0'.repeat(36)}1002`;

/**
 * The chain's supported_version: getClientVersion's `Supported Version` (later variant), 2.0.0-rc1
 * where it has none (the earlier variant).
 */
function supportedVersion(ctx: ConformanceContext): ProtocolVersion {
  const reported = isObject(ctx.clientVersion) ? ctx.clientVersion['Supported Version'] : undefined;
  try {
    return ProtocolVersion.parse(typeof reported === 'string' ? reported : '2.0.0-rc1');
  } catch (e) {
    return fail(`"Supported Version" ${show(reported)} is not a FISCO 2.x version: ${(e as Error).message}`);
  }
}

/** A system contract's call data: FISCO selects their methods with the chain's hash (SM3 on SM chains). */
const precompileCall = (ctx: ConformanceContext, signature: string, args: unknown[]) => encodeFunctionCall(signature, args, (d) => ctx.suite.hash(d));

/** CRUD select(table, key, "{}", ""), as a call: the rows, parsed. */
async function crudSelect(ctx: ConformanceContext, table: string, key: string): Promise<unknown> {
  const result = await ctx.call<Record<string, unknown>>('call', [ctx.groupId, { from: ctx.sender, to: CRUD, value: '0x0', data: toHex(precompileCall(ctx, 'select(string,string,string,string)', [table, key, '{}', ''])) }]);
  if (!isObject(result) || typeof result.output !== 'string') fail(`the CRUD select call gave ${show(result)}`);
  let text: unknown;
  try {
    [text] = decodeAbi('string', fromHex(result.output));
    return JSON.parse(String(text)) as unknown;
  } catch {
    return fail(`CRUD select(${JSON.stringify(table)}, ${JSON.stringify(key)}) answered ${show(text ?? result.output)}, not a JSON list of rows`);
  }
}

export const lifecycleChecks: readonly Check[] = [
  check('lifecycle', 'sendRawTransaction: deploying HelloWorld returns the transaction hash', async (ctx) => {
    ctx.state.heightBefore = await ctx.height();
    ctx.state.txSumBefore = (await totals(ctx)).txSum;
    const tx = ctx.builder.build({ to: null, data: ctx.helloWorldCode(), blockLimit: await ctx.blockLimit() });
    const hash = await ctx.send(tx);
    expectEqual(hash, toHex(tx.hash), 'the returned hash');
    ctx.state.deploy = tx;
    return `${ctx.generation} payload from ${ctx.sender}`;
  }),
  check('lifecycle', 'pending: listed by getPendingTransactions and counted by getPendingTxSize', async (ctx) => {
    const { tx, hash } = deployed(ctx);
    // Size first: a transaction still listed afterwards was pending all along, so it was counted.
    const size = await ctx.call<string>('getPendingTxSize', [ctx.groupId]);
    const list = await ctx.call<unknown>('getPendingTransactions', [ctx.groupId]);
    if (!Array.isArray(list)) fail(`getPendingTransactions gave ${show(list)}`);
    const entry = list.find((p) => isObject(p) && same(p.hash, hash)) as Record<string, unknown> | undefined;
    if (!entry) {
      const receipt = await ctx.call('getTransactionReceipt', [ctx.groupId, hash]);
      if (receipt !== null) skip('the transaction was already in a block before it could be seen pending');
      fail('the transaction is neither pending nor in a block');
    }
    if (typeof size !== 'string' || !/^0x[0-9a-fA-F]+$/.test(size) || BigInt(size) < 1n) {
      fail(`getPendingTxSize was ${show(size)} while the transaction was pending`);
    }
    const problems = fieldProblems(entry, pendingFields(ctx.variant), 'pending entry');
    if (!same(entry.from, ctx.sender)) problems.push(`from is ${show(entry.from)}, the sender is ${ctx.sender}`);
    if (entry.to !== null) problems.push(`to is ${show(entry.to)}; a creation's is null (docs/json-rpc.md, getPendingTransactions)`);
    if (!same(entry.input, toHex(tx.body.data))) problems.push('input is not the payload data');
    if (ctx.variant === 'later') problems.push(...presentFields(entry, PENDING_EARLIER_ONLY, 'pending entry', 'the later variant no longer lists'));
    if (ctx.variant === 'later') problems.push(...fieldProblems(entry, PENDING_LATER_EXTRAS, 'pending entry (FISCO 2.11)'));
    else problems.push(...presentFields(entry, Object.keys(PENDING_LATER_EXTRAS), 'pending entry', 'only the later variant sends'));
    expectNoProblems(problems);
    return `pending size ${size}`;
  }),
  check('lifecycle', 'inclusion: a receipt appears within the timeout and the height grows', async (ctx) => {
    const { hash } = deployed(ctx);
    const receipt = await ctx.waitForReceipt(hash);
    ctx.state.receipt = receipt;
    const height = await ctx.height();
    if (!(height > ctx.state.heightBefore!)) fail(`the height is still ${height}`);
    return `in block ${String(receipt.blockNumber)}`;
  }),
  check('lifecycle', `getTransactionReceipt: the documented receipt fields, status 0x0, to null for a creation`, async (ctx) => {
    const receipt = included(ctx);
    const { hash } = deployed(ctx);
    const problems = fieldProblems(receipt, receiptFields(ctx.variant), 'receipt');
    if (receipt.status !== '0x0') problems.push(`status is ${show(receipt.status)}, expected "0x0"`);
    if (receipt.to !== null) problems.push(`to is ${show(receipt.to)}; a creation's is null (docs/json-rpc.md, getTransactionReceipt)`);
    if (!same(receipt.transactionHash, hash)) problems.push(`transactionHash is ${show(receipt.transactionHash)}`);
    if (!same(receipt.from, ctx.sender)) problems.push(`from is ${show(receipt.from)}, the sender is ${ctx.sender}`);
    expectNoProblems(problems);
  }),
  check('variant', 'receipt: input and the deployed contractAddress in the later variant, zero address in the earlier', async (ctx) => {
    const receipt = included(ctx);
    const { tx } = deployed(ctx);
    if (ctx.variant === 'later') {
      if (!same(receipt.input, toHex(tx.body.data))) fail(`input is ${show(receipt.input)}, not the payload data`);
      if (typeof receipt.contractAddress !== 'string' || same(receipt.contractAddress, ZERO_ADDRESS)) {
        fail(`contractAddress is ${show(receipt.contractAddress)}, expected the deployed address`);
      }
      ctx.state.contract = receipt.contractAddress;
      return `deployed at ${receipt.contractAddress}`;
    }
    const problems = presentFields(receipt, ['input'], 'receipt', 'only the later variant has');
    if (!same(receipt.contractAddress, ZERO_ADDRESS)) problems.push(`contractAddress is ${show(receipt.contractAddress)}, the earlier variant gives the zero address`);
    expectNoProblems(problems);
    // The earlier variant does not tell where the contract went; a fresh account's first deploy
    // lands at Hash(rlp([sender, 0])) on FISCO 2.x, so use that when code is there.
    const derived = ctx.firstContractAddress();
    const code = await ctx.call<string>('getCode', [ctx.groupId, derived]);
    if (typeof code === 'string' && code.length > 2) ctx.state.contract = derived;
    return ctx.state.contract ? `zero address; code found at the derived ${derived}` : 'zero address; no code at the derived address';
  }),
  check('lifecycle', `getTransactionByHash: the documented transaction fields, matching the payload and the receipt`, async (ctx) => {
    const receipt = included(ctx);
    const { tx, hash } = deployed(ctx);
    const found = await ctx.call<Record<string, unknown>>('getTransactionByHash', [ctx.groupId, hash]);
    const problems = fieldProblems(found, TRANSACTION_FIELDS, 'transaction');
    if (isObject(found)) {
      const expected: Record<string, string> = {
        hash,
        from: ctx.sender,
        nonce: `0x${tx.body.nonce.toString(16)}`,
        gas: `0x${tx.body.gas.toString(16)}`,
        gasPrice: `0x${tx.body.gasPrice.toString(16)}`,
        value: '0x0',
        input: toHex(tx.body.data),
        blockHash: String(receipt.blockHash),
        blockNumber: String(receipt.blockNumber),
        transactionIndex: String(receipt.transactionIndex),
      };
      for (const [key, value] of Object.entries(expected)) if (!same(found[key], value)) problems.push(`${key} is ${show(found[key])}, expected ${show(value)}`);
    }
    expectNoProblems(problems);
  }),
  check('variant', 'creation transaction: to is null (earlier) or the zero address (later)', async (ctx) => {
    included(ctx);
    const found = await ctx.call<Record<string, unknown>>('getTransactionByHash', [ctx.groupId, deployed(ctx).hash]);
    if (ctx.variant === 'earlier') {
      if (found?.to !== null) fail(`to is ${show(found?.to)}; the earlier variant gives null`);
      return 'null';
    }
    if (found?.to === null) return "null (accepted: a block example of FISCO's later-variant documentation shows null)";
    if (!same(found?.to, ZERO_ADDRESS)) fail(`to is ${show(found?.to)}; the later variant gives the zero address`);
    return 'the zero address';
  }),
  check('lifecycle', 'getTransactionByBlockHashAndIndex and …ByBlockNumberAndIndex give the same transaction', async (ctx) => {
    const receipt = included(ctx);
    const byHash = await ctx.call('getTransactionByHash', [ctx.groupId, deployed(ctx).hash]);
    expectEqual(await ctx.call('getTransactionByBlockHashAndIndex', [ctx.groupId, receipt.blockHash, receipt.transactionIndex]), byHash, 'by block hash and index');
    expectEqual(await ctx.call('getTransactionByBlockNumberAndIndex', [ctx.groupId, receipt.blockNumber, receipt.transactionIndex]), byHash, 'by block number and index');
  }),
  check('variant', 'quantity parameters: decimal block numbers and transaction indexes in the later variant (FISCO jsToInt), 0x hex only in the earlier', async (ctx) => {
    const receipt = included(ctx);
    const [number, index] = [receipt.blockNumber, receipt.transactionIndex];
    if (typeof number !== 'string' || typeof index !== 'string' || !/^0x[0-9a-fA-F]+$/.test(number) || !/^0x[0-9a-fA-F]+$/.test(index)) {
      fail(`the receipt's blockNumber ${show(number)} and transactionIndex ${show(index)} are not hex quantities`);
    }
    const [n, i] = [BigInt(number).toString(10), BigInt(index).toString(10)];
    const byHash = await ctx.call('getTransactionByHash', [ctx.groupId, deployed(ctx).hash]);
    const block = await ctx.call<Record<string, unknown>>('getBlockByNumber', [ctx.groupId, number, false]);
    // as FISCO's Node.js SDK sends them (getTransactionByBlockNumberAndIndex(height, "0")), and hex digits in upper case
    const asked: Array<[string, unknown[], unknown]> = [
      ['getBlockByNumber', [ctx.groupId, n, false], block],
      ['getBlockHashByNumber', [ctx.groupId, n], receipt.blockHash],
      ['getTransactionByBlockNumberAndIndex', [ctx.groupId, n, i], byHash],
      ['getTransactionByBlockHashAndIndex', [ctx.groupId, receipt.blockHash, i], byHash],
    ];
    if (ctx.variant === 'later') {
      for (const [method, params, expected] of asked) expectEqual(await ctx.call(method, params), expected, `${method}(${params.slice(1).map((p) => JSON.stringify(p)).join(', ')})`);
      expectEqual(await ctx.call('getTransactionByBlockNumberAndIndex', [ctx.groupId, `0x0${number.slice(2).toUpperCase()}`, index]), byHash, 'a block number with upper-case hex digits and a leading zero digit');
      return `block "${n}", index "${i}" accepted by all four methods`;
    }
    const accepted: string[] = [];
    for (const [method, params] of asked) if (!(await ctx.rpc(method, params)).error) accepted.push(method);
    if (accepted.length > 0) fail(`the earlier variant takes 0x hex only, but decimal was accepted by ${accepted.join(', ')}`);
    return 'decimal refused by all four methods';
  }),
  check('lifecycle', 'the block lists the transaction: its hash, or the full object with includeTransactions', async (ctx) => {
    const receipt = included(ctx);
    const { hash } = deployed(ctx);
    const brief = await ctx.call<Record<string, unknown>>('getBlockByNumber', [ctx.groupId, receipt.blockNumber, false]);
    const problems = fieldProblems(brief, { hash: 'hash', transactions: 'hash[]' }, 'block');
    if (isObject(brief)) {
      if (!same(brief.hash, receipt.blockHash)) problems.push(`the block hash ${show(brief.hash)} is not the receipt's ${show(receipt.blockHash)}`);
      if (Array.isArray(brief.transactions) && !brief.transactions.some((t) => same(t, hash))) problems.push('the transaction hash is not in transactions');
    }
    const full = await ctx.call<Record<string, unknown>>('getBlockByHash', [ctx.groupId, receipt.blockHash, true]);
    const list = isObject(full) && Array.isArray(full.transactions) ? full.transactions : [];
    list.forEach((t, i) => problems.push(...fieldProblems(t, TRANSACTION_FIELDS, `transactions[${i}]`)));
    const mine = list.find((t) => isObject(t) && same(t.hash, hash));
    if (!mine) problems.push('with includeTransactions the transaction object is missing');
    else expectEqual(mine, await ctx.call('getTransactionByHash', [ctx.groupId, hash]), 'the full transaction in the block');
    expectNoProblems(problems);
  }),
  check('lifecycle', 'getTotalTransactionCount: txSum grew with the inclusion', async (ctx) => {
    included(ctx);
    const { txSum } = await totals(ctx);
    if (txSum < ctx.state.txSumBefore! + 1n) fail(`txSum went from ${ctx.state.txSumBefore} to ${txSum}`);
    return `txSum ${ctx.state.txSumBefore} → ${txSum}`;
  }),
  check('lifecycle', 'getCode: the deployed contract has code', async (ctx) => {
    const address = contract(ctx);
    const code = await ctx.call<string>('getCode', [ctx.groupId, address]);
    if (typeof code !== 'string' || !/^0x([0-9a-fA-F]{2})+$/.test(code)) fail(`getCode gave ${show(code)}`);
    return `${(code.length - 2) / 2} bytes`;
  }),
  check('lifecycle', 'call: HelloWorld.get() answers "Hello, World!" and leaves the height unchanged', async (ctx) => {
    const address = contract(ctx);
    for (let attempt = 1; ; attempt++) {
      const before = await ctx.height();
      const { value, currentBlockNumber } = await helloGet(ctx, address);
      const after = await ctx.height();
      if (value !== 'Hello, World!') fail(`get() returned ${show(value)}`);
      if (before === after && Number.parseInt(currentBlockNumber.slice(2), 16) === before) return `at height ${before}`;
      if (attempt === 3) fail(`the height moved around the call (${before} → ${after}, currentBlockNumber ${currentBlockNumber}) in 3 attempts`);
    }
  }),
  check('lifecycle', 'set(string): status 0x0, one log from the contract, and call sees the new value', async (ctx) => {
    const text = `twinchain conformance ${toHex(new Uint8Array(randomBytes(4))).slice(2)}`;
    const { receipt } = await sendAndWait(ctx, ctx.abi('set(string)', [text]));
    const problems = fieldProblems(receipt, receiptFields(ctx.variant), 'receipt');
    if (receipt.status !== '0x0') problems.push(`status is ${show(receipt.status)}`);
    const logs = Array.isArray(receipt.logs) ? receipt.logs : [];
    if (logs.length !== 1) problems.push(`expected 1 log (NameChanged), got ${logs.length}`);
    else if (!isObject(logs[0]) || !same(logs[0].address, ctx.state.contract)) problems.push(`the log's address is ${show(isObject(logs[0]) ? logs[0].address : logs[0])}`);
    expectNoProblems(problems);
    const { value } = await helloGet(ctx, contract(ctx));
    expectEqual(value, text, 'get() after set');
  }),
  check('lifecycle', 'a failing transaction gets a non-zero status (and failedTxSum grows, later variant)', async (ctx) => {
    contract(ctx);
    const before = await totals(ctx);
    const { receipt } = await sendAndWait(ctx, fromHex('deadbeef'));
    if (receipt.status === '0x0' || typeof receipt.status !== 'string') fail(`status is ${show(receipt.status)}, expected a failure code`);
    if (ctx.variant === 'later') {
      const after = await totals(ctx);
      if (after.failedTxSum === undefined || before.failedTxSum === undefined) fail('getTotalTransactionCount has no failedTxSum');
      if (after.failedTxSum < before.failedTxSum + 1n) fail(`failedTxSum went from ${before.failedTxSum} to ${after.failedTxSum}`);
    }
    return `status ${String(receipt.status)}`;
  }),
  check('lifecycle', "a user table is stored under FISCO's name for the supported_version: u_<name> from 2.2.0, _user_<name> before", async (ctx) => {
    const version = supportedVersion(ctx);
    const name = `t_conform_${toHex(new Uint8Array(randomBytes(4))).slice(2)}`;
    const tx = ctx.builder.build({ to: TABLE_FACTORY, data: precompileCall(ctx, 'createTable(string,string,string)', [name, 'k', 'v']), blockLimit: await ctx.blockLimit() });
    const receipt = await ctx.waitForReceipt(await ctx.send(tx));
    if (receipt.status !== '0x0') fail(`createTable(${JSON.stringify(name)}, "k", "v") through TableFactory (0x1001) got status ${show(receipt.status)}`);
    const stored = version.tableNames.userTable(name);
    const other = stored.startsWith('u_') ? `_user_${name}` : `u_${name}`;
    // what FISCO's SDKs do for desc: CRUD (0x1002) select of _sys_tables_ by the stored name
    const rows = await crudSelect(ctx, '_sys_tables_', stored);
    if (!Array.isArray(rows) || rows.length !== 1 || !isObject(rows[0]) || rows[0].table_name !== stored) {
      fail(`_sys_tables_ has no row ${stored} (supported_version ${version.text}); select answered ${show(rows)}`);
    }
    expectEqual({ key_field: rows[0].key_field, value_field: rows[0].value_field }, { key_field: 'k', value_field: 'v' }, `the ${stored} row`);
    const elsewhere = await crudSelect(ctx, '_sys_tables_', other);
    if (!Array.isArray(elsewhere) || elsewhere.length !== 0) fail(`the table is also listed as ${other}: ${show(elsewhere)}`);
    return `${stored} (supported_version ${version.text})`;
  }),
  check('lifecycle', 'sendRawTransaction refuses a transaction that is already on chain', async (ctx) => {
    included(ctx);
    const error = await ctx.expectError('sendRawTransaction', [ctx.groupId, toHex(deployed(ctx).tx.raw).slice(2)]);
    return `${error.code}: ${error.message}`;
  }),
];
