// Blocks, transactions and receipts as a node answered them (src/rpc/format.ts's shapes, both
// interface variants) → Twinchain's values. A missing or malformed field is a bad recording
// (ReplayInputError, naming block, transaction and field); what a variant simply does not carry
// (the earlier variant's signature, blockLimit, receiptsRoot, dbHash, signatureList) comes back
// as undefined, for the replayer to list as a skipped check.
import { encodeSignedTransaction, type BlockHeader, type BlockSignature, type TxBody } from '../chain/index.js';
import { bytesEqual, fromHex } from '../codec/index.js';
import type { CryptoSuite, Signature } from '../crypto/index.js';
import type { JsonObject } from './recording.js';

/**
 * The recording cannot be replayed as it is (a field is missing or malformed, or replay refuses
 * it). `block`: the block whose line it is about, for the replay to say the file and line.
 */
export class ReplayInputError extends Error {
  override readonly name = 'ReplayInputError';
  constructor(
    message: string,
    readonly block?: number,
  ) {
    super(message);
  }
}

/**
 * Fields the later interface variant always carries (FISCO 2.x: getBlockByNumber with
 * transactions, getTransactionReceipt; Twinchain's later variant alike), by object. Without
 * them a check cannot be made, so a later-variant recording that lacks one is refused, unless
 * the user allows it (`replay --allow-missing <field>`): a proof dropped from a recording must
 * not read as a pass. The earlier variant prints none of them.
 */
export const LATER_VARIANT_FIELDS = {
  block: ['signatureList', 'dbHash', 'receiptsRoot'],
  transaction: ['signature', 'blockLimit', 'chainId', 'groupId', 'extraData'],
  /** remainGas only from supported_version 2.9.0. */
  receipt: ['root', 'logsBloom', 'remainGas'],
} as const;

export type LaterVariantField = (typeof LATER_VARIANT_FIELDS)[keyof typeof LATER_VARIANT_FIELDS][number];
export const ALLOWABLE_MISSING: readonly LaterVariantField[] = [...new Set(Object.values(LATER_VARIANT_FIELDS).flat())];

/** What a recording must carry: the later variant's fields of its version, less those allowed to be missing. */
export class RecordedFields {
  constructor(
    readonly variant: 'later' | 'earlier',
    readonly version: { readonly text: string; readonly receiptHasRemainGas: boolean },
    readonly allowMissing: readonly LaterVariantField[] = [],
  ) {}

  /**
   * A field of the later variant is absent at `place`: refused (naming block, object and field),
   * unless the recording is of the earlier variant or the field is allowed to be missing. Returns
   * the reason to give for the checks it skips.
   */
  absent(field: LaterVariantField, place: Place): string {
    if (this.variant === 'earlier') return `the earlier interface variant prints no ${field}`;
    if (field === 'remainGas' && !this.version.receiptHasRemainGas) return `receipts have no remainGas before 2.9.0`;
    if (this.allowMissing.includes(field)) return `the recording has no ${field} (allowed: --allow-missing ${field})`;
    throw new ReplayInputError(
      `${where(place)}: "${field}" is missing: a recording of the later interface variant (supported version ${this.version.text}) always carries it, so its check cannot be made; ` +
        `replay --allow-missing ${field} replays it without, listing the check as skipped`,
      place.block,
    );
  }
}

export const ZERO_ADDRESS_HEX = `0x${'0'.repeat(40)}`;

/** Where a value sits, for messages: "block 3, transaction 1". */
export interface Place {
  readonly block: number;
  readonly index?: number;
  readonly what?: string;
}

function where(place: Place): string {
  return `block ${place.block}${place.index === undefined ? '' : `, ${place.what ?? 'transaction'} ${place.index}`}`;
}

function bad(place: Place, field: string, problem: string): never {
  throw new ReplayInputError(`${where(place)}: "${field}" ${problem}`, place.block);
}

function present(json: JsonObject, field: string, place: Place): unknown {
  const value = json[field];
  if (value === undefined) bad(place, field, 'is missing');
  return value;
}

/** A quantity as nodes print it: 0x hex, or (WeBASE, some SDKs) decimal, as a string or a JSON number. */
export function quantityOf(json: JsonObject, field: string, place: Place): bigint {
  const value = present(json, field, place);
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return BigInt(value);
  if (typeof value === 'string' && /^(0x[0-9a-fA-F]+|[0-9]+)$/.test(value)) return BigInt(value);
  return bad(place, field, `is not a quantity: ${JSON.stringify(value)}`);
}

export function numberOf(json: JsonObject, field: string, place: Place): number {
  const n = quantityOf(json, field, place);
  if (n > BigInt(Number.MAX_SAFE_INTEGER)) bad(place, field, `is too large: ${n}`);
  return Number(n);
}

