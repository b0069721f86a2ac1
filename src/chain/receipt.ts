import { bigintToBytes, parseRlpUint, rlpDecode, rlpEncode, type RlpInput, type RlpValue, CodecError } from '../codec/index.js';
import { BlockDecodeError } from './block-header.js';

export interface LogEntry {
  /** 20-byte contract address. */
  readonly address: Uint8Array;
  /** 32-byte topics. */
  readonly topics: readonly Uint8Array[];
  readonly data: Uint8Array;
}

/** FISCO 2.x receipt: 7 RLP items before 2.9.0, 8 (with remainGas) from 2.9.0. */
export interface Receipt {
  readonly stateRoot: Uint8Array;
  readonly gasUsed: bigint;
  /** Deployed address for creations, else 20 zero bytes. */
  readonly contractAddress: Uint8Array;
  readonly logsBloom: Uint8Array;
  /** Status code, see TX_STATUS. */
  readonly status: number;
  readonly output: Uint8Array;
  /** Present (and encoded) when supported_version ≥ 2.9.0. */
  readonly remainGas?: bigint;
  readonly logs: readonly LogEntry[];
}

export function receiptItems(receipt: Receipt, withRemainGas: boolean): RlpInput[] {
  const logs = receipt.logs.map((log) => [log.address, [...log.topics], log.data]);
  const items: RlpInput[] = [
    receipt.stateRoot,
    bigintToBytes(receipt.gasUsed),
    receipt.contractAddress,
    receipt.logsBloom,
    bigintToBytes(BigInt(receipt.status)),
    receipt.output,
  ];
  if (withRemainGas) items.push(bigintToBytes(receipt.remainGas ?? 0n));
  items.push(logs);
  return items;
}

/** Encodings of receipt objects already seen (receipts are immutable; see encodeBlockHeader). */
const encodedReceipts = new WeakMap<Receipt, { readonly withRemainGas: boolean; readonly bytes: Uint8Array }>();

export function encodeReceipt(receipt: Receipt, withRemainGas: boolean): Uint8Array {
  const known = encodedReceipts.get(receipt);
  if (known && known.withRemainGas === withRemainGas) return known.bytes;
  const bytes = rlpEncode(receiptItems(receipt, withRemainGas));
  encodedReceipts.set(receipt, { withRemainGas, bytes });
  return bytes;
}

export function decodeReceipt(bytes: Uint8Array, withRemainGas: boolean): Receipt {
  return receiptFromRlp(rlpDecode(bytes, 'receipt'), withRemainGas);
}

export function receiptFromRlp(value: RlpValue, withRemainGas: boolean): Receipt {
  const expected = withRemainGas ? 8 : 7;
  if (!Array.isArray(value) || value.length !== expected) {
    throw new BlockDecodeError(`a receipt is a list of ${expected} items here, got ${Array.isArray(value) ? value.length : 'a byte string'}`);
  }
  const bytes = (i: number, what: string, length?: number): Uint8Array => {
    const item = value[i]!;
    if (Array.isArray(item)) throw new BlockDecodeError(`receipt ${what}: expected bytes, got a list`);
    if (length !== undefined && item.length !== length) throw new BlockDecodeError(`receipt ${what}: expected ${length} bytes, got ${item.length}`);
    return item;
  };
  const int = (i: number, what: string): bigint => {
    try {
      return parseRlpUint(bytes(i, what), what);
    } catch (e) {
      throw new BlockDecodeError(`receipt ${e instanceof CodecError ? e.message : String(e)}`);
    }
  };
  const logsItem = value[expected - 1]!;
  if (!Array.isArray(logsItem)) throw new BlockDecodeError('receipt logs: expected a list');
  const logs = logsItem.map((entry, i): LogEntry => {
    if (!Array.isArray(entry) || entry.length !== 3 || !Array.isArray(entry[1]) || Array.isArray(entry[0]) || Array.isArray(entry[2])) {
      throw new BlockDecodeError(`receipt log ${i}: expected [address, [topics], data]`);
    }
    const topics = entry[1].map((t, j) => {
      if (Array.isArray(t) || t.length !== 32) throw new BlockDecodeError(`receipt log ${i} topic ${j}: expected 32 bytes`);
      return t;
    });
    return { address: entry[0], topics, data: entry[2] };
  });
  return {
    stateRoot: bytes(0, 'stateRoot', 32),
    gasUsed: int(1, 'gasUsed'),
    contractAddress: bytes(2, 'contractAddress', 20),
    logsBloom: bytes(3, 'logsBloom', 256),
    status: Number(int(4, 'status')),
    output: bytes(5, 'output'),
    ...(withRemainGas ? { remainGas: int(6, 'remainGas') } : {}),
    logs,
  };
}
