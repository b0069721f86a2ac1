import { Agent, createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { contractBytecode } from '../fixture-contracts.js';
import { TransactionBuilder } from '../chain/index.js';
import { toHex } from '../codec/index.js';
import { encodeFunctionCall } from '../abi/index.js';
import { keccak256 } from '../crypto/index.js';
import { createRpcService, startHttpServer } from '../rpc/index.js';
import { DevNode, seededRandom } from '../rpc/testing/index.js';
import type { BenchIo } from './bench-io.js';
import { formatRate, table } from './measure.js';

const SECONDS = 2;
const WARMUP_SECONDS = 0.3;
const CONCURRENCY = [1, 32];
const TARGET_RATIO = 0.6;
/** `call` at concurrency 32, on either state type. */
const CALL_TARGET = 3000;
const CALL_TARGET_CONCURRENCY = 32;
const STATE_TYPES = ['mpt', 'storage'] as const;
const BARE_BODY = '{"jsonrpc":"2.0","id":1,"result":"0x1"}';

interface Load {
  readonly perSecond: number;
  readonly p50: number;
  readonly p99: number;
  readonly errors: number;
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

function post(agent: Agent, port: number, body: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request(
      { host: '127.0.0.1', port, path: '/', method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve(res.statusCode === 200 && !text.includes('"error"')));
      },
    );
    req.on('error', () => resolve(false));
    req.end(body);
  });
}

/** `concurrency` keep-alive clients posting `body` back to back for `seconds`. */
async function drive(port: number, body: string, concurrency: number, seconds: number): Promise<Load> {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const latencies: number[] = [];
  let errors = 0;
  const start = performance.now();
  const end = start + seconds * 1000;
  const worker = async () => {
    while (performance.now() < end) {
      const t = performance.now();
      if (!(await post(agent, port, body))) errors++;
      latencies.push(performance.now() - t);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const elapsed = (performance.now() - start) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return { perSecond: latencies.length / elapsed, p50: percentile(latencies, 50), p99: percentile(latencies, 99), errors };
}

async function measure(port: number, body: string, concurrency: number): Promise<Load> {
  await drive(port, body, concurrency, WARMUP_SECONDS);
  return drive(port, body, concurrency, SECONDS);
}

async function bareServer(): Promise<Server> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(BARE_BODY) });
      res.end(BARE_BODY);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

/** A dev node with HelloWorld deployed on a state of `stateType`, so `call` runs real EVM code. */
async function nodeWithContract(stateType: 'mpt' | 'storage'): Promise<{ node: DevNode; callBody: string }> {
  const node = await DevNode.create({ seed: 'rpc-bench', stateType });
  const group = node.mainGroup;
  const user = new TransactionBuilder({
    suite: group.suite,
    generation: group.version.txGeneration,
    key: group.suite.generateKeyPair(seededRandom('rpc-bench-user')),
    random: seededRandom('rpc-bench-nonces'),
  });
  const deploy = user.build({ to: null, data: contractBytecode('HelloWorld'), blockLimit: 100n });
  const submitted = await group.submit(deploy.raw);
  if (!submitted.accepted) throw new Error(`deploy refused: ${submitted.rejection.reason}`);
  const block = await node.seal();
  const contract = block!.block.receipts[0]!.contractAddress;
  const callBody = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'call',
    params: [1, { from: toHex(user.address), to: toHex(contract), data: toHex(encodeFunctionCall('get()', [], keccak256)) }],
  });
  return { node, callBody };
}

export async function run(io: BenchIo): Promise<void> {
  io.out(`rpc: JSON-RPC over HTTP with keep-alive, load driven in-process, ${SECONDS} s per figure (after ${WARMUP_SECONDS} s warm-up)\n`);
  // a node per state type: Twinchain's trie (the dev node's default) and FISCO's storage state
  const nodes = await Promise.all(STATE_TYPES.map(async (stateType) => ({ stateType, ...(await nodeWithContract(stateType)) })));
  const servers = await Promise.all(nodes.map(({ node }) => startHttpServer(createRpcService(node), { port: 0 })));
  const targets = nodes.map(({ stateType, callBody }, i) => ({ name: `call (HelloWorld.get, ${stateType} state)`, port: servers[i]!.port, body: callBody }));
  const rpc = servers[0]!;
  const bare = await bareServer();
  const barePort = (bare.address() as AddressInfo).port;
  const blockNumberBody = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getBlockNumber', params: [1] });
  const rows: string[][] = [];
  const verdicts: string[] = [];
  try {
    // warm both servers and the client code up once, so the first figure is not the JIT's
    const warm: Array<readonly [number, string]> = [[barePort, blockNumberBody], [rpc.port, blockNumberBody], ...targets.map((t) => [t.port, t.body] as const)];
    for (const [port, body] of warm) await drive(port, body, 8, 0.5);
    for (const concurrency of CONCURRENCY) {
      const base = await measure(barePort, blockNumberBody, concurrency);
      const runs: Array<[string, Load]> = [
        ['bare node:http (constant body)', base],
        ['getBlockNumber', await measure(rpc.port, blockNumberBody, concurrency)],
      ];
      for (const target of targets) runs.push([target.name, await measure(target.port, target.body, concurrency)]);
      for (const [name, load] of runs) {
        const ratio = load.perSecond / base.perSecond;
        rows.push([
          name,
          String(concurrency),
          formatRate(load.perSecond),
          load.p50.toFixed(3),
          load.p99.toFixed(3),
          name.startsWith('bare') ? '100%' : `${(ratio * 100).toFixed(0)}%`,
          load.errors > 0 ? `${load.errors} errors` : '-',
        ]);
        if (name === 'getBlockNumber') {
          verdicts.push(
            `getBlockNumber at concurrency ${concurrency}: ${(ratio * 100).toFixed(0)}% of the bare server, ${ratio >= TARGET_RATIO ? 'meets' : 'BELOW'} the ≥ ${TARGET_RATIO * 100}% target`,
          );
        } else if (name.startsWith('call') && concurrency === CALL_TARGET_CONCURRENCY) {
          verdicts.push(
            `${name} at concurrency ${concurrency}: ${formatRate(load.perSecond)} req/s, ${load.perSecond >= CALL_TARGET ? 'meets' : 'BELOW'} the ≥ ${formatRate(CALL_TARGET)} req/s target`,
          );
        }
      }
    }
  } finally {
    for (const server of servers) await server.close();
    await new Promise<void>((resolve) => {
      bare.close(() => resolve());
      bare.closeAllConnections();
    });
  }
  io.out(table(['target', 'concurrency', 'requests/s', 'p50 ms', 'p99 ms', 'vs bare', 'errors'], rows));
  io.out('');
  io.out(verdicts.join('\n'));
}
