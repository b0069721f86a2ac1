import { afterAll, describe, expect, it } from 'vitest';
import { createRpcService, startHttpServer, type RpcHttpServer } from '../rpc/index.js';
import { DevNode, type DevNodeOptions } from '../rpc/testing/index.js';
import { CONFORMANCE_CASES, failedChecks } from './conformance.test-helper.js';
import { formatReport } from './report.js';
import { EndpointUnreachableError, runConformance } from './run-conformance.js';

const servers: Array<{ node: DevNode; http: RpcHttpServer }> = [];
afterAll(async () => {
  for (const s of servers) {
    await s.node.stopSealing();
    await s.http.close();
  }
});

/** A dev node sealing every 20 ms behind a real HTTP port. */
async function serve(options: DevNodeOptions): Promise<string> {
  const node = await DevNode.create({ removedGroupIds: [2], ...options });
  node.startSealing(20);
  const http = await startHttpServer(createRpcService(node), { port: 0 });
  servers.push({ node, http });
  return http.url;
}

describe('the conformance suite against a dev node over real HTTP', () => {
  it.each(CONFORMANCE_CASES)('passes: %s variant, %s, supported_version %s, %s', async (variant, consensus, supportedVersion, suite) => {
    const url = await serve({ consensus, supportedVersion, suite, seed: `${variant}-${consensus}-${suite}` });
    const report = await runConformance({ url, removedGroup: 2, pollIntervalMs: 20 });
    expect(failedChecks(report)).toEqual([]);
    expect(report).toMatchObject({ variant, variantSource: 'detected', consensus, suite, failed: 0 });
    const skipped = report.results.filter((r) => r.status === 'skip').map((r) => r.name);
    // Only the consensus-specific check, the pending sighting if the block came first, and the
    // peers' Agency/Node (a lone dev node has no peers; \`twinchain serve\` does, see conform-command.test.ts).
    for (const name of skipped) expect(name).toMatch(/getPbftView|-40007|pending|Agency and Node/);
    expect(report.passed).toBeGreaterThanOrEqual(report.results.length - 3);
    // the lenient cases ran and passed
    expect(report.results.filter((r) => r.area === 'lenient' && r.status === 'pass')).toHaveLength(10);
    expect(formatReport(report)).toContain(`${report.results.length} checks: ${report.passed} passed, 0 failed`);
  });

  it('fails the variant checks when told to expect the other variant', async () => {
    const url = await serve({ supportedVersion: '2.11.0', seed: 'mismatch' });
    const report = await runConformance({ url, variant: 'earlier', pollIntervalMs: 20 });
    expect(report.variantSource).toBe('option');
    const failed = failedChecks(report).join('\n');
    expect(failed).toContain('only the later variant has');
    expect(failed).toContain('getClientVersion');
    expect(report.results.find((r) => r.name.includes('-40009'))).toMatchObject({ status: 'skip' });
  });

  it('reports an unreachable endpoint', async () => {
    await expect(runConformance({ url: 'http://127.0.0.1:1/', requestTimeoutMs: 2000 })).rejects.toBeInstanceOf(EndpointUnreachableError);
  });
});

describe('the conformance suite without a socket', () => {
  it('runs through msw against an in-process dev node', async () => {
    const { setupServer } = await import('msw/node');
    const { createMswHandler } = await import('../rpc/msw-handler.js');
    const node = await DevNode.create({ seed: 'msw' });
    node.startSealing(10);
    const mock = setupServer(createMswHandler(createRpcService(node), 'http://conformance.twinchain.test'));
    mock.listen({ onUnhandledRequest: 'error' });
    try {
      const report = await runConformance({ url: 'http://conformance.twinchain.test/', pollIntervalMs: 10 });
      expect(failedChecks(report)).toEqual([]);
    } finally {
      mock.close();
      await node.stopSealing();
    }
  });

  it('catches a later-variant node that refuses decimal transaction indexes (FISCO 2.x takes them: jsToInt)', async () => {
    const { inProcessFetch } = await import('../rpc/index.js');
    const node = await DevNode.create({ seed: 'hex-indexes-only' });
    node.startSealing(10);
    const honest = inProcessFetch(createRpcService(node));
    const hexOnly = async (input: string | URL | Request, init?: RequestInit) => {
      let request: { id?: unknown; method?: string; params?: unknown[] } = {};
      try {
        if (typeof init?.body === 'string') request = JSON.parse(init.body) as typeof request;
      } catch {
        // the envelope checks send bodies that are not JSON
      }
      const index = request.params?.[2];
      if (request.method?.endsWith('AndIndex') && typeof index === 'string' && !index.startsWith('0x')) {
        const error = { code: -32602, message: `INVALID_PARAMS: transactionIndex: hex quantity must start with 0x (got ${JSON.stringify(index)})` };
        return new Response(JSON.stringify({ jsonrpc: '2.0', id: request.id, error }), { headers: { 'content-type': 'application/json' } });
      }
      return honest(input, init);
    };
    try {
      const report = await runConformance({ url: 'http://hex-indexes-only.test/', fetch: hexOnly, pollIntervalMs: 10 });
      expect(failedChecks(report)).toEqual([expect.stringMatching(/^quantity parameters: decimal .*getTransactionByBlockNumberAndIndex.*-32602/)]);
    } finally {
      await node.stopSealing();
    }
  });

  it('catches a node that breaks SPEC: FISCO 2.4-style sync hashes, decimal heights, wrong codes', async () => {
    const { inProcessFetch } = await import('../rpc/index.js');
    const node = await DevNode.create({ seed: 'broken' });
    node.startSealing(10);
    const honest = inProcessFetch(createRpcService(node));
    const broken = async (input: string | URL | Request, init?: RequestInit) => {
      const response = await honest(input, init);
      const request = typeof init?.body === 'string' ? (JSON.parse(init.body) as { method?: string }) : {};
      const text = await response.text();
      let changed = text;
      if (request.method === 'getSyncStatus') changed = text.replace(/"(genesisHash|latestHash)":"0x/g, '"$1":"');
      if (request.method === 'getBlockNumber') changed = text.replace(/"result":"0x([0-9a-f]+)"/, (_m, hex: string) => `"result":"${parseInt(hex, 16)}"`);
      if (request.method === 'getSystemConfigByKey') changed = text.replace('-40008', '-32603');
      if (request.method === 'getConsensusStatus') changed = text.replace('"node index"', '"nodeIndex"');
      return new Response(changed, { status: response.status, headers: response.headers });
    };
    try {
      const report = await runConformance({ url: 'http://broken.test/', fetch: broken, pollIntervalMs: 10 });
      const failed = report.results.filter((r) => r.status === 'fail');
      const reasons = failed.map((r) => `${r.name}: ${r.reason}`).join('\n');
      expect(reasons).toMatch(/getSyncStatus.*genesisHash should be a 0x-prefixed 32-byte hash/);
      expect(reasons).toMatch(/getBlockNumber: a hex quantity: block number should be a 0x hex quantity, got "0"/);
      expect(reasons).toMatch(/-40008.*expected error -40008, got -32603/);
      expect(reasons).toMatch(/getConsensusStatus.*has no "node index"/);
    } finally {
      await node.stopSealing();
    }
  });
});
