// The per-block checks of a replay: each transaction's hash and sender (re-encoded and recovered
// here, or compared with what the crypto workers computed for a block executed provisionally),
// every receipt field, and the block's signatures against the sealers in force.
import { checkSignatureList, decodeTransaction, encodeSignedTransaction, recoverSender, Transaction, TxDecodeError, txStatusName, type GroupGenesis, type ProtocolVersion, type Receipt } from '../chain/index.js';
import { bytesEqual, toQuantity } from '../codec/index.js';
import type { CryptoSuite } from '../crypto/index.js';
import type { BlockExecutor } from '../exec/index.js';
import type { MemoryStore } from '../storage/index.js';
import { describeCall } from './call-decoder.js';
import type { BlockCrypto, RecordedReceiptEncoding } from './crypto-ahead.js';
import { blockSignatureKey } from './block-prep.js';
import { expectSame, hex, Stop, type Divergence, type Tally } from './divergence.js';
import type { RecordedSenderSuite } from './recorded-sender-suite.js';
import type { LaterVariantField, RecordedFields, RecordedHeader, RecordedReceipt, RecordedTransaction } from './recorded-json.js';

const ZERO_ADDRESS = new Uint8Array(20);
const NO_BYTES = new Uint8Array(0);

/** What the checks of one block need. */
export interface BlockContext {
  readonly executor: BlockExecutor;
  readonly store: MemoryStore;
  readonly suite: RecordedSenderSuite;
  readonly realSuite: CryptoSuite;
  readonly version: ProtocolVersion;
  readonly variant: 'later' | 'earlier';
  /** The fields the recording must carry (its variant's, less those allowed to be missing). */
  readonly fields: RecordedFields;
  readonly genesis: GroupGenesis;
  readonly tally: Tally;
  readonly previousHash: Uint8Array | undefined;
  /** The block's transaction hashes, senders, block signatures and receipt encodings, computed ahead by the workers where they got to it (taken once: later calls give the same). */
  readonly crypto: () => Promise<BlockCrypto>;
  /** Whether crypto() would answer without waiting for a worker (and without computing anything here), once the answers already posted are in. */
  readonly cryptoReady: () => Promise<boolean>;
  /** The recorded receipts the workers have encoded so far, by index (without waiting for the rest). */
  readonly receiptsSoFar: () => (index: number) => RecordedReceiptEncoding | undefined;
  /** Make the checks the block before left to make (see replayer.ts's executeAndCheck); they may stop the replay. */
  readonly settle: () => Promise<void>;
  readonly clock: () => number;
  /** Milliseconds spent in execute and commit, over the whole replay. */
  readonly timing: { executionMs: number };
}

/**
 * Build the Transaction to execute: re-encoded and verified when every signed field is there
 * (with the sender `known` recovered, when it recovered it from this very payload), else as the
 * recorded sender's.
 */
export function transactionFor(t: RecordedTransaction, i: number, number: number, ctx: BlockContext, known?: BlockCrypto): Transaction {
  const { tally, realSuite, version, suite } = ctx;
  const call = () => describeCall(t.to, t.input, realSuite);
  if (!t.body || !t.signature) {
    // a later-variant transaction always carries its signed fields: refused unless allowed to miss
    const absent = t.missing.map((field) => ctx.fields.absent(field as LaterVariantField, { block: number, index: i }));
    const reason =
      ctx.variant === 'earlier'
        ? `the earlier interface variant prints no ${t.missing.join(', ')}: the ${version.txGeneration} transaction cannot be re-encoded; executed as the recorded "from"`
        : `${absent.join('; ')}: the transaction cannot be re-encoded; executed as the recorded "from"`;
    tally.skip('tx hash', reason, number);
    tally.skip('tx sender (signature)', reason, number);
    const signature = suite.register(t.hash, t.from);
    const body = { nonce: 0n, gasPrice: 0n, gas: 0n, blockLimit: 0n, to: t.to, value: 0n, data: t.input };
    return new Transaction(version.txGeneration, realSuite.name, body, signature, new Uint8Array(0), t.hash, t.hash);
  }
  let tx: Transaction;
  try {
    tx = decodeTransaction(encodeSignedTransaction(t.body, version.txGeneration, t.signature), { suite: realSuite, generation: version.txGeneration });
  } catch (e) {
    if (!(e instanceof TxDecodeError)) throw e;
    throw new Stop({ block: number, index: i, field: `tx.${e.field ?? 'signature'}`, recorded: 'a well-formed transaction', replayed: `rejected: ${e.message}`, call: call() });
  }
  checkTxHash(t, tx.hash, i, number, ctx);
  // the hash covers every signed field and the signature: the workers' sender is this payload's
  if (known?.computed[i] && bytesEqual(known.hashes.subarray(32 * i, 32 * i + 32), tx.hash)) suite.register(tx.signingHash, known.senders.slice(20 * i, 20 * i + 20));
  let sender: Uint8Array;
  try {
    sender = recoverSender(tx, suite);
  } catch (e) {
    throw new Stop({ block: number, index: i, field: 'tx.signature', recorded: hex(t.from), replayed: `no sender: ${(e as Error).message}`, call: call() });
  }
  checkTxSender(t, sender, i, number, ctx);
  return tx;
}

