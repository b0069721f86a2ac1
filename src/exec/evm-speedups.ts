/**
 * Pure speed-ups of @ethereumjs/evm (pinned at 10.1.3) that change no result.
 *
 * MSTORE: ethereumjs pads each word with setLengthLeft, which spreads two arrays into a third;
 * fastMstore writes the same 32 big-endian bytes through a scratch buffer (Memory.write copies).
 *
 * Jump destination analysis: the interpreter scans the whole contract (opcode table lookups,
 * PUSH immediates as bigints) on every message call that jumps, tens of µs for a small contract.
 * The analysis is a function of the code bytes and the EVM's opcode table alone and its result is
 * only read, so it is kept per (opcode table, code array) and reused while the state manager hands
 * out the same code array.
 *
 * SLOAD: the same padding, twice (handler and dynamic gas, where the padded key is used only under
 * EIP-2929 or the stateless EIPs).
 */
import { bytesToBigInt as utilBytesToBigInt } from '@ethereumjs/util';

/*
 * The interpreter loop: ethereumjs awaits an async runStep for every opcode, a promise and a
 * suspension each. fastRun is its legacy-bytecode loop (EOF is not active at Petersburg; with
 * EIP-3540 on, or a profiler, the original runs) with one change: an opcode whose gas is static
 * and whose handler is synchronous runs inline, doing exactly what runStep does for it (invalid
 * check, useGas, pc + 1, the EIP-7928 pending-OOG check, the handler, access witness commit).
 * Anything else (dynamic gas, async handlers, step listeners, debug, stateless EIPs) goes through
 * runStep as before.
 */

/*
 * Message plumbing: V8 builds `{ ...{ a }, ...b }` (a spread after a spread) through a slow runtime
 * path, tens of µs each, and ethereumjs does it twice per message call: _executeCall passes
 * `{ ...{ codeAddress }, ...message, gasLimit }` to runInterpreter, which returns a `runState`
 * made of three spreads. fastExecuteCall is _executeCall's path when none of the EIPs it branches
 * on is active (the Petersburg rules FISCO runs), building the same object in one spread;
 * fastRunInterpreter is runInterpreter building its `runState` only when someone reads it (no
 * one in ethereumjs' EVM or here does), from the same sources, which no longer change by then.
 */

interface OpcodeInfo {
  readonly code: number;
  readonly feeBigInt: bigint;
  readonly dynamicGas: boolean;
  readonly isAsync: boolean;
  readonly isInvalid: boolean;
}

interface LoopEntry {
  readonly opcodeInfo: OpcodeInfo;
  readonly opHandler: (runState: unknown, common: unknown) => void;
}

interface LoopRunState {
  programCounter: number;
  opCode: number;
  code: Uint8Array;
  validJumps: Uint8Array;
  cachedPushes: Record<number, bigint>;
  shouldDoJumpAnalysis: boolean;
  gasLeft: bigint;
  eip8037BurnLeftoverAfterCreateHaltOntoAlive?: boolean;
  readonly env: { readonly chargeCodeAccesses?: boolean; readonly accessWitness?: { commit(): void; revert(): void } };
  readonly stateManager: { checkChunkWitnessPresent(address: unknown, pc: number): Promise<boolean> };
  readonly interpreter: { getAddress(): unknown };
}

interface LoopInterpreter {
  readonly _runState: LoopRunState;
  readonly _evm: { readonly events: { listenerCount(name: string): number }; readonly DEBUG: boolean };
  readonly common: { isActivatedEIP(eip: number): boolean };
  readonly profilerOpts?: { enabled?: boolean };
  lookupOpInfo(op: number): LoopEntry;
  runStep(entry?: LoopEntry): Promise<void>;
  useGas(amount: bigint, context?: unknown): void;
  _getValidJumpDestinations(code: Uint8Array): { jumps: Uint8Array; pushes: Record<number, bigint>; opcodesCached: unknown[] };
}

interface EvmInternals {
  readonly EVMError: (new (error: string) => { error: string }) & { errorMessages: Record<string, string> };
  readonly EVMErrorTypeString: string;
  readonly consumeEip7928PostTargetCallOog: (runState: LoopRunState) => void;
}

