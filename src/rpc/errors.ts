import { TxDecodeError, type TxStatusName } from '../chain/index.js';
import { CodecError, toQuantity, type InterfaceVariant } from '../codec/index.js';

/**
 * Every error the JSON-RPC layer sends, with SPEC.md's code and message text. Standard errors
 * append a detail to the message ("INVALID_PARAMS: groupID: ..."); service errors (-400xx) keep
 * SPEC's exact message, because SDKs compare it, and carry the detail in `data`.
 */
export const RPC_ERRORS = {
  parseError: { code: -32700, message: 'JSON_PARSE_ERROR' },
  invalidRequest: { code: -32600, message: 'INVALID_JSON_REQUEST' },
  methodNotFound: { code: -32601, message: 'METHOD_NOT_FOUND' },
  invalidParams: { code: -32602, message: 'INVALID_PARAMS' },
  internalError: { code: -32603, message: 'INTERNAL ERROR' },
  procedureIsMethod: { code: -32604, message: 'PROCEDURE_IS_METHOD' },
  groupNotFound: { code: -40001, message: 'GroupID does not exist' },
  responseParse: { code: -40002, message: 'Response json parse error' },
  blockHashNotFound: { code: -40003, message: 'BlockHash does not exist' },
  blockNumberNotFound: { code: -40004, message: 'BlockNumber does not exist' },
  transactionIndexOutOfRange: { code: -40005, message: 'TransactionIndex is out of range' },
  callNeedsFrom: { code: -40006, message: "Call needs a 'from' field" },
  // The earlier variant answers this condition with code 7 and data null (see noPbftViewError).
  noPbftView: { code: -40007, message: 'Only pbft consensus supports the view property' },
  invalidSystemConfig: { code: -40008, message: 'Invalid System Config' },
  notInGroup: { code: -40009, message: "Don't send requests to this group, the node doesn't belong to the group" },
} as const;

export type RpcErrorKind = keyof typeof RPC_ERRORS;

const STANDARD = new Set<number>([-32700, -32600, -32601, -32602, -32603, -32604]);

/** An error reply: code, message and optional data, exactly as it goes on the wire. */
export class RpcError extends Error {
  override readonly name = 'RpcError';
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }

  toJSON(): { code: number; message: string; data?: unknown } {
    return this.data === undefined ? { code: this.code, message: this.message } : { code: this.code, message: this.message, data: this.data };
  }
}

/** The error of that kind; `detail` says what, where and why. */
export function rpcError(kind: RpcErrorKind, detail?: string): RpcError {
  const { code, message } = RPC_ERRORS[kind];
  if (STANDARD.has(code)) return new RpcError(code, detail ? `${message}: ${detail}` : message);
  return new RpcError(code, message, detail);
}

/**
 * getPbftView on a group that does not run PBFT. SPEC gives the -400xx table for the later
 * variant only; its earlier-variant example shows code 7, the same message and data null.
 */
export function noPbftViewError(variant: InterfaceVariant, detail: string): RpcError {
  const { code, message } = RPC_ERRORS.noPbftView;
  return variant === 'earlier' ? new RpcError(EARLIER_NO_PBFT_VIEW_CODE, message, null) : new RpcError(code, message, detail);
}

/** The earlier variant's code for getPbftView on a non-PBFT group. */
export const EARLIER_NO_PBFT_VIEW_CODE = 7;

/** A refused sendRawTransaction: "BlockLimitCheckFail (16): blockLimit 5 not in (10, 1010]" (-32603, as FISCO answers). */
export function rejectionError(rejection: { status: number; name: TxStatusName | string; reason: string }): RpcError {
  return new RpcError(RPC_ERRORS.internalError.code, `${rejection.name} (${rejection.status}): ${rejection.reason}`, {
    status: toQuantity(rejection.status),
    name: rejection.name,
  });
}

/**
 * The one table from typed errors of the layers below to replies. Handlers throw RpcError for
 * conditions they detect themselves; anything else lands here.
 */
export function toRpcError(error: unknown, method: string): RpcError {
  if (error instanceof RpcError) return error;
  if (error instanceof CodecError) return rpcError('invalidParams', error.message);
  if (error instanceof TxDecodeError) return rejectionError({ status: error.code, name: error.status, reason: error.message.slice(error.status.length + 2) });
  if (error instanceof RangeError && /call stack/i.test(error.message)) {
    return rpcError('invalidRequest', `${method}: the request is nested too deeply to process`);
  }
  const text = error instanceof Error ? error.message : String(error);
  return rpcError('internalError', `${method}: ${text}`);
}
