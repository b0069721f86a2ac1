// Re-execute a recording (src/replay/recording.ts) on a fresh node stack and verify it block by
// block: the genesis rebuilt from block 0's mark, then per block every transaction's hash and
// sender, the re-executed receipts, both roots, the state root, the block hash and the quorum of
// sealer signatures; each block is committed before the next. The first difference stops the
// replay with block, transaction index, field, recorded and re-executed values. A check the
// recording gives no data for is listed as skipped, with the reason; nothing is assumed.
import {
  blockHash,
  checkSignatureList,
  computeTransactionsRoot,
  decodeTransaction,
  encodeSignedTransaction,
  GenesisError,
  genesisHeader,
  parseGenesisMark,
  ProtocolVersion,
  recoverSender,
  Transaction,
  TxDecodeError,
  txStatusName,
  type BlockHeader,
  type GroupGenesis,
  type Receipt,
} from '../chain/index.js';
import { bytesEqual, toHex, toHexNoPrefix, toQuantity } from '../codec/index.js';
import { getSuite, type CryptoSuite } from '../crypto/index.js';
import { BlockExecutor, ExecutionError, type ExecutedBlock } from '../exec/index.js';
import { openGroupState } from '../ledger/index.js';
import { MemoryStore } from '../storage/index.js';
import { describeCall } from './call-decoder.js';
import { CryptoAhead, type BlockCrypto } from './crypto-ahead.js';
import { blockSignatureKey } from './crypto-chunk.js';
import { RecordedSenderSuite } from './recorded-sender-suite.js';
import {
  parseHeader,
  parseReceipt,
  parseTransaction,
  ReplayInputError,
  transactionObjects,
  type RecordedHeader,
  type RecordedReceipt,
  type RecordedTransaction,
} from './recorded-json.js';
import { RecordingReader, unsupportedVersion, type JsonObject, type RecordedBlock, type RecordingHeader } from './recording.js';

/** The first place where re-execution disagrees with the recording. */
export interface Divergence {
  readonly block: number;
  /** Transaction (or signature-list entry) index, when the field belongs to one. */
  readonly index?: number;
  /** e.g. tx.hash, tx.from, receipt.status, receipt.logs[0].data, block.stateRoot, signatureList[1], genesis.extraData[0]. */
  readonly field: string;
  readonly recorded: string;
  readonly replayed: string;
  /** The transaction's call, decoded where the fixture ABIs know it. */
  readonly call?: string;
  readonly detail?: string;
}

export interface SkippedCheck {
  readonly check: string;
  readonly reason: string;
  /** How many times (blocks, transactions or receipts) it was skipped, and the first block. */
  readonly count: number;
  readonly firstBlock: number;
}

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
}

/** Blocks read (and handed to the crypto workers) ahead of the one being replayed. */
const READ_AHEAD = 32;
/** …and at most this many characters of block lines (big blocks: a few ahead keep the workers busy; more only grow the heap). */
const READ_AHEAD_TEXT = 4_000_000;

const ZERO_ADDRESS = new Uint8Array(20);
const NO_BYTES = new Uint8Array(0);

class Stop extends Error {
  constructor(readonly divergence: Divergence) {
    super(`divergence at block ${divergence.block}: ${divergence.field}`);
  }
}

/** Bookkeeping of passed and skipped checks. */
class Tally {
  readonly passed: Record<string, number> = {};
  private readonly skips = new Map<string, { check: string; reason: string; count: number; firstBlock: number }>();

  pass(check: string): void {
    this.passed[check] = (this.passed[check] ?? 0) + 1;
  }

  skip(check: string, reason: string, block: number): void {
    const key = `${check}\u0000${reason}`;
    const known = this.skips.get(key);
    if (known) known.count++;
    else this.skips.set(key, { check, reason, count: 1, firstBlock: block });
  }

  get skipped(): SkippedCheck[] {
    return [...this.skips.values()];
  }
}

const hex = (b: Uint8Array) => toHex(b);

/** Compare one value; a difference stops the replay. */
function expectSame(
  tally: Tally,
  check: string,
  recorded: string,
  replayed: string,
  divergence: Omit<Divergence, 'recorded' | 'replayed' | 'call'> & { call?: () => string },
): void {
  if (recorded !== replayed) {
    const { call, ...rest } = divergence;
    throw new Stop({ ...rest, recorded, replayed, ...(call ? { call: call() } : {}) });
  }
  tally.pass(check);
}

