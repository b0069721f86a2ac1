import type { GroupGenesis, ProtocolVersion } from '../chain/index.js';
import { toHexNoPrefix } from '../codec/index.js';
import { SimulatedSigner, SuiteSigner, type ConsensusSigner } from '../consensus/index.js';
import type { CryptoSuite, KeyPair } from '../crypto/index.js';
import type { ExecutionMemo } from '../exec/index.js';
import type { Env, NodeId, TimerHandle } from '../runtime/index.js';
import { FailStopStore, type StorageFailure } from '../storage/index.js';
import type { ConsensusDriver } from './consensus-driver.js';
import { Group } from './group.js';
import { logLines } from './log-lines.js';
import type { ClientVersion, GroupApi, NodeApi, PeerInfo } from './node-api.js';
import { decodeFrame } from './p2p-frame.js';
import type { ByzantineBehaviour } from './pbft-adversary.js';
import { PbftDriver } from './pbft-driver.js';
import { RaftDriver } from './raft-driver.js';

/** FISCO's P2P service logs the connected count every 10 s. */
export const HEARTBEAT_INTERVAL_MS = 10_000;

export interface NodeOptions {
  readonly env: Env;
  readonly key: KeyPair;
  readonly suite: CryptoSuite;
  /** `[compatibility] supported_version`. */
  readonly version: ProtocolVersion;
  /** `[chain] id`, default 1. */
  readonly chainId?: bigint;
  readonly groups: readonly GroupGenesis[];
  /**
   * Consensus message signatures: the node key (default), or, for large simulated groups, a
   * cheap keyed hash that still rejects forged senders inside the simulation (salt shared by
   * the simulation). Transaction signatures are always real.
   */
  readonly consensusSignatures?: 'real' | { readonly simulated: Uint8Array };
  /** `<ip>:<port>` of a peer, for getPeers. */
  readonly peerAddress?: (nodeId: NodeId) => string;
  /** A peer's agency and node name as its certificate carries them, for getPeers (later variant). */
  readonly peerIdentity?: (nodeId: NodeId) => { readonly agency: string; readonly nodeName: string };
  readonly clientVersion?: Partial<ClientVersion>;
  /** Consensus engines by consensus type, on top of the built-in 'pbft' and 'raft' (tests may replace them). */
  readonly consensusFactories?: Readonly<Record<string, (group: Group) => ConsensusDriver>>;
  readonly poolLimit?: number;
  /** `[tx_pool] memory_limit` in bytes of pooled transactions per group (default 512 MB). */
  readonly poolMemoryLimit?: number;
  /**
   * Simulation only: one memo shared by all simulated nodes lets n nodes executing the same
   * block on the same parent state pay for one execution (a node whose state differs still
   * executes for itself, so divergence stays visible).
   */
  readonly executionMemo?: ExecutionMemo;
  /** Simulation and fault tests only: this node starts byzantine in these PBFT groups, by group id (see setBehaviour). */
  readonly byzantine?: Readonly<Record<number, ByzantineBehaviour>>;
  /**
   * A group's store failed (an I/O error, a full disk): the group has already stopped and logged
   * it; the process should now stop as FISCO's does (it raises SIGTERM on a failed block or PBFT
   * backup write). Called once per failed group.
   */
  readonly onStorageFailure?: (groupId: number, failure: StorageFailure) => void;
}

/**
 * A Twinchain node: one identity, one or more groups, all I/O through the Env. The same class
 * runs in the simulator and as a real process.
 */
export class Node implements NodeApi {
  readonly nodeId: string;
  private readonly groups = new Map<number, Group>();
  private readonly failures = new Map<number, StorageFailure>();
  private heartbeatTimer: TimerHandle | undefined;
  private stopped = false;

  private constructor(readonly options: NodeOptions) {
    this.nodeId = toHexNoPrefix(options.key.publicKey);
  }

