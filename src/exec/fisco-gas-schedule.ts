import { Hardfork } from '@ethereumjs/common';
import { EVMError } from '@ethereumjs/evm';
import { bigIntToBytes, bytesToBigInt, setLengthLeft } from '@ethereumjs/util';
import type { ProtocolVersion } from '../chain/index.js';

/*
 * The EVM gas schedule of FISCO BCOS 2.x, per supported_version.
 *
 * libinitializer/GlobalConfigureInitializer.cpp picks the schedule from supported_version:
 * ≤ 2.0.0 FiscoBcosSchedule, < 2.6.0 FiscoBcosScheduleV2, from 2.6.0 FiscoBcosScheduleV3
 * (libethcore/EVMSchedule.h): aleth's ConstantinopleSchedule, then the same with a 256 KiB code
 * limit, then that with enableIstanbul. The opcodes run in FISCO's evmone fork (VMFactory's
 * default), at EVMC_CONSTANTINOPLE, or EVMC_ISTANBUL when enableIstanbul is set
 * (EVMInstance.cpp toRevision). evmone prices every opcode from its own tables, not from the
 * EVMSchedule (whose blockhashGas 800 is never read: BLOCKHASH costs 20); the schedule itself
 * only feeds the Executive (intrinsic gas, code deposit 200/byte, maxCodeSize, refunds).
 *
 * - Constantinople (< 2.6.0): FISCO's evmone charges SSTORE by the host's status, with the
 *   EIP-1283 200 for an unchanged slot commented out: unchanged / modified / deleted 5000, added
 *   20000; the host (EVMHostInterface.cpp setStorage) refunds 15000 on delete and never reports
 *   "modified again". That is ethereumjs' Petersburg SSTORE exactly, and Petersburg's opcode
 *   prices are evmone's Constantinople table (SLOAD 200, BALANCE 400, EXTCODEHASH 400,
 *   BLOCKHASH 20), so ethereumjs runs at Petersburg unchanged.
 * - Istanbul (≥ 2.6.0): evmone's Istanbul table has EIP-1884 (SLOAD 800, BALANCE 700,
 *   EXTCODEHASH 700, SELFBALANCE 5) and CHAINID 2, as ethereumjs' Istanbul; its SSTORE keeps the
 *   2300-gas sentry of EIP-2200 but not EIP-2200's net metering: unchanged 800, added 20000,
 *   modified / deleted 5000 whatever the slot held at the start of the transaction, refund 15000
 *   on delete only. ethereumjs' EIP-2200 SSTORE is replaced by fiscoIstanbulSstoreGas.
 *
 * Intrinsic gas is the same in all three (21000 / 53000 + 4 per zero, 68 per non-zero byte: no
 * EIP-2028), refunds are capped at half the gas used, SELFDESTRUCT refunds 24000.
 *
 * The Ethereum precompiles follow another threshold, 2.5.0 (not part of FISCO's EVMSchedule, but
 * of the same question: what a message costs at a supported_version). Before 2.5.0 only 0x1–0x4
 * exist (blockverifier/ExecutiveContextFactory.h registers 0x5–0x9 from V2_5_0) and they cost
 * nothing (Executive::callRC2 charges costOfPrecompiled from V2_5_0 only). From 2.5.0 0x1–0x9 all
 * exist at Istanbul prices whatever the schedule: ALT_BN128 add 150 and mul 6000 are registered
 * as literals, pairing 45000 + 34000 per pair, blake2 1 per round, modexp EIP-198.
 */

export type FiscoScheduleName = 'FiscoBcosSchedule' | 'FiscoBcosScheduleV2' | 'FiscoBcosScheduleV3';

export interface FiscoGasSchedule {
  readonly name: FiscoScheduleName;
  /** The ethereumjs hardfork whose opcode set and static prices are FISCO's. */
  readonly hardfork: Hardfork;
  /** EVMSchedule.maxCodeSize: a longer deployed code fails the creation with OutOfGas. */
  readonly maxCodeSize: number;
  /** enableIstanbul: evmone runs at EVMC_ISTANBUL (FISCO's own SSTORE pricing applies). */
  readonly istanbul: boolean;
  /**
   * The Ethereum precompiles (keyed on 2.5.0, not on the schedule): 'free' = 0x1–0x4 only, at no
   * cost; 'istanbul' = 0x1–0x9 at Istanbul prices.
   */
  readonly ethereumPrecompiles: 'free' | 'istanbul';
}

export const FISCO_BCOS_SCHEDULE: FiscoGasSchedule = Object.freeze({
  name: 'FiscoBcosSchedule',
  hardfork: Hardfork.Petersburg,
  maxCodeSize: 0x6000,
  istanbul: false,
  ethereumPrecompiles: 'free',
});

