// Compiles the Solidity fixtures in fixtures/contracts/ with the pinned solc-js and turns the
// output into artifact files. Used by scripts/compile-contracts.ts (`npm run contracts`), which
// writes the files, and by fixtures/contracts/artifacts.test.ts, which checks that the files on
// disk are what a fresh compile produces.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import solc from 'solc';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const CONTRACTS_DIR = path.join(REPO_ROOT, 'fixtures', 'contracts');
export const ARTIFACTS_DIR = path.join(CONTRACTS_DIR, 'artifacts');

/** EVM target: FISCO BCOS 2.x runs Constantinople rules (no PUSH0, CHAINID, SELFBALANCE). */
export const EVM_VERSION = 'constantinople';
export const OPTIMIZER = { enabled: true, runs: 200 } as const;

/** Source unit name (file name relative to fixtures/contracts/) → Solidity text. */
export type Sources = Record<string, string>;

export interface Artifact {
  contractName: string;
  /** Source file relative to fixtures/contracts/. */
  sourceFile: string;
  abi: unknown[];
  /** Creation code, 0x-prefixed; "0x" for interfaces. */
  bytecode: string;
  /** Runtime code, 0x-prefixed; "0x" for interfaces. */
  deployedBytecode: string;
  compiler: {
    version: string;
    evmVersion: string;
    optimizer: { enabled: boolean; runs: number };
  };
}

export interface Diagnostic {
  severity: 'error' | 'warning' | 'info';
  /** Solidity error type, e.g. TypeError, ParserError, Warning. */
  type: string;
  message: string;
  /** Source unit name, when solc gives a location. */
  file?: string;
  /** 1-based line and column, when solc gives a location. */
  line?: number;
  column?: number;
  /** The source line the location points into, when known. */
  sourceLine?: string;
}

export interface CompileResult {
  /** One artifact per contract and interface, sorted by contract name. Empty if there are errors. */
  artifacts: Artifact[];
  diagnostics: Diagnostic[];
  /** Extra output for checks: function signature → selector, per contract name. */
  methodIdentifiers: Record<string, Record<string, string>>;
}

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

export function compilerVersion(): string {
  return (solc as { version(): string }).version();
}

interface SolcError {
  severity: 'error' | 'warning' | 'info';
  type: string;
  message: string;
  sourceLocation?: { file: string; start: number; end: number };
}

interface SolcContract {
  abi: unknown[];
  evm: {
    bytecode: { object: string };
    deployedBytecode: { object: string };
    methodIdentifiers: Record<string, string>;
  };
}

interface SolcOutput {
  errors?: SolcError[];
  contracts?: Record<string, Record<string, SolcContract>>;
}

/** Compiles all `sources` together, in one solc run. */
export function compileSources(sources: Sources): CompileResult {
  const input = {
    language: 'Solidity',
    sources: Object.fromEntries(Object.entries(sources).map(([name, content]) => [name, { content }])),
    settings: {
      evmVersion: EVM_VERSION,
      optimizer: { ...OPTIMIZER },
      outputSelection: {
        '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object', 'evm.methodIdentifiers'] },
      },
    },
  };
  const output = JSON.parse((solc as { compile(input: string): string }).compile(JSON.stringify(input))) as SolcOutput;
  const diagnostics = (output.errors ?? []).map((e) => toDiagnostic(e, sources));
  if (diagnostics.some((d) => d.severity === 'error')) return { artifacts: [], diagnostics, methodIdentifiers: {} };

  const compiler = { version: compilerVersion(), evmVersion: EVM_VERSION, optimizer: { ...OPTIMIZER } };
  const artifacts: Artifact[] = [];
  const methodIdentifiers: Record<string, Record<string, string>> = {};
  const seen = new Map<string, string>(); // lower-cased name → "file:name", for file-name clashes
  for (const [sourceFile, contracts] of Object.entries(output.contracts ?? {})) {
    for (const [contractName, c] of Object.entries(contracts)) {
      const where = `${sourceFile}:${contractName}`;
      const clash = seen.get(contractName.toLowerCase());
      if (clash !== undefined) {
        diagnostics.push({
          severity: 'error',
          type: 'DuplicateArtifact',
          message: `${where} and ${clash} would both be written to artifacts/${contractName}.json; rename one`,
          file: sourceFile,
        });
        continue;
      }
      seen.set(contractName.toLowerCase(), where);
      for (const code of [c.evm.bytecode.object, c.evm.deployedBytecode.object]) {
        if (!/^[0-9a-f]*$/.test(code)) {
          diagnostics.push({
            severity: 'error',
            type: 'UnlinkedBytecode',
            message: `${where} needs library linking, which the fixtures do not support`,
            file: sourceFile,
          });
        }
      }
      artifacts.push({
        contractName,
        sourceFile,
        abi: c.abi.map(sortKeysDeep) as unknown[],
        bytecode: `0x${c.evm.bytecode.object}`,
        deployedBytecode: `0x${c.evm.deployedBytecode.object}`,
        compiler,
      });
      methodIdentifiers[contractName] = c.evm.methodIdentifiers;
    }
  }
  if (diagnostics.some((d) => d.severity === 'error')) return { artifacts: [], diagnostics, methodIdentifiers: {} };
  artifacts.sort((a, b) => (a.contractName < b.contractName ? -1 : a.contractName > b.contractName ? 1 : 0));
  return { artifacts, diagnostics, methodIdentifiers };
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
  const where =
    d.file === undefined
      ? ''
      : `${path.relative(REPO_ROOT, path.join(CONTRACTS_DIR, d.file))}${d.line === undefined ? '' : `:${d.line}:${d.column}`}: `;
  let text = `${where}${d.severity} ${d.type}: ${d.message}`;
  if (d.sourceLine !== undefined && d.column !== undefined) {
    const pad = d.sourceLine.slice(0, d.column - 1).replace(/[^\t]/g, ' ');
    text += `\n    ${d.sourceLine}\n    ${pad}^`;
  }
  return text;
}

function toDiagnostic(e: SolcError, sources: Sources): Diagnostic {
  const d: Diagnostic = { severity: e.severity, type: e.type, message: e.message };
  const loc = e.sourceLocation;
  if (loc === undefined || loc.file === '') return d;
  d.file = loc.file;
  const text = sources[loc.file];
  if (text === undefined || loc.start < 0) return d;
  // solc offsets are byte offsets into the UTF-8 source.
  const before = Buffer.from(text, 'utf8').subarray(0, loc.start).toString('utf8');
  const lines = before.split('\n');
  d.line = lines.length;
  d.column = (lines.at(-1) ?? '').length + 1;
  d.sourceLine = text.split('\n')[d.line - 1]?.replace(/\r$/, '');
  return d;
}

function sortKeysDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeysDeep);
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return Object.fromEntries(entries.map(([k, v]) => [k, sortKeysDeep(v)]));
  }
  return value;
}
