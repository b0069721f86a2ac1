import {
  bigintToBytes,
  bigintToFixedBytes,
  bytesEqual,
  bytesToBigint,
  CodecError,
  parseHexBytes,
  parseRlpUint,
  rlpDecode,
  rlpEncode,
  rlpItemEnd,
  rlpListOfEncodedRange,
  rlpListPayload,
  toHex,
  type RlpInput,
  type RlpValue,
  UINT256_MAX,
} from '../codec/index.js';
import type { CryptoSuite, Signature } from '../crypto/index.js';
import type { TxGeneration } from './protocol-version.js';
import { TxDecodeError } from './transaction-error.js';

/** The signed-over fields of a transaction. `chainId`, `groupId` and `extraData` exist in rc2 payloads only. */
export interface TxBody {
  readonly nonce: bigint;
  readonly gasPrice: bigint;
  readonly gas: bigint;
  readonly blockLimit: bigint;
  /** Receiver; null means contract creation (written as an empty string). */
  readonly to: Uint8Array | null;
  readonly value: bigint;
  readonly data: Uint8Array;
  readonly chainId?: bigint;
  readonly groupId?: bigint;
  readonly extraData?: Uint8Array;
}

export interface TxCodecOptions {
  readonly suite: CryptoSuite;
  readonly generation: TxGeneration;
}

const UNSIGNED_FIELDS: Record<TxGeneration, readonly string[]> = {
  rc1: ['nonce', 'gasPrice', 'gas', 'blockLimit', 'to', 'value', 'data'],
  rc2: ['nonce', 'gasPrice', 'gas', 'blockLimit', 'to', 'value', 'data', 'chainId', 'groupId', 'extraData'],
};

interface VerifiedSigner {
  readonly publicKey: Uint8Array;
  readonly address: Uint8Array;
}

/**
 * Sets a transaction's verified sender: for recoverSender, signTransaction and adoptSender only
 * (the class hands it to this module alone). A private field rather than a WeakMap: a replay
 * establishes 4,000 senders per second of executing, and a WeakMap entry costs each one a hash
 * and an ephemeron for every collection to trace.
 */
let setVerifiedSigner: (tx: Transaction, signer: VerifiedSigner) => void;

/** A decoded or freshly signed transaction; immutable apart from the cached sender. */
export class Transaction {
  constructor(
    readonly generation: TxGeneration,
    readonly suiteName: CryptoSuite['name'],
    readonly body: TxBody,
    readonly signature: Signature,
    /** The signed payload exactly as received or encoded. */
    readonly raw: Uint8Array,
    /** Hash of `raw`: the transaction hash clients see. */
    readonly hash: Uint8Array,
    /** Hash of the unsigned field list: what the signature covers. */
    readonly signingHash: Uint8Array,
  ) {}

  #signer: VerifiedSigner | undefined = undefined;

  static {
    setVerifiedSigner = (tx, signer) => {
      tx.#signer = signer;
    };
  }

  get isCreation(): boolean {
    return this.body.to === null;
  }

  /** Sender address once `recoverSender` succeeded on this object, else undefined. */
  get sender(): Uint8Array | undefined {
    return this.#signer?.address;
  }

  /** Signer's 64-byte public key once verified. */
  get senderPublicKey(): Uint8Array | undefined {
    return this.#signer?.publicKey;
  }
}

/**
 * Carry a verified sender over from another object with the same payload (e.g. the pool's copy
 * of a transaction that arrives again inside a block), so its signature is not checked twice.
 */
export function adoptSender(tx: Transaction, verified: Transaction): boolean {
  const [publicKey, address] = [verified.senderPublicKey, verified.sender];
  if (!publicKey || !address || !bytesEqual(tx.raw, verified.raw)) return false;
  setVerifiedSigner(tx, { publicKey, address });
  return true;
}

/**
 * Verify the signature and establish the sender: ECDSA recovers the public key, SM2 verifies
 * against the key in the v slot. Cached on the transaction, so it costs once per object.
 */
