import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { contractBytecode } from '../../fixtures/contracts/artifacts.js';
import { TransactionBuilder } from '../chain/index.js';
import { encodeFunctionCall } from '../abi/index.js';
import { keccak256, type SuiteName } from '../crypto/index.js';
import { createRpcService, JsonRpcClient, startHttpServer } from '../rpc/index.js';
import { DevNode, seededRandom } from '../rpc/testing/index.js';

export interface DevChainOptions {
  readonly supportedVersion?: string;
  readonly suite?: SuiteName;
  readonly stateType?: 'mpt' | 'storage';
  readonly seed?: string;
}

/**
 * A dev node served over real HTTP on a free loopback port, with blocks made by sealing what was
 * sent: HelloWorld deployed and set, a reverting call, events, then blocks of plain sets.
 */
export async function devChain(options: DevChainOptions = {}) {
  const node = await DevNode.create({
    ...(options.supportedVersion ? { supportedVersion: options.supportedVersion } : {}),
    ...(options.suite ? { suite: options.suite } : {}),
    ...(options.stateType ? { stateType: options.stateType } : {}),
    seed: options.seed ?? 'recorder-test',
  });
  const server = await startHttpServer(createRpcService(node), { port: 0 });
  const group = node.mainGroup;
  const user = new TransactionBuilder({
    suite: group.suite,
    generation: group.version.txGeneration,
    key: group.suite.generateKeyPair(seededRandom(`${options.seed ?? 'recorder-test'}-user`)),
    random: seededRandom(`${options.seed ?? 'recorder-test'}-nonces`),
  });
  let transactions = 0;
  const send = async (to: Uint8Array | null, data: Uint8Array) => {
    const tx = user.build({ to, data, blockLimit: BigInt(group.blockNumber() + 100) });
    const result = await group.submit(tx.raw);
    if (!result.accepted) throw new Error(`refused: ${result.rejection.reason}`);
    transactions++;
    return tx;
  };
  const call = (signature: string, values: unknown[]) => encodeFunctionCall(signature, values, keccak256);
  /** Seal what was sent into one block. */
  const seal = async () => {
    const block = await node.seal();
    if (!block) throw new Error('nothing to seal');
    return block;
  };
  const sendBlock = async (count: number, text: string) => {
    for (let i = 0; i < count; i++) await send(hello, call('set(string)', [`${text} ${i}`]));
    await seal();
  };

  // block 1: three deployments
  await send(null, contractBytecode('HelloWorld'));
  await send(null, contractBytecode('Reverter'));
  await send(null, contractBytecode('EventEmitter'));
  const deployed = await seal();
  const [hello, reverter, emitter] = deployed.block.receipts.map((r) => r.contractAddress) as [Uint8Array, Uint8Array, Uint8Array];
  // block 2: a set, a revert, events
  await send(hello, call('set(string)', ['hello']));
  await send(reverter, call('revertWithReason(string)', ['no']));
  await send(emitter, call('emitAll(uint256,string,string)', [7n, 'label', 'text']));
  await seal();
  // blocks 3..8: sets, one block larger than a receipt batch
  for (const size of [1, 2, 120, 1, 3, 1]) await sendBlock(size, `block with ${size}`);

  const client = new JsonRpcClient(server.url);
  return {
    node,
    server,
    url: server.url,
    client,
    /** Blocks so far (the head). */
    height: () => group.blockNumber(),
    transactions: () => transactions,
    sendBlock,
    close: () => server.close(),
  };
}

export type DevChain = Awaited<ReturnType<typeof devChain>>;

export interface ProxyExchange {
  /** The request body as parsed JSON. */
  readonly request: unknown;
  /** Number of this request, from 1. */
  readonly count: number;
}

/** What the proxy answers: a status and body, 'reset' (destroy the socket), or 'forward'. */
/** 'hang': read the request and never answer (until the proxy closes). */
export type ProxyAnswer = { status: number; body: string } | 'reset' | 'forward' | 'hang' | ((replyText: string) => { status: number; body: string });

/** A tiny node:http endpoint in front of `target` that can fail, tamper with or pass each request. */
export async function proxy(target: string, decide: (exchange: ProxyExchange) => ProxyAnswer): Promise<{ url: string; requests: unknown[]; close: () => Promise<void> }> {
  const requests: unknown[] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const request = JSON.parse(text) as unknown;
      requests.push(request);
      const answer = decide({ request, count: requests.length });
      if (answer === 'reset') {
        req.socket.destroy();
        return;
      }
      if (answer === 'hang') return;
      const reply = (a: { status: number; body: string }) => {
        res.writeHead(a.status, { 'content-type': 'application/json' });
        res.end(a.body);
      };
      if (typeof answer === 'object') return reply(answer);
      void fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body: text })
        .then((r) => r.text())
        .then((body) => reply(answer === 'forward' ? { status: 200, body } : answer(body)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Whether a request body asks for `method` (alone or in a batch). */
export function asks(request: unknown, method: string): boolean {
  const items = Array.isArray(request) ? request : [request];
  return items.some((r) => (r as { method?: string }).method === method);
}

