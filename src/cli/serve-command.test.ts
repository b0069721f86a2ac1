import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { runConformance, type ConformanceReport } from '../conformance/index.js';
import { startDevServer, type DevServer } from '../sim/index.js';
import { captureIo } from './capture-io.test-helper.js';
import { main } from './main.js';

const BIN = new URL('../../bin/twinchain.js', import.meta.url).pathname;

function failures(report: ConformanceReport): string[] {
  return report.results.filter((r) => r.status === 'fail').map((r) => `${r.name}: ${r.reason}`);
}

async function rpc(url: string, method: string, params: unknown[] = [1]): Promise<{ id: unknown; result?: unknown; error?: { code: number; message: string } }> {
  const response = await fetch(url, { method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params }) });
  return (await response.json()) as { id: unknown; result?: unknown; error?: { code: number; message: string } };
}

let server: DevServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('the dev server (twinchain serve) over real HTTP', () => {
  it.each([
    ['later', 'pbft', '2.11.0', 'ecdsa'],
    ['earlier', 'pbft', '2.0.0-rc1', 'ecdsa'],
    ['later', 'raft', '2.11.0', 'ecdsa'],
    ['earlier', 'raft', '2.0.0-rc1', 'ecdsa'],
    ['later', 'pbft', '2.4.0', 'sm'],
  ] as const)('passes the conformance suite: %s variant, %s, supported_version %s, %s', async (variant, consensus, supportedVersion, suite) => {
    server = await startDevServer({ rpcPort: 0, consensus, supportedVersion, suite, seed: `serve-${variant}-${consensus}-${suite}` });
    expect(server.endpoints).toHaveLength(4);
    const report = await runConformance({ url: server.endpoints[1]!.url, pollIntervalMs: 50 });
    expect(failures(report)).toEqual([]);
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

  it('refuses bad options with exit status 2 and a message naming the option', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['serve', '--nodes', '0'], /--nodes must be an integer from 1 to 64 \(got "0"\)/],
      [['serve', '--consensus', 'poa'], /--consensus must be one of pbft, raft \(got "poa"\)/],
      [['serve', '--rpc-port', '65535', '--nodes', '4'], /--rpc-port 65535 leaves no room for 4 nodes/],
      [['serve', '--supported-version', '3.0.0'], /--supported-version: .*3\.0\.0/],
      [['serve', 'extra'], /unexpected argument "extra"/],
    ];
    for (const [args, message] of cases) {
      const io = captureIo();
      expect(await main(args, io), args.join(' ')).toBe(2);
      expect(io.stderr).toMatch(message);
    }
  });

  it('runs as a process: endpoints and a ready line, `twinchain conform` passes against it, Ctrl-C (SIGINT) stops it cleanly', async () => {
    const child = spawn(process.execPath, [BIN, 'serve', '--nodes', '3', '--consensus', 'raft', '--supported-version', '2.0.0-rc1', '--rpc-port', '0', '--quiet'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const ready = new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => {
        stdout += d.toString();
        if (/^ready: /m.test(stdout)) resolve();
      });
      child.once('exit', (code) => reject(new Error(`serve exited with ${code} before ready: ${stderr}`)));
    });
    await ready;
    const urls = [...stdout.matchAll(/^node\d+\s+JSON-RPC\s+(\S+)$/gm)].map((m) => m[1]!);
    expect(urls).toHaveLength(3);
    expect(stdout).toMatch(/ready: 3 RAFT sealers in group 1, supported_version 2\.0\.0-rc1, ecdsa, seed twinchain-serve; Ctrl-C stops/);
    // the earlier variant's client version has no "Supported Version" key; its FISCO-BCOS Version is the rc
    expect(await rpc(urls[1]!, 'getClientVersion', [])).toMatchObject({ result: { 'FISCO-BCOS Version': '2.0.0-rc1' } });
    const conform = captureIo();
    expect(await main(['conform', urls[2]!], conform)).toBe(0);
    expect(conform.stdout).toMatch(/earlier interface variant \(detected\); RAFT/);
    expect(conform.stdout).toMatch(/\d+ checks: \d+ passed, 0 failed/);
    const exited = once(child, 'exit');
    child.kill('SIGINT');
    const [code] = (await exited) as [number | null];
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toMatch(/stopped\n$/);
    await expect(fetch(urls[0]!, { method: 'POST', body: '{}' })).rejects.toThrow();
  });
});