export function recoverSender(tx: Transaction, suite: CryptoSuite): Uint8Array {
  if (suite.name !== tx.suiteName) {
    throw new TxDecodeError('InvalidSignature', 'signature', `a ${tx.suiteName} signature cannot be checked by the ${suite.name} suite`);
  }
  if (tx.sender) return tx.sender;
  const publicKey = suite.recoverSigner(tx.signingHash, tx.signature);
  if (!publicKey) {
    throw new TxDecodeError(
      'InvalidSignature',
      'signature',
      suite.name === 'ecdsa' ? 'does not recover to a public key' : 'does not verify against the public key in v',
    );
  }
  const address = suite.address(publicKey);
  setVerifiedSigner(tx, { publicKey, address });
  return address;
}

function bodyItems(body: TxBody, generation: TxGeneration): RlpInput[] {
  const items: RlpInput[] = [
    bigintToBytes(body.nonce),
    bigintToBytes(body.gasPrice),
    bigintToBytes(body.gas),
    bigintToBytes(body.blockLimit),
    body.to ?? new Uint8Array(0),
    bigintToBytes(body.value),
    body.data,
  ];
  if (generation === 'rc2') {
    if (body.chainId === undefined || body.groupId === undefined) {
      throw new TxDecodeError('InvalidFormat', body.chainId === undefined ? 'chainId' : 'groupId', 'rc2 transactions need chainId and groupId');
    }
    items.push(bigintToBytes(body.chainId), bigintToBytes(body.groupId), body.extraData ?? new Uint8Array(0));
  } else if (body.chainId !== undefined || body.groupId !== undefined || body.extraData !== undefined) {
    throw new TxDecodeError('InvalidFormat', 'chainId', 'rc1 transactions have no chainId, groupId or extraData');
  }
  return items;
}

function signatureItems(signature: Signature): RlpInput[] {
  const v = signature.kind === 'ecdsa' ? Uint8Array.of(signature.v + 27) : signature.publicKey;
  return [v, bigintToBytes(signature.r), bigintToBytes(signature.s)];
}

/** RLP of the unsigned field list (what gets hashed and signed). */
export function encodeUnsignedTransaction(body: TxBody, generation: TxGeneration): Uint8Array {
  return rlpEncode(bodyItems(body, generation));
}

export function encodeSignedTransaction(body: TxBody, generation: TxGeneration, signature: Signature): Uint8Array {
  return rlpEncode([...bodyItems(body, generation), ...signatureItems(signature)]);
}

/** Sign a body with a key pair, producing a complete transaction (sender already known). */
export function signTransaction(
  body: TxBody,
  options: TxCodecOptions,
  key: { privateKey: Uint8Array; publicKey: Uint8Array },
): Transaction {
  const { suite, generation } = options;
  const signingHash = suite.hash(encodeUnsignedTransaction(body, generation));
  const signature = suite.sign(signingHash, key);
  const raw = encodeSignedTransaction(body, generation, signature);
  const tx = new Transaction(generation, suite.name, body, signature, raw, suite.hash(raw), signingHash);
  setVerifiedSigner(tx, { publicKey: key.publicKey, address: suite.address(key.publicKey) });
  return tx;
}

/**
 * Strict decode of a signed payload in the given generation and suite. Checks structure, field
 * widths and signature form; does not verify the signature (see recoverSender).
 */
export function decodeTransaction(raw: Uint8Array, options: TxCodecOptions): Transaction {
  let decoded: RlpValue;
  try {
    decoded = rlpDecode(raw, 'transaction');
  } catch (e) {
    throw new TxDecodeError('BadRLP', null, e instanceof CodecError ? e.reason : String(e));
  }
  return transactionFromRlp(decoded, raw, options);
}

