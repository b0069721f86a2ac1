export type {
  NodeApi,
  GroupApi,
  ClientVersion,
  PeerInfo,
  Membership,
  PendingTransaction,
  SubmitResult,
  TxRejection,
  ConsensusStatus,
  PbftConsensusStatus,
  RaftConsensusStatus,
  PbftCacheEntry,
  SyncStatus,
  SyncPeer,
} from './node-api.js';
export { Node, HEARTBEAT_INTERVAL_MS, type NodeOptions } from './node.js';
export { Group, type GroupOptions, type HeightConfig } from './group.js';
export type { ConsensusDriver } from './consensus-driver.js';
export {
  BYZANTINE_KINDS,
  conflictingProposal,
  type ByzantineKind,
  type ByzantineBehaviour,
  type ByzantineStats,
} from './pbft-adversary.js';
export {
  BAD_BLOCK_VARIANTS,
  BYZANTINE_VARIANTS,
  FORGE_SYNC_VARIANTS,
  SWARM_FORGE_SYNC_VARIANTS,
  PBFT_BYZANTINE_KINDS,
  RAFT_BYZANTINE_KINDS,
  SYNC_BYZANTINE_KINDS,
  byzantineSettingProblem,
  kindFits,
} from './byzantine-kinds.js';
export {
  DEFAULT_MUTATION_RATE,
  MUTATIONS,
  MUTATION_NAMES,
  MUTATIONS_FOR,
  SWARM_MUTATIONS,
  mutationsProblem,
  type MutationName,
} from './message-mutation.js';
export { PbftDriver, MIN_BLOCK_INTERVAL_MS, EMPTY_BLOCK_TIMEOUT_MS, RESEND_INTERVAL_MS, PBFT_LOCK_KEY } from './pbft-driver.js';
export { RaftDriver, RAFT_EMPTY_SEAL_INTERVAL_MS, RAFT_STATE_KEY, decodeRaftState } from './raft-driver.js';
export { MODULE, encodeFrame, decodeFrame, protocolId, protocolIdOf, type ModuleName } from './p2p-frame.js';
export { MESSAGE_KINDS, messageKind } from './message-kind.js';
export { logLines, abridged } from './log-lines.js';
export { WorkQueue } from './work-queue.js';
