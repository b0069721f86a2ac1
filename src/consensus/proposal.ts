import {
  bigintToBytes,
  bytesEqual,
  CodecError,
  parseRlpUint,
  rlpEncode,
  type RlpValue,
} from '../codec/index.js';

/** A block as consensus proposes it: the header fields fixed before execution, and the raw transactions. */
export interface Proposal {
  readonly number: number;
  readonly parentHash: Uint8Array;
  /** ms since the epoch, from the proposer's clock. */
  readonly timestamp: number;
  /** Index of the proposing sealer in sealerList. */
  readonly sealer: number;
  readonly sealerList: readonly Uint8Array[];
  /** Signed transaction payloads in block order. */
  readonly transactions: readonly Uint8Array[];
}

export function proposalItems(p: Proposal): RlpValue[] {
  return [
    bigintToBytes(BigInt(p.number)),
    p.parentHash,
    bigintToBytes(BigInt(p.timestamp)),
    bigintToBytes(BigInt(p.sealer)),
    [...p.sealerList],
    [...p.transactions],
  ];
}

/** Encodings of proposal objects (immutable) already encoded or decoded from the wire. */
const encodedProposals = new WeakMap<Proposal, Uint8Array>();

export function encodeProposal(p: Proposal): Uint8Array {
  let bytes = encodedProposals.get(p);
  if (!bytes) {
    bytes = rlpEncode(proposalItems(p) as never);
    encodedProposals.set(p, bytes);
  }
  return bytes;
}

export class MessageDecodeError extends Error {
  override readonly name = 'MessageDecodeError';
}

/** `encoded`: the item's bytes as received, when known (they are its encoding, so it is not re-encoded later). */
export function proposalFromRlp(value: RlpValue, encoded?: Uint8Array): Proposal {
  if (!Array.isArray(value) || value.length !== 6) throw new MessageDecodeError('a proposal is a list of 6 items');
  const [number, parentHash, timestamp, sealer, sealerList, transactions] = value;
  const bytes = (v: RlpValue | undefined, what: string): Uint8Array => {
    if (!(v instanceof Uint8Array)) throw new MessageDecodeError(`proposal ${what}: expected bytes`);
    return v;
  };
  const int = (v: RlpValue | undefined, what: string, max: number): number => {
    const b = bytes(v, what);
    try {
      return Number(parseRlpUint(b, what, max));
    } catch (e) {
      throw new MessageDecodeError(`proposal ${e instanceof CodecError ? e.message : String(e)}`);
    }
  };
  const list = (v: RlpValue | undefined, what: string): Uint8Array[] => {
    if (!Array.isArray(v)) throw new MessageDecodeError(`proposal ${what}: expected a list`);
    return v.map((item, i) => bytes(item, `${what}[${i}]`));
  };
  const parent = bytes(parentHash, 'parentHash');
  if (parent.length !== 32) throw new MessageDecodeError('proposal parentHash: expected 32 bytes');
  const proposal: Proposal = {
    number: int(number, 'number', 7),
    parentHash: parent,
    timestamp: int(timestamp, 'timestamp', 7),
    sealer: int(sealer, 'sealer', 4),
    sealerList: list(sealerList, 'sealerList'),
    transactions: list(transactions, 'transactions'),
  };
  if (encoded) encodedProposals.set(proposal, encoded);
  return proposal;
}

export function sameProposal(a: Proposal, b: Proposal): boolean {
  return bytesEqual(encodeProposal(a), encodeProposal(b));
}
