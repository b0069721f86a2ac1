import {
  bigintToBytes,
  CodecError,
  parseRlpUint,
  rlpDecode,
  rlpEncode,
  rlpListOfEncoded,
  toHex,
  bytesEqual,
  type RlpValue,
} from '../codec/index.js';
import type { CryptoSuite } from '../crypto/index.js';
import {
  BlockDecodeError,
  blockHash,
  blockHeaderFromRlp,
  encodeBlockHeader,
  type BlockHeader,
} from './block-header.js';
import type { TxGeneration } from './protocol-version.js';
import { encodeReceipt, receiptFromRlp, type Receipt } from './receipt.js';
import { decodeTransaction, transactionFromRlp, type Transaction } from './transaction.js';
import { TxDecodeError } from './transaction-error.js';

/** One sealer's signature over the block hash: 65 bytes (ECDSA r‖s‖v) or 128 (SM2 r‖s‖pub). */
export interface BlockSignature {
  readonly index: number;
  readonly signature: Uint8Array;
}

export interface Block {
  readonly header: BlockHeader;
  readonly transactions: readonly Transaction[];
  /** Empty for a proposal that is not executed yet. */
  readonly receipts: readonly Receipt[];
  readonly signatureList: readonly BlockSignature[];
}

export interface BlockCodecOptions {
  readonly suite: CryptoSuite;
  readonly generation: TxGeneration;
  /** Receipts carry remainGas (supported_version ≥ 2.9.0). */
  readonly receiptsWithRemainGas: boolean;
}

/**
 * FISCO's parallel transaction list (rc2+ blocks and tx gossip): uint32 count, count+1 uint32
 * offsets from 0, then the transaction payloads back to back; integers little-endian.
 */
export function encodeTxsParallel(txs: readonly Transaction[]): Uint8Array {
  if (txs.length === 0) return new Uint8Array(0);
  const headerSize = 4 + 4 * (txs.length + 1);
  let payload = 0;
  for (const tx of txs) payload += tx.raw.length;
  const out = new Uint8Array(headerSize + payload);
  const view = new DataView(out.buffer);
  view.setUint32(0, txs.length, true);
  let offset = 0;
  txs.forEach((tx, i) => {
    view.setUint32(4 + 4 * i, offset, true);
    out.set(tx.raw, headerSize + offset);
    offset += tx.raw.length;
  });
  view.setUint32(4 + 4 * txs.length, offset, true);
  return out;
}

