import { check, expectEqual, fail, type Check } from './check.js';
import type { ConformanceContext } from './conformance-context.js';
import { isObject, show } from './shape.js';

/** POST a raw body; the reply parsed (failing the check if it is not JSON) and as received. */
export async function postRaw(ctx: ConformanceContext, body: string): Promise<{ reply: unknown; status: number; text: string }> {
  const raw = await ctx.client.post(body);
  let reply: unknown;
  try {
    reply = JSON.parse(raw.text);
  } catch {
    fail(`HTTP ${raw.status} with a body that is not JSON: ${raw.text.slice(0, 80)}`);
  }
  return { reply, status: raw.status, text: raw.text };
}

/** POST a raw body and return the single error object it must produce. */
async function rawError(ctx: ConformanceContext, body: string, code: number): Promise<string> {
  const raw = await postRaw(ctx, body);
  const reply = raw.reply;
  if (!isObject(reply) || !isObject(reply.error)) fail(`expected an error object, got ${show(reply)}`);
  const error = reply.error as Record<string, unknown>;
  if (reply.jsonrpc !== '2.0') fail(`the reply's jsonrpc is ${show(reply.jsonrpc)}, not "2.0"`);
  if (typeof error.message !== 'string') fail(`the error has no string message: ${show(error)}`);
  if (error.code !== code) fail(`expected error ${code}, got ${show(error.code)} "${String(error.message)}"`);
  return `HTTP ${raw.status}`;
}

export const envelopeChecks: readonly Check[] = [
  check('envelope', 'a reply carries jsonrpc "2.0", the request id and a result', async (ctx) => {
    const reply = await ctx.client.send({ jsonrpc: '2.0', id: 4242, method: 'getBlockNumber', params: [ctx.groupId] });
    if (!isObject(reply)) fail(`the reply is not an object: ${show(reply)}`);
    expectEqual(reply.jsonrpc, '2.0', 'jsonrpc');
    expectEqual(reply.id, 4242, 'id');
    if (!('result' in reply) || 'error' in reply) fail(`expected a result and no error, got ${show(reply)}`);
  }),
  check('envelope', '-32700 for a body that is not JSON', (ctx) => rawError(ctx, '{"jsonrpc":"2.0","id":1,"method":', -32700)),
  check('envelope', '-32600 for an invalid request object (no method)', (ctx) => rawError(ctx, '{"jsonrpc":"2.0","id":1,"params":[]}', -32600)),
  check('envelope', '-32601 for an unknown method', (ctx) =>
    rawError(ctx, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'twinchainNoSuchMethod', params: [] }), -32601),
  ),
  check('envelope', '-32602 for a parameter of the wrong type (groupID as a string)', (ctx) =>
    rawError(ctx, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getBlockNumber', params: ['one'] }), -32602),
  ),
  check('envelope', '-32604 for a request without id', (ctx) =>
    rawError(ctx, JSON.stringify({ jsonrpc: '2.0', method: 'getBlockNumber', params: [ctx.groupId] }), -32604),
  ),
];
