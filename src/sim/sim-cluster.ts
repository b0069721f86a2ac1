import seedrandom from 'seedrandom';
import { contractBytecode } from '../fixture-contracts.js';
import { TransactionBuilder, type ConsensusType, type GroupGenesis } from '../chain/index.js';
import { fromHex, toHex } from '../codec/index.js';
import { encodeFunctionCall } from '../abi/index.js';
import { keccak256, type SuiteName } from '../crypto/index.js';
import type { ConsensusDriver, Group } from '../node/index.js';
import type { LinkConfig } from '../runtime/index.js';
import { SimChain, type SimChainOptions } from './sim-chain.js';

export interface ClusterOptions {
  readonly sealers?: number;
  readonly observers?: number;
  /** Nodes that run but are in neither list at genesis (to be added later). */
  readonly spare?: number;
  readonly seed?: string;
  readonly suite?: SuiteName;
  readonly version?: string;
  readonly consensus?: ConsensusType;
  readonly network?: Partial<LinkConfig>;
  readonly simulatedSignatures?: boolean;
  readonly consensusFactories?: Readonly<Record<string, (group: Group) => ConsensusDriver>>;
  readonly genesis?: Partial<GroupGenesis>;
  /** Share execution results between nodes with the same parent state (default true). */
  readonly executionMemo?: boolean;
  /** Share signature checks between nodes (pure results; default true). */
  readonly verificationCache?: boolean;
  /** Twins (see SimChainOptions.twins); twin names join `names` after the others. */
  readonly twins?: SimChainOptions['twins'];
  /** Byzantine nodes (see SimChainOptions.byzantine). */
  readonly byzantine?: SimChainOptions['byzantine'];
  readonly onNodeEvent?: SimChainOptions['onNodeEvent'];
}


