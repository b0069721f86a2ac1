import type { ProtocolVersion } from '../chain/index.js';
import {
  blockHash,
  checkSignatureList,
  decodeBlock,
  decodeBlockHeader,
  encodeBlock,
  TX_STATUS,
  type Block,
  type BlockCodecOptions,
  type BlockHeader,
  type BlockSignature,
  type Receipt,
  type Transaction,
} from '../chain/index.js';
import {
  bigintToBytes,
  bytesEqual,
  bytesToBigint,
  parseRlpUint,
  rlpBytesPayload,
  rlpDecode,
  rlpListItemsShallow,
  rlpEncode,
  toHex,
  type RlpValue,
} from '../codec/index.js';
import type { CryptoSuite } from '../crypto/index.js';
import type { KvOperation, KvStore } from '../storage/index.js';
import { LEDGER_KEYS } from './ledger-keys.js';

/** A committed block as the ledger keeps it: the block, its hash and its transactions' senders. */
export interface StoredBlock {
  readonly block: Block;
  readonly hash: Uint8Array;
  readonly senders: readonly Uint8Array[];
}

export interface TransactionRecord {
  readonly transaction: Transaction;
  readonly sender: Uint8Array;
  readonly receipt: Receipt;
  readonly blockNumber: number;
  readonly blockHash: Uint8Array;
  readonly index: number;
}

export interface Totals {
  readonly txSum: bigint;
  readonly failedTxSum: bigint;
}

export class LedgerError extends Error {
  override readonly name = 'LedgerError';
}

const CACHE_BLOCKS = 64;

/**
 * One group's committed chain: blocks with receipts and senders, the indexes the RPC needs
 * (hash → number, number → block, tx hash → block and index) and the totals. Every commit is
 * one synced batch together with the block's state writes, so a crash never splits them.
 */
export class Ledger {
  private readonly cache = new Map<number, StoredBlock>();
  private headNumber: number;
  private headHashValue: Uint8Array;
  private totals: Totals;
  private readonly codec: BlockCodecOptions;

  private constructor(
    private readonly store: KvStore,
    readonly suite: CryptoSuite,
    readonly version: ProtocolVersion,
    head: { number: number; hash: Uint8Array },
    totals: Totals,
    private genesisRoot: Uint8Array | undefined,
  ) {
    this.headNumber = head.number;
    this.headHashValue = head.hash;
    this.totals = totals;
    this.codec = { suite, generation: version.txGeneration, receiptsWithRemainGas: version.receiptHasRemainGas };
  }

  static async open(store: KvStore, suite: CryptoSuite, version: ProtocolVersion): Promise<Ledger> {
    const headBytes = await store.get(LEDGER_KEYS.head);
    const totalsBytes = await store.get(LEDGER_KEYS.totals);
    const genesisRoot = await store.get(LEDGER_KEYS.genesisStateRoot);
    const ledger = new Ledger(
      store,
      suite,
      version,
      { number: headBytes ? Number(bytesToBigint(headBytes)) : -1, hash: new Uint8Array(32) },
      totalsBytes ? decodeTotals(totalsBytes) : { txSum: 0n, failedTxSum: 0n },
      genesisRoot,
    );
    if (ledger.headNumber >= 0) {
      const head = await ledger.blockByNumber(ledger.headNumber);
      if (!head) throw new LedgerError(`the store says the chain is at block ${ledger.headNumber}, but that block is missing`);
      ledger.headHashValue = head.hash;
    }
    return ledger;
  }

  /** Latest committed block number; -1 before genesis. */
  get height(): number {
    return this.headNumber;
  }

  get headHash(): Uint8Array {
    return this.headHashValue;
  }

  get txTotals(): Totals {
    return this.totals;
  }

  /** The state root after block `number` (block 0's header carries zero; its real root is kept aside). */
  async stateRootAt(number: number): Promise<Uint8Array | undefined> {
    if (number === 0) return this.genesisRoot;
    return (await this.blockByNumber(number))?.block.header.stateRoot;
  }

