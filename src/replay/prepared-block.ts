// A block the workers prepared (block-prep.ts), on the replay's own thread: its Transactions
// built from the packed fields without any JSON, slice by slice while the first ones execute (as
// their recorded senders until the workers' recovered senders are compared), and each receipt
// checked by comparing its encoding with the recorded receipt's, which the workers encoded. Where
// a comparison fails, the block's JSON is parsed after all and the field-by-field checks of
// block-checks.ts say what differs, in the same words as for a block replayed from its JSON.
import { encodeReceipt, Transaction, type TxBody } from '../chain/index.js';
import type { ExecutedBlock } from '../exec/index.js';
import { bytesEqual, toHex } from '../codec/index.js';
import { checkTxHash, checkTxSender, compareReceipt, transactionFor, type BlockContext } from './block-checks.js';
import { TX_FIELDS, TX_QUANTITIES, TxField, type PreparedRange } from './block-prep.js';
import type { BlockCrypto } from './crypto-ahead.js';
import { Stop, type Tally } from './divergence.js';
import { parseReceipt, parseTransaction, transactionObjects, type RecordedHeader } from './recorded-json.js';
import type { JsonObject, RecordedBlock } from './recording.js';

const EMPTY = new Uint8Array(0);

/** The recorded block, as block-checks.ts's slow path needs it (parsed on first use). */
export type LazyBlock = () => RecordedBlock;

export interface PreparedBlock {
  readonly header: RecordedHeader;
  readonly transactions: Transaction[];
  /** The recorded senders, by index. */
  readonly from: Uint8Array[];
}

/** Prepared blocks since the process started whose first slice came from the head of their line (block-prep.ts's headSlice). */
export const preparedStarts = { fromHead: 0 };

/**
 * A block built from the slices the workers prepare, in order: its Transactions registered with
 * the context's suite as their recorded senders. The transactions list grows as slices are added
 * (the executor may be running the first ones).
 */
export class PreparedBlockBuilder implements PreparedBlock {
  readonly transactions: Transaction[] = [];
  readonly from: Uint8Array[] = [];

  private constructor(
    readonly header: RecordedHeader,
    readonly count: number,
    private readonly ctx: BlockContext,
  ) {}

  /** A block started from its first slice; undefined where that slice cannot start one. */
  static start(first: PreparedRange, ctx: BlockContext): PreparedBlockBuilder | undefined {
    if (!first.header || first.from !== 0) return undefined;
    ctx.suite.clear();
    const builder = new PreparedBlockBuilder(first.header, first.count, ctx);
    if (!builder.add(first)) return undefined;
    if (first.head) preparedStarts.fromHead++;
    return builder;
  }

  /** Every transaction of the block is in. */
  get complete(): boolean {
    return this.transactions.length === this.count;
  }

  /** Adds the next slice; false where it is not the next slice of this block or must be checked from the JSON (slow). */
  add(slice: PreparedRange): boolean {
    if (slice.slow !== undefined || slice.count !== this.count || slice.from !== this.transactions.length || slice.to > this.count) return false;
    const { ctx } = this;
    const rc2 = ctx.version.txGeneration === 'rc2';
    const { bytes, offsets, quantities: q } = slice;
    for (let k = 0; k < slice.to - slice.from; k++) {
      const base = k * TX_FIELDS;
      // an empty field (no extraData, no payload for merkle16) is one shared empty array: fewer objects to keep per transaction
      const field = (f: number) => (offsets[base + f] === offsets[base + f + 1] ? EMPTY : bytes.subarray(offsets[base + f]!, offsets[base + f + 1]!));
      const at = k * TX_QUANTITIES;
      const to = field(TxField.To);
      const body: TxBody = rc2
        ? { nonce: q[at]!, gasPrice: q[at + 1]!, gas: q[at + 2]!, blockLimit: q[at + 3]!, to: to.length === 0 ? null : to, value: q[at + 4]!, data: field(TxField.Data), chainId: q[at + 5]!, groupId: q[at + 6]!, extraData: field(TxField.ExtraData) }
        : { nonce: q[at]!, gasPrice: q[at + 1]!, gas: q[at + 2]!, blockLimit: q[at + 3]!, to: to.length === 0 ? null : to, value: q[at + 4]!, data: field(TxField.Data) };
      const hash = field(TxField.Hash);
      const sender = field(TxField.From);
      // executed as the recorded sender; verifyPreparedSenders compares it with the recovered one
      const signature = ctx.suite.register(hash, sender);
      this.transactions.push(new Transaction(ctx.version.txGeneration, ctx.realSuite.name, body, signature, field(TxField.Raw), hash, hash));
      this.from.push(sender);
    }
    return true;
  }
}

