// Re-execute a recording (src/replay/recording.ts) on a fresh node stack and verify it block by
// block: the genesis rebuilt from block 0's mark (genesis-rebuild.ts), then per block every
// transaction's hash and sender, the re-executed receipts, both roots, the state root, the block
// hash and the quorum of sealer signatures (block-checks.ts); each block is committed before the
// next. The first difference stops the replay with block, transaction index, field, recorded and
// re-executed values (divergence.ts). A check the recording gives no data for is listed as
// skipped, with the reason; nothing is assumed.
import { blockHash, computeTransactionsRoot, genesisHeader, ProtocolVersion, type Transaction } from '../chain/index.js';
import { bytesEqual, toHexNoPrefix, toQuantity } from '../codec/index.js';
import { getSuite } from '../crypto/index.js';
import { BlockExecutor, ExecutionError, type ExecutedBlock } from '../exec/index.js';
import { openGroupState } from '../ledger/index.js';
import { MemoryStore } from '../storage/index.js';
import { checkSignatures, compareReceipt, provisionalTransaction, transactionFor, verifyProvisional, type BlockContext } from './block-checks.js';
import { CryptoAhead, type BlockCrypto } from './crypto-ahead.js';
import { expectSame, hex, Stop, Tally, type Divergence, type SkippedCheck } from './divergence.js';
import { genesisDifference, rebuildGenesis } from './genesis-rebuild.js';
import { RecordedSenderSuite } from './recorded-sender-suite.js';
import { comparePreparedReceipts, PreparedBlockBuilder, verifyPreparedSenders, type LazyBlock } from './prepared-block.js';
import type { PreparedRange } from './block-prep.js';
import { parseHeader, parseReceipt, parseTransaction, RecordedFields, ReplayInputError, transactionObjects, type LaterVariantField, type RecordedHeader } from './recorded-json.js';
import { readRecordingHeader, RecordingReader, unsupportedVersion, type JsonObject, type RecordedBlock } from './recording.js';
import { readerThread, ThreadFeed, WorkerFeed, type BlockFeed } from './block-feed.js';

export { rebuildGenesis } from './genesis-rebuild.js';
export type { Divergence, SkippedCheck } from './divergence.js';

export interface ReplayReport {
  readonly file: string;
  readonly source: string;
  readonly supportedVersion: string;
  readonly suite: 'ecdsa' | 'sm';
  readonly stateType: 'storage' | 'mpt';
  readonly interfaceVariant: 'later' | 'earlier';
  readonly verdict: 'pass' | 'divergence';
  /** Blocks that re-executed to the recorded result (and were committed), first to last. */
  readonly blocks: number;
  readonly firstBlock: number;
  readonly lastBlock: number;
  readonly transactions: number;
  readonly seconds: number;
  /** Of `seconds`, the time spent executing and committing blocks: what an executor without any checks would spend. */
  readonly executionSeconds: number;
  /** How many times each check passed. */
  readonly checks: Record<string, number>;
  readonly skipped: readonly SkippedCheck[];
  /** The later-variant fields allowed to be missing (--allow-missing); their skipped checks say so. */
  readonly allowMissing: readonly LaterVariantField[];
  readonly divergence?: Divergence;
}

export interface ReplayProgress {
  readonly block: number;
  readonly blocks: number;
  readonly transactions: number;
  readonly elapsedMs: number;
}

export interface ReplayOptions {
  /** Stop after this block. */
  readonly to?: number;
  readonly onProgress?: (progress: ReplayProgress) => void;
  /** Milliseconds, for the report's timing (default performance.now). */
  readonly clock?: () => number;
  /**
   * Hash the transactions, recover their senders and verify the block signatures of the blocks
   * read ahead on other cores (worker threads shared by the process; crypto-ahead.ts). Default true.
   */
  readonly signatureWorker?: boolean;
  /**
   * Fields of the later interface variant the recording may lack (`replay --allow-missing`):
   * their checks are then listed as skipped. Any other missing one refuses the recording.
   */
  readonly allowMissing?: readonly LaterVariantField[];
}

/** Blocks read (and handed to the crypto workers) ahead of the one being replayed. */
const READ_AHEAD = 32;
/** …and at most this many bytes of block lines (big blocks: a few ahead keep the workers busy; more only grow the heap). */
const READ_AHEAD_BYTES = 4_000_000;