/** FiscoBcosScheduleV2 before 2.5.0. */
export const FISCO_BCOS_SCHEDULE_V2: FiscoGasSchedule = Object.freeze({
  name: 'FiscoBcosScheduleV2',
  hardfork: Hardfork.Petersburg,
  maxCodeSize: 0x40000,
  istanbul: false,
  ethereumPrecompiles: 'free',
});

/** FiscoBcosScheduleV2 from 2.5.0 (the Ethereum precompiles at Istanbul prices). */
export const FISCO_BCOS_SCHEDULE_V2_5: FiscoGasSchedule = Object.freeze({ ...FISCO_BCOS_SCHEDULE_V2, ethereumPrecompiles: 'istanbul' });

export const FISCO_BCOS_SCHEDULE_V3: FiscoGasSchedule = Object.freeze({
  name: 'FiscoBcosScheduleV3',
  hardfork: Hardfork.Istanbul,
  maxCodeSize: 0x40000,
  istanbul: true,
  ethereumPrecompiles: 'istanbul',
});

/** 2.0.0 as FISCO numbers it (0x02000000): the last version on FiscoBcosSchedule. */
const V2_0_0 = 0x02000000;

/** The schedule a chain at `version` runs (GlobalConfigureInitializer.cpp). */
export function fiscoGasSchedule(version: ProtocolVersion): FiscoGasSchedule {
  if (version.atLeast('2.6.0')) return FISCO_BCOS_SCHEDULE_V3;
  if (version.atLeast('2.5.0')) return FISCO_BCOS_SCHEDULE_V2_5;
  return version.number <= V2_0_0 ? FISCO_BCOS_SCHEDULE : FISCO_BCOS_SCHEDULE_V2;
}

/** Intrinsic gas (Transaction::baseGasRequired over any FISCO schedule). */
export const TX_GAS = 21_000n;
export const TX_CREATE_GAS = 53_000n;
export const TX_DATA_ZERO_GAS = 4n;
export const TX_DATA_NON_ZERO_GAS = 68n;

/** evmone's SSTORE at EVMC_ISTANBUL with FISCO's gas metrics (ethMetrics) and host statuses. */
export const ISTANBUL_SSTORE = Object.freeze({
  sentry: 2300n,
  unchanged: 800n,
  added: 20_000n,
  modified: 5_000n,
  deleteRefund: 15_000n,
});

/** What the SSTORE gas function needs of ethereumjs' run state. */
interface SstoreRunState {
  readonly stack: { peek(n: number): bigint[] };
  readonly interpreter: {
    isStatic(): boolean;
    getGasLeft(): bigint;
    storageLoad(key: Uint8Array): Promise<Uint8Array>;
    refundGas(amount: bigint, context?: string): void;
  };
}

/**
 * SSTORE's dynamic gas at supported_version ≥ 2.6.0: FISCO's evmone at EVMC_ISTANBUL. Static
 * calls fail first, then the sentry (gas left ≤ 2300 is out of gas, nothing charged yet), then
 * the price of the host's status against the slot's current value.
 */
export async function fiscoIstanbulSstoreGas(runState: SstoreRunState, gas: bigint): Promise<bigint> {
  const interpreter = runState.interpreter;
  if (interpreter.isStatic()) throw new EVMError(EVMError.errorMessages.STATIC_STATE_CHANGE!);
  if (interpreter.getGasLeft() <= ISTANBUL_SSTORE.sentry) throw new EVMError(EVMError.errorMessages.OUT_OF_GAS!);
  const [key, value] = runState.stack.peek(2) as [bigint, bigint];
  const current = bytesToBigInt(await interpreter.storageLoad(setLengthLeft(bigIntToBytes(key), 32)));
  if (value === current) return gas + ISTANBUL_SSTORE.unchanged;
  if (current === 0n) return gas + ISTANBUL_SSTORE.added;
  if (value === 0n) interpreter.refundGas(ISTANBUL_SSTORE.deleteRefund, 'FISCO SSTORE delete');
  return gas + ISTANBUL_SSTORE.modified;
}

const SSTORE = 0x55;

interface OpcodeTableOwner {
  _opcodeMap?: Array<{ gasHandler?: unknown } | undefined>;
  _dynamicGasHandlers?: Map<number, unknown>;
}

/** Puts the schedule's own gas functions into an EVM's opcode tables (after every rebuild of them). */
export function applyFiscoGasFunctions(evm: object, schedule: FiscoGasSchedule): void {
  if (!schedule.istanbul) return;
  const owner = evm as OpcodeTableOwner;
  const entry = owner._opcodeMap?.[SSTORE];
  if (!entry || !owner._dynamicGasHandlers) throw new Error('ethereumjs EVM internals changed: no SSTORE entry to price');
  entry.gasHandler = fiscoIstanbulSstoreGas;
  owner._dynamicGasHandlers.set(SSTORE, fiscoIstanbulSstoreGas);
}
