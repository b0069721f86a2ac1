import {
  bigintToBytes,
  CodecError,
  parseRlpUint,
  rlpDecode,
  rlpEncode,
  rlpItemEnd,
  rlpListOfEncoded,
  rlpListOfEncodedRange,
  rlpListPayload,
  type RlpValue,
} from '../../codec/index.js';
import type { ConsensusSigner } from '../consensus-signer.js';
import { encodeProposal, MessageDecodeError, proposalFromRlp } from '../proposal.js';
import { PBFT_TYPES, type PbftMessage } from './pbft-messages.js';

const TYPE_BY_CODE = new Map<number, PbftMessage['type']>(
  Object.entries(PBFT_TYPES).map(([name, code]): [number, PbftMessage['type']] => [code, name as PbftMessage['type']]),
);

/** The encoded items of the message before its signature. */
function body(message: PbftMessage): Uint8Array[] {
  const head = [
    rlpEncode(bigintToBytes(BigInt(PBFT_TYPES[message.type]))),
    rlpEncode(bigintToBytes(BigInt(message.height))),
    rlpEncode(bigintToBytes(BigInt(message.view))),
    rlpEncode(bigintToBytes(BigInt(message.idx))),
  ];
  switch (message.type) {
    case 'prepare':
      return [...head, encodeProposal(message.proposal)];
    case 'sign':
    case 'commit':
      return [...head, rlpEncode(message.blockHash), rlpEncode(message.blockSignature)];
    case 'viewchange':
      return [...head, rlpEncode(message.blockHash)];
  }
}

/** RLP([type, height, view, idx, …fields, signature]): the signature covers hash(RLP of the rest). */
export function encodePbftMessage(message: PbftMessage, signer: ConsensusSigner, hash: (d: Uint8Array) => Uint8Array): Uint8Array {
  const fields = body(message);
  const signature = signer.sign(hash(rlpListOfEncoded(fields)));
  return rlpListOfEncoded([...fields, rlpEncode(signature)]);
}

/** Offsets of the items of the (well-formed) list `bytes`. */
function itemOffsets(bytes: Uint8Array, count: number): number[] {
  const offsets: number[] = [];
  let at = rlpListPayload(bytes).start;
  for (let i = 0; i <= count; i++) {
    offsets.push(at);
    if (i < count) at = rlpItemEnd(bytes, at);
  }
  return offsets;
}

/**
 * Decode and authenticate: `nodeIdOf(idx)` gives the sealer's id; the envelope signature must be
 * that sealer's, and so must the block signature of a sign or commit.
 */
/**
 * A key telling apart a node's messages without decoding them: the distinct part of the envelope
 * signature, which ends the message (a re-sent message has the same key).
 */
export function pbftMessageTag(bytes: Uint8Array, signer: ConsensusSigner): string {
  const [offset, length] = signer.distinctPart;
  const start = Math.max(0, bytes.length - signer.signatureSize + offset);
  return Buffer.from(bytes.subarray(start, start + length)).toString('latin1');
}

export function decodePbftMessage(
  bytes: Uint8Array,
  signer: ConsensusSigner,
  hash: (d: Uint8Array) => Uint8Array,
  nodeIdOf: (idx: number) => Uint8Array | undefined,
): PbftMessage {
  let value: RlpValue;
  try {
    value = rlpDecode(bytes, 'PBFT message');
  } catch (e) {
    throw new MessageDecodeError((e as Error).message);
  }
  if (!Array.isArray(value) || value.length < 6) throw new MessageDecodeError('a PBFT message is a list of at least 6 items');
  const int = (i: number, what: string, max = 8): number => {
    const item = value[i];
    if (!(item instanceof Uint8Array)) throw new MessageDecodeError(`PBFT ${what}: expected bytes`);
    try {
      return Number(parseRlpUint(item, what, max));
    } catch (e) {
      throw new MessageDecodeError(`PBFT ${e instanceof CodecError ? e.message : String(e)}`);
    }
  };
  const type = TYPE_BY_CODE.get(int(0, 'type', 1));
  if (!type) throw new MessageDecodeError(`PBFT type ${int(0, 'type', 1)} is unknown`);
  const height = int(1, 'height', 7);
  const view = int(2, 'view', 7);
  const idx = int(3, 'idx', 2);
  const signature = value[value.length - 1];
  if (!(signature instanceof Uint8Array)) throw new MessageDecodeError('PBFT signature: expected bytes');
  const nodeId = nodeIdOf(idx);
  if (!nodeId) throw new MessageDecodeError(`PBFT ${type} from index ${idx}, which is not a sealer`);
  // the signed fields are the list's items before the signature, byte for byte as received
  const offsets = itemOffsets(bytes, value.length);
  if (!signer.verify(hash(rlpListOfEncodedRange(bytes, offsets[0]!, offsets[value.length - 1]!)), signature, nodeId)) {
    throw new MessageDecodeError(`PBFT ${type} claims sealer ${idx} but its signature is not that sealer's`);
  }
  const bytesAt = (i: number, what: string, length?: number): Uint8Array => {
    const item = value[i];
    if (!(item instanceof Uint8Array) || (length !== undefined && item.length !== length)) {
      throw new MessageDecodeError(`PBFT ${type} ${what}: expected ${length ?? 'some'} bytes`);
    }
    return item;
  };
  switch (type) {
    case 'prepare':
      if (value.length !== 6) throw new MessageDecodeError('PBFT prepare: expected 6 items');
      return { type, height, view, idx, proposal: proposalFromRlp(value[4]!, bytes.subarray(offsets[4]!, offsets[5]!)) };
    case 'sign':
    case 'commit': {
      if (value.length !== 7) throw new MessageDecodeError(`PBFT ${type}: expected 7 items`);
      const blockHash = bytesAt(4, 'blockHash', 32);
      const blockSignature = bytesAt(5, 'blockSignature');
      if (!signer.verify(blockHash, blockSignature, nodeId)) {
        throw new MessageDecodeError(`PBFT ${type} from sealer ${idx}: the block signature is not that sealer's`);
      }
      return { type, height, view, idx, blockHash, blockSignature };
    }
    case 'viewchange':
      if (value.length !== 6) throw new MessageDecodeError('PBFT viewchange: expected 6 items');
      return { type, height, view, idx, blockHash: bytesAt(4, 'blockHash', 32) };
  }
}
