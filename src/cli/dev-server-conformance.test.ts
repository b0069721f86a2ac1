import { afterEach, describe, expect, it } from 'vitest';
import { runConformance } from '../conformance/index.js';
import { startDevServer, type DevServer } from '../sim/index.js';
import { CONFORMANCE_CASES, failedChecks } from '../conformance/conformance.test-helper.js';
import { rpc } from './http-rpc.test-helper.js';

// In process (simulated nodes behind real loopback HTTP), so `npm run mutation` runs them against
// the mutants too: they are the tests that reach the node's RPC-facing group and driver code.
let server: DevServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('the dev server (twinchain serve) over real HTTP', () => {
  it.each(CONFORMANCE_CASES)('passes the conformance suite: %s variant, %s, supported_version %s, %s', async (variant, consensus, supportedVersion, suite) => {
    server = await startDevServer({ rpcPort: 0, consensus, supportedVersion, suite, seed: `serve-${variant}-${consensus}-${suite}` });
    expect(server.endpoints).toHaveLength(4);
    const report = await runConformance({ url: server.endpoints[1]!.url, pollIntervalMs: 50 });
    expect(failedChecks(report)).toEqual([]);
    expect(report).toMatchObject({ variant, variantSource: 'detected', consensus, suite, failed: 0 });
    // only the consensus-specific check (getPbftView on PBFT / -40007 on Raft) and -40009 may skip
    for (const r of report.results.filter((x) => x.status === 'skip')) expect(r.name).toMatch(/getPbftView|-40007|-40009|pending/);
    // issue 14: every lenient case a real FISCO node accepts passes, and the peers' Agency/Node follow the variant
    const lenient = report.results.filter((r) => r.area === 'lenient');
    expect(lenient.map((r) => r.status)).toEqual(Array(10).fill('pass'));
    const agency = report.results.find((r) => r.name.startsWith('getPeers: Agency and Node'));
    expect(agency).toMatchObject({ status: 'pass' });
    if (variant === 'later') expect(agency!.reason).toMatch(/Agency "agency", Node "node\d"/);
    // Every node serves the same chain: node3 sees the block node1's client waited for.
    const heights = await Promise.all(server.endpoints.map(async (e) => (await rpc(e.url, 'getBlockNumber')).result));
    expect(new Set(heights).size).toBeLessThanOrEqual(2);
  });

  it('answers for a crashed node with an error naming it, keeps serving the others, and serves it again after restart', async () => {
    server = await startDevServer({ rpcPort: 0, seed: 'serve-crash' });
    const [node0, node1] = server.endpoints;
    const sim = server.chain.sim;
    await sim.inject(() => sim.crash('node1'));
    const down = await rpc(node1!.url, 'getBlockNumber');
    expect(down).toMatchObject({ id: 7, error: { code: -32603 } });
    expect(down.error!.message).toMatch(/^INTERNAL ERROR: node1 cannot answer: .*node1.*crashed|down/);
    const noId = await (await fetch(node1!.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"jsonrpc":"2.0","method":"getBlockNumber","params":[1]}' })).json();
    expect(noId).toMatchObject({ id: null, error: { code: -32604 } });
    expect((await rpc(node0!.url, 'getBlockNumber')).result).toMatch(/^0x[0-9a-f]+$/);
    await sim.inject(() => sim.restart('node1'));
    for (let i = 0; i < 100 && server.chain.node('node1') === undefined; i++) await new Promise((r) => setTimeout(r, 20));
    expect((await rpc(node1!.url, 'getBlockNumber')).result).toMatch(/^0x[0-9a-f]+$/);
  });

});
