import { bigintToBytes, CodecError, parseRlpUint, rlpDecode, rlpEncode, type RlpValue } from '../../codec/index.js';
import type { ConsensusSigner } from '../consensus-signer.js';
import { MessageDecodeError, proposalFromRlp, proposalItems } from '../proposal.js';
import { RAFT_TYPES, VOTE_FLAGS, type IndexedSignature, type RaftMessage, type VoteFlag } from './raft-messages.js';

const TYPE_BY_CODE = new Map<number, RaftMessage['type']>(
  Object.entries(RAFT_TYPES).map(([name, code]): [number, RaftMessage['type']] => [code, name as RaftMessage['type']]),
);
const FLAG_BY_CODE = new Map<number, VoteFlag>(Object.entries(VOTE_FLAGS).map(([name, code]): [number, VoteFlag] => [code, name as VoteFlag]));

const int = (n: number): Uint8Array => bigintToBytes(BigInt(n));

function body(message: RaftMessage): RlpValue[] {
  const head = [int(RAFT_TYPES[message.type]), int(message.term), int(message.idx), int(message.height), message.blockHash];
  switch (message.type) {
    case 'voteReq':
      return [...head, int(message.lastHeight), int(message.lastEntryTerm), int(message.lastLeaderTerm)];
    case 'voteResp':
      return [...head, int(message.candidateTerm), int(VOTE_FLAGS[message.flag]), int(message.lastLeaderTerm)];
    case 'heartbeat': {
      const p = message.pending;
      const pending: RlpValue[] = p ? [int(p.height), p.blockHash, ...(p.proposal ? [proposalItems(p.proposal)] : [])] : [];
      return [...head, int(message.seq), message.headSignatures.map((s) => [int(s.index), s.signature]), pending];
    }
    case 'heartbeatResp': {
      const a = message.ack;
      return [...head, int(message.seq), a ? [int(a.height), a.blockHash, a.signature] : []];
    }
  }
}

/** RLP([type, term, idx, height, blockHash, …fields, signature]): the signature covers hash(RLP of the rest). */
export function encodeRaftMessage(message: RaftMessage, signer: ConsensusSigner, hash: (d: Uint8Array) => Uint8Array): Uint8Array {
  const fields = body(message);
  const signature = signer.sign(hash(rlpEncode(fields as never)));
  return rlpEncode([...fields, signature] as never);
}

/**
 * Decode and authenticate: `nodeIdOf(idx)` gives the sealer's id; the envelope signature must be
 * that sealer's, and so must an acknowledgement's block signature. The head signatures a
 * heartbeat carries are checked by whoever uses them (they belong to the head block's sealers).
 */
