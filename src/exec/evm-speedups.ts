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

/** Installs the speed-ups once per process; false if the EVM's internals are not what we expect (nothing changed then). */
export function installEvmSpeedups(): Promise<boolean> {
  installing ??= install().catch(() => false);
  return installing;
}

async function install(): Promise<boolean> {
  // The interpreter is internal to the package (not exported): load the very module evm.js uses.
  const entry = import.meta.resolve('@ethereumjs/evm');
  const module = (await import(new URL('./interpreter.js', entry).href)) as { Interpreter?: { prototype: InterpreterLike } };
  const proto = module.Interpreter?.prototype;
  if (!proto || typeof proto._getValidJumpDestinations !== 'function') return false;
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
  return true;
}