function makeFastRun(original: (code: Uint8Array, opts?: { pc?: number }) => Promise<unknown>, lib: EvmInternals) {
  const { EVMError, EVMErrorTypeString, consumeEip7928PostTargetCallOog } = lib;
  return async function run(this: LoopInterpreter, code: Uint8Array, opts: { pc?: number } = {}): Promise<unknown> {
    if (this.common.isActivatedEIP(3540) || this.profilerOpts?.enabled === true) return original.call(this, code, opts);
    const runState = this._runState;
    runState.code = code;
    runState.programCounter = opts.pc ?? runState.programCounter;
    const pc = runState.programCounter;
    if (pc !== 0 && (pc < 0 || pc >= runState.code.length)) throw new Error('Internal error: program counter not in range');
    const stateless = this.common.isActivatedEIP(6800) || this.common.isActivatedEIP(7864);
    const evm = this._evm;
    let err: unknown;
    let cachedOpcodes: unknown[] | undefined;
    let doJumpAnalysis = true;
    while (runState.programCounter < runState.code.length) {
      const programCounter = runState.programCounter;
      let opCode: number;
      let opCodeObj: LoopEntry | undefined;
      if (doJumpAnalysis) {
        opCode = runState.code[programCounter]!;
        if (opCode === 0x56 || opCode === 0x57 || opCode === 0x5e) {
          const { jumps, pushes, opcodesCached } = this._getValidJumpDestinations(runState.code);
          runState.validJumps = jumps;
          runState.cachedPushes = pushes;
          runState.shouldDoJumpAnalysis = false;
          cachedOpcodes = opcodesCached;
          doJumpAnalysis = false;
        }
      } else {
        opCodeObj = cachedOpcodes![programCounter] as LoopEntry;
        opCode = opCodeObj.opcodeInfo.code;
      }
      if (opCode === 0xfe && this.common.isActivatedEIP(7864) && runState.env.chargeCodeAccesses === true) {
        const contract = runState.interpreter.getAddress();
        if (!(await runState.stateManager.checkChunkWitnessPresent(contract, programCounter))) {
          throw Error(`Invalid witness with missing codeChunk for pc=${programCounter}`);
        }
      }
      runState.opCode = opCode;
      try {
        const entry = opCodeObj ?? this.lookupOpInfo(opCode);
        const info = entry.opcodeInfo;
        if (!stateless && !info.dynamicGas && !info.isAsync && !info.isInvalid && !evm.DEBUG && evm.events.listenerCount('step') === 0) {
          this.useGas(info.feeBigInt, info);
          runState.programCounter++;
          consumeEip7928PostTargetCallOog(runState);
          entry.opHandler.apply(null, [runState, this.common]);
          runState.env.accessWitness?.commit();
        } else {
          await this.runStep(opCodeObj);
        }
      } catch (e) {
        runState.env.accessWitness?.revert();
        if (!(typeof e === 'object' && e !== null && 'errorType' in e && (e as { errorType: unknown }).errorType === EVMErrorTypeString)) throw e;
        if ((e as unknown as { error: string }).error !== EVMError.errorMessages.STOP) err = e;
        break;
      }
    }
    if (err === undefined && runState.eip8037BurnLeftoverAfterCreateHaltOntoAlive === true && runState.gasLeft > 0n) {
      runState.gasLeft = 0n;
      err = new EVMError(EVMError.errorMessages.OUT_OF_GAS!);
    }
    return { runState, exceptionError: err };
  };
}

interface JumpAnalysis {
  readonly jumps: Uint8Array;
  readonly pushes: Record<number, bigint>;
  readonly opcodesCached: unknown[];
}

interface InterpreterLike {
  readonly _evm: { readonly _opcodeMap: object };
  _getValidJumpDestinations(code: Uint8Array): JumpAnalysis;
}

interface OpcodeEntry {
  opHandler: (runState: RunState, common: unknown) => void;
}

