import type { Node } from '../node/index.js';
import { createRpcService, type RpcService } from '../rpc/index.js';
import type { SimChain } from './sim-chain.js';

/**
 * The JSON-RPC service of each simulated node's current incarnation (a restarted node is a new
 * Node object with a fresh service). Call it only inside simulation events.
 */
export class NodeRpc {
  private readonly services = new WeakMap<Node, RpcService>();

  constructor(private readonly chain: SimChain) {}

  /** The node's service, or undefined while it is down, paused or booting. */
  service(name: string): RpcService | undefined {
    if (this.chain.sim.node(name).state !== 'up') return undefined;
    const node = this.chain.node(name);
    if (!node) return undefined;
    let service = this.services.get(node);
    if (!service) {
      service = createRpcService(node);
      this.services.set(node, service);
    }
    return service;
  }

  /** One JSON-RPC call; undefined when the node cannot answer (down), else the reply object. */
  async call(name: string, method: string, params: unknown[], id = 1): Promise<RpcCallReply | undefined> {
    const service = this.service(name);
    if (!service) return undefined;
    const reply = await service.handleParsed({ jsonrpc: '2.0', id, method, params });
    return reply as RpcCallReply;
  }
}

export type RpcCallReply = { readonly id: unknown; readonly result?: unknown; readonly error?: { code: number; message: string; data?: unknown } };
