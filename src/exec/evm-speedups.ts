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
 */

/*
 * The interpreter loop: ethereumjs awaits an async runStep for every opcode, a promise and a
 * suspension each. fastRun is its legacy-bytecode loop (EOF is not active at Petersburg; with
 * EIP-3540 on, or a profiler, the original runs) with one change: an opcode whose gas is static
 * and whose handler is synchronous runs inline, doing exactly what runStep does for it (invalid
 * check, useGas, pc + 1, the EIP-7928 pending-OOG check, the handler, access witness commit).
 * Anything else (dynamic gas, async handlers, step listeners, debug, stateless EIPs) goes through
 * runStep as before.
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
  if (!mstore || typeof mstore.opHandler !== 'function' || (mstore.opHandler as { fast?: boolean }).fast) return;
  const fast = fastMstore(mstore.opHandler);
  (fast as { fast?: boolean }).fast = true;
  mstore.opHandler = fast;
}

let installing: Promise<boolean> | undefined;
/** The interpreter methods as installed, and as ethereumjs shipped them (for withStockInterpreter). */
let swapped: { proto: Record<'run' | '_getValidJumpDestinations', unknown>; fast: [unknown, unknown]; stock: [unknown, unknown] } | undefined;

/**
 * Runs `fn` with ethereumjs's own interpreter methods in place of the installed speed-ups (they
 * patch the package's Interpreter prototype for the whole process): for baselines that must be
 * plain ethereumjs. Nothing else may execute EVM code meanwhile.
 */
export async function withStockInterpreter<T>(fn: () => Promise<T>): Promise<T> {
  const s = swapped;
  if (!s) return fn();
  [s.proto.run, s.proto._getValidJumpDestinations] = s.stock;
  try {
    return await fn();
  } finally {
    [s.proto.run, s.proto._getValidJumpDestinations] = s.fast;
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
  const proto = module.Interpreter?.prototype;
  if (!proto || typeof proto._getValidJumpDestinations !== 'function' || typeof proto.run !== 'function') return false;
  if (!errors.EVMError || typeof errors.EVMErrorTypeString !== 'string' || typeof eip7928.consumeEip7928PostTargetCallOog !== 'function') return false;
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
  swapped = { proto: proto as never, fast: [proto.run, proto._getValidJumpDestinations], stock: [stockRun, analyse] };
  return true;
}