interface RunState {
  readonly stack: { popN(n: number): bigint[] };
  readonly memory: { write(offset: number, size: number, value: Uint8Array): void };
}

const MSTORE = 0x52;
const SLOAD = 0x54;
const WORD_LIMIT = 1n << 256n;
const scratch = new Uint8Array(32);
const scratchView = new DataView(scratch.buffer);

/** MSTORE as ethereumjs runs it, without the padding allocations. */
function fastMstore(original: OpcodeEntry['opHandler']): OpcodeEntry['opHandler'] {
  return (runState, common) => {
    const [offset, word] = runState.stack.popN(2) as [bigint, bigint];
    if (word < 0n || word >= WORD_LIMIT) {
      // never on a well-formed stack; let ethereumjs fail exactly as it would
      (runState.stack as unknown as { push(v: bigint): void }).push(word);
      (runState.stack as unknown as { push(v: bigint): void }).push(offset);
      return original(runState, common);
    }
    scratchView.setBigUint64(0, word >> 192n);
    scratchView.setBigUint64(8, BigInt.asUintN(64, word >> 128n));
    scratchView.setBigUint64(16, BigInt.asUintN(64, word >> 64n));
    scratchView.setBigUint64(24, BigInt.asUintN(64, word));
    runState.memory.write(Number(offset), 32, scratch);
  };
}

/** A fresh 32-byte big-endian word: setLengthLeft(bigIntToBytes(word), 32) for 0 <= word < 2^256. */
function word32(word: bigint): Uint8Array {
  const out = new Uint8Array(32);
  const view = new DataView(out.buffer);
  view.setBigUint64(0, word >> 192n);
  view.setBigUint64(8, BigInt.asUintN(64, word >> 128n));
  view.setBigUint64(16, BigInt.asUintN(64, word >> 64n));
  view.setBigUint64(24, BigInt.asUintN(64, word));
  return out;
}

interface SloadRunState {
  readonly stack: { pop(): bigint; push(value: bigint): void };
  readonly interpreter: { storageLoad(key: Uint8Array): Promise<Uint8Array> };
}

type SloadHandler = (runState: SloadRunState, common: unknown) => Promise<void>;
type GasHandler = (runState: unknown, gas: bigint, common: CommonLike) => Promise<bigint>;

/** SLOAD as ethereumjs runs it, the key padded without setLengthLeft's spread arrays. */
function fastSload(original: SloadHandler, bytesToBigInt: (bytes: Uint8Array) => bigint): SloadHandler {
  return async (runState, common) => {
    const key = runState.stack.pop();
    if (key < 0n || key >= WORD_LIMIT) {
      runState.stack.push(key);
      return original(runState, common);
    }
    const value = await runState.interpreter.storageLoad(word32(key));
    runState.stack.push(value.length ? bytesToBigInt(value) : 0n);
  };
}

/**
 * SLOAD's dynamic gas: ethereumjs pads the key first and uses it only under EIP-2929 or the
 * stateless EIPs; without them the gas is the static fee, as the original returns.
 */
function fastSloadGas(original: GasHandler): GasHandler {
  return async (runState, gas, common) => {
    if (common.isActivatedEIP(2929) || common.isActivatedEIP(6800) || common.isActivatedEIP(7864)) return original(runState, gas, common);
    return gas;
  };
}

interface CommonLike {
  _activatedEIPsCache?: number[];
  isActivatedEIP(eip: number): boolean;
}

/**
 * isActivatedEIP answers from a Set built from the active EIP list (rebuilt if that list is ever
 * replaced) instead of scanning the list; the interpreter asks several times per opcode.
 */
function speedUpEipChecks(common: CommonLike): void {
  if (!Array.isArray(common._activatedEIPsCache) || (common.isActivatedEIP as { fast?: boolean }).fast) return;
  let list: number[] | undefined;
  let length = 0;
  let active = new Set<number>();
  const isActivatedEIP = function (this: CommonLike, eip: number): boolean {
    const current = this._activatedEIPsCache!;
    if (current !== list || current.length !== length) {
      list = current;
      length = current.length;
      active = new Set(current);
    }
    return active.has(eip);
  };
  (isActivatedEIP as { fast?: boolean }).fast = true;
  common.isActivatedEIP = isActivatedEIP;
}