/** Replays one recording. Throws RecordingError / ReplayInputError for a file it cannot replay. */
export async function replayRecording(file: string, options: ReplayOptions = {}): Promise<ReplayReport> {
  const clock = options.clock ?? (() => performance.now());
  const started = clock();
  const timing = { executionMs: 0 };
  const workers = options.signatureWorker ?? true;
  // where worker threads run, the reader thread reads the blocks: this thread needs only the header
  let reader = workers ? undefined : await RecordingReader.open(file);
  const header = reader?.header ?? (await readRecordingHeader(file));
  if (header.from !== 1) {
    reader?.close();
    throw new ReplayInputError(
      `${file}: the recording starts at block ${header.from}; replay re-executes from the genesis and cannot rebuild the state of blocks 1–${header.from - 1}, which are not in it. Record the chain from block 1 (record --from 1).`,
    );
  }
  if (options.to !== undefined && options.to < header.from) {
    reader?.close();
    throw new ReplayInputError(`--to ${options.to} is before the recording's first block ${header.from}`);
  }
  let version: ProtocolVersion;
  try {
    version = ProtocolVersion.parse(header.supportedVersion);
  } catch (e) {
    reader?.close();
    throw new ReplayInputError(`${file}:1: ${unsupportedVersion(header.supportedVersion, e)}`);
  }
  const realSuite = getSuite(header.suite);
  // started first: the workers boot (the crypto modules) and the first blocks are read while the genesis and the state are set up
  const [ahead, thread] = await Promise.all([CryptoAhead.start(realSuite, version, workers), workers ? readerThread() : undefined]);
  const limits = { lines: READ_AHEAD, bytes: READ_AHEAD_BYTES };
  // read on the reader thread where it runs, else on this thread
  if (!thread) {
    try {
      reader ??= await RecordingReader.open(file);
    } catch (e) {
      ahead.close();
      throw e;
    }
  }
  const feed: BlockFeed = thread ? new WorkerFeed(thread, file, header.from, options.to, ahead, limits) : new ThreadFeed(reader!, options.to, ahead, limits);
  const stopReading = async () => {
    ahead.close();
    await feed.close();
    reader?.close();
  };
  const suite = new RecordedSenderSuite(realSuite);
  const tally = new Tally();
  const variant = header.interfaceVariant;
  const fields = new RecordedFields(variant, version, options.allowMissing ?? []);

  let rebuilt;
  try {
    rebuilt = rebuildGenesis(header, version);
  } catch (e) {
    await stopReading();
    throw e;
  }
  const { genesis } = rebuilt;
  const stateType = genesis.stateType ?? 'storage';
  let blocks = 0;
  let transactions = 0;
  let lastBlock = 0;
  const report = (divergence?: Divergence): ReplayReport => ({
    file,
    source: header.source,
    supportedVersion: header.supportedVersion,
    suite: header.suite,
    stateType,
    interfaceVariant: variant,
    verdict: divergence ? 'divergence' : 'pass',
    blocks,
    firstBlock: header.from,
    lastBlock,
    transactions,
    seconds: Math.round(clock() - started) / 1000,
    executionSeconds: Math.round(timing.executionMs) / 1000,
    checks: tally.passed,
    skipped: tally.skipped,
    allowMissing: fields.allowMissing,
    ...(divergence ? { divergence } : {}),
  });

  const genesisHeaderRebuilt = genesisHeader(genesis, version);
  const genesisHash = blockHash(genesisHeaderRebuilt, realSuite);
  let previousHash: Uint8Array | undefined;
  try {
    const diff = genesisDifference(genesisHeaderRebuilt, rebuilt.recorded);
    if (diff) {
      throw new Stop({ block: 0, ...diff, field: `genesis.${diff.field}`, detail: `the genesis cannot be rebuilt from block 0 (mark "${rebuilt.mark}" at ${version.text})` });
    }
    if (rebuilt.recorded.hash) {
      expectSame(tally, 'genesis hash', hex(rebuilt.recorded.hash), hex(genesisHash), {
        block: 0,
        field: 'genesis.hash',
        detail: `every field of block 0 matches, yet its hash does not: the ${realSuite.name} suite or the version ${version.text} does not fit the recording`,
      });
      previousHash = rebuilt.recorded.hash;
    } else {
      tally.skip('genesis hash', 'the recording\'s block 0 has no hash (a reconstructed block 0); block 1\'s parentHash is not checked either', 0);
    }
  } catch (e) {
    await stopReading();
    if (e instanceof Stop) return report(e.divergence);
    throw e;
  }

  if (version.atLeast('2.9.0') && genesis.sealers.length > 1) {
    tally.skip(
      'genesis sealer order',
      "from 2.9.0 the genesis mark lists the sealers sorted; the genesis file's order (that of the genesis rows of _sys_consensus_) is not recorded, so replay writes them sorted (another order shows where a genesis sealer's row changes, or on the trie state at block 1)",
      0,
    );
  }
  const store = new MemoryStore();
  let executor: BlockExecutor;
  try {
    executor = new BlockExecutor(await openGroupState(genesis, store, suite, version), suite, version);
    await executor.applyGenesis(genesis, (writes) => store.batch(writes));
  } catch (e) {
    await stopReading();
    throw e;
  }

  // a block whose checks wait for the next one to execute (see executeAndCheck); it counts once they pass
  let unsettled: { number: number; transactions: number; check: () => Promise<void> } | undefined;
  const counted = (number: number, inBlock: number) => {
    blocks++;
    transactions += inBlock;
    lastBlock = number;
    options.onProgress?.({ block: number, blocks, transactions, elapsedMs: clock() - started });
  };
  const settle = async () => {
    const u = unsettled;
    if (!u) return;
    unsettled = undefined;
    await u.check();
    counted(u.number, u.transactions);
  };
  // the file lines of the blocks in flight (this one and one whose checks wait), for a bad field's file:line
  const lineOf = new Map<number, number>();
  const located = (e: unknown): unknown => {
    if (!(e instanceof ReplayInputError) || e.block === undefined) return e;
    const line = lineOf.get(e.block);
    return line === undefined ? e : new ReplayInputError(`${file}:${line}: ${e.message}`);
  };
  try {
    for (;;) {
      const item = await feed.next();
      if (!item) break;
      const { number } = item;
      lineOf.set(number, item.line.line);
      lineOf.delete(number - 2);
      let parsed = item.parsed;
      const lazy = () => (parsed ??= item.line.parse(number));
      // the count of transactions is known once the block is prepared or parsed, before its crypto is taken
      let transactionsInBlock = 0;
      let taken: Promise<BlockCrypto> | undefined;
      let takenDone = false;
      const crypto = () => {
        if (!taken) {
          taken = ahead.take(number, () => lazy().block, transactionsInBlock);
          void taken.then(() => (takenDone = true), () => undefined);
        }
        return taken;
      };
      const cryptoReady = async () => {
        if (taken) return takenDone;
        // the workers' answers already posted reach this thread in a turn of its event loop (executing a block takes none)
        await eventLoopTurn();
        return taken ? takenDone : ahead.ready(number);
      };
      const receiptsSoFar = () => ahead.receiptsSoFar(number, transactionsInBlock);
      const ctx: BlockContext = { executor, store, suite, realSuite, version, variant, fields, genesis, tally, previousHash, crypto, cryptoReady, receiptsSoFar, settle, clock, timing };
      const slices = item.parsed ? undefined : ahead.preparedSlices(number);
      const first = slices ? await slices() : undefined;
      const prepared = first && first !== 'end' ? PreparedBlockBuilder.start(first, ctx) : undefined;
      let count: BlockReplayed | undefined;
      if (prepared) {
        transactionsInBlock = prepared.count;
        try {
          count = await replayPreparedBlock(number, prepared, slices!, lazy, ctx);
          replayPaths.prepared++;
        } catch (e) {
          // a later slice must be checked from the JSON: what was started of the block is given up (its state discarded)
          if (!(e instanceof UnpreparedBlock)) {
            replayPaths.prepared++;
            throw e;
          }
          replayPaths.givenUp++;
        }
      }
      if (!count) {
        replayPaths.parsed++;
        // the checks the block before left come first (a block read from its JSON checks some of its transactions before executing)
        await settle();
        const recorded = lazy();
        transactionsInBlock = transactionCount(recorded);
        count = await replayBlock(recorded, ctx);
      }
      previousHash = count.hash;
      if (count.deferred) unsettled = { number, transactions: count.transactions, check: count.deferred };
      else counted(number, count.transactions);
    }
    await settle();
  } catch (e) {
    // a block whose checks were left for later is checked first: a difference there comes before anything that went wrong after it
    try {
      await settle();
    } catch (before) {
      if (before instanceof Stop) return report(before.divergence);
      throw located(before);
    }
    if (e instanceof Stop) return report(e.divergence);
    throw located(e);
  } finally {
    await stopReading();
  }
  return report();
}

