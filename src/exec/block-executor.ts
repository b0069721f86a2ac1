import { Address } from '@ethereumjs/util';
import {
  blockHash,
  bloomOr,
  BLOOM_BYTES,
  computeTransactionsRoot,
  encodeReceipt,
  logsBloom,
  receiptsRootOfEncodings,
  recoverSender,
  TX_STATUS,
  type Block,
  type BlockHeader,
  type GroupGenesis,
  type ProtocolVersion,
  type Receipt,
  type Transaction,
} from '../chain/index.js';
import type { CryptoSuite } from '../crypto/index.js';
import { bigintToBytes, bytesEqual, canonicalJson, rlpEncode, toHexNoPrefix } from '../codec/index.js';
import type { KvOperation } from '../storage/index.js';
import type { FiscoStateManager, GroupState } from '../state/index.js';
import { engineRulesOf, ExecutionEngine, type MessageOutcome } from './execution-engine.js';
import type { ExecutionMemo } from './execution-memo.js';
import { writeGenesisTables } from './genesis-state.js';
import type { ConsensusNodes } from './system-tables.js';

/** What consensus decides about a block before it is executed. */
export interface BlockDraft {
  readonly number: number;
  readonly parentHash: Uint8Array;
  readonly timestamp: number;
  /** Index of the sealer in sealerList. */
  readonly sealer: number;
  readonly sealerList: readonly Uint8Array[];
  readonly extraData?: readonly Uint8Array[];
}

/** A block after execution: header with roots, receipts, and the senders (kept for the ledger). */
export interface ExecutedBlock {
  readonly block: Block;
  readonly hash: Uint8Array;
  readonly senders: readonly Uint8Array[];
  /** Each receipt encoded as the receipts root takes it, where this execution encoded them (not for a block the memo gave). */
  readonly receiptEncodings?: readonly Uint8Array[];
  /**
   * Per receipt, 1 where it encoded exactly as the receipt expected of it (ExecuteOptions.expectedReceipts),
   * else 0; only where receipts were expected. A caller comparing receipts with those it expected need not
   * compare these again.
   */
  readonly asExpected?: Uint8Array;
}

/**
 * A receipt the caller expects a block's transaction to produce (a replay: the recorded one,
 * prepared on another thread), with what the executor would otherwise hash to build the block:
 * `bloom`, the logsBloom of the expected receipt's logs, computed from those logs; `hash`, the
 * suite's hash of `encoding`. Where the executed receipt (with that bloom) encodes to exactly
 * `encoding`, its logs are the expected logs, so `bloom` and `hash` are the values hashing would
 * give, and the executor takes them. Where it does not, the receipt is computed in full. The block
 * is the same either way, provided the caller computed bloom and hash as said.
 */
export interface ExpectedReceipt {
  readonly encoding: Uint8Array;
  readonly bloom: Uint8Array;
  readonly hash: Uint8Array;
}

export interface ExecuteOptions {
  /**
   * The list of transactions may still grow while the block executes: once every transaction in
   * it has run, `more` is awaited, and resolves true after appending at least one more (false:
   * the block is complete). It may throw to give the block up: its state is discarded and the
   * error passed on. A replay starts executing a block while the rest of it is still being read.
   */
  readonly more?: () => Promise<boolean>;
  /** Asked once every transaction has run: the expected receipt of the transaction at an index, where there is one. */
  readonly expectedReceipts?: () => Promise<(index: number) => ExpectedReceipt | undefined>;
}

export interface CallRequest {
  readonly from: Uint8Array;
  readonly to: Uint8Array;
  readonly data: Uint8Array;
}

export interface CallResult {
  readonly status: number;
  readonly output: Uint8Array;
  readonly gasUsed: bigint;
}

/** FISCO's defaults, used when the system table has no value (never on a properly initialised chain). */
export const DEFAULT_TX_COUNT_LIMIT = 1000;
export const DEFAULT_TX_GAS_LIMIT = 300_000_000n;

const ZERO_32 = new Uint8Array(32);
const NONE_EXPECTED = () => undefined;
const ZERO_ADDRESS = new Uint8Array(20);

export class ExecutionError extends Error {
  override readonly name = 'ExecutionError';
}

/**
 * Executes blocks on a group's world state exactly and identically on every replica. A block is
 * executed inside one state checkpoint and stays pending until commit (with its writes persisted
 * together with the ledger's) or discard (e.g. a PBFT proposal that did not make it).
 */