/** Swaps faster, equivalent handlers into one EVM's opcode table and its Common (call after construction). */
export function speedUpOpcodes(evm: object): void {
  const common = (evm as { common?: CommonLike }).common;
  if (common) speedUpEipChecks(common);
  const table = (evm as { _opcodeMap?: Array<OpcodeEntry | undefined> })._opcodeMap;
  const mstore = table?.[MSTORE];
  if (mstore && typeof mstore.opHandler === 'function' && !(mstore.opHandler as { fast?: boolean }).fast) {
    mstore.opHandler = Object.assign(fastMstore(mstore.opHandler), { fast: true });
  }
  const sload = table?.[SLOAD] as { opHandler?: unknown; gasHandler?: unknown } | undefined;
  if (sload && typeof sload.opHandler === 'function' && !(sload.opHandler as { fast?: boolean }).fast) {
    sload.opHandler = Object.assign(fastSload(sload.opHandler as SloadHandler, utilBytesToBigInt), { fast: true });
  }
  if (sload && typeof sload.gasHandler === 'function' && !(sload.gasHandler as { fast?: boolean }).fast) {
    sload.gasHandler = Object.assign(fastSloadGas(sload.gasHandler as GasHandler), { fast: true });
  }
}

/** EIPs _executeCall branches on; with any of them active it runs as shipped. */
const EXECUTE_CALL_EIPS = [2780, 6800, 7702, 7708, 7864, 7928, 8037];

interface MessageLike {
  readonly caller: unknown;
  readonly to: unknown;
  readonly depth: number;
  readonly gasLimit: bigint;
  readonly gasRefund: bigint;
  readonly delegatecall: boolean;
  readonly codeAddress: unknown;
  readonly data: Uint8Array;
  readonly value: bigint;
  code?: Uint8Array | ((...args: unknown[]) => unknown);
  isCompiled?: boolean;
}

interface ExecResultLike {
  executionGasUsed: bigint;
  gasRefund?: bigint;
}

interface EvmLike {
  readonly DEBUG: boolean;
  readonly common: { isActivatedEIP(eip: number): boolean };
  readonly stateManager: { getAccount(address: unknown): Promise<unknown> };
  readonly _optsCached: { profiler?: { enabled?: boolean } };
  readonly blockchain: unknown;
  readonly journal: unknown;
  readonly performanceLogger: unknown;
  readonly _block?: unknown;
  readonly _tx: { gasPrice: bigint; origin?: unknown };
  _reduceSenderBalance(account: unknown, message: MessageLike): Promise<void>;
  _addToBalance(account: unknown, message: MessageLike): Promise<void>;
  _loadCode(message: MessageLike): Promise<void>;
  runPrecompile(code: unknown, data: Uint8Array, gasLimit: bigint): Promise<ExecResultLike>;
  runInterpreter(message: MessageLike, opts?: { initialLogs?: unknown }): Promise<ExecResultLike>;
  postMessageCleanup(): void;
}

interface EvmModule {
  readonly EVM: { prototype: Record<'_executeCall' | 'runInterpreter', unknown> };
  readonly defaultBlock: () => unknown;
  readonly Interpreter: new (...args: unknown[]) => {
    _result: { logs: unknown[]; returnValue?: Uint8Array; selfdestruct: unknown; createdAddresses?: unknown };
    _env: object;
    run(code: unknown, opts?: object): Promise<{ runState: { gasLeft: bigint; gasRefund: bigint; stateGasSpilled?: bigint }; exceptionError?: { error: string } }>;
  };
  readonly Account: new () => unknown;
  readonly createZeroAddress: () => unknown;
  readonly EVMError: { errorMessages: Record<string, string> };
}

