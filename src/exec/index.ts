export {
  BlockExecutor,
  ExecutionError,
  DEFAULT_TX_COUNT_LIMIT,
  DEFAULT_TX_GAS_LIMIT,
  isFailedStatus,
  type BlockDraft,
  type CallRequest,
  type CallResult,
  type ExecutedBlock,
  type ExecuteOptions,
  type ExpectedReceipt,
} from './block-executor.js';
export { intrinsicGas, type MessageOutcome } from './execution-engine.js';
export { ExecutionMemo, type MemoEntry } from './execution-memo.js';
export { withStockInterpreter } from './evm-speedups.js';
export { MAX_CODE_SIZE } from './fisco-evm.js';
export {
  fiscoGasSchedule,
  FISCO_BCOS_SCHEDULE,
  FISCO_BCOS_SCHEDULE_V2,
  FISCO_BCOS_SCHEDULE_V2_5,
  FISCO_BCOS_SCHEDULE_V3,
  type FiscoGasSchedule,
  type FiscoScheduleName,
} from './fisco-gas-schedule.js';
export { PRECOMPILE_ADDRESSES, precompileAddress } from './system-precompiles.js';
export {
  CODE_SUCCESS,
  CODE_NO_AUTHORIZED,
  CODE_TABLE_NAME_ALREADY_EXIST,
  CODE_UNKNOW_FUNCTION_CALL,
  CODE_TABLE_NOT_EXIST,
  CODE_TABLE_AND_ADDRESS_EXIST,
  CODE_TABLE_AND_ADDRESS_NOT_EXIST,
  CODE_INVALID_NODEID,
  CODE_LAST_SEALER,
  CODE_ADDRESS_AND_VERSION_EXIST,
  CODE_VERSION_LENGTH_OVERFLOW,
  CODE_INVALID_CONFIGURATION_VALUES,
  CODE_PARSE_ENTRY_ERROR,
  CODE_PARSE_CONDITION_ERROR,
  CODE_CONDITION_OPERATION_UNDEFINED,
} from './precompile.js';
export { CONFIG_BOUNDS, configValueError } from './system-config-precompile.js';
export { CNS_VERSION_MAX_LENGTH } from './cns-precompile.js';
export { contractTableName, SYS_CONFIG, SYS_CONSENSUS, SYS_CNS, SYS_TABLES, SYS_TABLE_ACCESS, type ConsensusNodes, type NodeType } from './system-tables.js';
export { statusOfEvmError } from './receipt-status.js';
