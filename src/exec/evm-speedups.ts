/**
 * Pure speed-ups of @ethereumjs/evm (pinned at 10.1.3) that change no result.
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