/** Every transaction's hash and sender, as the workers computed them from its recorded fields, against the recorded ones. */
export function verifyPreparedSenders(block: PreparedBlock, crypto: BlockCrypto, number: number, ctx: BlockContext, lazy: LazyBlock): void {
  const { tally } = ctx;
  // the checks of equal transactions, tallied together (before any check that may stop the replay)
  let equal = 0;
  const tallyEqual = () => {
    if (equal === 0) return;
    tally.pass('tx hash', equal);
    tally.pass('tx sender (signature)', equal);
    equal = 0;
  };
  block.transactions.forEach((tx, i) => {
    const hash = crypto.hashes.subarray(32 * i, 32 * i + 32);
    const sender = crypto.senders.subarray(20 * i, 20 * i + 20);
    if (crypto.computed[i] && bytesEqual(hash, tx.hash) && bytesEqual(sender, block.from[i]!)) {
      equal++;
      return;
    }
    tallyEqual();
    // a difference, or a transaction the workers could not decode: said as for a block replayed from its JSON
    const t = recordedTransaction(lazy, number, i, ctx);
    if (!crypto.computed[i]) {
      transactionFor(t, i, number, ctx);
      return;
    }
    checkTxHash(t, hash, i, number, ctx);
    checkTxSender(t, sender, i, number, ctx);
  });
  tallyEqual();
}

/** Receipts of prepared blocks since the process started: found equal by the executor (asExpected), and compared here. */
export const receiptComparisons = { asExpected: 0, compared: 0 };

/**
 * Each re-executed receipt against the recorded one: by their encodings where the workers encoded
 * the recorded one, else (or where they differ) field by field from the block's JSON, which says
 * what differs. A receipt the executor already found to encode as the recorded one it was given
 * (`asExpected`, from these same workers' encodings) is equal without comparing again.
 */
export function comparePreparedReceipts(executed: ExecutedBlock, crypto: BlockCrypto, number: number, ctx: BlockContext, lazy: LazyBlock): void {
  const { receiptEncodings: encodings, asExpected } = executed;
  const withRemainGas = ctx.version.receiptHasRemainGas;
  // the checks of equal receipts, tallied together (before any comparison that may stop the replay)
  const equal = { receipts: 0, logChecks: 0 };
  const tallyEqual = () => {
    passReceiptChecks(ctx.tally, equal.receipts, equal.logChecks, withRemainGas);
    equal.receipts = equal.logChecks = 0;
  };
  executed.block.receipts.forEach((receipt, i) => {
    if (asExpected?.[i] === 1) {
      // equal encodings: the same logs
      receiptComparisons.asExpected++;
      equal.receipts++;
      equal.logChecks += Math.max(1, 3 * receipt.logs.length);
      return;
    }
    receiptComparisons.compared++;
    const recorded = crypto.receipt(i);
    if (recorded && (receipt.remainGas !== undefined) === withRemainGas && bytesEqual(encodings?.[i] ?? encodeReceipt(receipt, withRemainGas), recorded.encoding)) {
      equal.receipts++;
      equal.logChecks += Math.max(1, 3 * recorded.logs);
      return;
    }
    tallyEqual();
    const t = recordedTransaction(lazy, number, i, ctx);
    compareReceipt(parseReceipt(lazy().receipts[i]! as JsonObject, { block: number, index: i }), receipt, t, i, number, ctx);
    if (!recorded) return;
    // every field compared equal, yet the encodings differ: say so rather than pass it
    throw new Stop({
      block: number,
      index: i,
      field: 'receipt',
      recorded: toHex(recorded.encoding),
      replayed: toHex(encodeReceipt(receipt, withRemainGas)),
      detail: 'the receipt encodings differ though every compared field is equal',
    });
  });
  tallyEqual();
}

/**
 * The checks compareReceipt passes for `receipts` receipts equal to the recorded ones (later
 * variant, every field recorded); `logChecks`: its checks of their logs, at least one per receipt
 * and three per log (address, topics, data).
 */
function passReceiptChecks(tally: Tally, receipts: number, logChecks: number, remainGas: boolean): void {
  if (receipts === 0) return;
  tally.pass('receipt transactionHash', receipts);
  tally.pass('receipt status', receipts);
  tally.pass('receipt output', receipts);
  tally.pass('receipt logs', logChecks);
  tally.pass('receipt gasUsed', receipts);
  tally.pass('receipt contractAddress', receipts);
  if (remainGas) tally.pass('receipt remainGas', receipts);
  tally.pass('receipt logsBloom', receipts);
  tally.pass('receipt root', receipts);
}

/** The recorded transaction `i` of the block, parsed from its JSON (the block's list read once). */
function recordedTransaction(lazy: LazyBlock, number: number, i: number, ctx: BlockContext) {
  const recorded = lazy();
  let objects = transactionLists.get(recorded);
  if (!objects) transactionLists.set(recorded, (objects = transactionObjects(recorded.block, { block: number })));
  return parseTransaction(objects[i]!, { block: number, index: i }, ctx.realSuite, ctx.version.txGeneration);
}

const transactionLists = new WeakMap<RecordedBlock, JsonObject[]>();