/** Decode from hex; a 0x prefix is optional (SPEC says none, SDKs often send one). */
export function decodeTransactionHex(hex: string, options: TxCodecOptions): Transaction {
  let raw: Uint8Array;
  try {
    raw = parseHexBytes(hex, 'rlp', { prefix: 'optional' });
  } catch (e) {
    throw new TxDecodeError('BadRLP', null, e instanceof Error ? e.message : String(e));
  }
  if (raw.length === 0) throw new TxDecodeError('BadRLP', null, 'empty payload');
  return decodeTransaction(raw, options);
}

/** Build a Transaction from an already-decoded RLP item (blocks carry transactions this way). */
export function transactionFromRlp(decoded: RlpValue, raw: Uint8Array, options: TxCodecOptions): Transaction {
  const { suite, generation } = options;
  const names = UNSIGNED_FIELDS[generation];
  if (!Array.isArray(decoded)) {
    throw new TxDecodeError('InvalidFormat', null, 'a transaction must be an RLP list, got a byte string');
  }
  const expected = names.length + 3;
  if (decoded.length !== expected) {
    throw new TxDecodeError(
      'InvalidFormat',
      null,
      `an ${generation} transaction has ${expected} fields (${names.length} + v, r, s), got ${decoded.length}`,
    );
  }
  const fields: Uint8Array[] = decoded.map((item, i) => {
    if (Array.isArray(item)) {
      throw new TxDecodeError('InvalidFormat', [...names, 'v', 'r', 's'][i]!, 'expected a byte string, got a list');
    }
    return item;
  });
  const uint = (i: number): bigint => {
    try {
      return parseRlpUint(fields[i]!, names[i]!);
    } catch (e) {
      if (!(e instanceof CodecError)) throw e;
      throw new TxDecodeError('InvalidFormat', names[i]!, e.reason);
    }
  };
  const toBytes = fields[4]!;
  if (toBytes.length !== 0 && toBytes.length !== 20) {
    throw new TxDecodeError('InvalidFormat', 'to', `an address is 20 bytes (or empty for a deploy), got ${toBytes.length}`);
  }
  const body: TxBody = {
    nonce: uint(0),
    gasPrice: uint(1),
    gas: uint(2),
    blockLimit: uint(3),
    to: toBytes.length === 0 ? null : toBytes,
    value: uint(5),
    data: fields[6]!,
    ...(generation === 'rc2' ? { chainId: uint(7), groupId: uint(8), extraData: fields[9]! } : {}),
  };
  const [v, r, s] = fields.slice(names.length) as [Uint8Array, Uint8Array, Uint8Array];
  const signature = decodeSignature(v, r, s, suite);
  return new Transaction(generation, suite.name, body, signature, raw, suite.hash(raw), signingHashOfRaw(raw, generation, suite));
}

/** The hash of the unsigned field list, which is the signed payload's first items, byte for byte. */
function signingHashOfRaw(raw: Uint8Array, generation: TxGeneration, suite: CryptoSuite): Uint8Array {
  const start = rlpListPayload(raw).start;
  let unsignedEnd = start;
  for (let i = 0; i < UNSIGNED_FIELDS[generation].length; i++) unsignedEnd = rlpItemEnd(raw, unsignedEnd);
  return suite.hash(rlpListOfEncodedRange(raw, start, unsignedEnd));
}

/**
 * The signed payload of a body and signature, its hash and its signing hash: what
 * decodeTransaction(encodeSignedTransaction(…)) would give, without decoding it again. Undefined
 * where that decode would refuse the payload (a quantity wider than 256 bits, or a signature out
 * of the suite's form), so that a caller reports it as decodeTransaction does.
 */
export function signedTransactionDigests(
  body: TxBody,
  generation: TxGeneration,
  signature: Signature,
  suite: CryptoSuite,
): { raw: Uint8Array; hash: Uint8Array; signingHash: Uint8Array } | undefined {
  const quantities = [body.nonce, body.gasPrice, body.gas, body.blockLimit, body.value, body.chainId ?? 0n, body.groupId ?? 0n];
  if (quantities.some((q) => q > UINT256_MAX) || (body.to !== null && body.to.length !== 20)) return undefined;
  if (signature.kind !== suite.name || suite.signatureFormError(signature)) return undefined;
  const raw = encodeSignedTransaction(body, generation, signature);
  return { raw, hash: suite.hash(raw), signingHash: signingHashOfRaw(raw, generation, suite) };
}

