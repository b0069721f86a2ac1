import {
  decodeTransaction,
  recoverSender,
  TxDecodeError,
  type Transaction,
  type TxCodecOptions,
  type TxGeneration,
} from '../chain/index.js';
import { toHexNoPrefix } from '../codec/index.js';
import type { CryptoSuite } from '../crypto/index.js';
import { TxRejectedError } from './tx-rejection.js';

/** FISCO's c_blockLimit: a transaction is valid for blocks (current, current + 1000]. */
export const BLOCK_LIMIT_RANGE = 1000;
/** Blocks whose nonces stay remembered: the last BLOCK_LIMIT_RANGE + 1, as FISCO's nonce cache keeps. */
export const NONCE_WINDOW = BLOCK_LIMIT_RANGE + 1;
/** build_chain's `[tx_pool] limit`. */
export const DEFAULT_POOL_LIMIT = 150_000;
/** FISCO's `[tx_pool] memory_limit` default: 512 MB of pooled transactions per group. */
export const DEFAULT_POOL_MEMORY_LIMIT = 512 * 1024 * 1024;

/** What the pool needs to know about the chain. */
export interface PoolChainView {
  /** Latest committed block number. */
  height(): number;
  /** Whether a transaction with this hash is already on chain. */
  hasTransaction(hash: Uint8Array): Promise<boolean>;
}

export interface TxPoolOptions {
  readonly suite: CryptoSuite;
  readonly generation: TxGeneration;
  readonly chainId: bigint;
  readonly groupId: bigint;
  readonly limit?: number;
  /** Bytes of encoded transactions the pool may hold (default DEFAULT_POOL_MEMORY_LIMIT). */
  readonly memoryLimit?: number;
  /** Decodes payloads (default decodeTransaction); a simulation shares decoded transactions between nodes. */
  readonly decode?: (raw: Uint8Array, options: TxCodecOptions) => Transaction;
}

export interface PooledTransaction {
  readonly transaction: Transaction;
  readonly sender: Uint8Array;
  /** Insertion order, for FIFO sealing. */
  readonly seq: number;
}

const key = (bytes: Uint8Array) => toHexNoPrefix(bytes);

/**
 * The pending transactions of one group on one node. Admission runs FISCO's checks, cheapest
 * first (so a transaction gossiped back to us costs a map lookup), and verifies the signature
 * once; everything after trusts the recorded sender.
 */
export class TxPool {
  private readonly byHash = new Map<string, PooledTransaction>();
  /** Nonces of pooled transactions. */
  private readonly poolNonces = new Set<string>();
  /** Nonces committed in the last NONCE_WINDOW blocks, with their block number. */
  private readonly chainNonces = new Map<string, number>();
  private readonly chainNoncesByBlock = new Map<number, string[]>();
  /** When each pooled transaction was last sent to (or first heard from) peers, virtual ms. */
  private readonly gossipedAt = new Map<string, number>();
  private seq = 0;
  /** Encoded bytes of the pooled transactions (FISCO counts each transaction's size against memory_limit). */
  private bytes = 0;
  readonly limit: number;
  readonly memoryLimit: number;

  constructor(
    private readonly options: TxPoolOptions,
    private readonly chain: PoolChainView,
  ) {
    this.limit = options.limit ?? DEFAULT_POOL_LIMIT;
    this.memoryLimit = options.memoryLimit ?? DEFAULT_POOL_MEMORY_LIMIT;
  }

  /** Encoded bytes of the pooled transactions. */
  get usedBytes(): number {
    return this.bytes;
  }

  get size(): number {
    return this.byHash.size;
  }

  has(hash: Uint8Array): boolean {
    return this.byHash.has(key(hash));
  }

  get(hash: Uint8Array): PooledTransaction | undefined {
    return this.byHash.get(key(hash));
  }

  /** Decode a raw payload (the node's generation and suite) and admit it. */
  async admitRaw(raw: Uint8Array): Promise<PooledTransaction> {
    let tx: Transaction;
    try {
      tx = (this.options.decode ?? decodeTransaction)(raw, { suite: this.options.suite, generation: this.options.generation });
    } catch (e) {
      if (e instanceof TxDecodeError) throw new TxRejectedError(e.status, e.message.slice(e.status.length + 2));
      throw e;
    }
    return this.admit(tx);
  }

  /** Admit a decoded transaction or throw TxRejectedError saying which check failed. */
  async admit(tx: Transaction): Promise<PooledTransaction> {
    if (this.bytes + tx.raw.length > this.memoryLimit) {
      throw new TxRejectedError('OverGroupMemoryLimit', `the pool holds ${this.bytes} bytes of transactions; ${tx.raw.length} more would pass its memory limit of ${this.memoryLimit}`);
    }
    if (this.byHash.size >= this.limit) throw new TxRejectedError('TxPoolIsFull', `the pool holds its limit of ${this.limit} transactions`);
    const id = key(tx.hash);
    if (this.byHash.has(id)) throw new TxRejectedError('AlreadyKnown', 'the transaction is already in the pool', tx.hash);
    const nonce = tx.body.nonce.toString(16);
    const usedAt = this.chainNonces.get(nonce);
    // A transaction on chain sits in one of the last NONCE_WINDOW blocks (so its nonce is
    // remembered) unless its blockLimit has passed: only then can the ledger say "on chain",
    // and a storage read per admission (~0.15 ms on LevelDB) is saved for every other one.
    if ((usedAt !== undefined || !this.blockLimitOk(tx)) && (await this.chain.hasTransaction(tx.hash))) {
      throw new TxRejectedError('AlreadyInChain', 'the transaction is already on chain');
    }
    if (usedAt !== undefined) throw new TxRejectedError('NonceCheckFail', `nonce 0x${nonce} was used in block ${usedAt}`);
    this.checkBlockLimit(tx);
    if (this.poolNonces.has(nonce)) throw new TxRejectedError('NonceCheckFail', `nonce 0x${nonce} is used by another pooled transaction`);
    let sender: Uint8Array;
    try {
      sender = recoverSender(tx, this.options.suite);
    } catch (e) {
      if (e instanceof TxDecodeError) throw new TxRejectedError('InvalidSignature', e.message.slice(e.status.length + 2));
      throw e;
    }
    if (this.options.generation === 'rc2') {
      if (tx.body.chainId !== this.options.chainId) {
        throw new TxRejectedError('InvalidChainId', `chainId ${tx.body.chainId} is not this chain's ${this.options.chainId}`);
      }
      if (tx.body.groupId !== this.options.groupId) {
        throw new TxRejectedError('InvalidGroupId', `groupId ${tx.body.groupId} is not this group's ${this.options.groupId}`);
      }
    }
    const pooled: PooledTransaction = { transaction: tx, sender, seq: this.seq++ };
    this.byHash.set(id, pooled);
    this.poolNonces.add(nonce);
    this.bytes += tx.raw.length;
    return pooled;
  }

