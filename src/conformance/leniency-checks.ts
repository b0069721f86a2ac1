import { check, expectEqual, expectNoProblems, fail, skip, type Check } from './check.js';
import type { ConformanceContext } from './conformance-context.js';
import { postRaw } from './envelope-checks.js';
import { isObject, show } from './shape.js';

/*
 * What a FISCO 2.x node accepts beyond the strictest reading of SPEC, and real SDKs rely on
 * (issue 14; the table is in docs/rpc-parameters.md). Each check tells an SDK author that a
 * real node takes the request, so Twinchain must too.
 */

/** An address with no contract: a call to it runs nothing and answers a result. */
const NO_CONTRACT = `0x${'11'.repeat(20)}`;

/** POST `body` and return its text; fail unless it is a single JSON-RPC result. */
async function rawResult(ctx: ConformanceContext, body: string): Promise<string> {
  const raw = await postRaw(ctx, body);
  const reply = raw.reply;
  if (!isObject(reply)) fail(`the reply is not an object: ${show(reply)}`);
  if ('error' in reply) fail(`expected a result, got error ${show(reply.error)}`);
  return raw.text;
}

function idCheck(id: string, label: string): Check {
  return check('lenient', `the integer id ${label} is echoed digit for digit`, async (ctx) => {
    const text = await rawResult(ctx, `{"jsonrpc":"2.0","id":${id},"method":"getBlockNumber","params":[${ctx.groupId}]}`);
    const echoed = /"id"\s*:\s*(-?[0-9][0-9.eE+-]*)/.exec(text)?.[1];
    if (echoed !== id) fail(`sent id ${id}, the reply says ${echoed ?? '(no numeric id)'}`);
  });
}

/** The call request SDKs build: from, to, data; `value` as given (absent when undefined). */
async function callWith(ctx: ConformanceContext, value: unknown): Promise<{ output: unknown; status: unknown }> {
  const request: Record<string, unknown> = { from: ctx.sender, to: NO_CONTRACT, data: '0x' };
  if (value !== undefined) request.value = value;
  const result = await ctx.call<unknown>('call', [ctx.groupId, request]);
  if (!isObject(result)) fail(`call gave ${show(result)}, not an object`);
  return { output: result.output, status: result.status };
}

function callValueCheck(value: unknown, label: string): Check {
  return check('lenient', `call: "value": ${label} is accepted and answers as a call without value`, async (ctx) => {
    const without = await callWith(ctx, undefined);
    expectEqual(await callWith(ctx, value), without, `call with value ${label}`);
  });
}

function noParamsCheck(method: string): Check {
  return check('lenient', `${method}: the group id as parameter ([groupID], as SDKs send it) is ignored`, async (ctx) => {
    const plain = await ctx.call<unknown>(method, []);
    expectEqual(await ctx.call<unknown>(method, [ctx.groupId]), plain, `${method}([${ctx.groupId}])`);
    expectEqual(await ctx.call<unknown>(method, [ctx.groupId, 'extra']), plain, `${method}([${ctx.groupId}, "extra"])`);
  });
}

/** A group id no node keeps (FISCO's group ids stop at 32767). */
const NO_SUCH_GROUP = 2_000_000_000;

function groupIgnoredCheck(method: string): Check {
  return check('lenient', `${method}: the later variant answers for any group id; the earlier checks it (-40001)`, async (ctx) => {
    if (ctx.variant === 'earlier') {
      await ctx.expectError(method, [NO_SUCH_GROUP], -40001);
      return 'the earlier variant checks the group';
    }
    const own = await ctx.call<unknown>(method, [ctx.groupId]);
    const other = await ctx.call<unknown>(method, [NO_SUCH_GROUP]);
    if (!Array.isArray(other)) fail(`${method}([${NO_SUCH_GROUP}]) gave ${show(other)}, not an array`);
    if (!Array.isArray(own)) fail(`${method}([${ctx.groupId}]) gave ${show(own)}, not an array`);
    return `${other.length} entries for group ${NO_SUCH_GROUP}`;
  });
}

export const leniencyChecks: readonly Check[] = [
  idCheck('9007199254740993', '2^53 + 1'),
  idCheck('18446744073709551615', '2^64 - 1'),
  idCheck('-9223372036854775809', '-2^63 - 1'),
  callValueCheck(0, '0 (a JSON number)'),
  callValueCheck('0', '"0" (decimal)'),
  callValueCheck('0x0', '"0x0"'),
  noParamsCheck('getClientVersion'),
  noParamsCheck('getGroupList'),
  groupIgnoredCheck('getPeers'),
  groupIgnoredCheck('getNodeIDList'),
  check('variant', 'getPeers: Agency and Node (strings) in the later variant only', async (ctx) => {
    const peers = await ctx.call<unknown>('getPeers', [ctx.groupId]);
    if (!Array.isArray(peers)) fail(`getPeers gave ${show(peers)}, not an array`);
    if (peers.length === 0) skip('the node has no peers to look at');
    const problems: string[] = [];
    peers.forEach((p, i) => {
      if (!isObject(p)) return problems.push(`peer ${i} is not an object`);
      for (const key of ['Agency', 'Node']) {
        if (ctx.variant === 'later' && typeof p[key] !== 'string') problems.push(`peer ${i} has no string "${key}" (FISCO 2.11 sends it), got ${show(p[key])}`);
        if (ctx.variant === 'earlier' && key in p) problems.push(`peer ${i} has "${key}", which only the later variant sends`);
      }
      return undefined;
    });
    expectNoProblems(problems);
    return ctx.variant === 'later' ? `e.g. Agency ${show((peers[0] as Record<string, unknown>).Agency)}, Node ${show((peers[0] as Record<string, unknown>).Node)}` : undefined;
  }),
];