function makeFastExecuteCall(original: (message: MessageLike) => Promise<unknown>, lib: Pick<EvmModule, 'Account'>) {
  const { Account } = lib;
  return async function _executeCall(this: EvmLike, message: MessageLike): Promise<unknown> {
    const common = this.common;
    if (this.DEBUG || this._optsCached.profiler?.enabled === true || EXECUTE_CALL_EIPS.some((eip) => common.isActivatedEIP(eip))) {
      return original.call(this, message);
    }
    // what _executeCall does with those EIPs off: gasLimit stays message.gasLimit throughout
    const gasLimit = message.gasLimit;
    const account = (await this.stateManager.getAccount(message.caller)) ?? new Account();
    let errorMessage: unknown;
    if (!message.delegatecall) {
      try {
        await this._reduceSenderBalance(account, message);
      } catch (e) {
        errorMessage = e;
      }
    }
    const toAccount = (await this.stateManager.getAccount(message.to)) ?? new Account();
    if (!message.delegatecall) {
      try {
        await this._addToBalance(toAccount, message);
      } catch (e) {
        errorMessage = e;
      }
    }
    await this._loadCode(message);
    const noCode = !message.code || (typeof message.code !== 'function' && message.code.length === 0);
    if (noCode || errorMessage !== undefined) {
      return {
        execResult: {
          gasRefund: message.gasRefund,
          executionGasUsed: message.gasLimit - gasLimit,
          exceptionError: errorMessage,
          returnValue: new Uint8Array(0),
          logs: undefined,
        },
      };
    }
    let result: ExecResultLike;
    if (message.isCompiled) {
      result = await this.runPrecompile(message.code, message.data, gasLimit);
      result.gasRefund = message.gasRefund;
    } else {
      // the same object as `{ ...{ codeAddress: message.codeAddress }, ...message, gasLimit }`
      // (a Message's codeAddress is a getter on its prototype, not copied by the spread)
      const inner = { codeAddress: message.codeAddress, ...(message as object), gasLimit } as MessageLike;
      result = await this.runInterpreter(inner, { initialLogs: undefined });
    }
    if (message.depth === 0) this.postMessageCleanup();
    result.executionGasUsed += message.gasLimit - gasLimit;
    return { execResult: result };
  };
}

/** The interpreter's result object as ethereumjs makes it: its three fields, or four with createdAddresses. */
function resultShape(result: object): 'plain' | 'created' | undefined {
  const keys = Object.keys(result);
  if (keys[0] !== 'logs' || keys[1] !== 'returnValue' || keys[2] !== 'selfdestruct') return undefined;
  if (keys.length === 3) return 'plain';
  return keys.length === 4 && keys[3] === 'createdAddresses' ? 'created' : undefined;
}