export function bytesOf(json: JsonObject, field: string, place: Place, length?: number): Uint8Array {
  const value = present(json, field, place);
  if (typeof value !== 'string') return bad(place, field, `is not a hex string: ${JSON.stringify(value)}`);
  let bytes: Uint8Array;
  try {
    bytes = fromHex(value);
  } catch (e) {
    return bad(place, field, `is not hex data (${(e as Error).message})`);
  }
  if (length !== undefined && bytes.length !== length) bad(place, field, `must be ${length} bytes, got ${bytes.length}`);
  return bytes;
}

export function stringOf(json: JsonObject, field: string, place: Place): string {
  const value = present(json, field, place);
  if (typeof value !== 'string') bad(place, field, `is not a string: ${JSON.stringify(value)}`);
  return value as string;
}

function arrayOf(json: JsonObject, field: string, place: Place): unknown[] {
  const value = present(json, field, place);
  if (!Array.isArray(value)) bad(place, field, 'is not a list');
  return value as unknown[];
}

function objectOf(value: unknown, field: string, place: Place): JsonObject {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) bad(place, field, 'is not a JSON object');
  return value as JsonObject;
}

/** A recorded block header: the chain's header fields, receiptsRoot/dbHash only in the later variant. */
export interface RecordedHeader extends Omit<BlockHeader, 'receiptsRoot' | 'dbHash'> {
  readonly hash?: Uint8Array;
  readonly receiptsRoot?: Uint8Array;
  readonly dbHash?: Uint8Array;
  /** Absent in the earlier variant (and in replies without transactions). */
  readonly signatureList?: readonly BlockSignature[];
}

export function parseHeader(json: JsonObject, place: Place, options: { hashRequired: boolean }): RecordedHeader {
  const optionalBytes = (field: string, length: number) => (json[field] === undefined ? undefined : bytesOf(json, field, place, length));
  const hash = options.hashRequired ? bytesOf(json, 'hash', place, 32) : optionalBytes('hash', 32);
  const signatureList =
    json.signatureList === undefined
      ? undefined
      : arrayOf(json, 'signatureList', place).map((entry, i) => {
          const s = objectOf(entry, `signatureList[${i}]`, place);
          const at = { ...place, index: i, what: 'signature' };
          return { index: numberOf(s, 'index', at), signature: bytesOf(s, 'signature', at) };
        });
  return {
    ...(hash ? { hash } : {}),
    number: numberOf(json, 'number', place),
    parentHash: bytesOf(json, 'parentHash', place, 32),
    stateRoot: bytesOf(json, 'stateRoot', place, 32),
    transactionsRoot: bytesOf(json, 'transactionsRoot', place, 32),
    ...(json.receiptsRoot === undefined ? {} : { receiptsRoot: bytesOf(json, 'receiptsRoot', place, 32) }),
    ...(json.dbHash === undefined ? {} : { dbHash: bytesOf(json, 'dbHash', place, 32) }),
    logsBloom: bytesOf(json, 'logsBloom', place, 256),
    gasLimit: quantityOf(json, 'gasLimit', place),
    gasUsed: quantityOf(json, 'gasUsed', place),
    timestamp: numberOf(json, 'timestamp', place),
    extraData: arrayOf(json, 'extraData', place).map((d, i) => {
      if (typeof d !== 'string') bad(place, `extraData[${i}]`, 'is not a hex string');
      return bytesOf({ d }, 'd', { ...place, index: i, what: 'extraData item' });
    }),
    sealer: numberOf(json, 'sealer', place),
    sealerList: arrayOf(json, 'sealerList', place).map((id, i) => {
      if (typeof id !== 'string') bad(place, `sealerList[${i}]`, 'is not a node id');
      return bytesOf({ id }, 'id', { ...place, index: i, what: 'sealer' }, 64);
    }),
    ...(signatureList ? { signatureList } : {}),
  };
}

/**
 * A recorded transaction. `body` and `signature` are there when the object carries every signed
 * field (the later variant's rc2 shape); otherwise `missing` names what it lacks.
 */
export interface RecordedTransaction {
  readonly hash: Uint8Array;
  readonly from: Uint8Array;
  readonly to: Uint8Array | null;
  readonly input: Uint8Array;
  readonly body?: TxBody;
  readonly signature?: Signature;
  readonly missing: readonly string[];
}

const RC2_EXTRA = ['blockLimit', 'chainId', 'groupId', 'extraData', 'signature'] as const;
const RC1_EXTRA = ['blockLimit', 'signature'] as const;

