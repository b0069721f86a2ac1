import { toHex } from '../codec/index.js';
import { EARLIER_NO_PBFT_VIEW_CODE, RPC_ERRORS } from '../rpc/index.js';
import { check, fail, skip, type Check } from './check.js';
import type { ConformanceContext } from './conformance-context.js';
import { show } from './shape.js';

/** A group id this node does not keep: above every listed one, within FISCO's 1..32767. */
async function unknownGroup(ctx: ConformanceContext): Promise<number> {
  const groups = await ctx.call<unknown>('getGroupList', []);
  const listed = Array.isArray(groups) ? groups.filter((g): g is number => typeof g === 'number') : [];
  for (let id = 32767; id > 0; id--) if (!listed.includes(id) && id !== ctx.removedGroup) return id;
  return fail('every group id is taken');
}

async function genesisHash(ctx: ConformanceContext): Promise<string> {
  return ctx.call<string>('getBlockHashByNumber', [ctx.groupId, '0x0']);
}

export const errorChecks: readonly Check[] = [
  check('errors', '-40001 for a group the node does not keep', async (ctx) => {
    const group = await unknownGroup(ctx);
    await ctx.expectError('getBlockNumber', [group], -40001);
    return `group ${group}`;
  }),
  check('errors', '-40003 for an unknown block hash', async (ctx) => {
    await ctx.expectError('getBlockByHash', [ctx.groupId, `0x${'3c'.repeat(32)}`, false], -40003);
  }),
  check('errors', '-40004 for a block number beyond the head', async (ctx) => {
    const beyond = (await ctx.height()) + 1_000_000;
    await ctx.expectError('getBlockByNumber', [ctx.groupId, `0x${beyond.toString(16)}`, false], -40004);
  }),
  check('errors', '-40005 for a transaction index beyond the block (block 0 has none)', async (ctx) => {
    await ctx.expectError('getTransactionByBlockNumberAndIndex', [ctx.groupId, '0x0', '0x0'], -40005);
    await ctx.expectError('getTransactionByBlockHashAndIndex', [ctx.groupId, await genesisHash(ctx), '0x0'], -40005);
  }),
  check('errors', `-40006 for a call without 'from'`, async (ctx) => {
    await ctx.expectError('call', [ctx.groupId, { to: `0x${'00'.repeat(19)}01`, data: '0x' }], -40006);
  }),
  check('errors', '-40007 for getPbftView on a Raft group (code 7, data null, in the earlier variant)', async (ctx) => {
    if (ctx.consensus !== 'raft') skip('the group runs PBFT');
    const error = await ctx.expectError('getPbftView', [ctx.groupId], ctx.variant === 'earlier' ? EARLIER_NO_PBFT_VIEW_CODE : -40007);
    if (error.message !== RPC_ERRORS.noPbftView.message) fail(`expected the message "${RPC_ERRORS.noPbftView.message}", got "${error.message}"`);
    if (ctx.variant === 'earlier' && error.data !== null) fail(`the earlier variant's example has data null, got ${JSON.stringify(error.data)}`);
    return `code ${error.code}`;
  }),
  check('errors', '-40008 for a system config key that is not queryable', async (ctx) => {
    await ctx.expectError('getSystemConfigByKey', [ctx.groupId, 'twinchain_no_such_key'], -40008);
  }),
  check('errors', '-40009 for a group the node keeps without being sealer or observer', async (ctx) => {
    if (ctx.removedGroup === undefined) skip('needs such a group: pass --removed-group <id>');
    await ctx.expectError('getBlockNumber', [ctx.removedGroup], -40009);
    return `group ${ctx.removedGroup}`;
  }),
  check('errors', 'sendRawTransaction refuses a blockLimit outside (height, height + 1000], naming BlockLimitCheckFail', async (ctx) => {
    const height = await ctx.height();
    const tx = ctx.builder.build({ to: new Uint8Array(20), blockLimit: BigInt(height) });
    const error = await ctx.expectError('sendRawTransaction', [ctx.groupId, toHex(tx.raw).slice(2)]);
    if (!error.message.includes('BlockLimitCheckFail')) fail(`the message does not name BlockLimitCheckFail: ${show(error.message)}`);
    return `${error.code}: ${error.message}`;
  }),
  check('errors', 'sendRawTransaction refuses a payload that is not a transaction', async (ctx) => {
    const error = await ctx.expectError('sendRawTransaction', [ctx.groupId, 'c0']);
    return `${error.code}: ${error.message}`;
  }),
];
