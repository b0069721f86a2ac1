import type { Address } from '@ethereumjs/util';
import type { ReturnCodeEncoding, TableNames } from '../chain/index.js';
import { toHexNoPrefix, type HashFunction } from '../codec/index.js';
import { decodeAbi, encodeAbi, functionSelector, signatureParameters } from '../abi/index.js';
import { PrecompiledGas } from './precompiled-gas.js';
import type { SystemTableApi } from './system-tables.js';
import type { TableObjects } from './table-objects.js';

/** What a precompiled call sees of the transaction and block it runs in. */
export interface CallContext {
  /** Number of the block being executed; writes take effect from number + 1. */
  readonly number: number;
  /** tx.origin, 0x-prefixed lower case: FISCO checks permissions against it. */
  readonly origin: string;
  /** The names the chain's supported_version stores user and account tables under (ProtocolVersion.tableNames). */
  readonly tableNames: TableNames;
  /** How return codes are written under the chain's supported_version (ProtocolVersion.returnCodes). */
  readonly returnCodes: ReturnCodeEncoding;
  /** CRUD's update answers an entry naming the table's key field with -51503 (ProtocolVersion.crudRefusesKeyUpdate). */
  readonly crudRefusesKeyUpdate: boolean;
  /** A call failing with a plain exception outputs its message (ProtocolVersion.exceptionOutput). */
  readonly exceptionOutput: boolean;
  readonly tables: SystemTableApi;
  readonly objects: TableObjects;
  readonly hash: HashFunction;
}

/** What a method sees: the call context and this call's gas meter. */
export interface MethodContext extends CallContext {
  readonly gas: PrecompiledGas;
}

/**
 * A failed precompiled call; state changes are undone. As FISCO's Executive reports them: a
 * PrecompiledException as PrecompiledError (status 21) with an Error(string) output; any other
 * exception (`kind: 'exception'`: a boost::bad_lexical_cast, MemoryTable2's std::invalid_argument)
 * as Unknown (status 1), with the Error(string) output only from 2.3.0
 * (CallContext.exceptionOutput). A contract calling the precompile sees a failed call either way.
 */
export class PrecompileFailure extends Error {
  override readonly name = 'PrecompileFailure';
  constructor(
    message: string,
    readonly kind: 'precompiled' | 'exception' = 'precompiled',
  ) {
    super(message);
  }
}

export interface Method<Self = undefined> {
  /** Solidity signature, e.g. `setValueByKey(string,string)`. */
  readonly signature: string;
  /**
   * Comma-separated output types, e.g. `int256` or `string,string`; `code` is a FISCO return code
   * (a count or an error code) as getErrorCodeOut writes it: see encodeReturnCode.
   */
  readonly outputs: string;
  run(ctx: MethodContext, args: unknown[], self: Self): Promise<unknown[] | EncodedOutput> | unknown[] | EncodedOutput;
}

/** An output a method encodes itself, whatever its `outputs` say (CRUD's select answers an error with a word, not a string). */
export class EncodedOutput {
  constructor(readonly bytes: Uint8Array) {}
}

/** FISCO return codes as precompiles return them: ABI int256 (positive counts read the same as uint256). */
export const CODE_SUCCESS = 0;
export const CODE_NO_AUTHORIZED = -50000;
export const CODE_TABLE_NAME_ALREADY_EXIST = -50001;
/** libprecompiled/Common.h: the common codes -50199 ~ -50100. */
export const CODE_TABLE_NOT_EXIST = -50100;
export const CODE_UNKNOW_FUNCTION_CALL = -50101;
/** CNS and Permission refuse an address `Address(std::string)` cannot read (readFiscoAddress). */
export const CODE_ADDRESS_INVALID = -50102;
export const CODE_TABLE_AND_ADDRESS_EXIST = -51000;
/** PermissionPrecompiled: a table name (prefix included) over USER_TABLE_NAME_MAX_LENGTH. */
export const CODE_TABLE_NAME_OVERFLOW = -51002;
export const CODE_TABLE_AND_ADDRESS_NOT_EXIST = -51001;
export const CODE_INVALID_NODEID = -51100;
export const CODE_LAST_SEALER = -51101;
export const CODE_ADDRESS_AND_VERSION_EXIST = -51200;
export const CODE_VERSION_LENGTH_OVERFLOW = -51201;
export const CODE_INVALID_CONFIGURATION_VALUES = -51300;
export const CODE_PARSE_ENTRY_ERROR = -51500;
export const CODE_PARSE_CONDITION_ERROR = -51501;
export const CODE_CONDITION_OPERATION_UNDEFINED = -51502;
export const CODE_INVALID_UPDATE_TABLE_KEY = -51503;

/** A return code as a one-element result, for methods whose outputs are `code`. */
export const code = (value: number): [bigint] => [BigInt(value)];

/**
 * A return code as FISCO 2.x's getErrorCodeOut writes it: 1 to 127 (a count of rows, 1 for done)
 * as that number; anything else as an int256 from 2.0.0-rc3 on, but in rc2 as u256(-code) (an
 * error code's magnitude) and in rc1 as one byte, (-code) mod 256, in the word's last place (the
 * `int` -code takes ContractABI's `byte` overload).
 */
