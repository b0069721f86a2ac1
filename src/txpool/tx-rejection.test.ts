import { describe, expect, it } from 'vitest';
import { TX_STATUS } from '../chain/index.js';
import { TxRejectedError } from './tx-rejection.js';

describe('TxRejectedError', () => {
  it('names itself, and carries FISCO\'s status name and code and the reason', () => {
    const e = new TxRejectedError('NonceCheckFail', 'nonce 0x01 is in use', new Uint8Array(32));
    expect(e).toBeInstanceOf(Error);
    expect(e.name).toBe('TxRejectedError');
    expect(String(e)).toBe(`TxRejectedError: NonceCheckFail (${TX_STATUS.NonceCheckFail}): nonce 0x01 is in use`);
    expect(e.code).toBe(TX_STATUS.NonceCheckFail);
    expect(e.hash).toEqual(new Uint8Array(32));
  });
});
