import seedrandom from 'seedrandom';
import { ProtocolVersion, type ConsensusType, type GroupGenesis } from '../chain/index.js';
import { toHexNoPrefix } from '../codec/index.js';
import { getSuite, VerificationCache, withVerificationCache, type CryptoSuite, type KeyPair, type SuiteName } from '../crypto/index.js';
import { ExecutionMemo } from '../exec/index.js';
import {
  byzantineSettingProblem,
  kindFits,
  mutationsProblem,
  SWARM_MUTATIONS,
  type MutationName,
  messageKind,
  Node,
  PBFT_BYZANTINE_KINDS,
  RAFT_BYZANTINE_KINDS,
  type ByzantineBehaviour,
  type ByzantineKind,
  type ConsensusDriver,
  type Group,
} from '../node/index.js';
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
  /** Raft election timeout bounds in ms (defaults 1000 and 2000). */
  readonly minElectTime?: number;
  readonly maxElectTime?: number;
  /** `[state] type` (default: the genesis default, mpt). */
  readonly stateType?: 'storage' | 'mpt';
}

/** How a byzantine node misbehaves (see ByzantineBehaviour in src/node/pbft-adversary.ts). */
export interface ByzantineSetting {
  readonly behaviour: ByzantineKind;
  /** Only in this group (default: every PBFT group the node is in). */
  readonly group?: number;
  /** equivocate, double-sign: names of the peers that get the conflicting proposal (first); default the later half of the sealers. */
  readonly conflictPeers?: readonly string[];
  /** bad-block, forge-sync: which bad contents (see src/node/byzantine-kinds.ts). */
  readonly variant?: string;
  /** mutate: the mutations it may make (default: those swarm draws for the group's consensus, SWARM_MUTATIONS). */
  readonly mutations?: readonly MutationName[];
  /** mutate: the share of its messages it mutates (default DEFAULT_MUTATION_RATE). */
  readonly rate?: number;
}

/** A byzantine interval of one node, in virtual ms. */
export interface ByzantineSpec extends ByzantineSetting {
  /** From this virtual time (default 0: from boot). */
  readonly fromMs?: number;
  /** Honest again from this virtual time (default: never). */
  readonly untilMs?: number;
}