export class BlockExecutor {
  private readonly engine: ExecutionEngine;
  private pendingBlock: ExecutedBlock | undefined;
  /**
   * The engine calls run on, over a read view pinned at the committed root, kept with its caches
   * (accounts, code, slots, FISCO's tables) from call to call while the root stays; it moves to a
   * new root (dropping those caches) when a block commits. `gasLimits`: tx_gas_limit at the root,
   * by block number.
   */
  private view: { root: Uint8Array; engine: ExecutionEngine; gasLimits: Map<number, bigint> } | undefined;
  /**
   * Users of the view (calls, code and table reads) take turns: calls must not interleave their
   * checkpoints, and the view must not move to another root under a call. While any is queued, a
   * commit takes its turn too, so a call never sees part of a block that committed while it ran.
   */
  private viewQueue: Promise<unknown> = Promise.resolve();
  private viewUsers = 0;

  /** `memo`: share execution results between simulated nodes (see ExecutionMemo). */
  constructor(
    readonly state: GroupState,
    readonly suite: CryptoSuite,
    readonly version: ProtocolVersion,
    private readonly memo?: ExecutionMemo,
  ) {
    this.engine = this.engineOver(state.stateManager);
  }

  /** An execution engine over `stateManager` with the rules of this chain's suite and supported_version. */
  private engineOver(stateManager: FiscoStateManager): ExecutionEngine {
    const v = this.version;
    return new ExecutionEngine(stateManager, this.suite, v.atLeast('2.6.0'), engineRulesOf(v));
  }

  /** The executed block awaiting commit or discard, if any. */
  get pending(): ExecutedBlock | undefined {
    return this.pendingBlock;
  }

  /** Execute `transactions` in order as block `draft` (see ExecuteOptions for a list still growing, and receipts expected). */
  async execute(draft: BlockDraft, transactions: readonly Transaction[], options: ExecuteOptions = {}): Promise<ExecutedBlock> {
    const { more } = options;
    if (this.pendingBlock) await this.discard();
    const senders: Uint8Array[] = [];
    const senderOf = (i: number) => {
      try {
        return recoverSender(transactions[i]!, this.suite);
      } catch (e) {
        throw new ExecutionError(`block ${draft.number}, transaction ${i}: ${(e as Error).message}`);
      }
    };
    // every sender first (a signature that does not recover fails the block before it starts), where the list is complete
    for (let i = 0; i < transactions.length; i++) senders.push(senderOf(i));
    const key = this.memo && !more ? this.memoKey(draft, transactions) : undefined;
    const known = key ? this.memo!.get(key) : undefined;
    if (known) {
      await this.state.adoptPending(known.stateRoot, known.writes, known.touched);
      this.pendingBlock = { block: { ...known.block, transactions }, hash: known.hash, senders };
      return this.pendingBlock;
    }
    // read before the block starts: FISCO reads its configuration from the committed state,
    // not through the block's tables (which would count the table as opened in the dbHash)
    const txGasLimit = BigInt((await this.engine.tables.config('tx_gas_limit', draft.number)) ?? DEFAULT_TX_GAS_LIMIT);
    await this.state.begin();
    try {
      const outcomes: MessageOutcome[] = [];
      for (let i = 0; i < transactions.length || (more !== undefined && (await more())); i++) {
        const tx = transactions[i]!;
        if (i === senders.length) senders.push(senderOf(i));
        outcomes.push(
          await this.engine.run(
            {
              from: new Address(senders[i]!),
              to: tx.body.to ? new Address(tx.body.to) : undefined,
              data: tx.body.data,
              gasLimit: txGasLimit,
              txGas: tx.body.gas,
            },
            draft.number,
          ),
        );
      }
      const { root, writes, touched } = await this.state.finishBlock();
      const expected = options.expectedReceipts ? await options.expectedReceipts() : NONE_EXPECTED;
      const { block, receiptEncodings, asExpected } = await this.assemble(draft, transactions, outcomes, root, txGasLimit, expected);
      this.pendingBlock = { block, hash: blockHash(block.header, this.suite), senders, receiptEncodings, ...(options.expectedReceipts ? { asExpected } : {}) };
      if (key) this.memo!.put(key, { block, hash: this.pendingBlock.hash, stateRoot: root, writes, touched });
      return this.pendingBlock;
    } catch (e) {
      await this.state.abortBlock();
      throw e;
    }
  }

  /** Everything the result of executing this block depends on. */
  private memoKey(draft: BlockDraft, transactions: readonly Transaction[]): string {
    const inputs = rlpEncode([
      this.state.root,
      bigintToBytes(BigInt(draft.number)),
      draft.parentHash,
      bigintToBytes(BigInt(draft.timestamp)),
      bigintToBytes(BigInt(draft.sealer)),
      [...draft.sealerList],
      [...(draft.extraData ?? [])],
      transactions.map((t) => t.hash),
      new TextEncoder().encode(`${this.suite.name}/${this.version.text}`),
    ] as never);
    return toHexNoPrefix(this.suite.hash(inputs));
  }

