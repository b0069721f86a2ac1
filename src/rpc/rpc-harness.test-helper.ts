import { readFileSync } from 'node:fs';
import { TransactionBuilder, type Transaction } from '../chain/index.js';
import { fromHex, toHex } from '../codec/index.js';
import { encodeFunctionCall } from '../abi/index.js';
import { keccak256 } from '../crypto/index.js';
import { createRpcService, type RpcService, type RpcServiceOptions } from './rpc-service.js';
import { DevNode, seededRandom, type DevNodeOptions } from './testing/index.js';

export const HELLO_WORLD = JSON.parse(
  readFileSync(new URL('../../fixtures/contracts/artifacts/HelloWorld.json', import.meta.url), 'utf8'),
) as { bytecode: string };

export interface Reply {
  id: unknown;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

/** A dev node, its RPC service, a user who signs transactions, and shortcuts. */
export async function rpcHarness(options: DevNodeOptions = {}, serviceOptions: RpcServiceOptions = {}) {
  const node = await DevNode.create({ now: () => Date.UTC(2026, 0, 2), ...options });
  const service: RpcService = createRpcService(node, serviceOptions);
  const group = node.mainGroup;
  const user = new TransactionBuilder({
    suite: group.suite,
    generation: group.version.txGeneration,
    key: group.suite.generateKeyPair(seededRandom('user')),
    random: seededRandom('user-nonces'),
    chainId: BigInt(options.chainId ?? 1),
    groupId: BigInt(group.groupId),
  });
  let nextId = 1;
  const raw = async (payload: unknown): Promise<unknown> => JSON.parse(await service.handle(JSON.stringify(payload)));
  const rpc = async (method: string, params: unknown[] = []): Promise<Reply> =>
    (await raw({ jsonrpc: '2.0', id: nextId++, method, params })) as Reply;
  const result = async <T = unknown>(method: string, params: unknown[] = []): Promise<T> => {
    const reply = await rpc(method, params);
    if (reply.error) throw new Error(`${method}: ${reply.error.code} ${reply.error.message} ${JSON.stringify(reply.error.data)}`);
    return reply.result as T;
  };
  const abi = (signature: string, args: unknown[] = []) => encodeFunctionCall(signature, args, keccak256);
  const send = async (tx: Transaction): Promise<Reply> => rpc('sendRawTransaction', [group.groupId, toHex(tx.raw).slice(2)]);
  return {
    node,
    group,
    service,
    user,
    raw,
    rpc,
    result,
    abi,
    send,
    deployTx: (blockLimit = BigInt(group.blockNumber() + 500)) => user.build({ to: null, data: fromHex(HELLO_WORLD.bytecode), blockLimit }),
    callTx: (to: Uint8Array, data: Uint8Array, blockLimit = BigInt(group.blockNumber() + 500)) => user.build({ to, data, blockLimit }),
  };
}
