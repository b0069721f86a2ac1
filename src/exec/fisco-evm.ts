import { EVM, EVMMockBlockchain, NobleBN254, paramsEVM, type EVMOpts } from '@ethereumjs/evm';
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
  return params;
}

/**
 * The ethereumjs EVM with FISCO's differences: system contracts and table objects as
 * precompiles, contract addresses from the chain's hash with FISCO's nonces (new contracts
 * start at nonce 0, where Ethereum starts them at 1), and the gas schedule of the chain's
 * supported_version (see fisco-gas-schedule.ts; `opts.common` is moved to its hardfork).
 */
export class FiscoEvm extends EVM {
  constructor(
    opts: EVMOpts,
    private readonly system: SystemPrecompiles,
    private readonly hash: HashFunction,
    readonly schedule: FiscoGasSchedule = FISCO_BCOS_SCHEDULE_V2,
  ) {
    opts.common?.setHardfork(schedule.hardfork);
    super({ ...opts, bn254: new NobleBN254(), blockchain: opts.blockchain ?? new EVMMockBlockchain(), params: fiscoParams(schedule) });
    applyFiscoGasFunctions(this, schedule);
  }

  /** ethereumjs rebuilds its opcode tables on a hardfork change: FISCO's gas functions go back in. */
  override getActiveOpcodes(): ReturnType<EVM['getActiveOpcodes']> {
    const opcodes = super.getActiveOpcodes();
    // undefined while EVM's own constructor runs (the constructor above applies them then)
    if (this.schedule) applyFiscoGasFunctions(this, this.schedule);
    return opcodes;
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
