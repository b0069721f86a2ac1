import type { Proposal } from '../proposal.js';

/** FISCO's PBFT packet types. */
export const PBFT_TYPES = { prepare: 0, sign: 1, commit: 2, viewchange: 3 } as const;

interface MessageBase {
  /** Height the message is about (for a view change: the sender's highest committed block). */
  readonly height: number;
  readonly view: number;
  /** Sender's sealer index. */
  readonly idx: number;
}

/** The leader's proposal for (height, view). */
export interface PrepareMessage extends MessageBase {
  readonly type: 'prepare';
  readonly proposal: Proposal;
}

/** "I executed the proposal of (height, view) and got this block hash." */
export interface SignMessage extends MessageBase {
  readonly type: 'sign';
  readonly blockHash: Uint8Array;
  /** The sender's signature of blockHash. */
  readonly blockSignature: Uint8Array;
}

/** "n − f of us agree on this block hash; I am locked on it." Its signature goes into the block's signature list. */
export interface CommitMessage extends MessageBase {
  readonly type: 'commit';
  readonly blockHash: Uint8Array;
  readonly blockSignature: Uint8Array;
}

/** "Move to view `view`"; blockHash is the sender's highest committed block hash. */
export interface ViewChangeMessage extends MessageBase {
  readonly type: 'viewchange';
  readonly blockHash: Uint8Array;
}

export type PbftMessage = PrepareMessage | SignMessage | CommitMessage | ViewChangeMessage;
