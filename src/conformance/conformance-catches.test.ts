import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRpcService, inProcessFetch, type FetchFunction } from '../rpc/index.js';
import { DevNode } from '../rpc/testing/index.js';
import { runConformance } from './run-conformance.js';

// The conformance suite is what SDK authors trust: each check must fail on a node that breaks
// what it checks. Every case below answers one method wrongly (one field of an honest dev node's
// answer changed) and names the failure the report must give.

type Json = Record<string, unknown>;
/** Changes a successful result of `method`; returns the new result. */
type Tamper = (result: unknown) => unknown;

let node: DevNode;
let honest: FetchFunction;
beforeAll(async () => {
  node = await DevNode.create({ seed: 'catches' });
  node.startSealing(10);
  honest = inProcessFetch(createRpcService(node));
});
afterAll(async () => {
  await node.stopSealing();
});

function tampered(method: string, tamper: Tamper): FetchFunction {
  return async (input, init) => {
    const response = await honest(input, init);
    let request: { method?: unknown } = {};
    try {
      if (typeof init?.body === 'string') request = JSON.parse(init.body) as typeof request;
    } catch {
      // the envelope checks send bodies that are not JSON
    }
    if (request.method !== method) return response;
    const reply = (await response.json()) as Json;
    if (!('result' in reply)) return new Response(JSON.stringify(reply), { status: response.status, headers: response.headers });
    return new Response(JSON.stringify({ ...reply, result: tamper(structuredClone(reply.result)) }), { status: response.status, headers: response.headers });
  };
}

const first = (result: unknown) => (result as Json[])[0]!;
const cases: Array<{ what: string; method: string; tamper: Tamper; failure: RegExp }> = [
  {
    what: 'a block hash of 65 hex digits',
    method: 'getBlockByNumber',
    tamper: (b) => ({ ...(b as Json), hash: `${(b as Json).hash}a` }),
    failure: /hash should be a 0x-prefixed 32-byte hash, got "0x[0-9a-f]{65}"/,
  },
  {
    what: 'a receipt logsBloom of an odd number of hex digits',
    method: 'getTransactionReceipt',
    tamper: (r) => (r === null ? r : { ...(r as Json), logsBloom: `${(r as Json).logsBloom}0` }),
    failure: /receipt\.logsBloom should be 0x-prefixed hex bytes/,
  },
  {
    what: 'a negative block number in getSyncStatus',
    method: 'getSyncStatus',
    tamper: (s) => ({ ...(s as Json), blockNumber: -1 }),
    failure: /sync status\.blockNumber should be an unsigned integer \(JSON number\), got -1/,
  },
  {
    what: 'a sealer.<index> key past the sealer list',
    method: 'getConsensusStatus',
    tamper: (s) => {
      const status = s as Json[];
      status[0] = { ...first(status), 'sealer.9': first(status)['sealer.0'] };
      return status;
    },
    failure: /2 sealer\.<index> keys for 1 sealers/,
  },
  {
    what: 'a PBFT protocolId shifted by 8 bits on a later-variant node (2.0.0-rc1\'s rule)',
    method: 'getConsensusStatus',
    tamper: (s) => {
      const status = s as Json[];
      status[0] = { ...first(status), protocolId: 264 };
      return status;
    },
    failure: /element 0\.protocolId is 264, FISCO's for group 1 is 65544/,
  },
  {
    what: 'the sync module\'s protocolId of another group',
    method: 'getSyncStatus',
    tamper: (s) => ({ ...(s as Json), protocolId: 131081 }),
    failure: /sync status\.protocolId is 131081, FISCO's for group 1 is 65545/,
  },
  {
    what: 'an empty sealer list',
    method: 'getSealerList',
    tamper: () => [],
    failure: /getSealerList: node ids without 0x: a group has at least one sealer, the list is empty/,
  },
  {
    what: '0x-prefixed node ids in the sealer list',
    method: 'getSealerList',
    tamper: (ids) => (ids as string[]).map((id) => `0x${id}`),
    failure: /getSealerList: node ids without 0x: sealer list: "0x[0-9a-f]+\.\.\. is not a node id \(128 hex characters without 0x\)/,
  },
  {
    what: 'a decimal PBFT view',
    method: 'getPbftView',
    tamper: (v) => String(Number.parseInt(String(v).slice(2), 16)),
    failure: /getPbftView: a hex quantity \(PBFT\): view should be a 0x hex quantity/,
  },
  {
    what: 'a creation receipt with status 0x1',
    method: 'getTransactionReceipt',
    tamper: (r) => (r === null || (r as Json).contractAddress === undefined ? r : { ...(r as Json), status: '0x1' }),
    failure: /status is "0x1", expected "0x0"/,
  },
  {
    what: 'a transaction whose nonce is not the payload\'s',
    method: 'getTransactionByHash',
    tamper: (t) => (t === null ? t : { ...(t as Json), nonce: '0x1' }),
    failure: /nonce is "0x1", expected "0x[0-9a-f]+"/,
  },
  {
    what: 'a client version with two "<product> Version" fields',
    method: 'getClientVersion',
    tamper: (v) => ({ ...(v as Json), 'Other Version': '1.0.0' }),
    failure: /expected one "<product> Version" field, found \[".* Version","Other Version"\]/,
  },
  {
    what: 'a call answering another string',
    method: 'call',
    tamper: (c) => ({ ...(c as Json), output: (c as { output: string }).output.replace(/48656c6c6f2c20576f726c6421/, '48656c6c6f2c20576f726c643f') }),
    failure: /get\(\) returned "Hello, World\?"/,
  },
];

describe('the conformance suite catches a node that breaks what a check checks', () => {
  it.each(cases)('$what ($method)', async ({ method, tamper, failure }) => {
    const report = await runConformance({ url: `http://${method.toLowerCase()}.catches.test/`, fetch: tampered(method, tamper), pollIntervalMs: 10 });
    const failed = report.results.filter((r) => r.status === 'fail').map((r) => `${r.name}: ${r.reason}`);
    expect(failed.join('\n')).toMatch(failure);
    expect(report.failed).toBe(failed.length);
  });
});
