import { createHash } from 'node:crypto';
import { ProtocolVersion, type GroupGenesis } from '../../chain/index.js';
import { toHexNoPrefix } from '../../codec/index.js';
import { getSuite, type KeyPair, type RandomSource, type SuiteName } from '../../crypto/index.js';
import { GroupChain, type StoredBlock } from '../../ledger/index.js';
import type { ClientVersion, NodeApi, PeerInfo } from '../../node/index.js';
import { MemoryStore } from '../../storage/index.js';
import { DevGroup } from './dev-group.js';

export interface DevNodeOptions {
  /** `[compatibility] supported_version` (default 2.11.0): 2.0.0-rc1 gives the earlier interface variant and rc1 payloads. */
  readonly supportedVersion?: string;
  /** ecdsa (default) or sm (SM2/SM3, the version string gets " gm"). */
  readonly suite?: SuiteName;
  readonly consensus?: 'pbft' | 'raft';
  /** Id of the group this node seals (default 1). */
  readonly groupId?: number;
  /** `[chain] id` (default 1). */
  readonly chainId?: number;
  /** Seed of the node key (default "twinchain-dev"): same seed, same node id. */
  readonly seed?: string;
  /** Clock for block timestamps, ms (default Date.now). */
  readonly now?: () => number;
  /** Genesis timestamp, ms (default 2026-01-01). */
  readonly genesisTimestamp?: number;
  /** Groups whose ledger the node keeps while being neither sealer nor observer (RPC error -40009). */
  readonly removedGroupIds?: readonly number[];
  /** Pool capacity (default 10,000). */
  readonly poolLimit?: number;
  /** Initial tx_count_limit (default 1000). */
  readonly txCountLimit?: number;
  /** The group's `[state] type`: FISCO's storage state (the genesis default) or Twinchain's trie. */
  readonly stateType?: 'mpt' | 'storage';
}

/** A deterministic byte stream from a text seed (keys of dev nodes only). */
export function seededRandom(seed: string): RandomSource {
  let counter = 0;
  let buffer = new Uint8Array(0);
  return (length) => {
    const out = new Uint8Array(length);
    for (let at = 0; at < length; ) {
      if (buffer.length === 0) buffer = new Uint8Array(createHash('sha256').update(`${seed}:${counter++}`).digest());
      const take = Math.min(buffer.length, length - at);
      out.set(buffer.subarray(0, take), at);
      buffer = buffer.subarray(take);
      at += take;
    }
    return out;
  };
}

/**
 * DEV/TEST DOUBLE of a node, behind the real NodeApi: one in-memory group it seals alone (see
 * DevGroup), optionally groups it was removed from, no peers. For RPC tests, the conformance
 * suite's own tests and the RPC benchmark; the simulated and real nodes replace it.
 */
export class DevNode implements NodeApi {
  readonly nodeId: string;
  private timer: ReturnType<typeof setInterval> | undefined;
  private tick: Promise<void> = Promise.resolve();

  private constructor(
    readonly key: KeyPair,
    private readonly version: ProtocolVersion,
    private readonly suiteName: SuiteName,
    private readonly chainId: number,
    private readonly groups: ReadonlyMap<number, DevGroup>,
    /** The group this node seals. */
    readonly mainGroup: DevGroup,
  ) {
    this.nodeId = toHexNoPrefix(key.publicKey);
  }

  static async create(options: DevNodeOptions = {}): Promise<DevNode> {
    const suiteName = options.suite ?? 'ecdsa';
    const suite = getSuite(suiteName);
    const version = ProtocolVersion.parse(options.supportedVersion ?? '2.11.0');
    const seed = options.seed ?? 'twinchain-dev';
    const key = suite.generateKeyPair(seededRandom(seed));
    const chainId = options.chainId ?? 1;
    const consensusType = options.consensus ?? 'pbft';
    const now = options.now ?? (() => Date.now());
    const timestamp = options.genesisTimestamp ?? Date.UTC(2026, 0, 1);
    const open = async (groupId: number, sealerKey: KeyPair) => {
      const genesis: GroupGenesis = {
        groupId,
        consensusType,
        sealers: [toHexNoPrefix(sealerKey.publicKey)],
        timestamp,
        ...(options.txCountLimit === undefined ? {} : { txCountLimit: options.txCountLimit }),
        ...(options.stateType === undefined ? {} : { stateType: options.stateType }),
      };
      const chain = await GroupChain.open({ store: new MemoryStore(), suite, version, genesis });
      return DevGroup.open({ chain, consensusType, version, suite, key, chainId, poolLimit: options.poolLimit ?? 10_000, now });
    };
    const mainId = options.groupId ?? 1;
    const groups = new Map<number, DevGroup>([[mainId, await open(mainId, key)]]);
    for (const id of options.removedGroupIds ?? []) {
      groups.set(id, await open(id, suite.generateKeyPair(seededRandom(`${seed}:group-${id}-sealer`))));
    }
    return new DevNode(key, version, suiteName, chainId, groups, groups.get(mainId)!);
  }

  clientVersion(): ClientVersion {
    return {
      buildTime: '20260101 00:00:00',
      buildType: 'Linux/node/Dev',
      productVersion: `${this.version.text}${this.suiteName === 'sm' ? ' gm' : ''}`,
      gitBranch: 'dev',
      gitCommitHash: '0'.repeat(40),
      chainId: this.chainId,
      supportedVersion: this.version.text,
    };
  }

  groupIds(): number[] {
    return [...this.groups.keys()].sort((a, b) => a - b);
  }

  group(groupId: number): DevGroup | undefined {
    return this.groups.get(groupId);
  }

  peers(): PeerInfo[] {
    return [];
  }

  /** Seal the main group's pending transactions into a block now. */
  seal(): Promise<StoredBlock | undefined> {
    return this.mainGroup.seal();
  }

  /**
   * Seal on a wall-clock timer, every `intervalMs` while transactions are pending (for servers
   * and HTTP tests). Errors go to `onError`; the timer does not keep the process alive.
   */
  startSealing(intervalMs: number, onError: (error: unknown) => void = () => undefined): void {
    if (this.timer) return;
    let busy = false;
    this.timer = setInterval(() => {
      if (busy || this.mainGroup.pendingCount() === 0) return;
      busy = true;
      this.tick = this.mainGroup.seal().then(
        () => undefined,
        (e: unknown) => onError(e),
      ).finally(() => {
        busy = false;
      });
    }, intervalMs);
    this.timer.unref();
  }

  /** Stop the timer and wait for a seal in progress. */
  async stopSealing(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.tick;
  }
}
