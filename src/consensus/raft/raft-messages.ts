import type { Proposal } from '../proposal.js';

/** FISCO's Raft packet types. */
export const RAFT_TYPES = { voteReq: 0, voteResp: 1, heartbeat: 2, heartbeatResp: 3 } as const;

/** FISCO's vote response codes (VoteRespFlag). */
export const VOTE_FLAGS = {
  /** The request's term is behind the voter's, or the voter still hears a live leader. */
  reject: 0,
  /** The voter is the leader. */
  leaderReject: 1,
  /** The candidate's last block entry is from an older term than the voter's. */
  lastTermError: 2,
  /** Same last entry term, but the candidate's log is shorter. */
  outdated: 3,
  /** The voter refuses the first request it gets after following a stable leader (anti-jitter). */
  firstVote: 4,
  /** The voter already voted in that term (for someone else, or for itself). */
  discard: 5,
  granted: 6,
} as const;
export type VoteFlag = keyof typeof VOTE_FLAGS;

/** One sealer's signature over a block hash, by sealer index (as in a block's signature list). */
export interface IndexedSignature {
  readonly index: number;
  readonly signature: Uint8Array;
}

interface MessageBase {
  /** The sender's current term (for a vote request: the term it campaigns in). */
  readonly term: number;
  /** The sender's sealer index. */
  readonly idx: number;
  /** The sender's latest committed block. */
  readonly height: number;
  readonly blockHash: Uint8Array;
}

/** "Vote for me in `term`." lastHeight and lastEntryTerm describe the candidate's log for the up-to-date check. */
export interface VoteRequest extends MessageBase {
  readonly type: 'voteReq';
  /** Committed height, plus one if the candidate holds an uncommitted block. */
  readonly lastHeight: number;
  /** Term of the last block entry the candidate accepted (its uncommitted block's, or the one before). */
  readonly lastEntryTerm: number;
  /** The term of the last leader the candidate heard from (FISCO's field; informational). */
  readonly lastLeaderTerm: number;
}

export interface VoteResponse extends MessageBase {
  readonly type: 'voteResp';
  /** The term the request campaigned in, so that late answers to an older campaign are ignored. */
  readonly candidateTerm: number;
  readonly flag: VoteFlag;
  readonly lastLeaderTerm: number;
}

/** The block the leader wants committed next, shipped with heartbeats until the follower acknowledges it. */
export interface PendingBlock {
  readonly height: number;
  /** The executed block's hash. */
  readonly blockHash: Uint8Array;
  /** The proposal itself; left out for followers that already acknowledged it. */
  readonly proposal?: Proposal;
}

/**
 * The leader's heartbeat (every min_elect_time / 4). It carries the leader's committed head with
 * that block's signature list (so a follower holding the same block as uncommitted can commit
 * it) and the uncommitted block, if any.
 */
export interface Heartbeat extends MessageBase {
  readonly type: 'heartbeat';
  /** Counts heartbeats within a leadership; echoed in responses. */
  readonly seq: number;
  readonly headSignatures: readonly IndexedSignature[];
  readonly pending?: PendingBlock;
}

/** A follower's answer; `ack` acknowledges the uncommitted block with a signature of its hash. */
export interface HeartbeatResponse extends MessageBase {
  readonly type: 'heartbeatResp';
  readonly seq: number;
  readonly ack?: { readonly height: number; readonly blockHash: Uint8Array; readonly signature: Uint8Array };
}

export type RaftMessage = VoteRequest | VoteResponse | Heartbeat | HeartbeatResponse;
