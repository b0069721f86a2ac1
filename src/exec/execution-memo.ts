import type { Block } from '../chain/index.js';
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
  hits = 0;
  misses = 0;

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

  get size(): number {
    return this.entries.size;
  }
}