export function checkTxHash(t: RecordedTransaction, hash: Uint8Array, i: number, number: number, ctx: BlockContext): void {
  if (bytesEqual(t.hash, hash)) ctx.tally.pass('tx hash');
  else {
    const call = () => describeCall(t.to, t.input, ctx.realSuite);
    expectSame(ctx.tally, 'tx hash', hex(t.hash), hex(hash), { block: number, index: i, field: 'tx.hash', call, detail: 'the hash of the transaction re-encoded from its recorded fields' });
  }
}

export function checkTxSender(t: RecordedTransaction, sender: Uint8Array, i: number, number: number, ctx: BlockContext): void {
  if (bytesEqual(t.from, sender)) ctx.tally.pass('tx sender (signature)');
  else {
    const call = () => describeCall(t.to, t.input, ctx.realSuite);
    expectSame(ctx.tally, 'tx sender (signature)', hex(t.from), hex(sender), { block: number, index: i, field: 'tx.from', call, detail: 'the sender the signature recovers to' });
  }
}

/**
 * The Transaction to execute before its signature is checked: as its recorded sender, with its
 * recorded hash (which is all the merkle16 transactionsRoot reads). verifyProvisional compares
 * both with what the signed fields give before anything of the block is accepted.
 */
export function provisionalTransaction(t: RecordedTransaction, i: number, number: number, ctx: BlockContext): Transaction {
  if (!t.body || !t.signature) return transactionFor(t, i, number, ctx);
  const signature = ctx.suite.register(t.hash, t.from);
  return new Transaction(ctx.version.txGeneration, ctx.realSuite.name, t.body, signature, NO_BYTES, t.hash, t.hash);
}

/** Each provisionally executed transaction's hash and sender, as the workers (or this thread) computed them. */
export function verifyProvisional(txs: readonly RecordedTransaction[], crypto: BlockCrypto, number: number, ctx: BlockContext): void {
  txs.forEach((t, i) => {
    if (!t.body || !t.signature) return;
    if (!crypto.computed[i]) {
      // not computed (a malformed transaction, or no signer): this thread finds out and says what is wrong
      transactionFor(t, i, number, ctx);
      return;
    }
    checkTxHash(t, crypto.hashes.subarray(32 * i, 32 * i + 32), i, number, ctx);
    checkTxSender(t, crypto.senders.subarray(20 * i, 20 * i + 20), i, number, ctx);
  });
}

function logsText(logs: readonly { address: string; topics: readonly string[]; data: string }[]): string {
  return JSON.stringify(logs);
}