function decodeSignature(v: Uint8Array, r: Uint8Array, s: Uint8Array, suite: CryptoSuite): Signature {
  const num = (bytes: Uint8Array, field: 'r' | 's'): bigint => {
    if (bytes.length > 32) throw new TxDecodeError('InvalidSignature', field, `wider than 32 bytes (${bytes.length})`);
    return bytesToBigint(bytes);
  };
  let signature: Signature;
  if (suite.name === 'ecdsa') {
    if (v.length !== 1 || (v[0] !== 27 && v[0] !== 28)) {
      throw new TxDecodeError('InvalidSignature', 'v', `must be 27 or 28, got ${v.length === 1 ? v[0] : toHex(v)}`);
    }
    signature = { kind: 'ecdsa', v: v[0] - 27, r: num(r, 'r'), s: num(s, 's') };
  } else {
    if (v.length !== 64) {
      throw new TxDecodeError('InvalidSignature', 'v', `an SM2 transaction carries the 64-byte public key in v, got ${v.length} bytes`);
    }
    signature = { kind: 'sm', publicKey: v, r: num(r, 'r'), s: num(s, 's') };
  }
  const problem = suite.signatureFormError(signature);
  if (problem) throw new TxDecodeError('InvalidSignature', problem.field, problem.reason);
  return signature;
}

/** JSON view of a transaction for tools (`twinchain tx decode`): hex quantities, FISCO field names. */
export function transactionToJson(tx: Transaction): Record<string, unknown> {
  const q = (n: bigint): string => `0x${n.toString(16)}`;
  const { body, signature } = tx;
  return {
    generation: tx.generation,
    suite: tx.suiteName,
    hash: toHex(tx.hash),
    signingHash: toHex(tx.signingHash),
    from: tx.sender ? toHex(tx.sender) : null,
    nonce: q(body.nonce),
    gasPrice: q(body.gasPrice),
    gas: q(body.gas),
    blockLimit: q(body.blockLimit),
    to: body.to ? toHex(body.to) : null,
    value: q(body.value),
    input: toHex(body.data),
    ...(tx.generation === 'rc2'
      ? { chainId: q(body.chainId!), groupId: q(body.groupId!), extraData: toHex(body.extraData!) }
      : {}),
    signature:
      signature.kind === 'ecdsa'
        ? { r: toHex(bigintToFixedBytes(signature.r, 32)), s: toHex(bigintToFixedBytes(signature.s, 32)), v: q(BigInt(signature.v)) }
        : { r: toHex(bigintToFixedBytes(signature.r, 32)), s: toHex(bigintToFixedBytes(signature.s, 32)), publicKey: toHex(signature.publicKey) },
  };
}

/**
 * Decoded transactions shared by simulated nodes, by payload: decoding is a pure function of the
 * bytes (and suite and generation) and a Transaction is immutable apart from its verified sender,
 * itself a pure function of the bytes. Simulation only (see ExecutionMemo).
 */
export class TransactionCache {
  private readonly byPayload = new Map<string, Transaction>();
  hits = 0;
  misses = 0;

  constructor(private readonly capacity = 50_000) {}

  /** decodeTransaction(raw, options), shared. */
  decode(raw: Uint8Array, options: TxCodecOptions): Transaction {
    const key = `${options.suite.name}/${options.generation}/${Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('latin1')}`;
    const known = this.byPayload.get(key);
    if (known) {
      this.hits++;
      return known;
    }
    this.misses++;
    const tx = decodeTransaction(raw, options);
    this.byPayload.set(key, tx);
    if (this.byPayload.size > this.capacity) this.byPayload.delete(this.byPayload.keys().next().value!);
    return tx;
  }
}