/**
 * Blocks replayed from what the workers prepared, and from their JSON parsed on the replay's
 * thread, since the process started; `givenUp`: blocks started from the workers' first slice and
 * then replayed from their JSON (a later slice had to be).
 */
export const replayPaths = { prepared: 0, parsed: 0, givenUp: 0, deferred: 0 };

/**
 * When a prepared block's checks wait for the next block to execute (see executeAndCheck):
 * 'auto', where the workers' crypto for it is not in once it has executed; 'always' (tests: the
 * same reports either way), and then the executor never waits for the recorded receipts either,
 * taking those the workers have sent so far.
 */
export const replayTuning: { deferChecks: 'auto' | 'always' } = { deferChecks: 'auto' };

function transactionCount(recorded: RecordedBlock): number {
  const txs = recorded.block.transactions;
  return Array.isArray(txs) ? txs.length : 0;
}

/** What executeAndCheck needs of a block, however it was read. */
interface BlockInputs {
  readonly header: RecordedHeader;
  /** The transactions to execute, in order. */
  readonly transactions: Transaction[];
  /** Whether every transaction was re-encoded from its recorded fields (else the older root schemes cannot be recomputed). */
  readonly allEncoded: boolean;
  /** The transaction hash and sender checks not made yet (of transactions executed as their recorded senders). */
  readonly verifyTransactions: (() => Promise<void>) | undefined;
  /** The executed block's receipts against the recorded ones (with its encodings and asExpected, where the executor gives them). */
  readonly compareReceipts: (executed: ExecutedBlock) => void | Promise<void>;
  /** Appends more of the block's transactions while it executes (BlockExecutor.execute's `more`). */
  readonly more?: () => Promise<boolean>;
  /**
   * Its checks may wait for the next block (see executeAndCheck): a block the workers prepared,
   * whose checks need nothing of the replay's thread that the next block changes.
   */
  readonly deferrable?: boolean;
}