/** The recording's genesis, rebuilt from block 0: its mark, timestamp and the header's version. */
export function rebuildGenesis(header: RecordingHeader, version: ProtocolVersion): { genesis: GroupGenesis; recorded: RecordedHeader; mark: string } {
  const place = { block: 0 };
  const recorded = parseHeader(header.genesis, place, { hashRequired: false });
  if (recorded.number !== 0) throw new ReplayInputError(`header "genesis": block 0 expected, got block ${recorded.number}`);
  const markBytes = recorded.extraData[0];
  if (!markBytes) throw new ReplayInputError('block 0: extraData is empty, so it holds no genesis mark to rebuild the genesis from');
  const mark = new TextDecoder().decode(markBytes);
  let fields;
  try {
    fields = parseGenesisMark(mark, version);
  } catch (e) {
    if (e instanceof GenesisError) throw new ReplayInputError(`block 0: the genesis cannot be rebuilt from its mark at supported version ${version.text}: ${e.message}`);
    throw e;
  }
  if (header.stateType !== undefined && header.stateType !== fields.stateType) {
    throw new ReplayInputError(`header: "stateType" is ${header.stateType} but block 0's genesis mark says ${fields.stateType}`);
  }
  if (header.group !== fields.groupId) throw new ReplayInputError(`header: "group" is ${header.group} but block 0's genesis mark is group ${fields.groupId}`);
  return { genesis: { ...fields, timestamp: recorded.timestamp }, recorded, mark };
}

/** The rebuilt block 0 field by field against the recorded one: the first differing field, or undefined. */
function genesisDifference(mine: BlockHeader, recorded: RecordedHeader): { field: string; recorded: string; replayed: string } | undefined {
  const pairs: Array<[string, string, string]> = [
    ['extraData[0]', hex(recorded.extraData[0]!), hex(mine.extraData[0]!)],
    ['extraData', String(recorded.extraData.length), String(mine.extraData.length)],
    ['timestamp', toQuantity(recorded.timestamp), toQuantity(mine.timestamp)],
    ['parentHash', hex(recorded.parentHash), hex(mine.parentHash)],
    ['stateRoot', hex(recorded.stateRoot), hex(mine.stateRoot)],
    ['transactionsRoot', hex(recorded.transactionsRoot), hex(mine.transactionsRoot)],
    ['logsBloom', hex(recorded.logsBloom), hex(mine.logsBloom)],
    ['gasLimit', toQuantity(recorded.gasLimit), toQuantity(mine.gasLimit)],
    ['gasUsed', toQuantity(recorded.gasUsed), toQuantity(mine.gasUsed)],
    ['sealer', toQuantity(recorded.sealer), toQuantity(mine.sealer)],
    ['sealerList', recorded.sealerList.map(hex).join(','), mine.sealerList.map(hex).join(',')],
  ];
  if (recorded.receiptsRoot) pairs.push(['receiptsRoot', hex(recorded.receiptsRoot), hex(mine.receiptsRoot)]);
  if (recorded.dbHash) pairs.push(['dbHash', hex(recorded.dbHash), hex(mine.dbHash)]);
  const diff = pairs.find(([, a, b]) => a !== b);
  return diff ? { field: diff[0], recorded: diff[1], replayed: diff[2] } : undefined;
}