  async genesisMark(): Promise<string | undefined> {
    const bytes = await this.store.get(LEDGER_KEYS.genesisMark);
    return bytes ? new TextDecoder().decode(bytes) : undefined;
  }

  /** Write block 0 and the genesis state in one batch. */
  async writeGenesis(header: BlockHeader, genesisStateRoot: Uint8Array, stateWrites: readonly KvOperation[]): Promise<void> {
    if (this.headNumber >= 0) throw new LedgerError('this ledger already has a genesis block');
    if (header.number !== 0) throw new LedgerError(`a genesis block has number 0, got ${header.number}`);
    const block: Block = { header, transactions: [], receipts: [], signatureList: [] };
    const mark = header.extraData[0] ?? new Uint8Array(0);
    await this.write(block, [], stateWrites, [
      { type: 'put', key: LEDGER_KEYS.genesisStateRoot, value: genesisStateRoot },
      { type: 'put', key: LEDGER_KEYS.genesisMark, value: mark },
    ]);
    this.genesisRoot = genesisStateRoot;
  }

  /**
   * Append the next block: it must extend the head. The signature list is stored with it;
   * `stateWrites` (from the executor's commit) go into the same synced batch.
   */
  async commitBlock(block: Block, senders: readonly Uint8Array[], stateWrites: readonly KvOperation[]): Promise<Uint8Array> {
    const { header } = block;
    if (header.number !== this.headNumber + 1) {
      throw new LedgerError(`block ${header.number} does not follow the head ${this.headNumber}`);
    }
    if (!bytesEqual(header.parentHash, this.headHashValue)) {
      throw new LedgerError(`block ${header.number}: parent hash ${toHex(header.parentHash)} is not the head hash ${toHex(this.headHashValue)}`);
    }
    if (senders.length !== block.transactions.length || block.receipts.length !== block.transactions.length) {
      throw new LedgerError(`block ${header.number}: ${block.transactions.length} transactions, ${block.receipts.length} receipts, ${senders.length} senders`);
    }
    return this.write(block, senders, stateWrites, []);
  }

  private async write(
    block: Block,
    senders: readonly Uint8Array[],
    stateWrites: readonly KvOperation[],
    extra: KvOperation[],
  ): Promise<Uint8Array> {
    const hash = blockHash(block.header, this.suite);
    const number = block.header.number;
    const failed = block.receipts.filter((r) => r.status !== TX_STATUS.None).length;
    const totals: Totals = {
      txSum: this.totals.txSum + BigInt(block.transactions.length),
      failedTxSum: this.totals.failedTxSum + BigInt(failed),
    };
    const ops: KvOperation[] = [
      ...stateWrites,
      ...extra,
      { type: 'put', key: LEDGER_KEYS.block(number), value: rlpEncode([encodeBlock(block, this.codec), [...senders]]) },
      { type: 'put', key: LEDGER_KEYS.numberByHash(hash), value: bigintToBytes(BigInt(number)) },
      ...block.transactions.map(
        (tx, i): KvOperation => ({ type: 'put', key: LEDGER_KEYS.txLocation(tx.hash), value: rlpEncode([bigintToBytes(BigInt(number)), bigintToBytes(BigInt(i))]) }),
      ),
      { type: 'put', key: LEDGER_KEYS.totals, value: rlpEncode([bigintToBytes(totals.txSum), bigintToBytes(totals.failedTxSum)]) },
      { type: 'put', key: LEDGER_KEYS.head, value: bigintToBytes(BigInt(number)) },
    ];
    await this.store.batch(ops, { sync: true });
    this.headNumber = number;
    this.headHashValue = hash;
    this.totals = totals;
    this.remember(number, { block, hash, senders });
    return hash;
  }

