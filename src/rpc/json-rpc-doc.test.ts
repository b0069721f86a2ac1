// docs/json-rpc.md is the interface reference users (and `twinchain conform`) are pointed to.
// These tests hold it to the service: the method headings are the registered methods, the error
// tables are RPC_ERRORS, the status table is TX_STATUS, and every example exchange, replayed
// against a dev node of the example's variant, answers in the same shape (results) or with the
// same error (errors).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { TX_STATUS } from '../chain/index.js';
import { toHex } from '../codec/index.js';
import { EARLIER_NO_PBFT_VIEW_CODE, RPC_ERRORS } from './errors.js';
import { METHOD_NAMES } from './methods.js';
import { rpcHarness, type Reply } from './rpc-harness.test-helper.js';

const DOC_PATH = new URL('../../docs/json-rpc.md', import.meta.url);
const doc = readFileSync(DOC_PATH, 'utf8');

/** The body of the `## title` section (up to the next `## `). */
function section(text: string, title: string): string {
  const start = text.search(new RegExp(`^## ${title}\\s*$`, 'm'));
  if (start < 0) throw new Error(`docs/json-rpc.md has no "## ${title}" section`);
  const rest = text.slice(start + 3);
  const end = rest.search(/^## /m);
  return end < 0 ? rest : rest.slice(0, end);
}

/** The `### name` headings of the Methods section. */
function documentedMethods(text: string): string[] {
  return [...section(text, 'Methods').matchAll(/^### (\S+)\s*$/gm)].map((m) => m[1]!);
}

/** Rows `| code | message | …` of the Errors section's tables. */
function documentedErrors(text: string): Map<number, string> {
  const out = new Map<number, string>();
  for (const m of section(text, 'Errors').matchAll(/^\| (-?\d+) \| ([^|]+?) \|/gm)) out.set(Number(m[1]), m[2]!.trim());
  return out;
}

interface Example {
  readonly caption: string;
  readonly variant: 'earlier' | 'later';
  readonly raft: boolean;
  readonly requestText: string;
  readonly request: unknown;
  readonly reply: unknown;
}

/** Every ```text block that starts with "→ request", its "← reply", and the caption line above it. */
function examples(text: string): Example[] {
  return [...text.matchAll(/([^\n]*)\n\n```text\n→ ([^\n]*)\n← ([\s\S]*?)\n```/g)].map(([, caption, request, reply]) => {
    const variant = /earlier variant/.test(caption!) ? 'earlier' : /later variant/.test(caption!) ? 'later' : undefined;
    if (!variant) throw new Error(`example caption does not name its variant: ${JSON.stringify(caption)}`);
    return { caption: caption!, variant, raft: /Raft/.test(caption!), requestText: request!, request: JSON.parse(request!), reply: JSON.parse(reply!) };
  });
}

const SHORTENED = '…';

/**
 * A value's structure: object keys with the structures of their values (sealer.<i> keys as
 * one), arrays as the set of their elements' structures, scalars as their JSON type.
 */
function structure(value: unknown): unknown {
  if (value === null) return 'null';
  if (Array.isArray(value)) return [...new Set(value.map((v) => JSON.stringify(structure(v))))].sort().map((s) => JSON.parse(s) as unknown);
  if (typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k.replace(/^sealer\.\d+$/, 'sealer.<i>')] = structure(v);
    return Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)));
  }
  return typeof value;
}

