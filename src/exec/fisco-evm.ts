import { createCustomCommon, Hardfork, Mainnet, type Common } from '@ethereumjs/common';
import {
  EVM,
  EVMError,
  EVMMockBlockchain,
  getActivePrecompiles,
  NobleBN254,
  paramsEVM,
  type CustomPrecompile,
  type EVMOpts,
  type PrecompileFunc,
} from '@ethereumjs/evm';
import type { Message } from '@ethereumjs/evm';
import { Account, Address, createAddressFromString } from '@ethereumjs/util';
import { bigintToBytes, concatBytes, rlpEncode, type HashFunction } from '../codec/index.js';
import type { FiscoStateManager } from '../state/index.js';
import { applyFiscoGasFunctions, FISCO_BCOS_SCHEDULE_V2, type FiscoGasSchedule } from './fisco-gas-schedule.js';
import type { SystemPrecompiles } from './system-precompiles.js';

/** FISCO 2.x from supported_version 2.0.1 on (FiscoBcosScheduleV2 and V3): a 256 KiB code limit. */
export const MAX_CODE_SIZE = FISCO_BCOS_SCHEDULE_V2.maxCodeSize;

function fiscoParams(schedule: FiscoGasSchedule): NonNullable<EVMOpts['params']> {
  const params = structuredClone(paramsEVM);
  params[607]!.maxCodeSize = schedule.maxCodeSize;
  if (schedule.ethereumPrecompiles === 'istanbul' && !schedule.istanbul) {
    // 2.5.x: Istanbul's precompile prices (EIP-1108, EIP-152) on the Petersburg opcodes
    Object.assign(params[609]!, { bn254AddGas: 150, bn254MulGas: 6000, bn254PairingGas: 45000, bn254PairingWordGas: 34000, blake2RoundGas: 1 });
  }
  return params;
}

const ethereumPrecompileAddress = (n: number) => createAddressFromString(`0x${n.toString(16).padStart(40, '0')}`);
const ethereumPrecompileKey = (n: number) => n.toString(16).padStart(40, '0');
/** More gas than any precompile can ask for. */
const UNMETERED = 1n << 62n;

/** A precompile that runs as `run` does but costs nothing (FISCO before 2.5.0). */
function free(run: PrecompileFunc): PrecompileFunc {
  return async (input) => ({ ...(await run({ ...input, gasLimit: UNMETERED })), executionGasUsed: 0n });
}

/** The Ethereum precompiles as FISCO has them at the schedule's supported_version (see fisco-gas-schedule.ts). */
function fiscoEthereumPrecompiles(common: Common, schedule: FiscoGasSchedule): CustomPrecompile[] {
  if (schedule.ethereumPrecompiles === 'free') {
    const stock = getActivePrecompiles(common);
    const list: CustomPrecompile[] = [];
    for (let n = 1; n <= 4; n++) list.push({ address: ethereumPrecompileAddress(n), function: free(stock.get(ethereumPrecompileKey(n))!) });
    for (let n = 5; n <= 9; n++) list.push({ address: ethereumPrecompileAddress(n) });
    return list;
  }
  if (schedule.istanbul) return [];
  // 2.5.x: blake2 at 0x9 already, on the Petersburg opcodes
  const istanbul = getActivePrecompiles(createCustomCommon({ chainId: 1 }, Mainnet, { hardfork: Hardfork.Istanbul }));
  return [{ address: ethereumPrecompileAddress(9), function: istanbul.get(ethereumPrecompileKey(9))! }];
}

/**
 * The ethereumjs EVM with FISCO's differences: system contracts and table objects as
 * precompiles, contract addresses from the chain's hash with FISCO's nonces (new contracts
 * start at nonce 0, where Ethereum starts them at 1), and the gas schedule of the chain's
 * supported_version (see fisco-gas-schedule.ts; `opts.common` is moved to its hardfork).
 */
export class FiscoEvm extends EVM {
  constructor(
    opts: EVMOpts & { common: Common },
    private readonly system: SystemPrecompiles,
    private readonly hash: HashFunction,
    readonly schedule: FiscoGasSchedule = FISCO_BCOS_SCHEDULE_V2,
  ) {
    opts.common.setHardfork(schedule.hardfork);
    super({
      ...opts,
      bn254: new NobleBN254(),
      blockchain: opts.blockchain ?? new EVMMockBlockchain(),
      params: fiscoParams(schedule),
      customPrecompiles: fiscoEthereumPrecompiles(opts.common, schedule),
    });
    applyFiscoGasFunctions(this, schedule);
  }

  /** ethereumjs rebuilds its opcode tables on a hardfork change: FISCO's gas functions go back in. */
  override getActiveOpcodes(): ReturnType<EVM['getActiveOpcodes']> {
    const opcodes = super.getActiveOpcodes();
    // undefined while EVM's own constructor runs (the constructor above applies them then)
    if (this.schedule) applyFiscoGasFunctions(this, this.schedule);
    return opcodes;
  }

  /**
   * FISCO's Executive::parseEVMCResult leaves a message's gas untouched when the VM reports
   * EVMC_OUT_OF_GAS: the failed message charges nothing, so a transaction that runs out of gas
   * pays its intrinsic gas only, and a caller gets a sub-call's whole gas back (the other VM
   * errors, bad jumps, invalid opcodes and stack faults, still take it all).
   */
  override async runCall(opts: Parameters<EVM['runCall']>[0]): ReturnType<EVM['runCall']> {
    const result = await super.runCall(opts);
    if (result.execResult.exceptionError?.error === EVMError.errorMessages.OUT_OF_GAS) result.execResult.executionGasUsed = 0n;
    return result;
  }

  override getPrecompile(address: Parameters<EVM['getPrecompile']>[0]): ReturnType<EVM['getPrecompile']> {
    const addr = typeof address === 'string' ? createAddressFromString(address) : address;
    return (this.system.lookup(addr) as ReturnType<EVM['getPrecompile']>) ?? super.getPrecompile(address);
  }

  protected override async _generateAddress(message: Message): Promise<Address> {
    if (message.salt) {
      const codeHash = this.hash(message.code as Uint8Array);
      return new Address(this.hash(concatBytes(Uint8Array.of(0xff), message.caller.bytes, message.salt, codeHash)).subarray(12));
    }
    const account = (await this.stateManager.getAccount(message.caller)) ?? new Account();
    // ethereumjs has already bumped the nonce; contracts also started one higher than FISCO's.
    const nonce = account.nonce - 1n - (message.depth > 0 ? 1n : 0n);
    const address = new Address(this.hash(rlpEncode([message.caller.bytes, bigintToBytes(nonce < 0n ? 0n : nonce)])).subarray(12));
    (this.stateManager as FiscoStateManager).beginCreate?.(address);
    return address;
  }

  protected override async _executeCreate(message: Message): ReturnType<EVM['_executeCreate']> {
    try {
      return await super._executeCreate(message);
    } finally {
      if (message.to) (this.stateManager as FiscoStateManager).endCreate?.(message.to);
    }
  }
}