function makeFastRunInterpreter(lib: EvmModule) {
  const { Interpreter, Account, createZeroAddress, defaultBlock, EVMError } = lib;
  type Env = Record<string, unknown>;
  return async function runInterpreter(this: EvmLike, message: MessageLike & Record<string, unknown>, opts: { initialLogs?: unknown } = {}): Promise<unknown> {
    const contract = (await this.stateManager.getAccount(message.to ?? createZeroAddress())) ?? new Account();
    const env: Env = {
      address: message.to ?? createZeroAddress(),
      caller: message.caller ?? createZeroAddress(),
      callData: message.data ?? Uint8Array.from([0]),
      callValue: message.value ?? 0n,
      code: message.code,
      isStatic: message.isStatic ?? false,
      isCreate: message.isCreate ?? false,
      depth: message.depth ?? 0,
      gasPrice: this._tx.gasPrice,
      origin: this._tx.origin ?? message.caller ?? createZeroAddress(),
      block: this._block ?? defaultBlock(),
      contract,
      codeAddress: message.codeAddress,
      gasRefund: message.gasRefund,
      chargeCodeAccesses: message.chargeCodeAccesses,
      blobVersionedHashes: message.blobVersionedHashes ?? [],
      accessWitness: message.accessWitness,
      createdAddresses: message.createdAddresses,
      initialLogs: opts.initialLogs,
    };
    const interpreter = new Interpreter(this, this.stateManager, this.blockchain, env, message.gasLimit, this.journal, this.performanceLogger, this._optsCached.profiler);
    if (message.selfdestruct) interpreter._result.selfdestruct = message.selfdestruct;
    if (message.createdAddresses) interpreter._result.createdAddresses = message.createdAddresses;
    const interpreterRes = await interpreter.run(message.code, opts);
    const base = interpreter._result;
    let gasUsed = message.gasLimit - interpreterRes.runState.gasLeft;
    const error = interpreterRes.exceptionError;
    if (error && error.error !== EVMError.errorMessages.REVERT && error.error !== EVMError.errorMessages.INVALID_EOF_FORMAT) gasUsed = message.gasLimit;
    (message.accessWitness as { commit(): void } | undefined)?.commit();
    const runState = interpreterRes.runState;
    const shape = resultShape(base);
    if (shape === undefined) {
      // a result of another shape: ethereumjs' own spreads
      const result: object = error ? { ...base, logs: [], selfdestruct: new Map(), createdAddresses: new Set() } : base;
      return {
        ...result,
        runState: { ...runState, ...result, ...interpreter._env },
        exceptionError: error,
        gas: runState?.gasLeft,
        executionGasUsed: gasUsed,
        gasRefund: runState.gasRefund,
        stateGasSpilled: runState.stateGasSpilled,
        returnValue: (result as { returnValue?: Uint8Array }).returnValue ?? new Uint8Array(0),
      };
    }
    // the same objects, fields and field order as ethereumjs' `{ ...result, runState, ... }`, built
    // field by field (a spread followed by new fields takes V8's slow path)
    const withCreated = error !== undefined || shape === 'created';
    const logs = error ? [] : base.logs;
    const selfdestruct = error ? new Map() : base.selfdestruct;
    const createdAddresses = error ? new Set() : base.createdAddresses;
    const result = (): object =>
      withCreated ? { logs, returnValue: base.returnValue, selfdestruct, createdAddresses } : { logs, returnValue: base.returnValue, selfdestruct };
    // ethereumjs' `{ ...interpreterRes.runState, ...result, ...interpreter._env }`, made when read
    // (from sources that no longer change by then)
    let fullRunState: object | undefined;
    const getRunState = (): object => (fullRunState ??= Object.assign({}, runState, result(), interpreter._env));
    const setRunState = (value: object): void => void (fullRunState = value);
    const returnValue = base.returnValue ?? new Uint8Array(0);
    return withCreated
      ? {
          logs,
          returnValue,
          selfdestruct,
          createdAddresses,
          get runState(): object {
            return getRunState();
          },
          set runState(value: object) {
            setRunState(value);
          },
          exceptionError: error,
          gas: runState?.gasLeft,
          executionGasUsed: gasUsed,
          gasRefund: runState.gasRefund,
          stateGasSpilled: runState.stateGasSpilled,
        }
      : {
          logs,
          returnValue,
          selfdestruct,
          get runState(): object {
            return getRunState();
          },
          set runState(value: object) {
            setRunState(value);
          },
          exceptionError: error,
          gas: runState?.gasLeft,
          executionGasUsed: gasUsed,
          gasRefund: runState.gasRefund,
          stateGasSpilled: runState.stateGasSpilled,
        };
  };
}

let installing: Promise<boolean> | undefined;
/** The methods as installed, and as ethereumjs shipped them (for withStockInterpreter). */
let swapped: Array<{ proto: Record<string, unknown>; name: string; fast: unknown; stock: unknown }> | undefined;

/**
 * Runs `fn` with ethereumjs's own interpreter and message methods in place of the installed
 * speed-ups (they patch the package's prototypes for the whole process): for baselines that must
 * be plain ethereumjs. Nothing else may execute EVM code meanwhile.
 */
export async function withStockInterpreter<T>(fn: () => Promise<T>): Promise<T> {
  const s = swapped;
  if (!s) return fn();
  for (const m of s) m.proto[m.name] = m.stock;
  try {
    return await fn();
  } finally {
    for (const m of s) m.proto[m.name] = m.fast;
  }
}

