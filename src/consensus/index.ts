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
