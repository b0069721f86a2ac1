import { EVMError, type EVMResult } from '@ethereumjs/evm';
import type { Address } from '@ethereumjs/util';
import { TableNames, TX_STATUS, type ProtocolVersion, type ReturnCodeEncoding } from '../chain/index.js';
import { toHexNoPrefix, type HashFunction } from '../codec/index.js';
import { encodeErrorString } from '../abi/index.js';
import { createFiscoCommon, type FiscoStateManager } from '../state/index.js';
import { keccak256, type CryptoSuite } from '../crypto/index.js';
import { installEvmSpeedups, speedUpOpcodes } from './evm-speedups.js';
import { FiscoEvm } from './fisco-evm.js';
import { FISCO_BCOS_SCHEDULE_V2, fiscoGasSchedule, TX_CREATE_GAS, TX_DATA_NON_ZERO_GAS, TX_DATA_ZERO_GAS, TX_GAS, type FiscoGasSchedule } from './fisco-gas-schedule.js';
import type { CallContext } from './precompile.js';
import { PERMISSION_DENIED_ERROR, statusOfEvmError } from './receipt-status.js';
import { PRECOMPILE_CODE_MARKER, SystemPrecompiles, type PrecompileObserver } from './system-precompiles.js';
import { FiscoSystemTables } from './fisco-system-tables.js';
import { contractTableName, SYS_TABLES, SystemTables, type SystemTableApi } from './system-tables.js';
import { TableObjects } from './table-objects.js';
import { TableStore } from './table-store.js';

/** One message's outcome, in FISCO's terms. */
export interface MessageOutcome {
  readonly status: number;
  readonly output: Uint8Array;
  /** Gas consumed, intrinsic gas included. */
  readonly gasUsed: bigint;
  readonly contractAddress?: Address;
  readonly logs: ReadonlyArray<{ address: Uint8Array; topics: Uint8Array[]; data: Uint8Array }>;
}

export interface MessageInput {
  readonly from: Address;
  /** Undefined deploys `data` as init code. */
  readonly to: Address | undefined;
  readonly data: Uint8Array;
  /** tx_gas_limit in force for the block. */
  readonly gasLimit: bigint;
  /**
   * The transaction's own gas field (FISCO runs it with tx_gas_limit, but caps refunds with it);
   * undefined for calls: the cap is then half the gas used.
   */
  readonly txGas?: bigint;
}

/** Intrinsic gas, the same in every FISCO 2.x schedule (no EIP-2028 at ≥ 2.6): base cost plus calldata. */
export function intrinsicGas(data: Uint8Array, isCreation: boolean): bigint {
  let gas = isCreation ? TX_CREATE_GAS : TX_GAS;
  for (const b of data) gas += b === 0 ? TX_DATA_ZERO_GAS : TX_DATA_NON_ZERO_GAS;
  return gas;
}

const permissionDenied = () => new EVMError(PERMISSION_DENIED_ERROR as ConstructorParameters<typeof EVMError>[0]);

/** What a chain's supported_version decides for the engine (engineRulesOf reads them off a ProtocolVersion). */
export interface EngineRules {
  /** ≥ 2.4.0: precompiled calls cost FISCO's precompiled gas (before, nothing). */
  readonly precompileGas: boolean;
  /** The EVM gas schedule (fiscoGasSchedule). */
  readonly schedule: FiscoGasSchedule;
  /** The names user and account tables are stored under (ProtocolVersion.tableNames). */
  readonly tableNames: TableNames;
  /** How precompiled contracts write return codes (ProtocolVersion.returnCodes). */
  readonly returnCodes: ReturnCodeEncoding;
  /** CRUD's update refuses an entry naming the key field (ProtocolVersion.crudRefusesKeyUpdate). */
  readonly crudRefusesKeyUpdate: boolean;
  /** A precompiled call that throws a plain exception outputs its message (ProtocolVersion.exceptionOutput). */
  readonly exceptionOutput: boolean;
  /** Permission has grantWrite, revokeWrite and queryPermission (ProtocolVersion.contractWritePermission). */
  readonly contractWritePermission: boolean;
}

