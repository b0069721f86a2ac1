import type { ExecResult, PrecompileInput } from '@ethereumjs/evm';
import { EVMError } from '@ethereumjs/evm';
import { Address } from '@ethereumjs/util';
import { bigintToFixedBytes, bytesToBigint } from '../codec/index.js';
import { encodeErrorString } from '../abi/index.js';
import { cnsPrecompile } from './cns-precompile.js';
import { consensusPrecompile } from './consensus-precompile.js';
import { crudPrecompile } from './crud-precompile.js';
import { permissionPrecompile } from './permission-precompile.js';
import type { PrecompiledContract} from './precompile.js';
import { PrecompileFailure, type CallContext, type SelectorHashes } from './precompile.js';
import { systemConfigPrecompile } from './system-config-precompile.js';
import { FIRST_OBJECT_ADDRESS, OBJECT_ADDRESS_END } from './table-objects.js';
import { tableFactoryPrecompile, tableObjectContracts } from './table-precompiles.js';

/** FISCO 2.x system contract addresses. */
export const PRECOMPILE_ADDRESSES = {
  SystemConfig: 0x1000n,
  TableFactory: 0x1001n,
  CRUD: 0x1002n,
  Consensus: 0x1003n,
  CNS: 0x1004n,
  Permission: 0x1005n,
} as const;

export const precompileAddress = (n: bigint): Address => new Address(bigintToFixedBytes(n, 20));

/** What EXTCODESIZE sees at a precompiled address (FISCO reports size 1). */
export const PRECOMPILE_CODE_MARKER = Uint8Array.of(0xfe);

export type PrecompileFn = (input: PrecompileInput) => Promise<ExecResult>;

/**
 * Told about precompile runs: a failure gives a transaction sent straight to a system contract
 * status 21 (PrecompiledError), or 1 (Unknown) when it was a plain exception.
 */
export interface PrecompileObserver {
  failed: false | PrecompileFailure['kind'];
  /** A system contract or table object is about to run (it may change permissions). */
  ran(): void;
}

/**
 * The system contracts 0x1000–0x1005 and the live Table API objects, as ethereumjs precompile
 * functions that run against the current call context.
 */
export class SystemPrecompiles {
  private readonly fixed: Map<bigint, PrecompiledContract>;
  private readonly objects: ReturnType<typeof tableObjectContracts>;

  constructor(
    hash: SelectorHashes,
    /**
     * `precompileGas`: charge FISCO's precompiled gas (supported_version ≥ 2.4.0; before, they cost
     * nothing). `contractWritePermission`: Permission has its contract methods (≥ 2.3.0).
     */
    private readonly options: { allowConsensusTimeout: boolean; precompileGas: boolean; contractWritePermission: boolean },
    private readonly context: () => CallContext,
    private readonly observer: PrecompileObserver,
  ) {
    this.fixed = new Map<bigint, PrecompiledContract>([
      [PRECOMPILE_ADDRESSES.SystemConfig, systemConfigPrecompile(hash, options.allowConsensusTimeout)],
      [PRECOMPILE_ADDRESSES.TableFactory, tableFactoryPrecompile(hash)],
      [PRECOMPILE_ADDRESSES.CRUD, crudPrecompile(hash)],
      [PRECOMPILE_ADDRESSES.Consensus, consensusPrecompile(hash)],
      [PRECOMPILE_ADDRESSES.CNS, cnsPrecompile(hash)],
      [PRECOMPILE_ADDRESSES.Permission, permissionPrecompile(hash, options.contractWritePermission)],
    ]);
    this.objects = tableObjectContracts(hash);
  }

  /** Whether the address is a system contract or a live table object. */
  isPrecompiled(address: Address): boolean {
    const n = bytesToBigint(address.bytes);
    if (this.fixed.has(n)) return true;
    return n >= FIRST_OBJECT_ADDRESS && n < OBJECT_ADDRESS_END && this.context().objects.get(address) !== undefined;
  }

  isSystemContract(address: Address): boolean {
    return this.fixed.has(bytesToBigint(address.bytes));
  }

  /** The ethereumjs precompile function for an address, or undefined. */
  lookup(address: Address): PrecompileFn | undefined {
    const n = bytesToBigint(address.bytes);
    const contract = this.fixed.get(n);
    if (contract) return (input) => this.run(contract, undefined, input);
    if (n < FIRST_OBJECT_ADDRESS || n >= OBJECT_ADDRESS_END) return undefined;
    const object = this.context().objects.get(address);
    if (!object) return undefined;
    return (input) => this.run(this.objects[object.kind] as PrecompiledContract<typeof object>, object, input);
  }

  private async run<Self>(contract: PrecompiledContract<Self>, self: Self, input: PrecompileInput): Promise<ExecResult> {
    this.observer.ran();
    try {
      const result = await contract.call(this.context(), input.data, self);
      const gas = this.options.precompileGas ? BigInt(result.gas) : 0n;
      if (gas > input.gasLimit) {
        throw new PrecompileFailure(`OutOfGas when executing precompiled Contract, gasUsed: ${gas}, leftGas:${input.gasLimit}`);
      }
      return { executionGasUsed: gas, returnValue: result.output };
    } catch (e) {
      if (!(e instanceof PrecompileFailure)) throw e;
      this.observer.failed = e.kind;
      // FISCO's Executive charges nothing for a failed precompiled call (out of gas included)
      const silent = e.kind === 'exception' && !this.context().exceptionOutput;
      return { executionGasUsed: 0n, returnValue: silent ? new Uint8Array(0) : encodeErrorString(e.message), exceptionError: new EVMError(EVMError.errorMessages.REVERT) };
    }
  }
}
