export { type Proposal, encodeProposal, proposalFromRlp, proposalItems, sameProposal, MessageDecodeError } from './proposal.js';
export { type ConsensusSigner, SuiteSigner, SimulatedSigner } from './consensus-signer.js';
export {
  Pbft,
  MAX_CHANGE_CYCLE,
  MAX_BLOCK_TIME_DIFF_MS,
  type PbftConfig,
  type PbftHead,
  type PbftLock,
  type PbftOutput,
  type PbftEvent,
  type CommitDecision,
} from './pbft/pbft.js';
export { PBFT_TYPES, type PbftMessage, type PrepareMessage, type SignMessage, type CommitMessage, type ViewChangeMessage } from './pbft/pbft-messages.js';
export { encodePbftMessage, decodePbftMessage, pbftMessageTag } from './pbft/pbft-wire.js';
export {
  Raft,
  INITIAL_HARD_STATE,
  RAFT_MAX_BLOCK_TIME_DIFF_MS,
  type RaftConfig,
  type RaftHead,
  type RaftEntry,
  type RaftHardState,
  type RaftRole,
  type RaftCommit,
  type RaftEvent,
  type RaftOutput,
} from './raft/raft.js';
export {
  RAFT_TYPES,
  VOTE_FLAGS,
  type VoteFlag,
  type IndexedSignature,
  type RaftMessage,
  type VoteRequest,
  type VoteResponse,
  type Heartbeat,
  type HeartbeatResponse,
  type PendingBlock,
} from './raft/raft-messages.js';
export { encodeRaftMessage, decodeRaftMessage } from './raft/raft-wire.js';