/** The engine's rules under a chain's supported_version. */
export function engineRulesOf(version: ProtocolVersion): EngineRules {
  return {
    precompileGas: version.atLeast('2.4.0'),
    schedule: fiscoGasSchedule(version),
    tableNames: version.tableNames,
    returnCodes: version.returnCodes,
    crudRefusesKeyUpdate: version.crudRefusesKeyUpdate,
    exceptionOutput: version.exceptionOutput,
    contractWritePermission: version.contractWritePermission,
  };
}

/** The rules an engine is given none of: those of the latest 2.x but the older gas schedule (tests build engines so). */
const DEFAULT_RULES: EngineRules = {
  precompileGas: true,
  schedule: FISCO_BCOS_SCHEDULE_V2,
  tableNames: TableNames.SHORT,
  returnCodes: 'int256',
  crudRefusesKeyUpdate: true,
  exceptionOutput: true,
  contractWritePermission: true,
};

/**
 * An EVM with FISCO's system contracts over one state manager, plus the context its
 * precompiles read (block number, tx.origin, table objects). The block executor has one over the
 * live state; read-only calls get one over a view.
 */
export class ExecutionEngine {
  readonly evm: FiscoEvm;
  readonly tables: SystemTableApi;
  readonly objects = new TableObjects();
  private readonly precompiles: SystemPrecompiles;
  private readonly observer: PrecompileObserver = { failed: false, ran: () => this.writeAllowed.clear() };
  /** Mutable backing of the CallContext the precompiles see. */
  private readonly context: { -readonly [K in keyof CallContext]: CallContext[K] };
  /** Contract write permissions for `writeAllowedAt`; dropped when a precompile runs or the block changes. */
  private readonly writeAllowed = new Map<string, boolean>();
  private writeAllowedAt = -1;

  constructor(
    readonly stateManager: FiscoStateManager,
    suite: CryptoSuite,
    allowConsensusTimeout: boolean,
    /** What the chain's supported_version decides (engineRulesOf); anything left out as DEFAULT_RULES. */
    rules: Partial<EngineRules> = {},
  ) {
    const { precompileGas, schedule, tableNames, returnCodes, crudRefusesKeyUpdate, exceptionOutput, contractWritePermission } = { ...DEFAULT_RULES, ...rules };
    const hash: HashFunction = (d) => suite.hash(d);
    // SM chains: guomi SDKs select system-contract methods with SM3, standard tooling with keccak.
    const selectorHashes = suite.name === 'sm' ? [hash, keccak256] : [hash];
    // FISCO's storage state keeps the system tables as tables; the trie in contract storage
    const blockTables = stateManager.blockTables?.bind(stateManager);
    this.tables = blockTables ? new FiscoSystemTables(blockTables) : new SystemTables(new TableStore(() => this.stateManager, hash));
    this.context = { number: 0, origin: '', tables: this.tables, objects: this.objects, hash, tableNames, returnCodes, crudRefusesKeyUpdate, exceptionOutput };
    this.precompiles = new SystemPrecompiles(selectorHashes, { allowConsensusTimeout, precompileGas, contractWritePermission }, () => this.context, this.observer);
    stateManager.codeOverride = (address) => (this.precompiles.isPrecompiled(address) ? PRECOMPILE_CODE_MARKER : undefined);
    stateManager.storageGuard = (address) => this.checkWrite(address);
    this.evm = new FiscoEvm({ common: createFiscoCommon(hash), stateManager }, this.precompiles, hash, schedule);
    speedUpOpcodes(this.evm);
  }

  /** Run one top-level message (a transaction or a call) as FISCO's Executive would. */
  async run(input: MessageInput, number: number): Promise<MessageOutcome> {
    await installEvmSpeedups();
    this.context.number = number;
    this.context.origin = input.from.toString();
    this.stateManager.origin = this.context.origin;
    this.objects.reset();
    if (this.writeAllowedAt !== number) {
      this.writeAllowed.clear();
      this.writeAllowedAt = number;
    }
    this.observer.failed = false;
    try {
      return await this.runMessage(input, number);
    } finally {
      this.objects.reset();
      // ethereumjs' journal keeps two entries per message checkpoint until a cleanup (the VM's
      // runTx does one per transaction; the EVM alone never): without this it grew by ~1 KB a
      // message, and each revert copied the whole list. Nothing here reads it across messages.
      if (this.evm.journal['journalHeight'] === 0) this.evm.journal.cleanJournal();
    }
  }