/** Installs the speed-ups once per process; false if the EVM's internals are not what we expect (nothing changed then). */
export function installEvmSpeedups(): Promise<boolean> {
  installing ??= install().catch(() => false);
  return installing;
}

async function install(): Promise<boolean> {
  // The interpreter is internal to the package (not exported): load the very module evm.js uses.
  const entry = import.meta.resolve('@ethereumjs/evm');
  const load = async <T>(file: string) => (await import(new URL(file, entry).href)) as Partial<T>;
  const module = await load<{ Interpreter: { prototype: InterpreterLike & { run: (code: Uint8Array, opts?: { pc?: number }) => Promise<unknown> } } }>('./interpreter.js');
  const errors = await load<Pick<EvmInternals, 'EVMError' | 'EVMErrorTypeString'>>('./errors.js');
  const eip7928 = await load<Pick<EvmInternals, 'consumeEip7928PostTargetCallOog'>>('./opcodes/EIP7928.js');
  const evmModule = await load<{ EVM: EvmModule['EVM']; defaultBlock: EvmModule['defaultBlock'] }>('./evm.js');
  const util = await import('@ethereumjs/util');
  const proto = module.Interpreter?.prototype;
  if (!proto || typeof proto._getValidJumpDestinations !== 'function' || typeof proto.run !== 'function') return false;
  if (!errors.EVMError || typeof errors.EVMErrorTypeString !== 'string' || typeof eip7928.consumeEip7928PostTargetCallOog !== 'function') return false;
  const evmProto = evmModule.EVM?.prototype;
  if (!evmProto || typeof evmProto._executeCall !== 'function' || typeof evmProto.runInterpreter !== 'function' || typeof evmModule.defaultBlock !== 'function') return false;
  if (evmProto._executeCall.length !== 1 || evmProto.runInterpreter.length !== 1) return false;
  if ((proto.run as { fast?: boolean }).fast) return true;
  const fastRun = makeFastRun(proto.run, {
    EVMError: errors.EVMError,
    EVMErrorTypeString: errors.EVMErrorTypeString,
    consumeEip7928PostTargetCallOog: eip7928.consumeEip7928PostTargetCallOog,
  });
  const stockRun = proto.run;
  Object.assign(fastRun, { fast: true, original: stockRun });
  proto.run = fastRun;
  const analyse = proto._getValidJumpDestinations;
  const byTable = new WeakMap<object, WeakMap<Uint8Array, JumpAnalysis>>();
  proto._getValidJumpDestinations = function (this: InterpreterLike, code: Uint8Array): JumpAnalysis {
    const table = this._evm._opcodeMap;
    let byCode = byTable.get(table);
    if (!byCode) byTable.set(table, (byCode = new WeakMap()));
    let analysis = byCode.get(code);
    if (!analysis) {
      analysis = analyse.call(this, code);
      byCode.set(code, analysis);
    }
    return analysis;
  };
  const lib: EvmModule = {
    EVM: evmModule.EVM!,
    defaultBlock: evmModule.defaultBlock,
    Interpreter: module.Interpreter as unknown as EvmModule['Interpreter'],
    Account: util.Account as unknown as EvmModule['Account'],
    createZeroAddress: util.createZeroAddress,
    EVMError: errors.EVMError,
  };
  const stockExecuteCall = evmProto._executeCall as (message: MessageLike) => Promise<unknown>;
  const stockRunInterpreter = evmProto.runInterpreter;
  evmProto._executeCall = Object.assign(makeFastExecuteCall(stockExecuteCall, lib), { fast: true });
  evmProto.runInterpreter = Object.assign(makeFastRunInterpreter(lib), { fast: true });
  swapped = [
    { proto: proto as never, name: 'run', fast: proto.run, stock: stockRun },
    { proto: proto as never, name: '_getValidJumpDestinations', fast: proto._getValidJumpDestinations, stock: analyse },
    { proto: evmProto, name: '_executeCall', fast: evmProto._executeCall, stock: stockExecuteCall },
    { proto: evmProto, name: 'runInterpreter', fast: evmProto.runInterpreter, stock: stockRunInterpreter },
  ];
  return true;
}
