import type { StoredBlock } from '../ledger/index.js';
import type { NodeId } from '../runtime/index.js';
import type { ConsensusStatus } from './node-api.js';
import type { ModuleName } from './p2p-frame.js';
import type { ByzantineBehaviour } from './pbft-adversary.js';

/** What a group needs from its consensus engine (PBFT or Raft), whatever its protocol. */
export interface ConsensusDriver {
  readonly kind: 'pbft' | 'raft';
  start(now: number): Promise<void>;
  onMessage(from: NodeId, module: ModuleName, payload: Uint8Array, now: number): Promise<void>;
  /** A block was committed (by this engine or by sync); the sealer set may have changed. */
  onBlockCommitted(block: StoredBlock, via: 'consensus' | 'sync', now: number): Promise<void>;
  /** The pool gained transactions: a leader may seal now. */
  onPoolChanged(now: number): Promise<void>;
  status(): ConsensusStatus;
  pbftView(): bigint | undefined;
  stop(): void;
  /** Byzantine behaviour from now on, or honest again (undefined); engines without any ignore it. */
  setBehaviour?(behaviour: ByzantineBehaviour | undefined): void;
}
