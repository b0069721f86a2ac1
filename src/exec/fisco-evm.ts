import { EVM, EVMMockBlockchain, NobleBN254, paramsEVM, type EVMOpts } from '@ethereumjs/evm';
import type { Message } from '@ethereumjs/evm';
import { Account, Address, createAddressFromString } from '@ethereumjs/util';
import { bigintToBytes, concatBytes, rlpEncode, type HashFunction } from '../codec/index.js';
import type { FiscoStateManager } from '../state/index.js';
import type { SystemPrecompiles } from './system-precompiles.js';

/** FISCO 2.x (FiscoBcosScheduleV2): Constantinople with a 256 KiB code limit. */
export const MAX_CODE_SIZE = 0x40000;

function fiscoParams(): NonNullable<EVMOpts['params']> {
  const params = structuredClone(paramsEVM);
  params[607]!.maxCodeSize = MAX_CODE_SIZE;
  return params;
}

/**
 * The ethereumjs EVM with FISCO's differences: system contracts and table objects as
 * precompiles, and contract addresses from the chain's hash with FISCO's nonces (new contracts
 * start at nonce 0, where Ethereum starts them at 1).
 */
export class FiscoEvm extends EVM {
  constructor(
    opts: EVMOpts,
    private readonly system: SystemPrecompiles,
    private readonly hash: HashFunction,
  ) {
    super({ ...opts, bn254: new NobleBN254(), blockchain: opts.blockchain ?? new EVMMockBlockchain(), params: fiscoParams() });
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