  /** Write the genesis system tables and commit them; returns the genesis state root. */
  async applyGenesis(genesis: GroupGenesis, persist: (stateWrites: KvOperation[], stateRoot: Uint8Array) => Promise<void>): Promise<Uint8Array> {
    if (this.pendingBlock) throw new ExecutionError('applyGenesis: a block is pending');
    // the genesis state is a function of the genesis alone (on the empty state this starts from)
    const key = this.memo ? `${this.suite.name}/${this.version.text}/${toHexNoPrefix(this.state.root)}/${canonicalJson(genesis)}` : undefined;
    const known = key ? this.memo!.genesisState(key) : undefined;
    if (known) await this.state.adoptPending(known.root, known.writes, known.touched);
    else {
      await this.state.begin();
      try {
        await writeGenesisTables(this.engine.tables, genesis, this.version);
        const done = await this.state.finishBlock();
        if (key) this.memo!.rememberGenesisState(key, { root: done.root, writes: [...done.writes], touched: [...done.touched] });
      } catch (e) {
        await this.state.abortBlock();
        throw e;
      }
    }
    await this.state.commitPending(persist);
    return this.state.root;
  }

  /** Keep the pending block's state; `persist` stores the state writes (with the ledger's, atomically). */
  async commit(persist: (stateWrites: KvOperation[]) => Promise<void>): Promise<ExecutedBlock> {
    const done = this.pendingBlock;
    if (!done) throw new ExecutionError('commit: no executed block is pending');
    // with no call in flight the commit goes straight ahead (no extra turns of the event loop)
    if (this.viewUsers > 0) await this.inTurn(() => this.state.commitPending(persist));
    else await this.state.commitPending(persist);
    this.pendingBlock = undefined;
    return done;
  }

  async discard(): Promise<void> {
    if (!this.pendingBlock) return;
    this.pendingBlock = undefined;
    await this.state.discardPending();
  }

  /**
   * Read-only call against the committed state (never the pending block): runs the message and
   * throws its effects away. `number` is the height it is reported at.
   */
  call(request: CallRequest, number: number): Promise<CallResult> {
    return this.withView((engine) => this.runCall(engine, request, number));
  }

  private async runCall(engine: ExecutionEngine, request: CallRequest, number: number): Promise<CallResult> {
    const gasLimit = await this.callGasLimit(engine, number + 1);
    const stateManager = engine.stateManager;
    await stateManager.checkpoint();
    try {
      const outcome = await engine.run(
        { from: new Address(request.from), to: new Address(request.to), data: request.data, gasLimit },
        number + 1,
      );
      return { status: outcome.status, output: outcome.output, gasUsed: outcome.gasUsed };
    } finally {
      // the revert undoes the call's writes in the caches (and FISCO's tables) and leaves what it
      // read, which is the committed state: the caches stay warm for the next call
      await stateManager.revert();
      stateManager.touched.clear();
    }
  }

  /** tx_gas_limit in force for block `at`, read once per committed root. */
  private async callGasLimit(engine: ExecutionEngine, at: number): Promise<bigint> {
    const known = this.view!.gasLimits.get(at);
    if (known !== undefined) return known;
    const gasLimit = BigInt((await engine.tables.config('tx_gas_limit', at)) ?? DEFAULT_TX_GAS_LIMIT);
    const gasLimits = this.view!.gasLimits;
    if (gasLimits.size >= 16) gasLimits.clear();
    gasLimits.set(at, gasLimit);
    return gasLimit;
  }

  /** Run `use` on the view engine when the view's turn comes (see viewQueue). */
  private withView<T>(use: (engine: ExecutionEngine) => Promise<T>): Promise<T> {
    return this.inTurn(async () => use(await this.viewEngine()));
  }

  private inTurn<T>(work: () => Promise<T>): Promise<T> {
    this.viewUsers++;
    const run = this.viewQueue.then(work);
    this.viewQueue = run.then(
      () => void this.viewUsers--,
      () => void this.viewUsers--,
    );
    return run;
  }

  /** A system config value in force for block `at` (committed state). */
  async systemConfig(key: string, at: number): Promise<string | undefined> {
    const read = () => this.withReadEngine((engine) => engine.tables.config(key, at));
    return this.memo ? this.memo.read(this.readKey(`config/${key}/${at}`), read) : read();
  }

  /** Sealers and observers in force for block `at` (committed state). */
  async consensusNodes(at: number): Promise<ConsensusNodes> {
    const read = () => this.withReadEngine((engine) => engine.tables.consensusNodes(at));
    const nodes = this.memo ? await this.memo.read(this.readKey(`nodes/${at}`), read) : await read();
    return this.memo ? { sealers: [...nodes.sealers], observers: [...nodes.observers] } : nodes;
  }