  static async start(options: NodeOptions): Promise<Node> {
    const node = new Node(options);
    const signer = node.consensusSigner();
    const factories: Record<string, (group: Group) => ConsensusDriver> = {
      pbft: (g) => new PbftDriver(g),
      raft: (g) => new RaftDriver(g),
      ...options.consensusFactories,
    };
    for (const genesis of options.groups) {
      const factory = factories[genesis.consensusType];
      if (!factory) throw new Error(`group ${genesis.groupId}: no consensus engine for "${genesis.consensusType}"`);
      // fail-stop: the first failing read or write stops the group before its caller goes on
      const store = new FailStopStore(await options.env.storage.open(`group${genesis.groupId}`), (failure) => node.storageFailed(genesis.groupId, failure));
      const group = await Group.open({
        env: options.env,
        store,
        genesis,
        suite: options.suite,
        version: options.version,
        chainId: options.chainId ?? 1n,
        key: options.key,
        signer,
        consensus: factory,
        poolLimit: options.poolLimit,
        poolMemoryLimit: options.poolMemoryLimit,
        ...(options.executionMemo ? { executionMemo: options.executionMemo } : {}),
        ...(options.byzantine?.[genesis.groupId] ? { byzantine: options.byzantine[genesis.groupId] } : {}),
      });
      node.groups.set(genesis.groupId, group);
    }
    options.env.transport.onReceive((from, frame) => node.onReceive(from, frame));
    node.scheduleHeartbeat();
    return node;
  }

  private consensusSigner(): ConsensusSigner {
    const mode = this.options.consensusSignatures ?? 'real';
    if (mode === 'real') return new SuiteSigner(this.options.suite, this.options.key);
    return new SimulatedSigner((d) => this.options.suite.hash(d), mode.simulated, this.options.key.publicKey);
  }

  /** A group's store failed: stop the group (it logs why), refuse it to clients, tell the host. */
  private storageFailed(groupId: number, failure: StorageFailure): void {
    if (this.failures.has(groupId)) return;
    this.failures.set(groupId, failure);
    this.groups.get(groupId)?.fail(failure);
    this.options.onStorageFailure?.(groupId, failure);
  }

  /** Why a group this node keeps has stopped (its store failed), or undefined while it runs. */
  stoppedGroup(groupId: number): string | undefined {
    const failure = this.failures.get(groupId);
    return failure === undefined ? undefined : `group ${groupId} stopped after a storage failure (${failure.message})`;
  }

  private onReceive(from: NodeId, frame: Uint8Array): Promise<void> | undefined {
    if (this.stopped) return undefined;
    const decoded = decodeFrame(frame);
    if ('error' in decoded) {
      this.options.env.trace.event('bad-message', { from, error: decoded.error });
      return undefined;
    }
    return this.groups.get(decoded.groupId)?.onFrame(from, decoded.module, decoded.payload);
  }

  private scheduleHeartbeat(): void {
    const { env } = this.options;
    this.heartbeatTimer = env.clock.setTimer(HEARTBEAT_INTERVAL_MS, () => {
      if (this.stopped) return;
      env.log.write('info', env.clock.now(), logLines.heartbeat(env.transport.connectedPeers().length));
      this.scheduleHeartbeat();
    });
  }

  stop(): void {
    this.stopped = true;
    if (this.heartbeatTimer) this.options.env.clock.cancelTimer(this.heartbeatTimer);
    for (const g of this.groups.values()) g.stop();
  }

  /**
   * Makes this node byzantine from now on (see ByzantineBehaviour) in one group, or in every PBFT
   * group it is in when `groupId` is not given; undefined makes it honest again. Simulation and
   * fault tests only.
   */
  setBehaviour(behaviour: ByzantineBehaviour | undefined, groupId?: number): void {
    for (const g of this.groups.values()) if (groupId === undefined || g.groupId === groupId) g.setBehaviour(behaviour);
  }

  /** The group object itself (tests, scenarios, invariant checks). */
  groupById(groupId: number): Group | undefined {
    return this.groups.get(groupId);
  }

  // --- NodeApi -------------------------------------------------------------------------

  clientVersion(): ClientVersion {
    const v = this.options.version.text;
    return {
      buildTime: '20260101 00:00:00',
      buildType: 'Linux/node/TypeScript',
      productVersion: this.options.suite.name === 'sm' ? `${v} gm` : v,
      gitBranch: 'main',
      gitCommitHash: '0000000000000000000000000000000000000000',
      chainId: Number(this.options.chainId ?? 1n),
      supportedVersion: v,
      ...this.options.clientVersion,
    };
  }

  groupIds(): number[] {
    return [...this.groups.keys()].sort((a, b) => a - b);
  }

  /** The group, or undefined when this node keeps no ledger for it or its store failed. */
  group(groupId: number): GroupApi | undefined {
    return this.failures.has(groupId) ? undefined : this.groups.get(groupId);
  }

  peers(): PeerInfo[] {
    const address = this.options.peerAddress ?? (() => '127.0.0.1:0');
    return this.options.env.transport
      .connectedPeers()
      .sort()
      .map((nodeId) => ({ nodeId, ipAndPort: address(nodeId), topics: [], ...this.options.peerIdentity?.(nodeId) }));
  }
}
