import { TransactionCache, type Block } from '../chain/index.js';
import type { KvOperation } from '../storage/index.js';

/** The complete, deterministic result of executing a block on a given parent state. */
export interface MemoEntry {
  readonly block: Block;
  readonly hash: Uint8Array;
  readonly stateRoot: Uint8Array;
  /** Trie writes that turn the parent state into the block's state. */
  readonly writes: readonly KvOperation[];
  /** Accounts (unprefixed hex) the block changed. */
  readonly touched: readonly string[];
}

/**
 * Shares block execution results between simulated nodes. The key covers the parent state
 * root and every input of the block, so a node whose state differs never hits another node's
 * entry: divergence stays visible, while n nodes executing the same block on the same state
 * pay for one execution. Simulation only; a real node has none.
 */
export class ExecutionMemo {
  private readonly entries = new Map<string, MemoEntry>();
  /** Reads of committed state (system config, consensus nodes), by state root and question. */
  private readonly reads = new Map<string, unknown>();
  /** Transactions decoded (and their senders verified) once for all nodes. */
  readonly transactions = new TransactionCache();
  hits = 0;
  misses = 0;
  readHits = 0;

  constructor(private readonly capacity = 256) {}

  get(key: string): MemoEntry | undefined {
    const entry = this.entries.get(key);
    if (entry) this.hits++;
    else this.misses++;
    return entry;
  }

  put(key: string, entry: MemoEntry): void {
    this.entries.set(key, entry);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
  }

  /**
   * A read of a committed state, which is a pure function of `key` (the state root and the
   * question): nodes at the same state ask once. Values are shared: callers must not mutate them.
   */
  async read<T>(key: string, compute: () => Promise<T>): Promise<T> {
    if (this.reads.has(key)) {
      this.readHits++;
      return this.reads.get(key) as T;
    }
    const value = await compute();
    this.reads.set(key, value);
    if (this.reads.size > this.capacity * 4) this.reads.delete(this.reads.keys().next().value!);
    return value;
  }

  /** Genesis state writes by genesis (and suite and version): every node of a group builds the same. */
  private readonly genesisStates = new Map<string, { readonly root: Uint8Array; readonly writes: readonly KvOperation[]; readonly touched: readonly string[] }>();

  genesisState(key: string) {
    return this.genesisStates.get(key);
  }

  rememberGenesisState(key: string, state: { readonly root: Uint8Array; readonly writes: readonly KvOperation[]; readonly touched: readonly string[] }): void {
    this.genesisStates.set(key, state);
    if (this.genesisStates.size > 16) this.genesisStates.delete(this.genesisStates.keys().next().value!);
  }

  get size(): number {
    return this.entries.size;
  }
}