/** A prepared block whose later slice the replay must check from the JSON after all. */
class UnpreparedBlock extends Error {}

/** A block the workers prepared: see prepared-block.ts. It starts executing with the first slice; the rest are added as they come. */
async function replayPreparedBlock(
  number: number,
  block: PreparedBlockBuilder,
  slices: () => Promise<PreparedRange | 'end' | undefined>,
  lazy: LazyBlock,
  ctx: BlockContext,
): Promise<BlockReplayed> {
  const more = async () => {
    for (;;) {
      if (block.complete) return false;
      const before = block.transactions.length;
      const slice = await slices();
      if (slice === undefined || slice === 'end' || !block.add(slice)) throw new UnpreparedBlock();
      if (block.transactions.length > before) return true;
    }
  };
  return executeAndCheck(number, {
    header: block.header,
    transactions: block.transactions,
    more,
    deferrable: true,
    allEncoded: true,
    verifyTransactions: async () => verifyPreparedSenders(block, await ctx.crypto(), number, ctx, lazy),
    compareReceipts: async (executed) => comparePreparedReceipts(executed, await ctx.crypto(), number, ctx, lazy),
  }, ctx);
}

/** A block from its JSON, parsed on this thread. */
async function replayBlock(recorded: RecordedBlock, ctx: BlockContext): Promise<BlockReplayed> {
  const { suite, realSuite, version } = ctx;
  const number = recorded.number;
  const place = { block: number };
  const header = parseHeader(recorded.block, place, { hashRequired: true });
  if (header.number !== number) throw new ReplayInputError(`block line ${number}: its block says number ${header.number}`, number);
  const txJson = transactionObjects(recorded.block, place);
  if (recorded.receipts.length !== txJson.length) {
    throw new ReplayInputError(`block ${number}: ${txJson.length} transactions but ${recorded.receipts.length} receipts were recorded`, number);
  }
  const txs = txJson.map((t, i) => parseTransaction(t, { block: number, index: i }, realSuite, version.txGeneration));
  const receipts = recorded.receipts.map((r: JsonObject, i) => parseReceipt(r, { block: number, index: i }));

  // merkle16 roots read only the hashes: execute as recorded while the workers check the signatures
  const provisional = version.rootScheme === 'merkle16';
  suite.clear();
  const transactions = provisional ? txs.map((t, i) => provisionalTransaction(t, i, number, ctx)) : [];
  if (!provisional) {
    const known = await ctx.crypto();
    for (let i = 0; i < txs.length; i++) transactions.push(transactionFor(txs[i]!, i, number, ctx, known));
  }
  return executeAndCheck(number, {
    header,
    transactions,
    allEncoded: txs.every((t) => t.body),
    verifyTransactions: provisional ? async () => verifyProvisional(txs, await ctx.crypto(), number, ctx) : undefined,
    compareReceipts: (executed) => executed.block.receipts.forEach((receipt, i) => compareReceipt(receipts[i]!, receipt, txs[i]!, i, number, ctx)),
  }, ctx);
}

