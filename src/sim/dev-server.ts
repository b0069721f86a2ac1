import type { ConsensusType } from '../chain/index.js';
import type { SuiteName } from '../crypto/index.js';
import { createRpcService, rpcError, startHttpServer, type RpcHttpServer, type RpcReply, type RpcService } from '../rpc/index.js';
import { SimulationError, type WallClock } from '../runtime/index.js';
import { NodeRpc } from './node-rpc.js';
import { SimChain } from './sim-chain.js';

export interface DevServerOptions {
  /** Sealers in group 1 (default 4). */
  readonly nodes?: number;
  readonly consensus?: ConsensusType;
  /** Node i serves JSON-RPC on `rpcPort + i`; 0 lets every node pick a free port. Default 8545. */
  readonly rpcPort?: number;
  readonly host?: string;
  readonly seed?: string | number;
  /** `[compatibility] supported_version` (default 2.11.0). */
  readonly supportedVersion?: string;
  readonly suite?: SuiteName;
  /** Genesis timestamp; the dev server passes the wall clock so block timestamps look current. */
  readonly epochMs?: number;
  /** Virtual ms per wall ms (default 1). */
  readonly rate?: number;
  /** Wall clock for pacing (tests may pass a fake one). */
  readonly wall?: WallClock;
  /** Told about every block every node commits, naming the node (called once per node and block). */
  readonly onBlock?: (block: CommittedBlock) => void;
  readonly onLog?: (node: string, line: string) => void;
  /**
   * Starts something more per node beside its HTTP JSON-RPC (serve: the channel port) over the
   * node's RPC service; it is told its own node's commits and closed with the server.
   */
  readonly attach?: (node: { readonly name: string; readonly index: number; readonly service: RpcService; readonly supportedVersion: string }) => Promise<NodeAttachment>;
}

export interface CommittedBlock {
  readonly node: string;
  readonly group: number;
  readonly number: number;
  readonly txs: number;
  readonly hash: string;
}

/** What `attach` started for a node. */
export interface NodeAttachment {
  /** The node committed block `blockNumber` of `groupId`. */
  blockCommitted?(groupId: number, blockNumber: number): void;
  close(): Promise<void>;
}

export interface DevServer {
  readonly chain: SimChain;
  readonly endpoints: ReadonlyArray<{ node: string; url: string; port: number }>;
  /** Settles when the simulation stops (after close(), or with an error if it failed). */
  readonly done: Promise<void>;
  /** Stops the simulation, the HTTP servers and what `attach` started. */
  close(): Promise<void>;
}

/** A JSON-RPC error reply for a request the node could not take (it is down), keeping the request's id. */
function unavailable(body: unknown, message: string): RpcReply | RpcReply[] {
  const reply = (request: unknown): RpcReply => {
    // requests that are not requests, or have no id, are refused the same way whether the node is up or not
    if (typeof request !== 'object' || request === null || Array.isArray(request)) {
      return { jsonrpc: '2.0', id: null, error: rpcError('invalidRequest', 'a request must be a JSON object').toJSON() };
    }
    if (!('id' in request)) return { jsonrpc: '2.0', id: null, error: rpcError('procedureIsMethod', 'the request has no id field').toJSON() };
    const id = (request as { id: unknown }).id;
    const safeId = typeof id === 'string' || typeof id === 'number' ? id : null;
    return { jsonrpc: '2.0', id: safeId, error: rpcError('internalError', message).toJSON() };
  };
  return Array.isArray(body) && body.length > 0 ? body.map(reply) : reply(body);
}

/**
 * Serves one simulated node's JSON-RPC: every request runs as an event on that node, at the
 * virtual time matching the wall clock, so the node sees it exactly like a message.
 */
function nodeService(chain: SimChain, rpc: NodeRpc, name: string, running: () => boolean): RpcService {
  const base = createRpcService(chain.node(name)!);
  const current = (): RpcService => {
    const service = rpc.service(name);
    if (!service) throw new SimulationError(`node ${name} is ${chain.sim.node(name).state}`);
    return service;
  };
  const run = async <T>(work: () => Promise<T>, fallback: (message: string) => T): Promise<T> => {
    // injected work waits for the run to reach it: once the run has ended, nothing ever would
    if (!running()) return fallback(`${name} cannot answer: the simulation has stopped`);
    try {
      return await chain.sim.inject(work, { node: name, label: 'rpc' });
    } catch (error) {
      if (error instanceof SimulationError) return fallback(`${name} cannot answer: ${error.message}`);
      throw error;
    }
  };
  return {
    get node() {
      return chain.node(name) ?? base.node;
    },
    methods: base.methods,
    maxBatch: base.maxBatch,
    handle: (body, limits) =>
      run(
        () => current().handle(body, limits),
        (message) => {
          let parsed: unknown = null;
          try {
            parsed = JSON.parse(body);
          } catch {
            // the node would have answered -32700; with the node down the id is unknown anyway
          }
          return JSON.stringify(unavailable(parsed, message));
        },
      ),
    handleParsed: (request, limits) => run(() => current().handleParsed(request, limits), (message) => unavailable(request, message)),
  };
}