export function decodeRaftMessage(
  bytes: Uint8Array,
  signer: ConsensusSigner,
  hash: (d: Uint8Array) => Uint8Array,
  nodeIdOf: (idx: number) => Uint8Array | undefined,
): RaftMessage {
  let value: RlpValue;
  try {
    value = rlpDecode(bytes, 'Raft message');
  } catch (e) {
    throw new MessageDecodeError((e as Error).message);
  }
  if (!Array.isArray(value) || value.length < 8) throw new MessageDecodeError('a Raft message is a list of at least 8 items');
  const uint = (item: RlpValue | undefined, what: string, max = 8): number => {
    if (!(item instanceof Uint8Array)) throw new MessageDecodeError(`Raft ${what}: expected bytes`);
    try {
      return Number(parseRlpUint(item, what, max));
    } catch (e) {
      throw new MessageDecodeError(`Raft ${e instanceof CodecError ? e.message : String(e)}`);
    }
  };
  const bytesOf = (item: RlpValue | undefined, what: string, length?: number): Uint8Array => {
    if (!(item instanceof Uint8Array) || (length !== undefined && item.length !== length)) {
      throw new MessageDecodeError(`Raft ${what}: expected ${length ?? 'some'} bytes`);
    }
    return item;
  };
  const list = (item: RlpValue | undefined, what: string): RlpValue[] => {
    if (!Array.isArray(item)) throw new MessageDecodeError(`Raft ${what}: expected a list`);
    return item;
  };
  const code = uint(value[0], 'type', 1);
  const type = TYPE_BY_CODE.get(code);
  if (!type) throw new MessageDecodeError(`Raft packet type ${code} is unknown`);
  const expectedItems = { voteReq: 9, voteResp: 9, heartbeat: 9, heartbeatResp: 8 }[type];
  if (value.length !== expectedItems) throw new MessageDecodeError(`Raft ${type}: expected ${expectedItems} items, got ${value.length}`);
  const term = uint(value[1], 'term', 7);
  const idx = uint(value[2], 'idx', 2);
  const height = uint(value[3], 'height', 7);
  const blockHash = bytesOf(value[4], 'blockHash', 32);
  const nodeId = nodeIdOf(idx);
  if (!nodeId) throw new MessageDecodeError(`Raft ${type} from index ${idx}, which is not a sealer`);
  const signature = bytesOf(value[value.length - 1], 'signature');
  if (!signer.verify(hash(rlpEncode(value.slice(0, -1) as never)), signature, nodeId)) {
    throw new MessageDecodeError(`Raft ${type} claims sealer ${idx} but its signature is not that sealer's`);
  }
  const base = { term, idx, height, blockHash };
  switch (type) {
    case 'voteReq':
      return { type, ...base, lastHeight: uint(value[5], 'lastHeight', 7), lastEntryTerm: uint(value[6], 'lastEntryTerm', 7), lastLeaderTerm: uint(value[7], 'lastLeaderTerm', 7) };
    case 'voteResp': {
      const flagCode = uint(value[6], 'voteFlag', 1);
      const flag = FLAG_BY_CODE.get(flagCode);
      if (!flag) throw new MessageDecodeError(`Raft vote flag ${flagCode} is unknown`);
      return { type, ...base, candidateTerm: uint(value[5], 'candidateTerm', 7), flag, lastLeaderTerm: uint(value[7], 'lastLeaderTerm', 7) };
    }
    case 'heartbeat': {
      const headSignatures: IndexedSignature[] = list(value[6], 'headSignatures').map((item, i) => {
        const pair = list(item, `headSignatures[${i}]`);
        if (pair.length !== 2) throw new MessageDecodeError(`Raft headSignatures[${i}]: expected [index, signature]`);
        return { index: uint(pair[0], `headSignatures[${i}].index`, 2), signature: bytesOf(pair[1], `headSignatures[${i}].signature`) };
      });
      const p = list(value[7], 'pending');
      if (p.length !== 0 && p.length !== 2 && p.length !== 3) throw new MessageDecodeError('Raft heartbeat pending: expected 0, 2 or 3 items');
      const pending =
        p.length === 0
          ? undefined
          : { height: uint(p[0], 'pending.height', 7), blockHash: bytesOf(p[1], 'pending.blockHash', 32), ...(p.length === 3 ? { proposal: proposalFromRlp(p[2]!) } : {}) };
      return { type, ...base, seq: uint(value[5], 'seq', 7), headSignatures, ...(pending ? { pending } : {}) };
    }
    case 'heartbeatResp': {
      const a = list(value[6], 'ack');
      if (a.length !== 0 && a.length !== 3) throw new MessageDecodeError('Raft heartbeat ack: expected 0 or 3 items');
      let ack;
      if (a.length === 3) {
        ack = { height: uint(a[0], 'ack.height', 7), blockHash: bytesOf(a[1], 'ack.blockHash', 32), signature: bytesOf(a[2], 'ack.signature') };
        if (!signer.verify(ack.blockHash, ack.signature, nodeId)) {
          throw new MessageDecodeError(`Raft acknowledgement from sealer ${idx}: the block signature is not that sealer's`);
        }
      }
      return { type, ...base, seq: uint(value[5], 'seq', 7), ...(ack ? { ack } : {}) };
    }
  }
}