export function encodeReturnCode(value: bigint, encoding: ReturnCodeEncoding): Uint8Array {
  if ((value > 0n && value < 128n) || encoding === 'int256') return encodeAbi('int256', [value]);
  if (encoding === 'rc2') return encodeAbi('uint256', [BigInt.asUintN(256, -value)]);
  const word = new Uint8Array(32);
  word[31] = Number(BigInt.asUintN(8, -value));
  return word;
}

/** The hash (or hashes) whose 4-byte prefixes select methods. */
export type SelectorHashes = HashFunction | readonly HashFunction[];

export interface PrecompileResult {
  readonly output: Uint8Array;
  readonly gas: number;
}

/**
 * Address text as FISCO's `Address(std::string)` reads it (libdevcore/FixedHash.h): fromHex with
 * WhenError::Throw strips a lower-case "0x" and reads hex digits of either case (an odd count
 * reads its first digit as a byte of its own, so 39 digits make 20 bytes), throwing
 * BadHexCharacter at any other character; then FailIfDifferent leaves the hash zero when the
 * bytes are not 20, without throwing. The address in lower case, the zero address for another
 * size, or undefined where FISCO's constructor throws.
 */
export function readFiscoAddress(text: string): string | undefined {
  const digits = text.startsWith('0x') ? text.slice(2) : text;
  if (!/^[0-9a-fA-F]*$/.test(digits)) return undefined;
  if (Math.ceil(digits.length / 2) !== 20) return `0x${'0'.repeat(40)}`;
  return `0x${digits.padStart(40, '0').toLowerCase()}`;
}

/**
 * What a FISCO 2.x precompiled contract answers to a selector it does not know (the last `else`
 * of its `call`): CRUD writes CODE_UNKNOW_FUNCTION_CALL (-50101); SystemConfig and Consensus fall
 * through to getErrorCodeOut(0), one zero word; the others (TableFactory, CNS, Permission, the
 * table objects) log it and return no output. Only memory gas is charged, as for any output.
 * (An input under 4 bytes is undefined behaviour in FISCO, a null read: answered the same way.)
 */
export type UnknownSelectorAnswer = 'unknown-function-code' | 'zero' | 'empty';

/** A precompiled contract (or table object kind): a selector table over typed handlers. */
export class PrecompiledContract<Self = undefined> {
  private readonly methods = new Map<string, Method<Self> & { inputs: string }>();

  /**
   * `hashes`: the selector hashes accepted. SM chains pass SM3 (what guomi SDKs use) and keccak
   * (what standard solc output and Ethereum tooling use), so both kinds of caller work.
   * `meterInput`: the contract starts its meter at the input's size (FISCO's
   * `setMemUsed(param.size())`, which the table, CRUD and CNS contracts do and the consensus,
   * system config and permission contracts do not).
   */
  constructor(
    readonly name: string,
    methods: readonly Method<Self>[],
    hashes: SelectorHashes,
    private readonly meterInput: boolean,
    private readonly unknownSelector: UnknownSelectorAnswer,
  ) {
    for (const hash of Array.isArray(hashes) ? hashes : [hashes]) {
      for (const m of methods) {
        const selector = toHexNoPrefix(functionSelector(m.signature, hash));
        const existing = this.methods.get(selector);
        if (existing && existing.signature !== m.signature) {
          throw new Error(`${name}: selector ${selector} of ${m.signature} collides with ${existing.signature}`);
        }
        this.methods.set(selector, { ...m, inputs: signatureParameters(m.signature) });
      }
    }
  }

  async call(ctx: CallContext, input: Uint8Array, self: Self): Promise<PrecompileResult> {
    const gas = new PrecompiledGas();
    if (this.meterInput) gas.setMemUsed(input.length);
    const method = input.length >= 4 ? this.methods.get(toHexNoPrefix(input.subarray(0, 4))) : undefined;
    if (!method) {
      const output =
        this.unknownSelector === 'empty' ? new Uint8Array(0) : encodeReturnCode(BigInt(this.unknownSelector === 'zero' ? 0 : CODE_UNKNOW_FUNCTION_CALL), ctx.returnCodes);
      return { output, gas: gas.total(output.length) };
    }
    let args: unknown[];
    try {
      args = decodeAbi(method.inputs, input.subarray(4));
    } catch (e) {
      throw new PrecompileFailure(`${this.name}.${method.signature}: cannot decode arguments: ${(e as Error).message}`);
    }
    const values = await method.run({ ...ctx, gas }, args, self);
    const output =
      values instanceof EncodedOutput ? values.bytes : method.outputs === 'code' ? encodeReturnCode(values[0] as bigint, ctx.returnCodes) : encodeAbi(method.outputs, values);
    return { output, gas: gas.total(output.length) };
  }
}

export function addressText(address: Address | string): string {
  return (typeof address === 'string' ? address : address.toString()).toLowerCase();
}
