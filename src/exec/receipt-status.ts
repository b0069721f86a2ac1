import { TX_STATUS } from '../chain/index.js';

/** Our marker for a storage write refused by Permission.grantWrite (see the storage guard). */
export const PERMISSION_DENIED_ERROR = 'permission denied';

/** An ethereumjs exceptional-halt message → FISCO receipt status (as FISCO's Executive maps EVMC codes). */
export function statusOfEvmError(error: string | undefined): number {
  // some messages carry a location suffix ("invalid JUMP at 0x…/0x…:2")
  const at = error?.indexOf(' at ') ?? -1;
  switch (at >= 0 ? error!.slice(0, at) : error) {
    case undefined:
      return TX_STATUS.None;
    case 'revert':
      return TX_STATUS.RevertInstruction;
    case 'out of gas':
    case 'code store out of gas':
    case 'code size to deposit exceeds maximum code size':
      return TX_STATUS.OutOfGas;
    case 'invalid opcode':
      return TX_STATUS.BadInstruction;
    case 'invalid JUMP':
      return TX_STATUS.BadJumpDestination;
    case 'stack overflow':
      return TX_STATUS.OutOfStack;
    case 'stack underflow':
      return TX_STATUS.StackUnderflow;
    case 'create collision':
      return TX_STATUS.AddressAlreadyUsed;
    case PERMISSION_DENIED_ERROR:
      return TX_STATUS.PermissionDenied;
    default:
      return TX_STATUS.Unknown;
  }
}
