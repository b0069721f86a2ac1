import { TX_STATUS, type TxStatusName } from '../chain/index.js';

/** A transaction the pool refused: FISCO's status name and code, and why in words. */
export class TxRejectedError extends Error {
  override readonly name = 'TxRejectedError';
  readonly code: number;

  constructor(
    readonly status: TxStatusName,
    readonly reason: string,
  ) {
    super(`${status} (${TX_STATUS[status]}): ${reason}`);
    this.code = TX_STATUS[status];
  }
}