  /** Memo key of a read of the committed state. */
  private readKey(question: string): string {
    return `${this.suite.name}/${this.version.text}/${toHexNoPrefix(this.state.root)}/${question}`;
  }

  /** Contract code in the committed state ("0x" for none, precompiles included). */
  code(address: Uint8Array): Promise<Uint8Array> {
    return this.withView((engine) => engine.stateManager.getStoredCode(new Address(address)));
  }

  /** The committed state, for tools that need more (e.g. genesis checks); reads only. */
  committedView(): Promise<FiscoStateManager> {
    return this.withView(async (engine) => engine.stateManager);
  }

  /** For table reads: the live engine when it stands at the committed state, else the view. */
  private withReadEngine<T>(read: (engine: ExecutionEngine) => Promise<T>): Promise<T> {
    return this.pendingBlock || this.state.inBlock ? this.withView(read) : read(this.engine);
  }

  /**
   * The engine over a copy of the state pinned at the committed root: one engine, kept warm while
   * the root stays and re-pointed (its caches dropped) when a block commits. Only in a turn.
   */
  private async viewEngine(): Promise<ExecutionEngine> {
    const root = this.state.root;
    if (!this.view) {
      this.view = { root, engine: this.engineOver(this.state.readView()), gasLimits: new Map() };
    } else if (!sameBytes(this.view.root, root)) {
      // setStateRoot drops the caches (the trie's accounts, code and slots; the storage state's tables)
      await this.view.engine.stateManager.setStateRoot(root);
      this.view = { root, engine: this.view.engine, gasLimits: new Map() };
    }
    return this.view.engine;
  }

  private async assemble(
    draft: BlockDraft,
    transactions: readonly Transaction[],
    outcomes: readonly MessageOutcome[],
    stateRoot: Uint8Array,
    txGasLimit: bigint,
    expected: (index: number) => ExpectedReceipt | undefined,
  ): Promise<{ block: Block; receiptEncodings: Uint8Array[]; asExpected: Uint8Array }> {
    const withRemainGas = this.version.receiptHasRemainGas;
    const cumulative = !withRemainGas; // before 2.9.0 receipts carry the block's running total
    let total = 0n;
    const blockBloom = new Uint8Array(BLOOM_BYTES);
    // each receipt's hash where the expected receipt gives it (see ExpectedReceipt)
    const knownHashes: Array<Uint8Array | undefined> = [];
    const encodings: Uint8Array[] = [];
    const asExpected = new Uint8Array(outcomes.length);
    const receipts: Receipt[] = outcomes.map((o, i) => {
      total += o.gasUsed;
      const receiptWith = (bloom: Uint8Array): Receipt => ({
        stateRoot,
        gasUsed: cumulative ? total : o.gasUsed,
        contractAddress: o.contractAddress?.bytes ?? ZERO_ADDRESS,
        logsBloom: bloom,
        status: o.status,
        output: o.output,
        ...(withRemainGas ? { remainGas: txGasLimit - o.gasUsed } : {}),
        logs: o.logs,
      });
      const take = (receipt: Receipt, encoding: Uint8Array) => {
        encodings.push(encoding);
        bloomOr(blockBloom, receipt.logsBloom);
        return receipt;
      };
      const hoped = expected(i);
      if (hoped) {
        const receipt = receiptWith(hoped.bloom);
        const encoding = encodeReceipt(receipt, withRemainGas);
        if (bytesEqual(encoding, hoped.encoding)) {
          knownHashes[i] = hoped.hash;
          asExpected[i] = 1;
          return take(receipt, encoding);
        }
      }
      const receipt = receiptWith(logsBloom(o.logs, this.suite));
      return take(receipt, encodeReceipt(receipt, withRemainGas));
    });
    const header: BlockHeader = {
      parentHash: draft.parentHash,
      stateRoot,
      transactionsRoot: await computeTransactionsRoot(transactions, this.version.rootScheme, this.suite),
      receiptsRoot: await receiptsRootOfEncodings(
        encodings,
        this.version.rootScheme,
        this.suite,
        knownHashes,
      ),
      // FISCO's storage state: the header's dbHash is the stateRoot; the trie has none
      dbHash: this.state.kind === 'storage' ? stateRoot : ZERO_32,
      logsBloom: blockBloom,
      number: draft.number,
      gasLimit: 0n,
      // FISCO 2.x never fills the header's gasUsed (real headers say 0 next to receipts that
      // used gas), and the block hash covers it
      gasUsed: 0n,
      timestamp: draft.timestamp,
      extraData: draft.extraData ?? [],
      sealer: draft.sealer,
      sealerList: draft.sealerList,
    };
    return { block: { header, transactions, receipts, signatureList: [] }, receiptEncodings: encodings, asExpected };
  }
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

export function isFailedStatus(status: number): boolean {
  return status !== TX_STATUS.None;
}
