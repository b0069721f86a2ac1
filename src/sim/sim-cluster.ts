import { readFileSync } from 'node:fs';
import seedrandom from 'seedrandom';
import { ProtocolVersion, TransactionBuilder, type ConsensusType, type GroupGenesis } from '../chain/index.js';
import { encodeFunctionCall, fromHex, toHex } from '../codec/index.js';
import { getSuite, keccak256, VerificationCache, withVerificationCache, type KeyPair, type SuiteName } from '../crypto/index.js';
import { Simulation, type LinkConfig } from '../runtime/index.js';
import { ExecutionMemo } from '../exec/index.js';
import { Node, type ConsensusDriver, type Group } from '../node/index.js';

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
}

const HELLO = JSON.parse(readFileSync(new URL('../../fixtures/contracts/artifacts/HelloWorld.json', import.meta.url), 'utf8')) as { bytecode: string };

/** A simulated group of nodes with deterministic keys, plus a client that sends HelloWorld transactions. */
export function cluster(options: ClusterOptions = {}) {
  const seed = options.seed ?? 'cluster';
  const baseSuite = getSuite(options.suite ?? 'ecdsa');
  const verifications = options.verificationCache === false ? undefined : new VerificationCache();
  const suite = verifications ? withVerificationCache(baseSuite, verifications) : baseSuite;
  const version = ProtocolVersion.parse(options.version ?? '2.11.0');
  const rng = seedrandom(`${seed}/keys`);
  const random = (n: number) => Uint8Array.from({ length: n }, () => Math.floor(rng() * 256));
  const total = (options.sealers ?? 4) + (options.observers ?? 0) + (options.spare ?? 0);
  const keys: KeyPair[] = Array.from({ length: total }, () => suite.generateKeyPair(random));
  const ids = keys.map((k) => toHex(k.publicKey).slice(2));
  const sealerIds = ids.slice(0, options.sealers ?? 4);
  const observerIds = ids.slice(sealerIds.length, sealerIds.length + (options.observers ?? 0));
  const genesis: GroupGenesis = {
    groupId: 1,
    consensusType: options.consensus ?? 'pbft',
    sealers: sealerIds,
    observers: observerIds,
    timestamp: Date.UTC(2026, 0, 1),
    ...options.genesis,
  };
  const logs: Array<{ node: string; line: string }> = [];
  const sim = new Simulation<Node>({
    seed,
    ...(options.network ? { network: options.network } : {}),
    onLog: (node, line) => logs.push({ node, line }),
  });
  /** (virtual time, node, height) each time a node's height changes. */
  const commits: Array<{ at: number; node: string; height: number }> = [];
  const lastHeight = new Map<string, number>();
  const names = ids.map((_, i) => `node${i}`);
  const salt = new TextEncoder().encode(seed);
  const memo = options.executionMemo === false ? undefined : new ExecutionMemo();
  names.forEach((name, i) =>
    sim.addNode(
      name,
      (env) =>
        Node.start({
          env,
          key: keys[i]!,
          suite,
          version,
          groups: [genesis],
          peerAddress: (id) => `127.0.0.1:${30300 + ids.indexOf(id)}`,
          ...(options.simulatedSignatures ? { consensusSignatures: { simulated: salt } } : {}),
          ...(memo ? { executionMemo: memo } : {}),
          ...(options.consensusFactories ? { consensusFactories: options.consensusFactories } : {}),
        }),
      { nodeId: ids[i]! },
    ),
  );

  const clientRng = seedrandom(`${seed}/client`);
  const clientRandom = (n: number) => Uint8Array.from({ length: n }, () => Math.floor(clientRng() * 256));
  const client = new TransactionBuilder({ suite, generation: version.txGeneration, key: suite.generateKeyPair(clientRandom), random: clientRandom });
  const group = (name: string): Group | undefined => sim.node(name).handle?.groupById(1);
  const submitted: string[] = [];
  let contract: Uint8Array | undefined;

  sim.afterEvent(() => {
    for (const name of names) {
      const info = sim.node(name);
      const h = info.state === 'up' ? info.handle?.groupById(1)?.blockNumber() : undefined;
      if (h !== undefined && h !== lastHeight.get(name)) {
        lastHeight.set(name, h);
        commits.push({ at: sim.now, node: name, height: h });
      }
    }
  });

  const c = {
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
      return names.filter((n) => sim.node(n).state === 'up' && group(n)).map((n) => ({ name: n, group: group(n)! }));
    },
    /** Highest height any up node reached by virtual time `t`. */
    maxHeightAt(t: number): number {
      return Math.max(0, ...commits.filter((e) => e.at <= t).map((e) => e.height));
    },
    heights(): number[] {
      return names.map((n) => (sim.node(n).state === 'up' ? (group(n)?.blockNumber() ?? -1) : -1));
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
        const deploy = client.build({ data: fromHex(HELLO.bytecode), blockLimit: BigInt(g.blockNumber() + 500) });
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
    /** Every live pair of nodes agrees on hash, state root and receipts root at every common height. */
    async checkAgreement(): Promise<void> {
      const live = c.live();
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