export interface SimChainOptions {
  readonly seed: string | number;
  /** Node count (identities); names are node0 … node{n-1}. Twins come on top. */
  readonly nodes: number;
  /**
   * Twins: `[original, twin]` adds a node named `twin` that shares `original`'s key, node id and
   * groups and runs the same honest code (a bare name N means `[N, "N-twin"]`). A message sent
   * to the shared id reaches both; partition the network to confine each twin to part of the
   * group, as in the Twins paper (see VirtualNetwork.transmit).
   */
  readonly twins?: ReadonlyArray<string | readonly [string, string]>;
  /**
   * Byzantine nodes by name: one interval or several (not overlapping). `setBehaviour` changes
   * behaviours at run time.
   */
  readonly byzantine?: Readonly<Record<string, ByzantineSpec | readonly ByzantineSpec[]>>;
  readonly suite?: SuiteName;
  /** `[compatibility] supported_version` of every node. */
  readonly version?: string;
  readonly groups: readonly SimGroupSpec[];
  readonly network?: Partial<LinkConfig>;
  /** Consensus-message signatures: node keys (default) or a cheap keyed hash (large groups). */
  readonly consensusSignatures?: 'real' | 'simulated';
  /** `[tx_pool] limit` of every node (default DEFAULT_POOL_LIMIT). */
  readonly poolLimit?: number;
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
  /** Twin name → the node whose identity it shares. */
  readonly twinOf = new Map<string, string>();
  private readonly index = new Map<string, number>();
  /** Group ids each node keeps. */
  private readonly groupsOf = new Map<string, number[]>();
  /** Current byzantine behaviour of each node, by group id (read again at every boot). */
  private readonly behaviours = new Map<string, Map<number, ByzantineBehaviour>>();

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
    for (const entry of options.twins ?? []) {
      const [original, twin] = typeof entry === 'string' ? [entry, `${entry}-twin`] : entry;
      const i = this.index.get(original);
      if (i === undefined || this.twinOf.has(original)) throw new Error(`twins: "${original}" is not one of the nodes node0 … node${options.nodes - 1}`);
      if (this.index.has(twin)) throw new Error(`twins: the twin name "${twin}" is already taken`);
      this.index.set(twin, this.names.length);
      this.names.push(twin);
      this.keys.push(this.keys[i]!);
      this.twinOf.set(twin, original);
    }
    this.ids = this.keys.map((k) => toHexNoPrefix(k.publicKey));
    const epochMs = options.epochMs ?? DEFAULT_EPOCH_MS;
    for (const g of options.groups) {
      for (const name of [...g.sealers, ...(g.observers ?? []), ...(g.spare ?? [])]) {
        if (this.twinOf.has(name)) throw new Error(`group ${g.id}: "${name}" is a twin; it keeps the groups of "${this.twinOf.get(name)}"`);
      }
      this.genesis.set(g.id, {
        groupId: g.id,
        consensusType: g.consensus,
        sealers: g.sealers.map((n) => this.idOf(n)),
        observers: (g.observers ?? []).map((n) => this.idOf(n)),
        timestamp: epochMs,
        ...(g.txCountLimit !== undefined ? { txCountLimit: g.txCountLimit } : {}),
        ...(g.txGasLimit !== undefined ? { txGasLimit: g.txGasLimit } : {}),
        ...(g.consensusTimeout !== undefined ? { consensusTimeout: g.consensusTimeout } : {}),
        ...(g.minElectTime !== undefined ? { minElectTime: g.minElectTime } : {}),
        ...(g.maxElectTime !== undefined ? { maxElectTime: g.maxElectTime } : {}),
        ...(g.stateType !== undefined ? { stateType: g.stateType } : {}),
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
    // message-kind faults (network.messageFault) name messages by module and packet type
    this.sim.network.setClassifier(messageKind);
    const salt = new TextEncoder().encode(`${options.seed}/consensus`);
    for (const name of this.names) {
      const as = this.twinOf.get(name) ?? name;
      this.groupsOf.set(name, options.groups.filter((g) => [...g.sealers, ...(g.observers ?? []), ...(g.spare ?? [])].includes(as)).map((g) => g.id));
    }
    this.names.forEach((name, i) => {
      const groups = this.groupsOf.get(name)!.map((id) => this.genesis.get(id)!);
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
            // build_chain.sh: agency "agency", node directories and certificate names node0, node1, ...
            peerIdentity: (id) => ({ agency: 'agency', nodeName: `node${this.ids.indexOf(id)}` }),
            ...(options.consensusSignatures === 'simulated' ? { consensusSignatures: { simulated: salt } } : {}),
            ...(this.memo ? { executionMemo: this.memo } : {}),
            ...(options.poolLimit !== undefined ? { poolLimit: options.poolLimit } : {}),
            ...(options.consensusFactories ? { consensusFactories: options.consensusFactories } : {}),
            ...(this.behaviours.has(name) ? { byzantine: Object.fromEntries(this.behaviours.get(name)!) } : {}),
          }),
        this.twinOf.has(name) ? { twinOf: this.twinOf.get(name)! } : { nodeId: this.ids[i]! },
      );
    });
    this.scheduleByzantine(options.byzantine ?? {});
  }

  /**
   * Makes a node byzantine from now on (in one PBFT group, or every PBFT group it keeps), or honest again
   * with undefined; a node that is down gets it at its next boot. Call it before the run or from
   * inside an event (`sim.at`), like any change to a node.
   */
  setBehaviour(name: string, setting: ByzantineKind | ByzantineSetting | undefined, groupId?: number): void {
    const where = `setBehaviour("${name}")`;
    if (!this.index.has(name)) throw new Error(`${where}: unknown node (nodes are ${this.names.join(', ')})`);
    const spec: ByzantineSetting | undefined = typeof setting === 'string' ? { behaviour: setting } : setting;
    const group = spec?.group ?? groupId;
    const problem = spec ? byzantineSettingProblem(spec.behaviour, spec.variant, { ...(spec.mutations ? { mutations: spec.mutations } : {}), ...(spec.rate !== undefined ? { rate: spec.rate } : {}) }) : undefined;
    if (problem) throw new Error(`${where}: ${problem}`);
    // each behaviour exists for the groups of the consensus it fits (sync ones: any group)
    const kind = spec?.behaviour;
    const groups = this.groupsOf.get(name)!.filter((id) => kind === undefined || kindFits(kind, this.genesis.get(id)!.consensusType));
    const what = kind === undefined ? '' : PBFT_BYZANTINE_KINDS.includes(kind) ? 'PBFT ' : RAFT_BYZANTINE_KINDS.includes(kind) ? 'Raft ' : '';
    if (group !== undefined && !groups.includes(group)) throw new Error(`${where}: the node is not in ${what}group ${group}`);
    if (groups.length === 0) throw new Error(`${where}: the node is in no ${what}group`);
    const current = this.behaviours.get(name) ?? new Map<number, ByzantineBehaviour>();
    for (const id of group === undefined ? groups : [group]) {
      const behaviour = spec ? this.behaviourFor(spec, this.genesis.get(id)!.consensusType, where) : undefined;
      if (behaviour) current.set(id, behaviour);
      else current.delete(id);
      this.node(name)?.setBehaviour(behaviour, id);
    }
    if (current.size > 0) this.behaviours.set(name, current);
    else this.behaviours.delete(name);
  }

  /** The node-level behaviour of a setting in a group of this consensus (mutate's mutations default to what swarm draws for it). */
  private behaviourFor(spec: ByzantineSetting, consensus: ConsensusType, where: string): ByzantineBehaviour {
    let mutations: readonly MutationName[] | undefined;
    if (spec.behaviour === 'mutate') {
      const fit = consensus === 'raft' ? 'raft' : 'pbft';
      mutations = spec.mutations ?? SWARM_MUTATIONS[fit];
      const problem = mutationsProblem(mutations, fit);
      if (problem) throw new Error(`${where}: ${problem}`);
    }
    return {
      kind: spec.behaviour,
      ...(spec.conflictPeers ? { conflictPeers: spec.conflictPeers.map((peer) => this.idOf(peer)) } : {}),
      ...(spec.variant !== undefined ? { variant: spec.variant } : {}),
      ...(mutations ? { mutations } : {}),
      ...(spec.rate !== undefined ? { rate: spec.rate } : {}),
    };
  }

  /** A node's byzantine behaviour in a group now, or undefined while honest. */
  behaviourOf(name: string, groupId = 1): ByzantineKind | undefined {
    return this.behaviours.get(name)?.get(groupId)?.kind;
  }

  private scheduleByzantine(byzantine: Readonly<Record<string, ByzantineSpec | readonly ByzantineSpec[]>>): void {
    for (const [name, entry] of Object.entries(byzantine)) {
      const specs = [...(Array.isArray(entry) ? (entry as readonly ByzantineSpec[]) : [entry as ByzantineSpec])].sort((a, b) => (a.fromMs ?? 0) - (b.fromMs ?? 0));
      specs.forEach((spec, i) => {
        const from = spec.fromMs ?? 0;
        const where = `byzantine.${name}[${i}]`;
        if (!Number.isFinite(from) || from < 0) throw new Error(`${where}: fromMs must be a number of virtual ms ≥ 0`);
        if (spec.untilMs !== undefined && !(spec.untilMs > from)) throw new Error(`${where}: untilMs must be after fromMs`);
        const next = specs[i + 1];
        if (next && (spec.untilMs === undefined || spec.untilMs > (next.fromMs ?? 0))) throw new Error(`${where}: overlaps the next interval of "${name}"`);
        const setting: ByzantineSetting = {
          behaviour: spec.behaviour,
          ...(spec.group !== undefined ? { group: spec.group } : {}),
          ...(spec.conflictPeers ? { conflictPeers: spec.conflictPeers } : {}),
          ...(spec.variant !== undefined ? { variant: spec.variant } : {}),
          ...(spec.mutations ? { mutations: spec.mutations } : {}),
          ...(spec.rate !== undefined ? { rate: spec.rate } : {}),
        };
        if (from === 0) this.setBehaviour(name, setting);
        else this.sim.at(from, () => this.setBehaviour(name, setting), `byzantine ${name} ${spec.behaviour}`);
        // an interval that ends where the next one (for the same groups) begins hands over without an honest moment
        const handover = next !== undefined && next.fromMs === spec.untilMs && next.group === spec.group;
        if (spec.untilMs !== undefined && !handover) this.sim.at(spec.untilMs, () => this.setBehaviour(name, undefined, spec.group), `byzantine ${name} honest`);
      });
    }
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
    return this.sim.handle(name);
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