  async blockByNumber(number: number): Promise<StoredBlock | undefined> {
    if (!Number.isSafeInteger(number) || number < 0 || number > this.headNumber) return undefined;
    const cached = this.cache.get(number);
    if (cached) return cached;
    const bytes = await this.store.get(LEDGER_KEYS.block(number));
    if (!bytes) throw new LedgerError(`block ${number} is missing from the store (head is ${this.headNumber})`);
    const [blockBytes, senderItems] = rlpDecode(bytes, `stored block ${number}`) as [Uint8Array, Uint8Array[]];
    const block = decodeBlock(blockBytes, this.codec);
    const stored: StoredBlock = { block, hash: blockHash(block.header, this.suite), senders: senderItems };
    this.remember(number, stored);
    return stored;
  }

  /**
   * A block's header and hash as stored, without decoding its transactions and receipts (for
   * walking a long chain). Read from the store, never the cache: this is what survives a restart.
   */
  async storedHeader(number: number): Promise<{ header: BlockHeader; hash: Uint8Array } | undefined> {
    if (!Number.isSafeInteger(number) || number < 0 || number > this.headNumber) return undefined;
    const bytes = await this.store.get(LEDGER_KEYS.block(number));
    if (!bytes) throw new LedgerError(`block ${number} is missing from the store (head is ${this.headNumber})`);
    const [blockItem] = rlpListItemsShallow(bytes, `stored block ${number}`);
    const [headerItem] = rlpListItemsShallow(rlpBytesPayload(blockItem!, `stored block ${number}`), `block ${number}`);
    const header = decodeBlockHeader(headerItem!);
    return { header, hash: blockHash(header, this.suite) };
  }

  async blockByHash(hash: Uint8Array): Promise<StoredBlock | undefined> {
    const number = await this.numberOfHash(hash);
    return number === undefined ? undefined : this.blockByNumber(number);
  }

  async numberOfHash(hash: Uint8Array): Promise<number | undefined> {
    const bytes = await this.store.get(LEDGER_KEYS.numberByHash(hash));
    return bytes ? Number(bytesToBigint(bytes)) : undefined;
  }

  async transaction(txHash: Uint8Array): Promise<TransactionRecord | undefined> {
    const location = await this.store.get(LEDGER_KEYS.txLocation(txHash));
    if (!location) return undefined;
    const [n, i] = (rlpDecode(location, 'transaction location') as Uint8Array[]).map((b) => Number(parseRlpUint(b, 'location')));
    return this.transactionAt(n!, i!);
  }

  async transactionAt(number: number, index: number): Promise<TransactionRecord | undefined> {
    const stored = await this.blockByNumber(number);
    const tx = stored?.block.transactions[index];
    if (!stored || !tx) return undefined;
    return {
      transaction: tx,
      sender: stored.senders[index]!,
      receipt: stored.block.receipts[index]!,
      blockNumber: number,
      blockHash: stored.hash,
      index,
    };
  }

  /** Whether a transaction with this hash is on chain. */
  async hasTransaction(txHash: Uint8Array): Promise<boolean> {
    return (await this.store.get(LEDGER_KEYS.txLocation(txHash))) !== undefined;
  }

  /** Check a block's signature list against its sealer list: how many distinct valid sealers signed. */
  validSignatures(hash: Uint8Array, header: BlockHeader, signatures: readonly BlockSignature[]): number {
    return checkSignatureList(hash, signatures, header.sealerList, this.suite).valid.length;
  }

  private remember(number: number, stored: StoredBlock): void {
    this.cache.set(number, stored);
    if (this.cache.size > CACHE_BLOCKS) this.cache.delete(this.cache.keys().next().value!);
  }
}

function decodeTotals(bytes: Uint8Array): Totals {
  const [tx, failed] = rlpDecode(bytes, 'ledger totals') as RlpValue[];
  return { txSum: bytesToBigint(tx as Uint8Array), failedTxSum: bytesToBigint(failed as Uint8Array) };
}