// Built field by field, without spreads: replay parses every recorded transaction through here.
export function parseTransaction(json: JsonObject, place: Place, suite: CryptoSuite, generation: 'rc1' | 'rc2'): RecordedTransaction {
  const toText = json.to;
  if (toText !== null && typeof toText !== 'string') bad(place, 'to', `is neither an address nor null: ${JSON.stringify(toText)}`);
  // a creation is null in the earlier variant and the zero address in the later one, where a
  // call to address 0 prints the same: the signed fields' hash tells them apart (below)
  const to = toText === null || toText === ZERO_ADDRESS_HEX ? null : bytesOf(json, 'to', place, 20);
  const hash = bytesOf(json, 'hash', place, 32);
  const from = bytesOf(json, 'from', place, 20);
  const input = bytesOf(json, 'input', place);
  let missing: string[] | undefined;
  for (const field of generation === 'rc2' ? RC2_EXTRA : RC1_EXTRA) if (json[field] === undefined) (missing ??= []).push(field);
  // no signed fields (the earlier variant): its creations print null, so the zero address is address 0
  if (missing) return { hash, from, to: toText === ZERO_ADDRESS_HEX ? new Uint8Array(20) : to, input, missing };
  const nonce = quantityOf(json, 'nonce', place);
  const gasPrice = quantityOf(json, 'gasPrice', place);
  const gas = quantityOf(json, 'gas', place);
  const blockLimit = quantityOf(json, 'blockLimit', place);
  const value = quantityOf(json, 'value', place);
  const body: TxBody =
    generation === 'rc2'
      ? { nonce, gasPrice, gas, blockLimit, to, value, data: input, chainId: quantityOf(json, 'chainId', place), groupId: quantityOf(json, 'groupId', place), extraData: bytesOf(json, 'extraData', place) }
      : { nonce, gasPrice, gas, blockLimit, to, value, data: input };
  const s = objectOf(json.signature, 'signature', place);
  const r = quantityOf(s, 'r', place);
  const sv = quantityOf(s, 's', place);
  const signature: Signature =
    suite.name === 'ecdsa'
      ? { kind: 'ecdsa', r, s: sv, v: numberOf(s, 'v', place) }
      : { kind: 'sm', r, s: sv, publicKey: bytesOf(s, 'v', place, 64) };
  if (toText === ZERO_ADDRESS_HEX) {
    const asCall = { ...body, to: new Uint8Array(20) };
    const hashOf = (b: TxBody) => suite.hash(encodeSignedTransaction(b, generation, signature));
    if (!bytesEqual(hashOf(body), hash) && bytesEqual(hashOf(asCall), hash)) return { hash, from, to: asCall.to, input, body: asCall, signature, missing: [] };
  }
  return { hash, from, to, input, body, signature, missing: [] };
}

export interface RecordedLog {
  readonly address: string;
  readonly topics: readonly string[];
  readonly data: string;
}

/** A recorded receipt: the compared fields, normalised to lower-case hex text (quantities as bigint). */
export interface RecordedReceipt {
  readonly transactionHash: string;
  readonly status: bigint;
  readonly output: string;
  readonly gasUsed: bigint;
  readonly contractAddress: string;
  readonly logs: readonly RecordedLog[];
  readonly logsBloom?: string;
  readonly root?: string;
  readonly remainGas?: bigint;
}

const LOWER_HEX = /^0x(?:[0-9a-f]{2})*$/;

/** The field as 0x-prefixed lowercase hex (as the nodes print it: taken as it is), checked like bytesOf. */
const hexText = (json: JsonObject, field: string, place: Place, length?: number) => {
  const value = json[field];
  if (typeof value === 'string' && (length === undefined || value.length === 2 + 2 * length) && LOWER_HEX.test(value)) return value;
  const bytes = bytesOf(json, field, place, length);
  return `0x${Buffer.from(bytes).toString('hex')}`;
};

export function parseReceipt(json: JsonObject, place: Place): RecordedReceipt {
  const at: Place = { ...place, what: 'receipt' };
  const logs = arrayOf(json, 'logs', at).map((entry, i) => {
    const log = objectOf(entry, `logs[${i}]`, at);
    const topics = Array.isArray(log.topics) ? log.topics : bad(at, `logs[${i}].topics`, 'is not a list');
    return {
      address: hexText(log, 'address', at, 20),
      topics: topics.map((t, k) => hexText({ t }, 't', { ...at, what: `receipt log ${i} topic ${k}` }, 32)),
      data: hexText(log, 'data', at),
    };
  });
  return {
    transactionHash: hexText(json, 'transactionHash', at, 32),
    status: quantityOf(json, 'status', at),
    output: hexText(json, 'output', at),
    gasUsed: quantityOf(json, 'gasUsed', at),
    contractAddress: hexText(json, 'contractAddress', at, 20),
    logs,
    ...(json.logsBloom === undefined ? {} : { logsBloom: hexText(json, 'logsBloom', at, 256) }),
    ...(json.root === undefined ? {} : { root: hexText(json, 'root', at, 32) }),
    ...(json.remainGas === undefined ? {} : { remainGas: quantityOf(json, 'remainGas', at) }),
  };
}

/** `transactions` of a block: full objects (getBlockByNumber(n, true)); hashes alone cannot be replayed. */
export function transactionObjects(block: JsonObject, place: Place): JsonObject[] {
  return arrayOf(block, 'transactions', place).map((t, i) => {
    if (typeof t === 'string') bad(place, `transactions[${i}]`, 'is a hash only: the block was recorded without includeTransactions, nothing to re-execute');
    return objectOf(t, `transactions[${i}]`, place);
  });
}
