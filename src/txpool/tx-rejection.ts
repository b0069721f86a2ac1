import { TX_STATUS, type TxStatusName } from '../chain/index.js';

/** A transaction the pool refused: FISCO's status name and code, and why in words. */
export class TxRejectedError extends Error {
  override readonly name = 'TxRejectedError';
  readonly code: number;

  /** `hash`: of the refused transaction, when it was decoded far enough to have one. */
  constructor(
    readonly status: TxStatusName,
    readonly reason: string,
    readonly hash?: Uint8Array,
  ) {
    super(`${status} (${TX_STATUS[status]}): ${reason}`);
    this.code = TX_STATUS[status];
  }
}
