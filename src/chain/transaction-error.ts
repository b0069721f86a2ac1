import { TX_STATUS } from './status.js';

export type TxDecodeStatus = 'BadRLP' | 'InvalidFormat' | 'InvalidSignature';

/** A transaction payload that could not be accepted; names FISCO's status and, when known, the field. */
export class TxDecodeError extends Error {
  override readonly name = 'TxDecodeError';
  /** FISCO's numeric status for `status` (2, 3 or 5). */
  readonly code: number;

  constructor(
    readonly status: TxDecodeStatus,
    readonly field: string | null,
    readonly detail: string,
  ) {
    super(`${status}: ${field ? `field ${field}: ` : ''}${detail}`);
    this.code = TX_STATUS[status];
  }
}
