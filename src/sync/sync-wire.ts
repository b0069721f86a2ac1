import {
  bigintToBytes,
  CodecError,
  parseRlpUint,
  rlpDecode,
  rlpEncode,
  type RlpValue,
} from '../codec/index.js';
import type { ChainStatus } from './block-sync.js';

/** FISCO's sync packet types. */
export const SYNC_TYPES = { status: 0, transactions: 1, blocks: 2, reqBlocks: 3 } as const;

export type SyncMessage =
  | { readonly type: 'status'; readonly status: ChainStatus }
  | { readonly type: 'transactions'; readonly transactions: readonly Uint8Array[] }
  | { readonly type: 'blocks'; readonly blocks: readonly Uint8Array[] }
  | { readonly type: 'reqBlocks'; readonly from: number; readonly count: number };

export class SyncDecodeError extends Error {
  override readonly name = 'SyncDecodeError';
}

export function encodeSyncMessage(message: SyncMessage): Uint8Array {
  const type = bigintToBytes(BigInt(SYNC_TYPES[message.type]));
  switch (message.type) {
    case 'status':
      return rlpEncode([type, bigintToBytes(BigInt(message.status.number)), message.status.genesisHash, message.status.latestHash]);
    case 'transactions':
      return rlpEncode([type, [...message.transactions]]);
    case 'blocks':
      return rlpEncode([type, [...message.blocks]]);
    case 'reqBlocks':
      return rlpEncode([type, bigintToBytes(BigInt(message.from)), bigintToBytes(BigInt(message.count))]);
  }
}

export function decodeSyncMessage(bytes: Uint8Array): SyncMessage {
  let value: RlpValue;
  try {
    value = rlpDecode(bytes, 'sync message');
  } catch (e) {
    throw new SyncDecodeError((e as Error).message);
  }
  if (!Array.isArray(value) || value.length < 2) throw new SyncDecodeError('a sync message is a list of at least 2 items');
  const int = (i: number, what: string, max = 8): number => {
    const item = value[i];
    if (!(item instanceof Uint8Array)) throw new SyncDecodeError(`sync ${what}: expected bytes`);
    try {
      return Number(parseRlpUint(item, what, max));
    } catch (e) {
      throw new SyncDecodeError(`sync ${e instanceof CodecError ? e.message : String(e)}`);
    }
  };
  const hash = (i: number, what: string): Uint8Array => {
    const item = value[i];
    if (!(item instanceof Uint8Array) || item.length !== 32) throw new SyncDecodeError(`sync ${what}: expected 32 bytes`);
    return item;
  };
  const list = (i: number, what: string): Uint8Array[] => {
    const item = value[i];
    if (!Array.isArray(item) || item.some((x) => !(x instanceof Uint8Array))) throw new SyncDecodeError(`sync ${what}: expected a list of byte strings`);
    return item as Uint8Array[];
  };
  const type = int(0, 'type', 1);
  switch (type) {
    case SYNC_TYPES.status:
      if (value.length !== 4) throw new SyncDecodeError('sync status: expected 4 items');
      return { type: 'status', status: { number: int(1, 'number', 7), genesisHash: hash(2, 'genesisHash'), latestHash: hash(3, 'latestHash') } };
    case SYNC_TYPES.transactions:
      return { type: 'transactions', transactions: list(1, 'transactions') };
    case SYNC_TYPES.blocks:
      return { type: 'blocks', blocks: list(1, 'blocks') };
    case SYNC_TYPES.reqBlocks: {
      if (value.length !== 3) throw new SyncDecodeError('sync reqBlocks: expected 3 items');
      const count = int(2, 'count', 2);
      if (count < 1 || count > 32) throw new SyncDecodeError(`sync reqBlocks: count ${count} not in 1..32`);
      return { type: 'reqBlocks', from: int(1, 'from', 7), count };
    }
    default:
      throw new SyncDecodeError(`sync type ${type} is unknown`);
  }
}
