// The pinned solc-js, set up for FISCO BCOS 2.x's EVM: compiles Solidity sources into
// artifacts (ABI, creation and runtime code) and turns solc's errors into diagnostics with
// file:line:column. Used by `npm run contracts` for the fixtures and by `twinchain console`.
import { createRequire } from 'node:module';

interface Solc {
  version(): string;
  compile(input: string, callbacks: object): string;
}

let loaded: Solc | undefined;

/** solc-js, loaded on first use: it takes about 0.3 s, which a console that never compiles need not wait for. */
function solc(): Solc {
  return (loaded ??= createRequire(import.meta.url)('solc') as Solc);
}

/** EVM target: FISCO BCOS 2.x runs Constantinople rules (no PUSH0, CHAINID, SELFBALANCE). */
export const EVM_VERSION = 'constantinople';
export const OPTIMIZER = { enabled: true, runs: 200 } as const;

/** Source unit name (a file name) → Solidity text. */
export type Sources = Record<string, string>;

export interface CompileOptions {
  /** Text of an imported source unit (`import "./Table.sol"` asks for `Table.sol`), or undefined if there is none. */
  readImport?(name: string): string | undefined;
  /** Also make artifacts of the contracts in imported files (default: only those of `sources`). */
  includeImported?: boolean;
}

export interface Artifact {
  contractName: string;
  /** The source unit the contract is in. */
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

export function compilerVersion(): string {
  return solc().version();
}

/**
 * What the artifacts depend on besides the sources: the pinned solc-js release, the EVM target
 * and the optimizer, as one text. Read from solc's package.json, not from solc itself, so that a
 * cache can be checked without loading the compiler (which takes about 0.3 s).
 */
export function compilerIdentity(): string {
  const { version } = createRequire(import.meta.url)('solc/package.json') as { version: string };
  return `solc-js ${version}, evm ${EVM_VERSION}, optimizer ${OPTIMIZER.enabled ? `${OPTIMIZER.runs} runs` : 'off'}`;
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
export function compileSources(sources: Sources, options: CompileOptions = {}): CompileResult {
  const imported: Sources = {};
  const findImports = (name: string): { contents: string } | { error: string } => {
    const text = options.readImport?.(name);
    if (text === undefined) return { error: `file not found: ${name}` };
    imported[name] = text;
    return { contents: text };
  };
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
  const output = JSON.parse(solc().compile(JSON.stringify(input), { import: findImports })) as SolcOutput;
  const diagnostics = (output.errors ?? []).map((e) => toDiagnostic(e, { ...imported, ...sources }));
  if (diagnostics.some((d) => d.severity === 'error')) return { artifacts: [], diagnostics, methodIdentifiers: {} };

  const compiler = { version: compilerVersion(), evmVersion: EVM_VERSION, optimizer: { ...OPTIMIZER } };
  const artifacts: Artifact[] = [];
  const methodIdentifiers: Record<string, Record<string, string>> = {};
  const seen = new Map<string, string>(); // lower-cased name → "file:name", for file-name clashes
  for (const [sourceFile, contracts] of Object.entries(output.contracts ?? {})) {
    if (!(sourceFile in sources) && !options.includeImported) continue;
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


/**
 * One diagnostic as `<where>File.sol:12:5: error TypeError: message` plus the source line and
 * a caret; `where` maps a source unit name to the path to show (default: the name itself).
 */
export function formatDiagnostic(d: Diagnostic, where: (file: string) => string = (file) => file): string {
  const at = d.file === undefined ? '' : `${where(d.file)}${d.line === undefined ? '' : `:${d.line}:${d.column}`}: `;
  let text = `${at}${d.severity} ${d.type}: ${d.message}`;
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