  private blockLimitOk(tx: Transaction): boolean {
    const current = BigInt(this.chain.height());
    const limit = tx.body.blockLimit;
    return limit > current && limit <= current + BigInt(BLOCK_LIMIT_RANGE);
  }

  private checkBlockLimit(tx: Transaction): void {
    const current = BigInt(this.chain.height());
    const limit = tx.body.blockLimit;
    if (!this.blockLimitOk(tx)) {
      throw new TxRejectedError('BlockLimitCheckFail', `blockLimit ${limit} not in (${current}, ${current + BigInt(BLOCK_LIMIT_RANGE)}]`);
    }
  }

  /**
   * Up to `max` transactions for the next block, oldest first, skipping any no longer valid
   * for `number` (blockLimit passed).
   */
  select(max: number, number: number): PooledTransaction[] {
    const out: PooledTransaction[] = [];
    const height = BigInt(number);
    for (const pooled of this.byHash.values()) {
      if (out.length >= max) break;
      if (pooled.transaction.body.blockLimit >= height) out.push(pooled);
    }
    return out;
  }

  pending(): PooledTransaction[] {
    return [...this.byHash.values()];
  }

  /**
   * A block was committed: drop its transactions, remember its nonces for NONCE_WINDOW blocks,
   * and drop pooled transactions that can no longer be included.
   */
  onBlockCommitted(number: number, transactions: readonly Transaction[]): void {
    const nonces: string[] = [];
    for (const tx of transactions) {
      const nonce = tx.body.nonce.toString(16);
      nonces.push(nonce);
      this.chainNonces.set(nonce, number);
      this.remove(tx.hash);
    }
    this.chainNoncesByBlock.set(number, nonces);
    // FISCO's nonce cache covers blocks [current - 1000, current]
    const oldest = number - NONCE_WINDOW;
    const expired = this.chainNoncesByBlock.get(oldest);
    if (expired) {
      for (const nonce of expired) if (this.chainNonces.get(nonce) === oldest) this.chainNonces.delete(nonce);
      this.chainNoncesByBlock.delete(oldest);
    }
    const height = BigInt(number);
    const committed = new Set(nonces);
    for (const pooled of [...this.byHash.values()]) {
      // a pooled transaction whose nonce another one just used on chain can never be included:
      // left in, it would poison every block proposed with it
      if (pooled.transaction.body.blockLimit <= height || committed.has(pooled.transaction.body.nonce.toString(16))) this.remove(pooled.transaction.hash);
    }
  }

  /** Learn the nonces of already committed blocks (on start, from the last NONCE_WINDOW blocks). */
  rememberNonces(number: number, transactions: readonly Transaction[]): void {
    const nonces = transactions.map((tx) => tx.body.nonce.toString(16));
    for (const n of nonces) this.chainNonces.set(n, number);
    this.chainNoncesByBlock.set(number, nonces);
  }

  /** Record that these transactions went to the peers (or came from one) at `now`. */
  markGossiped(hashes: readonly Uint8Array[], now: number): void {
    for (const hash of hashes) {
      const k = key(hash);
      if (this.byHash.has(k)) this.gossipedAt.set(k, now);
    }
  }

  /**
   * Up to `max` pooled transactions, oldest first, not sent to peers for `olderThanMs` or more:
   * still pending because the one message that carried them was lost, or went only to nodes that
   * do not seal. Transactions never marked count from the first call that sees them.
   */
  staleForGossip(now: number, olderThanMs: number, max: number): PooledTransaction[] {
    const out: PooledTransaction[] = [];
    for (const [k, pooled] of this.byHash) {
      const at = this.gossipedAt.get(k);
      if (at === undefined) this.gossipedAt.set(k, now);
      else if (now - at >= olderThanMs) {
        out.push(pooled);
        if (out.length >= max) break;
      }
    }
    return out;
  }

  remove(hash: Uint8Array): boolean {
    const k = key(hash);
    const pooled = this.byHash.get(k);
    if (!pooled) return false;
    this.byHash.delete(k);
    this.bytes -= pooled.transaction.raw.length;
    this.gossipedAt.delete(k);
    this.poolNonces.delete(pooled.transaction.body.nonce.toString(16));
    return true;
  }

  /** Whether a nonce is in use on chain (last 1000 blocks) or in the pool: for proposal checks. */
  nonceUsedOnChain(tx: Transaction): number | undefined {
    return this.chainNonces.get(tx.body.nonce.toString(16));
  }
}