/** A simulated group of nodes with deterministic keys, plus a client that sends HelloWorld transactions. */
export function cluster(options: ClusterOptions = {}) {
  const seed = options.seed ?? 'cluster';
  const sealerCount = options.sealers ?? 4;
  const observerCount = options.observers ?? 0;
  const total = sealerCount + observerCount + (options.spare ?? 0);
  const identities = Array.from({ length: total }, (_, i) => `node${i}`);
  const logs: Array<{ node: string; line: string }> = [];
  const chain = new SimChain({
    seed,
    nodes: total,
    ...(options.suite ? { suite: options.suite } : {}),
    ...(options.version ? { version: options.version } : {}),
    groups: [
      {
        id: 1,
        consensus: options.consensus ?? 'pbft',
        sealers: identities.slice(0, sealerCount),
        observers: identities.slice(sealerCount, sealerCount + observerCount),
        spare: identities.slice(sealerCount + observerCount),
        ...(options.genesis?.txCountLimit !== undefined ? { txCountLimit: options.genesis.txCountLimit } : {}),
        ...(options.genesis?.consensusTimeout !== undefined ? { consensusTimeout: options.genesis.consensusTimeout } : {}),
        ...(options.genesis?.minElectTime !== undefined ? { minElectTime: options.genesis.minElectTime } : {}),
        ...(options.genesis?.maxElectTime !== undefined ? { maxElectTime: options.genesis.maxElectTime } : {}),
      },
    ],
    ...(options.network ? { network: options.network } : {}),
    ...(options.simulatedSignatures ? { consensusSignatures: 'simulated' as const } : {}),
    ...(options.executionMemo === false || options.verificationCache === false ? { shareComputation: false } : {}),
    ...(options.consensusFactories ? { consensusFactories: options.consensusFactories } : {}),
    ...(options.twins ? { twins: options.twins } : {}),
    ...(options.byzantine ? { byzantine: options.byzantine } : {}),
    ...(options.onNodeEvent ? { onNodeEvent: options.onNodeEvent } : {}),
    onLog: (node, line) => logs.push({ node, line }),
  });
  /** Every running process, twins included. */
  const names = chain.names;
  const { sim, ids, suite } = chain;
  const version = chain.version;
  const genesis = chain.genesis.get(1)!;
  const memo = chain.memo;
  const verifications = chain.verifications;
  /** (virtual time, node, height) each time a node's height changes. */
  const commits: Array<{ at: number; node: string; height: number }> = [];
  const lastHeight = new Map<string, number>();

  const clientRng = seedrandom(`${seed}/client`);
  const clientRandom = (n: number) => Uint8Array.from({ length: n }, () => Math.floor(clientRng() * 256));
  const client = new TransactionBuilder({ suite, generation: version.txGeneration, key: suite.generateKeyPair(clientRandom), random: clientRandom });
  const group = (name: string): Group | undefined => chain.group(name, 1);
  const submitted: string[] = [];
  let contract: Uint8Array | undefined;

  const noteHeight = (name: string) => {
    const h = sim.stateOf(name) === 'up' ? sim.handle(name)?.groupById(1)?.blockNumber() : undefined;
    if (h !== undefined && h !== lastHeight.get(name)) {
      lastHeight.set(name, h);
      commits.push({ at: sim.now, node: name, height: h });
    }
  };
  sim.afterEvent((event) => {
    // a delivery, timer or boot runs one node's code alone; actions and outside work may touch any
    if (event.node !== null && (event.kind === 'deliver' || event.kind === 'timer' || event.kind === 'boot')) noteHeight(event.node);
    else for (const name of names) noteHeight(name);
  });

  const c = {
    chain,
    sim,
    memo,
    verifications,
    logs,
    commits,
    ids,
    names,
    genesis,
    suite,
    client,
    submitted,
    group,
    /** Groups of the nodes that are up. */
    live(): Array<{ name: string; group: Group }> {
      return names.filter((n) => sim.stateOf(n) === 'up' && group(n)).map((n) => ({ name: n, group: group(n)! }));
    },
    /** Highest height any up node reached by virtual time `t`. */
    maxHeightAt(t: number): number {
      return Math.max(0, ...commits.filter((e) => e.at <= t).map((e) => e.height));
    },
    heights(): number[] {
      return names.map((n) => (sim.stateOf(n) === 'up' ? (group(n)?.blockNumber() ?? -1) : -1));
    },
    /** Submit a raw transaction to a node's group through its API, as a client would. */
    async submit(name: string, raw: Uint8Array) {
      const g = group(name);
      if (!g) return undefined;
      const result = await g.submit(raw);
      if (result.accepted) submitted.push(toHex(result.hash));
      return result;
    },
    /** Deploy HelloWorld through `name`, then send `set` transactions at `ratePerSecond` until `untilMs` to random live nodes. */
    startHelloWorldLoad(ratePerSecond: number, untilMs: number, startAt = 100) {
      sim.at(startAt, async () => {
        const g = group(names[0]!)!;
        const deploy = client.build({ data: contractBytecode('HelloWorld'), blockLimit: BigInt(g.blockNumber() + 500) });
        contract = suite.hash(new Uint8Array([0xd6, 0x94, ...client.address, 0x80])).subarray(12);
        await c.submit(names[0]!, deploy.raw);
      });
      const interval = 1000 / ratePerSecond;
      const pick = seedrandom(`${seed}/pick`);
      let i = 0;
      const tick = async () => {
        const live = c.live();
        if (live.length > 0 && contract) {
          const target = live[Math.floor(pick() * live.length)]!;
          const data = encodeFunctionCall('set(string)', [`hello #${i++}`], keccak256);
          const tx = client.build({ to: contract, data, blockLimit: BigInt(target.group.blockNumber() + 500) });
          await c.submit(target.name, tx.raw);
        }
        if (sim.now + interval < untilMs) sim.after(interval, tick, 'client');
      };
      sim.at(startAt + 50, tick, 'client');
    },
    /** Every live pair of nodes (of `only`, if given) agrees on hash, state root and receipts root at every common height. */
    async checkAgreement(only?: readonly string[]): Promise<void> {
      const live = c.live().filter((l) => !only || only.includes(l.name));
      const minHeight = Math.min(...live.map((l) => l.group.blockNumber()));
      for (let n = 1; n <= minHeight; n++) {
        const blocks = await Promise.all(live.map((l) => l.group.blockByNumber(n)));
        const [first, ...rest] = blocks;
        for (const [i, b] of rest.entries()) {
          const who = `${live[0]!.name} vs ${live[i + 1]!.name} at ${n}`;
          if (toHex(b!.hash) !== toHex(first!.hash)) throw new Error(`block hash differs, ${who}`);
          if (toHex(b!.block.header.stateRoot) !== toHex(first!.block.header.stateRoot)) throw new Error(`state root differs, ${who}`);
          if (toHex(b!.block.header.receiptsRoot) !== toHex(first!.block.header.receiptsRoot)) throw new Error(`receipts root differs, ${who}`);
        }
      }
    },
    /** Transactions submitted but not (yet) on `name`'s chain. */
    async missing(name: string): Promise<string[]> {
      const g = group(name)!;
      const out: string[] = [];
      for (const h of submitted) if (!(await g.transaction(fromHex(h)))) out.push(h);
      return out;
    },
  };
  return c;
}

export type Cluster = ReturnType<typeof cluster>;