/** Replays one recording. Throws RecordingError / ReplayInputError for a file it cannot replay. */
export async function replayRecording(file: string, options: ReplayOptions = {}): Promise<ReplayReport> {
  const clock = options.clock ?? (() => performance.now());
  const started = clock();
  const timing = { executionMs: 0 };
  const reader = await RecordingReader.open(file);
  const header = reader.header;
  if (header.from !== 1) {
    // read nothing more: the generator's finally closes the file
    await reader.blocks().return(undefined);
    throw new ReplayInputError(
      `${file}: the recording starts at block ${header.from}; replay re-executes from the genesis and cannot rebuild the state of blocks 1–${header.from - 1}, which are not in it. Record the chain from block 1 (record --from 1).`,
    );
  }
  if (options.to !== undefined && options.to < header.from) {
    await reader.blocks().return(undefined);
    throw new ReplayInputError(`--to ${options.to} is before the recording's first block ${header.from}`);
  }
  let version: ProtocolVersion;
  try {
    version = ProtocolVersion.parse(header.supportedVersion);
  } catch (e) {
    await reader.blocks().return(undefined);
    throw new ReplayInputError(`${file}:1: ${unsupportedVersion(header.supportedVersion, e)}`);
  }
  const realSuite = getSuite(header.suite);
  // started first: the workers boot (the crypto modules) while the genesis and the state are set up
  const ahead = new CryptoAhead(realSuite, version, options.signatureWorker ?? true);
  const suite = new RecordedSenderSuite(realSuite);
  const tally = new Tally();
  const variant = header.interfaceVariant;

  let rebuilt;
  try {
    rebuilt = rebuildGenesis(header, version);
  } catch (e) {
    await reader.blocks().return(undefined);
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
    await reader.blocks().return(undefined);
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
  const executor = new BlockExecutor(await openGroupState(genesis, store, suite, version), suite, version);
  await executor.applyGenesis(genesis, (writes) => store.batch(writes));

  const source = reader.blockLines();
  // blocks read ahead, each handed to the crypto workers; a read error waits for its turn
  const queue: Array<{ block: RecordedBlock } | { error: unknown }> = [];
  let exhausted = false;
  // refilled in batches, each handed to the workers in one message per worker
  const fill = async () => {
    if (exhausted || queue.length > READ_AHEAD / 2) return;
    const batch: Array<{ number: number; text: string; transactions: number }> = [];
    let text = 0;
    while (!exhausted && queue.length < READ_AHEAD && (queue.length < 2 || text < READ_AHEAD_TEXT)) {
      let next: IteratorResult<{ block: RecordedBlock; text: string }>;
      try {
        next = await source.next();
      } catch (error) {
        queue.push({ error });
        exhausted = true;
        break;
      }
      if (next.done) {
        exhausted = true;
        break;
      }
      const { block, text: line } = next.value;
      if (options.to !== undefined && block.number > options.to) {
        exhausted = true;
        break;
      }
      batch.push({ number: block.number, text: line, transactions: transactionCount(block) });
      text += line.length;
      queue.push({ block });
    }
    ahead.submit(batch);
  };
  try {
    for (;;) {
      await fill();
      const item = queue.shift();
      if (!item) break;
      if ('error' in item) throw item.error;
      const recorded = item.block;
      const crypto = () => ahead.take(recorded.number, recorded.block, transactionCount(recorded));
      const count = await replayBlock(recorded, { executor, store, suite, realSuite, version, variant, genesis, tally, previousHash, crypto, clock, timing });
      previousHash = count.hash;
      blocks++;
      transactions += count.transactions;
      lastBlock = recorded.number;
      options.onProgress?.({ block: recorded.number, blocks, transactions, elapsedMs: clock() - started });
    }
  } catch (e) {
    if (e instanceof Stop) return report(e.divergence);
    throw e;
  } finally {
    ahead.close();
    await source.return(undefined);
  }
  return report();
}

interface BlockContext {
  readonly executor: BlockExecutor;
  readonly store: MemoryStore;
  readonly suite: RecordedSenderSuite;
  readonly realSuite: CryptoSuite;
  readonly version: ProtocolVersion;
  readonly variant: 'later' | 'earlier';
  readonly genesis: GroupGenesis;
  readonly tally: Tally;
  readonly previousHash: Uint8Array | undefined;
  /** The block's transaction hashes, senders and block signatures, computed ahead by the workers where they got to it. */
  readonly crypto: () => Promise<BlockCrypto>;
  readonly clock: () => number;
  /** Milliseconds spent in execute and commit, over the whole replay. */
  readonly timing: { executionMs: number };
}

function transactionCount(recorded: RecordedBlock): number {
  const txs = recorded.block.transactions;
  return Array.isArray(txs) ? txs.length : 0;
}

/**
 * Build the Transaction to execute: re-encoded and verified when every signed field is there
 * (with the sender `known` recovered, when it recovered it from this very payload), else as the
 * recorded sender's.
 */
function transactionFor(t: RecordedTransaction, i: number, number: number, ctx: BlockContext, known?: BlockCrypto): Transaction {
  const { tally, realSuite, version, suite } = ctx;
  const call = () => describeCall(t.to, t.input, realSuite);
  if (!t.body || !t.signature) {
    const reason =
      ctx.variant === 'earlier'
        ? `the earlier interface variant prints no ${t.missing.join(', ')}: the ${version.txGeneration} transaction cannot be re-encoded; executed as the recorded "from"`
        : `the recorded transaction lacks ${t.missing.join(', ')}: it cannot be re-encoded; executed as the recorded "from"`;
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

function checkTxHash(t: RecordedTransaction, hash: Uint8Array, i: number, number: number, ctx: BlockContext): void {
  if (bytesEqual(t.hash, hash)) ctx.tally.pass('tx hash');
  else {
    const call = () => describeCall(t.to, t.input, ctx.realSuite);
    expectSame(ctx.tally, 'tx hash', hex(t.hash), hex(hash), { block: number, index: i, field: 'tx.hash', call, detail: 'the hash of the transaction re-encoded from its recorded fields' });
  }
}

function checkTxSender(t: RecordedTransaction, sender: Uint8Array, i: number, number: number, ctx: BlockContext): void {
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
function provisionalTransaction(t: RecordedTransaction, i: number, number: number, ctx: BlockContext): Transaction {
  if (!t.body || !t.signature) return transactionFor(t, i, number, ctx);
  const signature = ctx.suite.register(t.hash, t.from);
  return new Transaction(ctx.version.txGeneration, ctx.realSuite.name, t.body, signature, NO_BYTES, t.hash, t.hash);
}

/** Each provisionally executed transaction's hash and sender, as the workers (or this thread) computed them. */
function verifyProvisional(txs: readonly RecordedTransaction[], crypto: BlockCrypto, number: number, ctx: BlockContext): void {
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
function compareReceipt(r: RecordedReceipt, mine: Receipt, t: RecordedTransaction, i: number, number: number, ctx: BlockContext): void {
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
  if (mine.remainGas !== undefined) {
    if (r.remainGas === undefined) tally.skip('receipt remainGas', `the recorded receipts carry no remainGas (supported version ${version.text} has it)`, number);
    else if (r.remainGas === mine.remainGas) tally.pass('receipt remainGas');
    else same('receipt remainGas', 'receipt.remainGas', toQuantity(r.remainGas), toQuantity(mine.remainGas));
  } else if (r.remainGas !== undefined) {
    throw stop({ field: 'receipt.remainGas', recorded: toQuantity(r.remainGas), replayed: `none (receipts have no remainGas before 2.9.0; supported version ${version.text})` });
  }
  if (r.logsBloom !== undefined) same('receipt logsBloom', 'receipt.logsBloom', r.logsBloom, hex(mine.logsBloom));
  else tally.skip('receipt logsBloom', 'the recorded receipt has no logsBloom', number);
  if (r.root !== undefined) same('receipt root', 'receipt.root', r.root, hex(mine.stateRoot));
  else tally.skip('receipt root', 'the earlier interface variant prints no receipt root', number);
}

async function replayBlock(recorded: RecordedBlock, ctx: BlockContext): Promise<{ hash: Uint8Array; transactions: number }> {
  const { executor, store, suite, realSuite, version, tally } = ctx;
  const number = recorded.number;
  const place = { block: number };
  const header = parseHeader(recorded.block, place, { hashRequired: true });
  if (header.number !== number) throw new ReplayInputError(`block line ${number}: its block says number ${header.number}`);
  const txJson = transactionObjects(recorded.block, place);
  if (recorded.receipts.length !== txJson.length) {
    throw new ReplayInputError(`block ${number}: ${txJson.length} transactions but ${recorded.receipts.length} receipts were recorded`);
  }
  const txs = txJson.map((t, i) => parseTransaction(t, { block: number, index: i }, realSuite, version.txGeneration));
  const receipts = recorded.receipts.map((r: JsonObject, i) => parseReceipt(r, { block: number, index: i }));

  if (ctx.previousHash) {
    expectSame(tally, 'parentHash', hex(header.parentHash), hex(ctx.previousHash), { block: number, field: 'block.parentHash', detail: 'the parent link: the hash of the block before' });
  } else tally.skip('parentHash', 'the hash of the block before is not in the recording', number);

  // merkle16 roots read only the hashes: execute as recorded while the workers check the signatures
  const provisional = version.rootScheme === 'merkle16';
  let crypto: BlockCrypto | undefined;
  const joinCrypto = async () => (crypto ??= await ctx.crypto());
  suite.clear();
  const transactions = provisional ? txs.map((t, i) => provisionalTransaction(t, i, number, ctx)) : [];
  if (!provisional) {
    const known = await joinCrypto();
    for (let i = 0; i < txs.length; i++) transactions.push(transactionFor(txs[i]!, i, number, ctx, known));
  }

  let executed: ExecutedBlock;
  const executing = ctx.clock();
  try {
    executed = await executor.execute(
      { number, parentHash: header.parentHash, timestamp: header.timestamp, sealer: header.sealer, sealerList: header.sealerList, extraData: header.extraData },
      transactions,
    );
  } catch (e) {
    if (!(e instanceof ExecutionError)) throw e;
    if (provisional) verifyProvisional(txs, await joinCrypto(), number, ctx);
    throw new Stop({ block: number, field: 'execution', recorded: 'the block executes', replayed: `fails: ${e.message}` });
  }
  ctx.timing.executionMs += ctx.clock() - executing;
  try {
    if (provisional) verifyProvisional(txs, await joinCrypto(), number, ctx);
    const mine = executed.block.header;
    // transactionsRoot: merkle16 is over the tx hashes (recorded ones where a tx could not be re-encoded); the older schemes need every payload
    const allEncoded = txs.every((t) => t.body);
    let transactionsRoot: Uint8Array;
    if (allEncoded || version.rootScheme === 'merkle16') {
      transactionsRoot = allEncoded ? mine.transactionsRoot : await computeTransactionsRoot(transactions, 'merkle16', realSuite);
      expectSame(tally, 'transactionsRoot', hex(header.transactionsRoot), hex(transactionsRoot), { block: number, field: 'block.transactionsRoot' });
    } else {
      tally.skip('transactionsRoot', `the ${version.rootScheme} root scheme (supported version ${version.text}) hashes the signed payloads, which the recording does not hold; the block hash is computed with the recorded transactionsRoot`, number);
      transactionsRoot = header.transactionsRoot;
    }
    executed.block.receipts.forEach((receipt, i) => compareReceipt(receipts[i]!, receipt, txs[i]!, i, number, ctx));
    if (header.receiptsRoot) expectSame(tally, 'receiptsRoot', hex(header.receiptsRoot), hex(mine.receiptsRoot), { block: number, field: 'block.receiptsRoot' });
    else tally.skip('receiptsRoot', 'the earlier interface variant prints no receiptsRoot (the block hash covers it)', number);
    expectSame(tally, 'stateRoot', hex(header.stateRoot), hex(mine.stateRoot), {
      block: number,
      field: 'block.stateRoot',
      detail: executor.state.kind === 'storage' ? 'the storage state: stateRoot is FISCO\'s dbHash of the block\'s table changes' : 'the Merkle Patricia trie root',
    });
    if (header.dbHash) expectSame(tally, 'dbHash', hex(header.dbHash), hex(mine.dbHash), { block: number, field: 'block.dbHash' });
    else tally.skip('dbHash', 'the earlier interface variant prints no dbHash (the block hash covers it)', number);
    expectSame(tally, 'logsBloom', hex(header.logsBloom), hex(mine.logsBloom), { block: number, field: 'block.logsBloom' });
    expectSame(tally, 'gasUsed', toQuantity(header.gasUsed), toQuantity(mine.gasUsed), { block: number, field: 'block.gasUsed' });
    expectSame(tally, 'gasLimit', toQuantity(header.gasLimit), toQuantity(mine.gasLimit), { block: number, field: 'block.gasLimit' });
    const hash = bytesEqual(transactionsRoot, mine.transactionsRoot) ? executed.hash : blockHash({ ...mine, transactionsRoot }, realSuite);
    expectSame(tally, 'block hash', hex(header.hash!), hex(hash), { block: number, field: 'block.hash', detail: 'H(rlp of the 13 header fields) of the re-executed header' });

    // the sealers in force at this block, from the replayed state
    const nodes = await executor.consensusNodes(number);
    const inForce = nodes.sealers;
    expectSame(tally, 'sealerList', header.sealerList.map((s) => toHexNoPrefix(s)).join(','), inForce.join(','), {
      block: number,
      field: 'block.sealerList',
      detail: 'the sealers in force at this block in the replayed state',
    });
    checkSignatures(header, hash, inForce, number, ctx, await joinCrypto());
  } catch (e) {
    await executor.discard();
    throw e;
  }
  const committing = ctx.clock();
  await executor.commit((writes) => store.batch(writes));
  ctx.timing.executionMs += ctx.clock() - committing;
  suite.clear();
  return { hash: header.hash!, transactions: transactions.length };
}

function checkSignatures(header: RecordedHeader, hash: Uint8Array, inForce: readonly string[], number: number, ctx: BlockContext, crypto: BlockCrypto): void {
  const { tally, realSuite, genesis, variant } = ctx;
  if (!header.signatureList) {
    const why = variant === 'earlier' ? 'the earlier interface variant prints no signatureList' : 'the recorded block has no signatureList';
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
