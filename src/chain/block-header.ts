import {
  bigintToBytes,
  CodecError,
  parseRlpUint,
  rlpDecode,
  rlpEncode,
  type RlpValue,
} from '../codec/index.js';
import type { CryptoSuite } from '../crypto/index.js';

/** FISCO 2.x block header: 13 RLP fields, hashed as a whole for the block hash. */
export interface BlockHeader {
  readonly parentHash: Uint8Array;
  readonly stateRoot: Uint8Array;
  readonly transactionsRoot: Uint8Array;
  readonly receiptsRoot: Uint8Array;
  readonly dbHash: Uint8Array;
  /** 256 bytes. */
  readonly logsBloom: Uint8Array;
  readonly number: number;
  readonly gasLimit: bigint;
  readonly gasUsed: bigint;
  /** Milliseconds since the Unix epoch. */
  readonly timestamp: number;
  readonly extraData: readonly Uint8Array[];
  /** Index of the sealing node in `sealerList`. */
  readonly sealer: number;
  /** 64-byte node ids, ascending. */
  readonly sealerList: readonly Uint8Array[];
}

export class BlockDecodeError extends Error {
  override readonly name = 'BlockDecodeError';
}

const HEADER_FIELDS = [
  'parentHash',
  'stateRoot',
  'transactionsRoot',
  'receiptsRoot',
  'dbHash',
  'logsBloom',
  'number',
  'gasLimit',
  'gasUsed',
  'timestamp',
  'extraData',
  'sealer',
  'sealerList',
] as const;

/**
 * Encodings and hashes of header objects already seen: headers are immutable, and the same object
 * is hashed at execution, commit and storage (and, in a simulation, by every node that shares an
 * execution result), so it is encoded once.
 */
const encodedHeaders = new WeakMap<BlockHeader, Uint8Array>();
const headerHashes = new WeakMap<BlockHeader, { readonly suite: CryptoSuite; readonly hash: Uint8Array }>();

export function encodeBlockHeader(header: BlockHeader): Uint8Array {
  let bytes = encodedHeaders.get(header);
  if (!bytes) {
    bytes = rlpEncode(blockHeaderItems(header));
    encodedHeaders.set(header, bytes);
  }
  return bytes;
}

export function blockHeaderItems(header: BlockHeader): Array<Uint8Array | Uint8Array[]> {
  return [
    header.parentHash,
    header.stateRoot,
    header.transactionsRoot,
    header.receiptsRoot,
    header.dbHash,
    header.logsBloom,
    bigintToBytes(BigInt(header.number)),
    bigintToBytes(header.gasLimit),
    bigintToBytes(header.gasUsed),
    bigintToBytes(BigInt(header.timestamp)),
    [...header.extraData],
    bigintToBytes(BigInt(header.sealer)),
    [...header.sealerList],
  ];
}

export function blockHash(header: BlockHeader, suite: CryptoSuite): Uint8Array {
  const known = headerHashes.get(header);
  if (known && known.suite === suite) return known.hash;
  const hash = suite.hash(encodeBlockHeader(header));
  headerHashes.set(header, { suite, hash });
  return hash;
}

export function decodeBlockHeader(bytes: Uint8Array): BlockHeader {
  return blockHeaderFromRlp(rlpDecode(bytes, 'block header'));
}

export function blockHeaderFromRlp(value: RlpValue): BlockHeader {
  if (!Array.isArray(value) || value.length !== HEADER_FIELDS.length) {
    throw new BlockDecodeError(
      `a block header is a list of ${HEADER_FIELDS.length} items, got ${Array.isArray(value) ? `${value.length} items` : 'a byte string'}`,
    );
  }
  const bytes = (i: number, length?: number): Uint8Array => {
    const item = value[i]!;
    if (Array.isArray(item)) throw new BlockDecodeError(`header field ${HEADER_FIELDS[i]}: expected bytes, got a list`);
    if (length !== undefined && item.length !== length) {
      throw new BlockDecodeError(`header field ${HEADER_FIELDS[i]}: expected ${length} bytes, got ${item.length}`);
    }
    return item;
  };
  const int = (i: number, maxBytes: number): bigint => {
    try {
      return parseRlpUint(bytes(i), HEADER_FIELDS[i]!, maxBytes);
    } catch (e) {
      throw new BlockDecodeError(e instanceof CodecError ? e.message : String(e));
    }
  };
  const list = (i: number, itemLength?: number): Uint8Array[] => {
    const item = value[i]!;
    if (!Array.isArray(item)) throw new BlockDecodeError(`header field ${HEADER_FIELDS[i]}: expected a list`);
    return item.map((entry, j) => {
      if (Array.isArray(entry)) throw new BlockDecodeError(`header field ${HEADER_FIELDS[i]}[${j}]: expected bytes`);
      if (itemLength !== undefined && entry.length !== itemLength) {
        throw new BlockDecodeError(`header field ${HEADER_FIELDS[i]}[${j}]: expected ${itemLength} bytes, got ${entry.length}`);
      }
      return entry;
    });
  };
  return {
    parentHash: bytes(0, 32),
    stateRoot: bytes(1, 32),
    transactionsRoot: bytes(2, 32),
    receiptsRoot: bytes(3, 32),
    dbHash: bytes(4, 32),
    logsBloom: bytes(5, 256),
    number: Number(int(6, 7)),
    gasLimit: int(7, 32),
    gasUsed: int(8, 32),
    timestamp: Number(int(9, 7)),
    extraData: list(10),
    sealer: Number(int(11, 4)),
    sealerList: list(12, 64),
  };
}