/**
 * `twinchain serve`: one simulated group paced to the wall clock, node i's JSON-RPC on
 * `rpcPort + i`. Returns once every node has booted and every port listens.
 */
export async function startDevServer(options: DevServerOptions = {}): Promise<DevServer> {
  const count = options.nodes ?? 4;
  if (!Number.isSafeInteger(count) || count < 1 || count > 64) throw new RangeError(`nodes must be an integer from 1 to 64 (got ${String(options.nodes)})`);
  const basePort = options.rpcPort ?? 8545;
  if (!Number.isSafeInteger(basePort) || basePort < 0 || (basePort > 0 && basePort + count - 1 > 65535)) {
    throw new RangeError(`rpc port ${String(options.rpcPort)} leaves no room for ${count} nodes (ports must be ≤ 65535)`);
  }
  const names = Array.from({ length: count }, (_, i) => `node${i}`);
  const attached = new Map<string, NodeAttachment>();
  const chain = new SimChain({
    seed: options.seed ?? 'twinchain-serve',
    nodes: count,
    ...(options.suite ? { suite: options.suite } : {}),
    ...(options.supportedVersion ? { version: options.supportedVersion } : {}),
    groups: [{ id: 1, consensus: options.consensus ?? 'pbft', sealers: names }],
    ...(options.epochMs !== undefined ? { epochMs: options.epochMs } : {}),
    ...(options.onLog ? { onLog: options.onLog } : {}),
    onNodeEvent: (node, kind, fields) => {
      if (kind !== 'block-committed') return;
      const group = fields['group'] as number;
      const number = fields['number'] as number;
      options.onBlock?.({ node, group, number, txs: fields['txs'] as number, hash: fields['hash'] as string });
      attached.get(node)?.blockCommitted?.(group, number);
    },
  });
  // Boot every node before the first request can reach it.
  await chain.sim.run({ stopWhen: () => names.every((n) => chain.node(n) !== undefined), forMs: 1000 });
  const missing = names.filter((n) => chain.node(n) === undefined);
  if (missing.length > 0) throw new Error(`nodes did not boot: ${missing.join(', ')}`);

  const rpc = new NodeRpc(chain);
  // The paced run starts before the ports and `attach`: a request (also one `attach` makes) runs
  // as soon as it arrives, and one after the run has ended is refused at once, never left waiting.
  let running = true;
  const done = chain.sim
    .run({ until: Infinity, pace: { rate: options.rate ?? 1, ...(options.wall ? { wall: options.wall } : {}) } })
    .then(() => undefined)
    .finally(() => (running = false));
  done.catch(() => undefined); // a failure is reported through `done` (or the start), never as unhandled
  const stopRun = async () => {
    chain.sim.stop();
    await done.catch(() => undefined);
  };
  const servers: RpcHttpServer[] = [];
  const closeAll = () => Promise.all([...servers.map((s) => s.close()), ...[...attached.values()].map((a) => a.close())]);
  try {
    for (const [i, name] of names.entries()) {
      const service = nodeService(chain, rpc, name, () => running);
      servers.push(await startHttpServer(service, { host: options.host ?? '127.0.0.1', port: basePort === 0 ? 0 : basePort + i }));
      if (options.attach) attached.set(name, await options.attach({ name, index: i, service, supportedVersion: chain.version.text }));
    }
  } catch (error) {
    await closeAll();
    await stopRun();
    throw error;
  }
  let closing: Promise<void> | undefined;
  return {
    chain,
    endpoints: servers.map((s, i) => ({ node: names[i]!, url: s.url, port: s.port })),
    done,
    close: () => {
      closing ??= (async () => {
        await closeAll();
        await stopRun();
      })();
      return closing;
    },
  };
}
