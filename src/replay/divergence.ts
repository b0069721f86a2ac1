// What a replay reports: the first divergence, the checks passed and the checks skipped (with
// why). Stop carries a divergence out of the block being checked.
import { toHex } from '../codec/index.js';

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

export class Stop extends Error {
  constructor(readonly divergence: Divergence) {
    super(`divergence at block ${divergence.block}: ${divergence.field}`);
  }
}

/** Bookkeeping of passed and skipped checks. */
export class Tally {
  readonly passed: Record<string, number> = {};
  private readonly skips = new Map<string, { check: string; reason: string; count: number; firstBlock: number }>();

  pass(check: string, times = 1): void {
    this.passed[check] = (this.passed[check] ?? 0) + times;
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

export const hex = (b: Uint8Array) => toHex(b);

/** Compare one value; a difference stops the replay. */
export function expectSame(
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

