/**
 * Transaction outcome codes (FISCO 2.x `TransactionException`); receipts carry the first 27,
 * pool rejections may also use the higher ones. Names are FISCO's.
 */
export const TX_STATUS = {
  None: 0,
  Unknown: 1,
  BadRLP: 2,
  InvalidFormat: 3,
  OutOfGasIntrinsic: 4,
  InvalidSignature: 5,
  InvalidNonce: 6,
  NotEnoughCash: 7,
  OutOfGasBase: 8,
  BlockGasLimitReached: 9,
  BadInstruction: 10,
  BadJumpDestination: 11,
  OutOfGas: 12,
  OutOfStack: 13,
  StackUnderflow: 14,
  NonceCheckFail: 15,
  BlockLimitCheckFail: 16,
  FilterCheckFail: 17,
  NoDeployPermission: 18,
  NoCallPermission: 19,
  NoTxPermission: 20,
  PrecompiledError: 21,
  RevertInstruction: 22,
  InvalidZeroSignatureFormat: 23,
  AddressAlreadyUsed: 24,
  PermissionDenied: 25,
  CallAddressError: 26,
  GasOverflow: 27,
  TxPoolIsFull: 28,
  TransactionRefused: 29,
  ContractFrozen: 30,
  AccountFrozen: 31,
  NotEnoughRemainGas: 32,
  AlreadyKnown: 10000,
  AlreadyInChain: 10001,
  InvalidChainId: 10002,
  InvalidGroupId: 10003,
  RequestNotBelongToTheGroup: 10004,
  MalformedTx: 10005,
  OverGroupMemoryLimit: 10006,
} as const;

export type TxStatusName = keyof typeof TX_STATUS;

const NAMES = new Map<number, TxStatusName>(
  (Object.entries(TX_STATUS) as Array<[TxStatusName, number]>).map(([name, code]) => [code, name]),
);

export function txStatusName(code: number): TxStatusName | undefined {
  return NAMES.get(code);
}
