// Creation code of the compiled fixture contracts (fixtures/contracts/artifacts/<Name>.json, as
// `npm run contracts` writes them), for the simulator's workloads, the conformance suite and the
// benchmarks (the package ships fixtures/contracts).
import { readFileSync } from 'node:fs';
import { fromHex } from './codec/index.js';
import { packagePath } from './package-root.js';

const loaded = new Map<string, Uint8Array>();

/** The creation bytecode of a fixture contract; read once per process. */
export function contractBytecode(name: string): Uint8Array {
  let code = loaded.get(name);
  if (!code) {
    const artifact = JSON.parse(readFileSync(packagePath('fixtures', 'contracts', 'artifacts', `${name}.json`), 'utf8')) as { bytecode: string };
    code = fromHex(artifact.bytecode);
    loaded.set(name, code);
  }
  return code;
}
