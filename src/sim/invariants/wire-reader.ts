import { parseRlpUint, rlpDecode, toHex, type RlpValue } from '../../codec/index.js';
import { PBFT_TYPES, RAFT_TYPES, VOTE_FLAGS } from '../../consensus/index.js';
import { decodeFrame } from '../../node/index.js';

/**
 * What an invariant monitor reads off one consensus message on the wire. It trusts the network
 * for who sent it (the monitor watches honest senders), so nothing here checks a signature.
 */
/** What identifies a proposal's block before execution: the fields it fixes in the header (and its transaction count). */
export type ProposalIdentity = string;

export function proposalIdentity(parentHash: string, timestamp: number, sealer: number, txs: number): ProposalIdentity {
  return `${parentHash}/${timestamp}/${sealer}/${txs}`;
}

export type WireFact =
  | { readonly module: 'pbft'; readonly group: number; readonly type: 'prepare'; readonly height: number; readonly view: number; readonly idx: number; readonly proposal: ProposalIdentity }
  | { readonly module: 'pbft'; readonly group: number; readonly type: 'viewchange'; readonly height: number; readonly view: number; readonly idx: number }
  | { readonly module: 'pbft'; readonly group: number; readonly type: 'sign' | 'commit'; readonly height: number; readonly view: number; readonly idx: number; readonly hash: string }
  | { readonly module: 'raft'; readonly group: number; readonly type: 'voteReq'; readonly term: number; readonly idx: number }
  | { readonly module: 'raft'; readonly group: number; readonly type: 'voteResp'; readonly term: number; readonly idx: number; readonly candidateTerm: number; readonly granted: boolean }
  | {
      readonly module: 'raft';
      readonly group: number;
      readonly type: 'heartbeat';
      readonly term: number;
      readonly idx: number;
      /** The leader's committed height and head hash. */
      readonly height: number;
      readonly head: string;
      readonly pending: { readonly height: number; readonly hash: string } | undefined;
    }
  | {
      readonly module: 'raft';
      readonly group: number;
      readonly type: 'heartbeatResp';
      readonly term: number;
      readonly idx: number;
      /** The block it acknowledges, if any. */
      readonly ack: { readonly height: number; readonly hash: string } | undefined;
    };

const PBFT_BY_CODE = new Map<number, keyof typeof PBFT_TYPES>(Object.entries(PBFT_TYPES).map(([k, v]) => [v, k as keyof typeof PBFT_TYPES]));
const GRANTED = VOTE_FLAGS.granted;

const uint = (item: RlpValue | undefined): number => Number(parseRlpUint(item as Uint8Array, 'wire field', 8));
const hex = (item: RlpValue | undefined): string => toHex(item as Uint8Array);

/**
 * Reads the consensus facts out of a p2p frame, or undefined for frames the monitor does not
 * read (sync, transactions) and for malformed ones (the receiving node reports those itself).
 */
export function readWireFact(frame: Uint8Array): WireFact | undefined {
  const decoded = decodeFrame(frame);
  if ('error' in decoded || (decoded.module !== 'pbft' && decoded.module !== 'raft')) return undefined;
  const { groupId: group, module, payload } = decoded;
  try {
    const items = rlpDecode(payload, 'wire') as RlpValue[];
    if (!Array.isArray(items) || items.length < 6) return undefined;
    if (module === 'pbft') {
      const type = PBFT_BY_CODE.get(uint(items[0]));
      if (type === undefined) return undefined;
      const base = { module, group, height: uint(items[1]), view: uint(items[2]), idx: uint(items[3]) } as const;
      if (type === 'sign' || type === 'commit') return { ...base, type, hash: hex(items[4]) };
      if (type === 'prepare') {
        const p = items[4] as RlpValue[];
        return { ...base, type, proposal: proposalIdentity(hex(p[1]), uint(p[2]), uint(p[3]), (p[5] as RlpValue[]).length) };
      }
      return { ...base, type };
    }
    const code = uint(items[0]);
    if (code === RAFT_TYPES.voteReq) return { module, group, type: 'voteReq', term: uint(items[1]), idx: uint(items[2]) };
    if (code === RAFT_TYPES.voteResp) {
      return { module, group, type: 'voteResp', term: uint(items[1]), idx: uint(items[2]), candidateTerm: uint(items[5]), granted: uint(items[6]) === GRANTED };
    }
    if (code === RAFT_TYPES.heartbeat) {
      const pending = items[7] as RlpValue[];
      return {
        module,
        group,
        type: 'heartbeat',
        term: uint(items[1]),
        idx: uint(items[2]),
        height: uint(items[3]),
        head: hex(items[4]),
        pending: Array.isArray(pending) && pending.length >= 2 ? { height: uint(pending[0]), hash: hex(pending[1]) } : undefined,
      };
    }
    if (code === RAFT_TYPES.heartbeatResp) {
      const ack = items[6] as RlpValue[];
      return { module, group, type: 'heartbeatResp', term: uint(items[1]), idx: uint(items[2]), ack: Array.isArray(ack) && ack.length === 3 ? { height: uint(ack[0]), hash: hex(ack[1]) } : undefined };
    }
    return undefined;
  } catch {
    return undefined;
  }
}