/** A block replayed: its recorded hash, its transactions, and the checks still to make once its crypto is in (see BlockInputs.deferrable). */
interface BlockReplayed {
  readonly hash: Uint8Array;
  readonly transactions: number;
  readonly deferred?: () => Promise<void>;
}

/**
 * Execute the block, check it against the recording (transactions, receipts, roots, hash,
 * signatures) and commit it. Where the block is deferrable and the workers' crypto for it is not
 * in yet once it has executed, the checks that need none are made first (on a tally of their own,
 * thrown away), the block is committed, and the whole sequence of checks is left to
 * `deferred`, which the replay runs once the next block has executed (ctx.settle). Should one of the
 * first checks fail, the whole sequence is made at once, waiting for the crypto: either way the
 * first difference found, and the tally, are those of the sequence in its order.
 */
async function executeAndCheck(number: number, inputs: BlockInputs, ctx: BlockContext): Promise<BlockReplayed> {
  const { executor, store, suite } = ctx;
  const { transactions } = inputs;
  let executed: ExecutedBlock;
  // the time spent waiting for more of the block's transactions, or for the workers' receipts, is not the executor's
  let waited = 0;
  const waiting = async <T>(wait: () => Promise<T>): Promise<T> => {
    const asked = ctx.clock();
    try {
      return await wait();
    } finally {
      waited += ctx.clock() - asked;
    }
  };
  const more = inputs.more && (() => waiting(inputs.more!));
  const deferring = inputs.deferrable === true;
  // a deferrable block waits for none of the workers' answers still to come
  const notWaiting = async () => deferring && (replayTuning.deferChecks === 'always' || !(await ctx.cryptoReady()));
  // the recorded receipts as the workers encoded them: the executor takes their blooms and hashes where its receipts encode the same;
  // a deferrable block does not wait for them: it takes those the workers have sent so far (the executor computes the rest)
  const expectedReceipts = async () => ((await notWaiting()) ? ctx.receiptsSoFar() : waiting(async () => (await ctx.crypto()).receipt));
  const executing = ctx.clock();
  try {
    executed = await executor.execute(
      { number, parentHash: inputs.header.parentHash, timestamp: inputs.header.timestamp, sealer: inputs.header.sealer, sealerList: inputs.header.sealerList, extraData: inputs.header.extraData },
      transactions,
      { ...(more ? { more } : {}), expectedReceipts },
    );
  } catch (e) {
    if (!(e instanceof ExecutionError)) throw e;
    // the block before is checked first: a difference there comes first
    await ctx.settle();
    checkBlockParent(inputs.header, number, ctx.tally, ctx);
    // the whole block's transactions are checked, as where it came whole (a slice that must be read from the JSON gives the block up)
    if (inputs.more) while (await inputs.more());
    await inputs.verifyTransactions?.();
    throw new Stop({ block: number, field: 'execution', recorded: 'the block executes', replayed: `fails: ${e.message}` });
  }
  ctx.timing.executionMs += ctx.clock() - executing - waited;
  let deferred: (() => Promise<void>) | undefined;
  try {
    await ctx.settle();
    // the sealers in force at this block, from the replayed state (before it commits)
    const inForce = (await executor.consensusNodes(number)).sealers;
    const checks = (tally: Tally, withCrypto: boolean) => checkExecuted(number, inputs, executed, inForce, tally, withCrypto, ctx);
    if (await notWaiting()) {
      try {
        await checks(new Tally(), false);
      } catch (e) {
        if (!(e instanceof Stop)) throw e;
        await checks(ctx.tally, true);
        throw e;
      }
      replayPaths.deferred++;
      deferred = () => checks(ctx.tally, true);
    } else await checks(ctx.tally, true);
  } catch (e) {
    await executor.discard();
    throw e;
  }
  const committing = ctx.clock();
  await executor.commit((writes) => store.batch(writes));
  ctx.timing.executionMs += ctx.clock() - committing;
  suite.clear();
  return { hash: inputs.header.hash!, transactions: transactions.length, ...(deferred ? { deferred } : {}) };
}

const eventLoopTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

function checkBlockParent(header: RecordedHeader, number: number, tally: Tally, ctx: BlockContext): void {
  if (ctx.previousHash) {
    expectSame(tally, 'parentHash', hex(header.parentHash), hex(ctx.previousHash), { block: number, field: 'block.parentHash', detail: 'the parent link: the hash of the block before' });
  } else tally.skip('parentHash', 'the hash of the block before is not in the recording', number);
}

/**
 * Every check of an executed block, in order, on `tally`; those that need the block's crypto
 * (the transactions' hashes and senders, the receipts, the block signatures) only `withCrypto`
 * (they tally on the context's tally: only the replay's own sequence makes them).
 */
async function checkExecuted(number: number, inputs: BlockInputs, executed: ExecutedBlock, inForce: readonly string[], tally: Tally, withCrypto: boolean, ctx: BlockContext): Promise<void> {
  const { executor, realSuite, version } = ctx;
  const { header, transactions } = inputs;
  checkBlockParent(header, number, tally, ctx);
  if (withCrypto) await inputs.verifyTransactions?.();
  const mine = executed.block.header;
  // transactionsRoot: merkle16 is over the tx hashes (recorded ones where a tx could not be re-encoded); the older schemes need every payload
  let transactionsRoot: Uint8Array;
  if (inputs.allEncoded || version.rootScheme === 'merkle16') {
    transactionsRoot = inputs.allEncoded ? mine.transactionsRoot : await computeTransactionsRoot(transactions, 'merkle16', realSuite);
    expectSame(tally, 'transactionsRoot', hex(header.transactionsRoot), hex(transactionsRoot), { block: number, field: 'block.transactionsRoot' });
  } else {
    tally.skip('transactionsRoot', `the ${version.rootScheme} root scheme (supported version ${version.text}) hashes the signed payloads, which the recording does not hold; the block hash is computed with the recorded transactionsRoot`, number);
    transactionsRoot = header.transactionsRoot;
  }
  if (withCrypto) await inputs.compareReceipts(executed);
  // the earlier variant prints neither receiptsRoot nor dbHash; the later always does, unless the user allows them to be missing
  const absent = (field: 'receiptsRoot' | 'dbHash') => (ctx.variant === 'earlier' ? `the earlier interface variant prints no ${field} (the block hash covers it)` : ctx.fields.absent(field, { block: number }));
  if (header.receiptsRoot) expectSame(tally, 'receiptsRoot', hex(header.receiptsRoot), hex(mine.receiptsRoot), { block: number, field: 'block.receiptsRoot' });
  else tally.skip('receiptsRoot', absent('receiptsRoot'), number);
  expectSame(tally, 'stateRoot', hex(header.stateRoot), hex(mine.stateRoot), {
    block: number,
    field: 'block.stateRoot',
    detail: executor.state.kind === 'storage' ? 'the storage state: stateRoot is FISCO\'s dbHash of the block\'s table changes' : 'the Merkle Patricia trie root',
  });
  if (header.dbHash) expectSame(tally, 'dbHash', hex(header.dbHash), hex(mine.dbHash), { block: number, field: 'block.dbHash' });
  else tally.skip('dbHash', absent('dbHash'), number);
  expectSame(tally, 'logsBloom', hex(header.logsBloom), hex(mine.logsBloom), { block: number, field: 'block.logsBloom' });
  expectSame(tally, 'gasUsed', toQuantity(header.gasUsed), toQuantity(mine.gasUsed), { block: number, field: 'block.gasUsed' });
  expectSame(tally, 'gasLimit', toQuantity(header.gasLimit), toQuantity(mine.gasLimit), { block: number, field: 'block.gasLimit' });
  const hash = bytesEqual(transactionsRoot, mine.transactionsRoot) ? executed.hash : blockHash({ ...mine, transactionsRoot }, realSuite);
  expectSame(tally, 'block hash', hex(header.hash!), hex(hash), { block: number, field: 'block.hash', detail: 'H(rlp of the 13 header fields) of the re-executed header' });
  expectSame(tally, 'sealerList', header.sealerList.map((s) => toHexNoPrefix(s)).join(','), inForce.join(','), {
    block: number,
    field: 'block.sealerList',
    detail: 'the sealers in force at this block in the replayed state',
  });
  if (withCrypto) checkSignatures(header, hash, inForce, number, ctx, await ctx.crypto());
}
