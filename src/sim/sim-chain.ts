import seedrandom from 'seedrandom';
import { ProtocolVersion, type ConsensusType, type GroupGenesis } from '../chain/index.js';
import { toHexNoPrefix } from '../codec/index.js';
import { getSuite, VerificationCache, withVerificationCache, type CryptoSuite, type KeyPair, type SuiteName } from '../crypto/index.js';
import { ExecutionMemo } from '../exec/index.js';
import { Node, type ConsensusDriver, type Group } from '../node/index.js';
import { Simulation, type LinkConfig, type SimulationOptions, type TraceOptions } from '../runtime/index.js';

export interface SimGroupSpec {
  readonly id: number;
  readonly consensus: ConsensusType;
  /** Node names. */
  readonly sealers: readonly string[];
  readonly observers?: readonly string[];
  /** Nodes that keep the ledger without a role at genesis (added later through the precompile). */
  readonly spare?: readonly string[];
  readonly txCountLimit?: number;
  readonly txGasLimit?: bigint;
  readonly consensusTimeout?: number;
}

export interface SimChainOptions {
  readonly seed: string | number;
  /** Node count; names are node0 … node{n-1}. */
  readonly nodes: number;
  readonly suite?: SuiteName;
  /** `[compatibility] supported_version` of every node. */
  readonly version?: string;
  readonly groups: readonly SimGroupSpec[];
  readonly network?: Partial<LinkConfig>;
  /** Consensus-message signatures: node keys (default) or a cheap keyed hash (large groups). */
  readonly consensusSignatures?: 'real' | 'simulated';
  /** Share execution results and signature checks between nodes (pure results; default true). */
  readonly shareComputation?: boolean;
  readonly consensusFactories?: Readonly<Record<string, (group: Group) => ConsensusDriver>>;
  readonly trace?: TraceOptions;
  readonly onLog?: SimulationOptions['onLog'];
  readonly onNodeEvent?: SimulationOptions['onNodeEvent'];
  /** Genesis timestamp and virtual time zero (default 2026-01-01T00:00:00Z). */
  readonly epochMs?: number;
}

export const DEFAULT_EPOCH_MS = Date.UTC(2026, 0, 1);

/**
 * A simulated chain: n nodes with deterministic keys (from the seed), one or more groups, all
 * running the real Node over the simulation kernel.
 */
export class SimChain {
  readonly sim: Simulation<Node>;
  readonly names: string[];
  readonly keys: KeyPair[];
  /** Node ids (128 hex), by node index. */
  readonly ids: string[];
  readonly suite: CryptoSuite;
  readonly version: ProtocolVersion;
  readonly genesis = new Map<number, GroupGenesis>();
  readonly memo: ExecutionMemo | undefined;
  readonly verifications: VerificationCache | undefined;
  private readonly index = new Map<string, number>();

  constructor(readonly options: SimChainOptions) {
    const share = options.shareComputation !== false;
    const base = getSuite(options.suite ?? 'ecdsa');
    this.verifications = share ? new VerificationCache() : undefined;
    this.suite = this.verifications ? withVerificationCache(base, this.verifications) : base;
    this.memo = share ? new ExecutionMemo() : undefined;
    this.version = ProtocolVersion.parse(options.version ?? '2.11.0');
    const rng = seedrandom(`${options.seed}/keys`);
    const random = (n: number) => Uint8Array.from({ length: n }, () => Math.floor(rng() * 256));
    this.names = Array.from({ length: options.nodes }, (_, i) => `node${i}`);
    this.names.forEach((n, i) => this.index.set(n, i));
    this.keys = this.names.map(() => base.generateKeyPair(random));
    this.ids = this.keys.map((k) => toHexNoPrefix(k.publicKey));
    const epochMs = options.epochMs ?? DEFAULT_EPOCH_MS;
    for (const g of options.groups) {
      this.genesis.set(g.id, {
        groupId: g.id,
        consensusType: g.consensus,
        sealers: g.sealers.map((n) => this.idOf(n)),
        observers: (g.observers ?? []).map((n) => this.idOf(n)),
        timestamp: epochMs,
        ...(g.txCountLimit !== undefined ? { txCountLimit: g.txCountLimit } : {}),
        ...(g.txGasLimit !== undefined ? { txGasLimit: g.txGasLimit } : {}),
        ...(g.consensusTimeout !== undefined ? { consensusTimeout: g.consensusTimeout } : {}),
      });
    }
    this.sim = new Simulation<Node>({
      seed: options.seed,
      epochMs,
      ...(options.network ? { network: options.network } : {}),
      ...(options.trace ? { trace: options.trace } : {}),
      ...(options.onLog ? { onLog: options.onLog } : {}),
      ...(options.onNodeEvent ? { onNodeEvent: options.onNodeEvent } : {}),
    });
    const salt = new TextEncoder().encode(`${options.seed}/consensus`);
    this.names.forEach((name, i) => {
      const groups = options.groups.filter((g) => [...g.sealers, ...(g.observers ?? []), ...(g.spare ?? [])].includes(name)).map((g) => this.genesis.get(g.id)!);
      this.sim.addNode(
        name,
        (env) =>
          Node.start({
            env,
            key: this.keys[i]!,
            suite: this.suite,
            version: this.version,
            groups,
            peerAddress: (id) => `127.0.0.1:${30300 + this.ids.indexOf(id)}`,
            ...(options.consensusSignatures === 'simulated' ? { consensusSignatures: { simulated: salt } } : {}),
            ...(this.memo ? { executionMemo: this.memo } : {}),
            ...(options.consensusFactories ? { consensusFactories: options.consensusFactories } : {}),
          }),
        { nodeId: this.ids[i]! },
      );
    });
  }

  idOf(name: string): string {
    const i = this.index.get(name);
    if (i === undefined) throw new Error(`unknown node "${name}" (nodes are node0 … node${this.names.length - 1})`);
    return this.ids[i]!;
  }

  nameOf(nodeId: string): string | undefined {
    const i = this.ids.indexOf(nodeId);
    return i < 0 ? undefined : this.names[i];
  }

  /** The running node, or undefined while down or booting. */
  node(name: string): Node | undefined {
    return this.sim.node(name).handle;
  }

  group(name: string, groupId = 1): Group | undefined {
    return this.node(name)?.groupById(groupId);
  }

  /** Up nodes that keep the group, with their group objects. */
  live(groupId = 1): Array<{ name: string; group: Group }> {
    const out: Array<{ name: string; group: Group }> = [];
    for (const name of this.names) {
      if (this.sim.node(name).state !== 'up') continue;
      const group = this.group(name, groupId);
      if (group) out.push({ name, group });
    }
    return out;
  }
}