/** Structures equal, where an empty array on either side (no peers, no logs here) matches any array. */
function sameStructure(a: unknown, b: unknown, path = 'result'): string[] {
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length === 0 || b.length === 0) return [];
    const problems: string[] = [];
    if (a.length !== b.length) problems.push(`${path}: element kinds ${JSON.stringify(a)} vs ${JSON.stringify(b)}`);
    else a.forEach((x, i) => problems.push(...sameStructure(x, b[i], `${path}[${i}]`)));
    return problems;
  }
  if (a && b && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b)) {
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    const missing = kb.filter((k) => !ka.includes(k));
    const extra = ka.filter((k) => !kb.includes(k));
    if (missing.length || extra.length) return [`${path}: the doc lacks ${JSON.stringify(missing)}, has extra ${JSON.stringify(extra)}`];
    return ka.flatMap((k) => sameStructure((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${path}.${k}`));
  }
  return JSON.stringify(a) === JSON.stringify(b) ? [] : [`${path}: ${JSON.stringify(a)} in the doc, ${JSON.stringify(b)} from the node`];
}

/** A dev node of the example's kind, with HelloWorld deployed (block 1), a second transaction (block 2) and one pending. */
async function devChain(variant: 'earlier' | 'later', raft: boolean) {
  const h = await rpcHarness({ supportedVersion: variant === 'earlier' ? '2.0.0-rc1' : '2.11.0', consensus: raft ? 'raft' : 'pbft' });
  const deploy = h.deployTx();
  await h.send(deploy);
  const block1 = (await h.node.seal())!;
  const contract = block1.block.receipts[0]!.contractAddress;
  const set = h.callTx(contract, h.abi('set(string)', ['Hi']));
  await h.send(set);
  await h.node.seal();
  await h.send(h.deployTx());
  return { h, deploy: toHex(deploy.hash), set: toHex(set.hash), block1: toHex(block1.hash), contract: toHex(contract), sender: toHex(h.user.address) };
}

type DevChain = Awaited<ReturnType<typeof devChain>>;

/** The example's parameters with the run's hashes and addresses swapped for the dev chain's; undefined when it cannot be replayed. */
function liveParams(method: string, params: unknown[], result: unknown, chain: DevChain): unknown[] | undefined {
  const to = (result as { to?: unknown } | null)?.to;
  switch (method) {
    case 'getBlockByHash':
    case 'getTransactionByBlockHashAndIndex':
      return [params[0], chain.block1, params[2]];
    case 'getTransactionByHash':
    case 'getTransactionReceipt':
      return [params[0], to === null ? chain.deploy : chain.set];
    case 'getCode':
      return [params[0], chain.contract];
    case 'call':
      return [params[0], { ...(params[1] as object), from: chain.sender, to: chain.contract }];
    case 'sendRawTransaction':
      return undefined;
    default:
      return params;
  }
}

function errorProblems(reply: Reply, where: string): string[] {
  const { error } = reply;
  if (!error) return [];
  const documented = documentedErrors(doc);
  const name = documented.get(error.code);
  if (name === undefined) return [`${where}: error code ${error.code} is not in the Errors tables`];
  const refused = /^(\w+) \((\d+)\): /.exec(error.message);
  if (error.code === RPC_ERRORS.internalError.code && refused) {
    // a refused sendRawTransaction: "<status name> (<status>): <reason>", data {status, name}
    const status = TX_STATUS[refused[1] as keyof typeof TX_STATUS];
    const data = error.data as { status?: unknown; name?: unknown } | undefined;
    const fits = status === Number(refused[2]) && data?.name === refused[1] && data.status === `0x${status.toString(16)}`;
    return fits ? [] : [`${where}: ${JSON.stringify(error)} is not a status name, its number and {status, name}`];
  }
  if (error.code <= -32600 && error.code >= -32700) {
    return error.message === name || error.message.startsWith(`${name}: `) ? [] : [`${where}: message ${JSON.stringify(error.message)} does not start with ${name}`];
  }
  return error.message === name ? [] : [`${where}: message ${JSON.stringify(error.message)}, the table says ${JSON.stringify(name)}`];
}

describe('docs/json-rpc.md', () => {
  it('has one "### method" heading per method the service registers, and no other', () => {
    expect([...documentedMethods(doc)].sort()).toEqual([...METHOD_NAMES].sort());
  });

  it.each([
    ['earlier', '2.0.0-rc1'],
    ['later', '2.11.0'],
  ] as const)('every documented method is served in the %s variant (supported_version %s)', async (_variant, supportedVersion) => {
    const h = await rpcHarness({ supportedVersion });
    expect([...h.service.methods].sort()).toEqual([...documentedMethods(doc)].sort());
    for (const method of documentedMethods(doc)) {
      const reply = await h.rpc(method, [1]);
      expect(reply.error?.code, method).not.toBe(RPC_ERRORS.methodNotFound.code);
    }
  });

  it('lists every error code the service sends, with its exact message, and no other', () => {
    const documented = documentedErrors(doc);
    const expected = new Map<number, string>(Object.values(RPC_ERRORS).map((e) => [e.code, e.message]));
    expected.set(EARLIER_NO_PBFT_VIEW_CODE, RPC_ERRORS.noPbftView.message);
    expect(Object.fromEntries(documented)).toEqual(Object.fromEntries(expected));
  });

  it('lists every transaction status with its hex value and name', () => {
    const rows = [...section(doc, 'Transaction status codes').matchAll(/^\| (0x[0-9a-f]+) \| (\w+) \|/gm)].map((m) => [m[2]!, Number(m[1])] as const);
    expect(Object.fromEntries(rows)).toEqual({ ...TX_STATUS });
  });

  it('has examples for every method, in both variants for the methods whose shapes differ', () => {
    const shown = new Set(examples(doc).map((e) => `${(e.request as { method?: string }).method}/${e.variant}`));
    expect(METHOD_NAMES.filter((m) => !shown.has(`${m}/later`))).toEqual([]);
    const differing = ['getClientVersion', 'getSyncStatus', 'getPeers', 'getTransactionByHash', 'getTransactionReceipt', 'getPendingTransactions', 'getTotalTransactionCount', 'getPbftView'];
    expect(differing.filter((m) => !shown.has(`${m}/earlier`))).toEqual([]);
  });

  it('every example answers as a dev node of its variant answers: the same structure, or the same error', async () => {
    const chains = new Map<string, DevChain>();
    const problems: string[] = [];
    let replayed = 0;
    for (const example of examples(doc)) {
      const key = `${example.variant}/${example.raft ? 'raft' : 'pbft'}`;
      if (!chains.has(key)) chains.set(key, await devChain(example.variant, example.raft));
      const chain = chains.get(key)!;
      const where = `${example.caption} ${example.requestText.slice(0, 80)}`;
      const requests = Array.isArray(example.request) ? example.request : [example.request];
      const replies = (Array.isArray(example.reply) ? example.reply : [example.reply]) as Reply[];
      // an empty batch is answered with one error object
      if (requests.length !== replies.length && requests.length > 0) problems.push(`${where}: ${requests.length} requests, ${replies.length} replies`);
      for (const reply of replies) problems.push(...errorProblems(reply, where));
      const replayable = !example.requestText.includes(SHORTENED);
      if (Array.isArray(example.request) || example.requestText === '[]') {
        if (!replayable) continue;
        replayed++;
        const live = await chain.h.raw(example.request);
        const liveReplies = (Array.isArray(live) ? live : [live]) as Reply[];
        replies.forEach((r, i) => {
          const l = liveReplies[i];
          if (!l || JSON.stringify(r.error ?? null) !== JSON.stringify(l.error ?? null)) {
            problems.push(`${where}: element ${i} is ${JSON.stringify(l)} from the node`);
          } else problems.push(...sameStructure(structure(r.result), structure(l.result), `${where} [${i}].result`));
        });
        continue;
      }
      const request = example.request as { method: string; params?: unknown[]; id?: unknown };
      const reply = example.reply as Reply;
      if (reply.error) {
        if (!replayable) continue;
        replayed++;
        const live = (await chain.h.raw(request)) as Reply;
        if (JSON.stringify(live.error) !== JSON.stringify(reply.error)) problems.push(`${where}: the node answers ${JSON.stringify(live.error ?? live.result)}`);
        continue;
      }
      const params = liveParams(request.method, request.params ?? [], reply.result, chain);
      if (!params) continue;
      replayed++;
      const live = await chain.h.rpc(request.method, params);
      if (live.error) problems.push(`${where}: the node answers error ${JSON.stringify(live.error)}`);
      else problems.push(...sameStructure(structure(reply.result), structure(live.result), `${where} result`));
    }
    expect(problems).toEqual([]);
    expect(replayed, 'examples replayed (all but those with a shortened payload)').toBe(examples(doc).length - 2);
  });

  it('catches a doc that drifts: a missing method heading, a changed message, a field the node does not send', () => {
    const withoutCall = doc.replace(/^### call\n/m, '');
    expect(documentedMethods(withoutCall)).not.toContain('call');
    const renamed = doc.replace('| -40003 | BlockHash does not exist |', '| -40003 | Block hash does not exist |');
    expect(documentedErrors(renamed).get(-40003)).toBe('Block hash does not exist');
    expect(sameStructure(structure({ a: '0x1', b: 1 }), structure({ a: '0x2' }))).toEqual(['result: the doc lacks [], has extra ["b"]']);
  });
});
