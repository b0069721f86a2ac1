import {
  GENESIS_DEFAULTS,
  genesisHeader,
  genesisMark,
  GenesisError,
  type BlockSignature,
  type GroupGenesis,
  type ProtocolVersion,
  type Transaction,
  type Block,
} from '../chain/index.js';
import { bytesEqual, toHex } from '../codec/index.js';
import type { CryptoSuite } from '../crypto/index.js';
import { BlockExecutor, ExecutionError, type BlockDraft, type ExecutedBlock, type ExecutionMemo } from '../exec/index.js';
import { StorageWorldState, WorldState, type GroupState } from '../state/index.js';
import type { KvStore } from '../storage/index.js';
import { Ledger, LedgerError, type StoredBlock } from './ledger.js';

export interface GroupChainOptions {
  readonly store: KvStore;
  readonly suite: CryptoSuite;
  readonly version: ProtocolVersion;
  readonly genesis: GroupGenesis;
  /** Simulation only: share execution results with other nodes (see ExecutionMemo). */
  readonly memo?: ExecutionMemo;
}

/**
 * A group's chain on one store: ledger, world state and executor, kept consistent. Consensus
 * executes proposals here and commits the one that wins; sync and replay apply whole blocks.
 */
export class GroupChain {
  /** Told of every block this chain's executor computed (its number, hash and header), for observers. */
  onExecuted: ((number: number, hash: Uint8Array, block: Block) => void) | undefined;

  private constructor(
    readonly ledger: Ledger,
    readonly state: GroupState,
    readonly executor: BlockExecutor,
    readonly genesis: GroupGenesis,
  ) {}

  /** Open the group's chain, creating block 0 and the genesis state on first use. */
  static async open(options: GroupChainOptions): Promise<GroupChain> {
    const { store, suite, version, genesis, memo } = options;
    const ledger = await Ledger.open(store, suite, version);
    if (ledger.height < 0) {
      const state = await openGroupState(genesis, store, suite, version);
      const executor = new BlockExecutor(state, suite, version, memo);
      const header = genesisHeader(genesis, version);
      await executor.applyGenesis(genesis, (writes, root) => ledger.writeGenesis(header, root, writes));
      return new GroupChain(ledger, state, executor, genesis);
    }
    const expected = genesisMark(genesis, version);
    const stored = await ledger.genesisMark();
    if (stored !== expected) {
      throw new GenesisError(`the store holds group ${genesis.groupId} with another genesis: stored mark "${stored}", configured "${expected}"`);
    }
    const root = await ledger.stateRootAt(ledger.height);
    if (!root) throw new LedgerError(`no state root is recorded for block ${ledger.height}`);
    const state = await openGroupState(genesis, store, suite, version, root);
    return new GroupChain(ledger, state, new BlockExecutor(state, suite, version, memo), genesis);
  }

  get height(): number {
    return this.ledger.height;
  }

  get headHash(): Uint8Array {
    return this.ledger.headHash;
  }

  /** Execute a proposal for the next block; it stays pending until commit or discard. */
  async execute(draft: BlockDraft, transactions: readonly Transaction[]): Promise<ExecutedBlock> {
    if (draft.number !== this.height + 1) throw new ExecutionError(`can only execute block ${this.height + 1}, got ${draft.number}`);
    if (!bytesEqual(draft.parentHash, this.headHash)) {
      throw new ExecutionError(`block ${draft.number}: parent ${toHex(draft.parentHash)} is not the head ${toHex(this.headHash)}`);
    }
    const executed = await this.executor.execute(draft, transactions);
    this.onExecuted?.(draft.number, executed.hash, executed.block);
    return executed;
  }

  /** Commit the pending block with its signatures: state and ledger in one synced batch. */
  async commit(signatureList: readonly BlockSignature[]): Promise<StoredBlock> {
    const pending = this.executor.pending;
    if (!pending) throw new ExecutionError('commit: no executed block is pending');
    const block: Block = { ...pending.block, signatureList };
    await this.executor.commit((writes) => this.ledger.commitBlock(block, pending.senders, writes).then(() => undefined));
    return { block, hash: pending.hash, senders: pending.senders };
  }

  discard(): Promise<void> {
    return this.executor.discard();
  }

  /**
   * Re-execute a block produced elsewhere (sync, replay) and commit it if the result matches
   * bit for bit: header hash, hence state, transaction and receipt roots.
   */
  async applyBlock(block: Block): Promise<StoredBlock> {
    const { header } = block;
    const executed = await this.execute(
      {
        number: header.number,
        parentHash: header.parentHash,
        timestamp: header.timestamp,
        sealer: header.sealer,
        sealerList: header.sealerList,
        extraData: header.extraData,
      },
      block.transactions,
    );
    const mismatch = differences(executed.block, block);
    if (mismatch.length > 0) {
      await this.discard();
      throw new ExecutionError(`block ${header.number} does not re-execute to the same result: ${mismatch.join('; ')}`);
    }
    return this.commit(block.signatureList);
  }
}

function differences(mine: Block, theirs: Block): string[] {
  const out: string[] = [];
  for (const field of ['stateRoot', 'transactionsRoot', 'receiptsRoot', 'logsBloom'] as const) {
    if (!bytesEqual(mine.header[field], theirs.header[field])) {
      out.push(`${field} ${toHex(mine.header[field]).slice(0, 18)}... here vs ${toHex(theirs.header[field]).slice(0, 18)}... in the block`);
    }
  }
  if (mine.header.gasUsed !== theirs.header.gasUsed) out.push(`gasUsed ${mine.header.gasUsed} here vs ${theirs.header.gasUsed}`);
  return out;
}

/**
 * The world state the genesis names: FISCO's storage state (`[state] type=storage`), whose
 * rules follow supported_version (the dbHash rule from 2.5.0, binary code from 2.4.0 and a
 * binary codeHash from 2.5.0), or Twinchain's Merkle Patricia trie (`mpt`).
 */
export async function openGroupState(genesis: GroupGenesis, store: KvStore, suite: CryptoSuite, version: ProtocolVersion, root?: Uint8Array): Promise<GroupState> {
  if ((genesis.stateType ?? GENESIS_DEFAULTS.stateType) === 'storage') {
    return StorageWorldState.open({
      store,
      dbHash: { rule: version.atLeast('2.5.0') ? 'v2.5' : 'v2.4', hash: (d) => suite.hash(d), sm: suite.name === 'sm' },
      accounts: { binaryCode: version.atLeast('2.4.0'), binaryCodeHash: version.atLeast('2.5.0'), tableNames: version.tableNames },
    });
  }
  return WorldState.open({ store, ...(root ? { root } : {}) });
}