/** Every compared field of one receipt; the divergence's details are built only on a difference. */
export function compareReceipt(r: RecordedReceipt, mine: Receipt, t: RecordedTransaction, i: number, number: number, ctx: BlockContext): void {
  const { tally, version, variant } = ctx;
  const stop = (d: Omit<Divergence, 'block' | 'index' | 'call'>) => new Stop({ block: number, index: i, call: describeCall(t.to, t.input, ctx.realSuite), ...d });
  const same = (check: string, field: string, recorded: string, replayed: string, detail?: string) => {
    if (recorded !== replayed) throw stop({ field, recorded, replayed, ...(detail ? { detail } : {}) });
    tally.pass(check);
  };
  same('receipt transactionHash', 'receipt.transactionHash', hex(t.hash), r.transactionHash, 'the receipt belongs to another transaction');
  if (r.status === BigInt(mine.status)) tally.pass('receipt status');
  else {
    const status = (n: bigint | number) => `${toQuantity(BigInt(n))} (${txStatusName(Number(n)) ?? 'unknown'})`;
    same('receipt status', 'receipt.status', status(r.status), status(mine.status));
  }
  same('receipt output', 'receipt.output', r.output, hex(mine.output));
  if (r.logs.length !== mine.logs.length) {
    const myLogs = mine.logs.map((l) => ({ address: hex(l.address), topics: l.topics.map(hex), data: hex(l.data) }));
    throw stop({ field: 'receipt.logs', recorded: `${r.logs.length} logs: ${logsText(r.logs)}`, replayed: `${myLogs.length} logs: ${logsText(myLogs)}` });
  }
  r.logs.forEach((log, k) => {
    const my = mine.logs[k]!;
    same('receipt logs', `receipt.logs[${k}].address`, log.address, hex(my.address));
    same('receipt logs', `receipt.logs[${k}].topics`, JSON.stringify(log.topics), JSON.stringify(my.topics.map(hex)));
    same('receipt logs', `receipt.logs[${k}].data`, log.data, hex(my.data));
  });
  if (r.logs.length === 0) tally.pass('receipt logs');
  if (r.gasUsed === mine.gasUsed) tally.pass('receipt gasUsed');
  else {
    const cumulative = !version.receiptHasRemainGas;
    same('receipt gasUsed', 'receipt.gasUsed', toQuantity(r.gasUsed), toQuantity(mine.gasUsed), cumulative ? `before 2.9.0 a receipt's gasUsed is the block's running total (supported version ${version.text})` : undefined);
  }
  if (variant === 'later') {
    same('receipt contractAddress', 'receipt.contractAddress', r.contractAddress, hex(mine.contractAddress));
  } else {
    tally.skip('receipt contractAddress', 'the earlier interface variant reports the zero address for every receipt', number);
    if (r.contractAddress !== hex(ZERO_ADDRESS)) {
      throw stop({ field: 'receipt.contractAddress', recorded: r.contractAddress, replayed: `${hex(ZERO_ADDRESS)} (the earlier variant's only value)` });
    }
  }
  const place = { block: number, index: i, what: 'receipt' };
  if (mine.remainGas !== undefined) {
    if (r.remainGas === undefined) tally.skip('receipt remainGas', ctx.fields.absent('remainGas', place), number);
    else if (r.remainGas === mine.remainGas) tally.pass('receipt remainGas');
    else same('receipt remainGas', 'receipt.remainGas', toQuantity(r.remainGas), toQuantity(mine.remainGas));
  } else if (r.remainGas !== undefined) {
    throw stop({ field: 'receipt.remainGas', recorded: toQuantity(r.remainGas), replayed: `none (receipts have no remainGas before 2.9.0; supported version ${version.text})` });
  }
  if (r.logsBloom !== undefined) same('receipt logsBloom', 'receipt.logsBloom', r.logsBloom, hex(mine.logsBloom));
  else tally.skip('receipt logsBloom', ctx.fields.absent('logsBloom', place), number);
  if (r.root !== undefined) same('receipt root', 'receipt.root', r.root, hex(mine.stateRoot));
  else tally.skip('receipt root', variant === 'earlier' ? 'the earlier interface variant prints no receipt root' : ctx.fields.absent('root', place), number);
}

export function checkSignatures(header: RecordedHeader, hash: Uint8Array, inForce: readonly string[], number: number, ctx: BlockContext, crypto: BlockCrypto): void {
  const { tally, realSuite, genesis } = ctx;
  if (!header.signatureList) {
    const why = ctx.fields.absent('signatureList', { block: number });
    tally.skip('signatures', why, number);
    tally.skip('signature quorum', why, number);
    return;
  }
  const sealers = inForce.map((id) => Uint8Array.from(Buffer.from(id, 'hex')));
  const known = crypto.signatures;
  // the workers verified against the recorded hash and sealer list, which equal these when it gets here
  const verifier = (digest: Uint8Array, signature: Uint8Array, nodeId: Uint8Array): boolean =>
    (known.size > 0 ? known.get(blockSignatureKey(digest, signature, nodeId)) : undefined) ?? realSuite.verify(digest, realSuite.signatureFromBytes(signature), nodeId);
  const valid = new Set<number>();
  header.signatureList.forEach((entry, k) => {
    const check = checkSignatureList(hash, [entry], sealers, realSuite, verifier);
    if (check.invalid.length > 0) {
      throw new Stop({
        block: number,
        index: k,
        field: `signatureList[${k}]`,
        recorded: `${hex(entry.signature)} by sealer ${entry.index}`,
        replayed: `does not verify: ${check.invalid[0]!.reason} (block hash ${hex(hash)})`,
      });
    }
    if (valid.has(entry.index)) {
      throw new Stop({ block: number, index: k, field: `signatureList[${k}]`, recorded: `a second signature of sealer ${entry.index}`, replayed: 'one signature per sealer' });
    }
    valid.add(entry.index);
    tally.pass('signatures');
  });
  const n = inForce.length;
  if (genesis.consensusType === 'rpbft') {
    tally.skip('signature quorum', 'rPBFT signs with the epoch\'s sealers, which replay does not track', number);
    return;
  }
  const need = genesis.consensusType === 'raft' ? Math.floor(n / 2) + 1 : n - Math.floor((n - 1) / 3);
  const rule = genesis.consensusType === 'raft' ? 'a majority' : 'n − f, f = ⌊(n−1)/3⌋';
  if (valid.size < need) {
    throw new Stop({
      block: number,
      field: 'signatureList',
      recorded: `${valid.size} valid signature${valid.size === 1 ? '' : 's'}`,
      replayed: `${need} needed: ${n} sealers in force (${rule})`,
    });
  }
  tally.pass('signature quorum');
}
