/** What a transaction of a scenario was for. */
export type TxKind = 'helloworld' | 'deploy' | 'token' | 'replay' | 'hostile' | 'setup' | 'probe' | 'admin';

/** One transaction a scenario client built, from submission to receipt. */
export interface TxRecord {
  readonly hash: string;
  readonly kind: TxKind;
  readonly group: number;
  /** The signed payload as sent (hex without 0x), for re-sending. */
  readonly raw: string;
  /** Virtual ms of the first submission. */
  readonly createdAt: number;
  attempts: number;
  lastTryAt: number;
  /** Node whose JSON-RPC took it last. */
  node: string | undefined;
  /** Nodes it was sent to, so a re-send goes somewhere new. */
  readonly tried: string[];
  /** A node's pool accepted it at least once. */
  accepted: boolean;
  /** The last refusal (JSON-RPC error), if never accepted. */
  rejection: string | undefined;
  /** That refusal may pass later or elsewhere: no node was up, the node went down, or its pool was full. */
  retryable: boolean;
  committedAt: number | undefined;
  height: number | undefined;
  /** Receipt status (0 = success). */
  status: number | undefined;
  contractAddress: string | undefined;
  /** Accepted, yet it may never commit, and why (a hostile client's nonce-race loser, a blockLimit at its edge): not resent, not awaited. */
  mayVanish?: string;
}

export interface TxTotals {
  /** Transactions built and sent at least once. */
  readonly submitted: number;
  readonly accepted: number;
  /** Refused by every node tried (never accepted). */
  readonly rejected: number;
  readonly committed: number;
  /** Committed with a non-zero receipt status. */
  readonly failed: number;
  /** Accepted but not on chain. */
  readonly pending: number;
}

/** Every transaction of a run, and who waits for which receipt. */
export class TxTracker {
  readonly records = new Map<string, TxRecord>();
  private readonly waiters = new Map<string, Array<(record: TxRecord) => void>>();

  add(hash: string, kind: TxKind, group: number, raw: string, now: number): TxRecord {
    const record: TxRecord = {
      hash,
      kind,
      group,
      raw,
      createdAt: now,
      attempts: 0,
      lastTryAt: now,
      node: undefined,
      tried: [],
      accepted: false,
      rejection: undefined,
      retryable: false,
      committedAt: undefined,
      height: undefined,
      status: undefined,
      contractAddress: undefined,
    };
    this.records.set(hash, record);
    return record;
  }

  /** A committed block's transactions and receipt statuses (called once per group and height). */
  onBlock(group: number, height: number, atMs: number, txs: ReadonlyArray<{ hash: string; status: number; contractAddress: string }>): void {
    for (const tx of txs) {
      const record = this.records.get(tx.hash);
      if (!record || record.group !== group || record.committedAt !== undefined) continue;
      record.committedAt = atMs;
      record.height = height;
      record.status = tx.status;
      record.contractAddress = tx.contractAddress;
      const waiting = this.waiters.get(tx.hash);
      if (waiting) {
        this.waiters.delete(tx.hash);
        for (const w of waiting) w(record);
      }
    }
  }

  /** Calls `then` once the transaction is on chain (at once if it already is). */
  whenCommitted(hash: string, then: (record: TxRecord) => void): void {
    const record = this.records.get(hash);
    if (record?.committedAt !== undefined) {
      then(record);
      return;
    }
    const list = this.waiters.get(hash) ?? [];
    list.push(then);
    this.waiters.set(hash, list);
  }

  /** Accepted transactions not yet on chain (but those that may never be: see mayVanish). */
  pending(): TxRecord[] {
    return [...this.records.values()].filter((r) => r.accepted && r.committedAt === undefined && r.mayVanish === undefined);
  }

  totals(filter: (r: TxRecord) => boolean = () => true): TxTotals {
    let submitted = 0;
    let accepted = 0;
    let rejected = 0;
    let committed = 0;
    let failed = 0;
    let pending = 0;
    for (const r of this.records.values()) {
      if (!filter(r) || r.attempts === 0) continue;
      submitted++;
      if (r.accepted) accepted++;
      else if (r.committedAt === undefined) rejected++;
      if (r.committedAt !== undefined) {
        committed++;
        if (r.status !== 0) failed++;
      } else if (r.accepted && r.mayVanish === undefined) pending++;
    }
    return { submitted, accepted, rejected, committed, failed, pending };
  }
}