export function decodeTxsParallel(bytes: Uint8Array, options: Omit<BlockCodecOptions, 'receiptsWithRemainGas'>): Transaction[] {
  if (bytes.length === 0) return [];
  if (bytes.length < 8) throw new BlockDecodeError(`transaction list: ${bytes.length} bytes is too short for its header`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const count = view.getUint32(0, true);
  const headerSize = 4 + 4 * (count + 1);
  if (headerSize > bytes.length) throw new BlockDecodeError(`transaction list: header for ${count} transactions exceeds ${bytes.length} bytes`);
  const txs: Transaction[] = [];
  for (let i = 0; i < count; i++) {
    const start = view.getUint32(4 + 4 * i, true);
    const end = view.getUint32(8 + 4 * i, true);
    if (end < start || headerSize + end > bytes.length) {
      throw new BlockDecodeError(`transaction list: offsets of transaction ${i} (${start}..${end}) are out of bounds`);
    }
    txs.push(wrapTxError(i, () => decodeTransaction(bytes.subarray(headerSize + start, headerSize + end), options)));
  }
  if (view.getUint32(4 + 4 * count, true) + headerSize !== bytes.length) {
    throw new BlockDecodeError('transaction list: trailing bytes after the last transaction');
  }
  return txs;
}

export function encodeSignatureList(signatures: readonly BlockSignature[]): Uint8Array {
  return rlpEncode(signatures.map((s) => [bigintToBytes(BigInt(s.index)), s.signature]));
}

function signatureListFromRlp(value: RlpValue): BlockSignature[] {
  if (!Array.isArray(value)) throw new BlockDecodeError('signature list: expected a list');
  return value.map((entry, i) => {
    if (!Array.isArray(entry) || entry.length !== 2 || Array.isArray(entry[0]) || Array.isArray(entry[1])) {
      throw new BlockDecodeError(`signature list entry ${i}: expected [index, signature]`);
    }
    let index: bigint;
    try {
      index = parseRlpUint(entry[0], 'index', 2);
    } catch (e) {
      throw new BlockDecodeError(`signature list entry ${i}: ${e instanceof CodecError ? e.reason : String(e)}`);
    }
    return { index: Number(index), signature: entry[1] };
  });
}

/** Whole-block encoding in FISCO's layout for the generation (rc1: 5 items with receipts third; rc2: txs as parallel bytes). */
export function encodeBlock(block: Block, options: BlockCodecOptions): Uint8Array {
  const header = encodeBlockHeader(block.header);
  const hash = rlpEncode(blockHash(block.header, options.suite));
  const sigList = encodeSignatureList(block.signatureList);
  const receipts = rlpListOfEncoded(block.receipts.map((r) => encodeReceipt(r, options.receiptsWithRemainGas)));
  if (options.generation === 'rc1') {
    const txs = rlpListOfEncoded(block.transactions.map((t) => t.raw));
    return rlpListOfEncoded([header, txs, receipts, hash, sigList]);
  }
  return rlpListOfEncoded([header, rlpEncode(encodeTxsParallel(block.transactions)), hash, sigList, receipts]);
}

export function decodeBlock(bytes: Uint8Array, options: BlockCodecOptions): Block {
  const value = rlpDecode(bytes, 'block');
  if (!Array.isArray(value) || value.length !== 5) {
    throw new BlockDecodeError(`a block is a list of 5 items, got ${Array.isArray(value) ? value.length : 'a byte string'}`);
  }
  const header = blockHeaderFromRlp(value[0]!);
  const [txsItem, receiptsItem, hashItem, sigItem] =
    options.generation === 'rc1' ? [value[1]!, value[2]!, value[3]!, value[4]!] : [value[1]!, value[4]!, value[2]!, value[3]!];
  let transactions: Transaction[];
  if (options.generation === 'rc1') {
    if (!Array.isArray(txsItem)) throw new BlockDecodeError('rc1 block: transactions must be a list');
    transactions = txsItem.map((item, i) => wrapTxError(i, () => transactionFromRlp(item, rlpEncode(item as never), options)));
  } else {
    if (Array.isArray(txsItem)) throw new BlockDecodeError('block: transactions must be the parallel byte encoding');
    transactions = decodeTxsParallel(txsItem, options);
  }
  if (!Array.isArray(receiptsItem)) throw new BlockDecodeError('block: receipts must be a list');
  const receipts = receiptsItem.map((r) => receiptFromRlp(r, options.receiptsWithRemainGas));
  if (Array.isArray(hashItem) || hashItem.length !== 32) throw new BlockDecodeError('block: hash must be 32 bytes');
  const computed = blockHash(header, options.suite);
  if (!bytesEqual(computed, hashItem)) {
    throw new BlockDecodeError(`block hash mismatch: the block says ${toHex(hashItem)}, its header hashes to ${toHex(computed)}`);
  }
  return { header, transactions, receipts, signatureList: signatureListFromRlp(sigItem) };
}

function wrapTxError<T>(index: number, decode: () => T): T {
  try {
    return decode();
  } catch (e) {
    if (e instanceof TxDecodeError) throw new BlockDecodeError(`transaction ${index}: ${e.message}`);
    throw e;
  }
}

export interface SignatureListCheck {
  /** Sealer indexes whose signature verified, without duplicates. */
  readonly valid: number[];
  /** Entries that failed, with the reason. */
  readonly invalid: Array<{ index: number; reason: string }>;
}

/** Whether `signature` over `digest` was made by the node with this id; for schemes other than the suite's own. */
export type SignatureVerifier = (digest: Uint8Array, signature: Uint8Array, nodeId: Uint8Array) => boolean;

/**
 * Check each entry signs `hash` with the key of sealerList[index], with the suite's signatures
 * or, when given, the scheme the group's consensus signs with (a simulation's cheap scheme).
 */
export function checkSignatureList(
  hash: Uint8Array,
  signatures: readonly BlockSignature[],
  sealerList: readonly Uint8Array[],
  suite: CryptoSuite,
  verifier?: SignatureVerifier,
): SignatureListCheck {
  const valid = new Set<number>();
  const invalid: Array<{ index: number; reason: string }> = [];
  for (const { index, signature } of signatures) {
    const sealer = sealerList[index];
    if (!sealer) {
      invalid.push({ index, reason: `no sealer with index ${index} (list has ${sealerList.length})` });
      continue;
    }
    let ok = false;
    try {
      ok = verifier ? verifier(hash, signature, sealer) : suite.verify(hash, suite.signatureFromBytes(signature), sealer);
    } catch (e) {
      invalid.push({ index, reason: (e as Error).message });
      continue;
    }
    if (!ok) invalid.push({ index, reason: 'signature does not verify against the sealer key' });
    else if (valid.has(index)) invalid.push({ index, reason: 'duplicate signature for this sealer' });
    else valid.add(index);
  }
  return { valid: [...valid].sort((a, b) => a - b), invalid };
}
