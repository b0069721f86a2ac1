// Compiles the Solidity fixtures in fixtures/contracts/ with the pinned solc-js and turns the
// output into artifact files. Used by scripts/compile-contracts.ts (`npm run contracts`), which
// writes the files, and by fixtures/contracts/artifacts.test.ts, which checks that the files on
// disk are what a fresh compile produces.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  EVM_VERSION,
  OPTIMIZER,
  compileSources,
  compilerVersion,
  formatDiagnostic as formatSolidityDiagnostic,
  type Artifact,
  type CompileResult,
  type Diagnostic,
  type Sources,
} from '../src/solidity/index.js';

export { EVM_VERSION, OPTIMIZER, compileSources, compilerVersion, type Artifact, type CompileResult, type Diagnostic, type Sources };

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const CONTRACTS_DIR = path.join(REPO_ROOT, 'fixtures', 'contracts');
export const ARTIFACTS_DIR = path.join(CONTRACTS_DIR, 'artifacts');

/** Reads every `*.sol` directly inside `dir` (not sub-folders), sorted by name. */
export function readSources(dir: string = CONTRACTS_DIR): Sources {
  const sources: Sources = {};
  const names = readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.sol'))
    .map((e) => e.name)
    .sort();
  for (const name of names) sources[name] = readFileSync(path.join(dir, name), 'utf8');
  return sources;
}

/** The artifact's file name inside fixtures/contracts/artifacts/. */
export function artifactFileName(artifact: Artifact): string {
  return `${artifact.contractName}.json`;
}

/** The artifact's file text: pretty-printed JSON with a fixed key order and a final newline. */
export function renderArtifact(a: Artifact): string {
  const ordered = {
    contractName: a.contractName,
    sourceFile: a.sourceFile,
    abi: a.abi,
    bytecode: a.bytecode,
    deployedBytecode: a.deployedBytecode,
    compiler: {
      version: a.compiler.version,
      evmVersion: a.compiler.evmVersion,
      optimizer: { enabled: a.compiler.optimizer.enabled, runs: a.compiler.optimizer.runs },
    },
  };
  return `${JSON.stringify(ordered, null, 2)}\n`;
}

/** One diagnostic as `fixtures/contracts/File.sol:12:5: error TypeError: message`, plus the source line. */
export function formatDiagnostic(d: Diagnostic): string {
  return formatSolidityDiagnostic(d, (file) => path.relative(REPO_ROOT, path.join(CONTRACTS_DIR, file)));
}