  private async runMessage(input: MessageInput, number: number): Promise<MessageOutcome> {
    const base = intrinsicGas(input.data, input.to === undefined);
    if (base > input.gasLimit) {
      return { status: TX_STATUS.OutOfGasIntrinsic, output: new Uint8Array(0), gasUsed: input.gasLimit, logs: [] };
    }
    const gas = input.gasLimit - base;
    if (input.to === undefined) {
      if (!(await this.tables.mayWrite(SYS_TABLES, input.from.toString(), number))) {
        return { status: TX_STATUS.PermissionDenied, output: new Uint8Array(0), gasUsed: input.gasLimit, logs: [] };
      }
      const result = await this.evm.runCall({ caller: input.from, origin: input.from, data: input.data, gasLimit: gas });
      const outcome = this.outcome(result, base, input);
      // FISCO's Executive::go keeps a creation's return data (the runtime code) out of the receipt:
      // a deploy's output is empty unless it reverted (the real SM block 2's receipt says "0x")
      return outcome.status === TX_STATUS.None ? { ...outcome, output: new Uint8Array(0) } : outcome;
    }
    const isSystem = this.precompiles.isSystemContract(input.to);
    if (!isSystem && !this.precompiles.isPrecompiled(input.to) && (await this.stateManager.getStoredCode(input.to)).length === 0) {
      return {
        status: TX_STATUS.CallAddressError,
        output: encodeErrorString(`Error address:${toHexNoPrefix(input.to.bytes)}`),
        gasUsed: base,
        logs: [],
      };
    }
    const result = await this.evm.runCall({
      caller: input.from,
      origin: input.from,
      to: input.to,
      data: input.data,
      gasLimit: gas,
      skipNonceIncrement: true,
    });
    const outcome = this.outcome(result, base, input);
    if (isSystem && outcome.status === TX_STATUS.RevertInstruction && this.observer.failed) {
      return { ...outcome, status: this.observer.failed === 'exception' ? TX_STATUS.Unknown : TX_STATUS.PrecompiledError };
    }
    return outcome;
  }

  private outcome(result: EVMResult, base: bigint, input: MessageInput): MessageOutcome {
    const exec = result.execResult;
    const status = statusOfEvmError(exec.exceptionError?.error);
    const used = base + exec.executionGasUsed;
    const refund = status === TX_STATUS.None ? refundOf(exec.gasRefund ?? 0n, used, input) : 0n;
    const keepsOutput = status === TX_STATUS.None || status === TX_STATUS.RevertInstruction;
    return {
      status,
      output: keepsOutput ? exec.returnValue : new Uint8Array(0),
      gasUsed: min(used - refund, input.gasLimit),
      ...(status === TX_STATUS.None && result.createdAddress ? { contractAddress: result.createdAddress } : {}),
      logs:
        status === TX_STATUS.None
          ? (exec.logs ?? []).map(([address, topics, data]) => ({ address, topics, data }))
          : [],
    };
  }

  /** FISCO's Permission.grantWrite: storage writes to a contract need tx.origin on its list (if it has one). */
  private async checkWrite(address: Address): Promise<void> {
    const contract = address.toString();
    if (contract === '0x0000000000000000000000000000000000001001') return; // the table store itself
    const key = `${contract}/${this.context.origin}`;
    let allowed = this.writeAllowed.get(key);
    if (allowed === undefined) {
      allowed = await this.tables.mayWrite(contractTableName(contract, this.context.tableNames), this.context.origin, this.context.number);
      this.writeAllowed.set(key, allowed);
    }
    if (!allowed) throw permissionDenied();
  }
}

/**
 * Executive::finalize: refunded = min((tx.gas − gas left) / 2, refunds) in u256, gas left
 * counting from tx_gas_limit. With tx.gas = tx_gas_limit (what SDKs send) that is half the gas
 * used; a smaller tx.gas lowers the cap, and one below the gas left wraps around (no cap at all).
 */
function refundOf(refunds: bigint, used: bigint, input: MessageInput): bigint {
  if (input.txGas === undefined) return min(refunds, used / 2n);
  const spent = input.txGas - (input.gasLimit - used);
  return spent < 0n ? refunds : min(refunds, spent / 2n);
}

function min(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}
