// The console's contracts: contracts/solidity/<Name>.sol compiled with the pinned solc-js for
// FISCO's EVM, and deploylog.txt, where deployed addresses are remembered (FISCO's format:
// `<date time>  [group:N]  <Name>  <address>`), which `call <Name> latest` reads.
//
// Compiled artifacts are kept in the console folder, as FISCO's console keeps its ABI and BIN
// files: contracts/sdk/abi/<Name>.abi and contracts/sdk/bin/<Name>.bin for the user, and
// contracts/sdk/cache/<Name>.json, keyed by the SHA-256 of the source and of every file it
// imports and by the compiler (solc-js release, EVM target, optimizer). A later command, in this
// process or another, takes the artifact from there while none of that changed, without loading
// the compiler at all: a `call` of an unchanged contract starts in a fraction of the time.
import { createHash } from 'node:crypto';
import { appendFileSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Abi } from 'viem';
import { compileSources, compilerIdentity, formatDiagnostic, type Artifact } from '../solidity/index.js';
import { ConsoleError } from './console-error.js';

export const CONTRACTS_DIR = path.join('contracts', 'solidity');
export const DEPLOY_LOG = 'deploylog.txt';
/** FISCO's console layout: contracts/sdk/abi, contracts/sdk/bin; the cache beside them. */
export const ARTIFACTS_DIR = path.join('contracts', 'sdk');
const CACHE_FORMAT = 'twinchain-console-artifact';
const CACHE_VERSION = 1;

export interface CompiledContract {
  readonly name: string;
  readonly abi: Abi;
  readonly bytecode: `0x${string}`;
  /** Compiler warnings, formatted. */
  readonly warnings: readonly string[];
}

/** contracts/sdk/cache/<Name>.json. */
interface CachedArtifact {
  readonly format: typeof CACHE_FORMAT;
  readonly version: typeof CACHE_VERSION;
  /** compilerIdentity() when it was compiled. */
  readonly compiler: string;
  /** Source unit → SHA-256 (hex) of its text: the contract's file and every file it imported. */
  readonly sources: Readonly<Record<string, string>>;
  readonly contract: CompiledContract;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** Where a compile came from: the in-process cache, the folder's cache, or solc. */
export type CompileSource = 'memory' | 'disk' | 'solc';

export class ContractStore {
  /** Per contract name: the sources' hashes it was compiled from, and the contract. */
  private readonly compiled = new Map<string, { sources: Readonly<Record<string, string>>; contract: CompiledContract }>();
  /** Where the last compile() took its contract from (for tests and the bench). */
  lastSource: CompileSource | undefined;
  private identity: string | undefined;

  /** `compile`: the compiler (tests pass one that counts, or refuses to run). */
  constructor(
    readonly dir: string,
    private readonly compileWith: typeof compileSources = compileSources,
  ) {}

  get sourceDir(): string {
    return path.join(this.dir, CONTRACTS_DIR);
  }

  get artifactsDir(): string {
    return path.join(this.dir, ARTIFACTS_DIR);
  }

  /** Contract names with a source file (`<Name>.sol`), for completion and help. */
  names(): string[] {
    try {
      return readdirSync(this.sourceDir)
        .filter((n) => n.endsWith('.sol'))
        .map((n) => n.slice(0, -4))
        .sort();
    } catch {
      return [];
    }
  }

  /**
   * Contract `Name` of `<Name>.sol`: from the cache while the file, the files it imports and the
   * compiler are those it was compiled with, else compiled (and the cache written).
   */
  compile(name: string): CompiledContract {
    if (!/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name)) throw new ConsoleError(`"${name}" is not a contract name`);
    const unit = `${name}.sol`;
    let text: string;
    try {
      text = readFileSync(path.join(this.sourceDir, unit), 'utf8');
    } catch {
      const known = this.names();
      throw new ConsoleError(`${path.join(CONTRACTS_DIR, unit)}: no such file (contracts here: ${known.length ? known.join(', ') : 'none'})`);
    }
    const hash = sha256(text);
    const inMemory = this.compiled.get(name);
    if (inMemory && this.unchanged(inMemory.sources, unit, hash)) return this.took('memory', inMemory.contract);
    const cached = this.readCache(name);
    if (cached && this.unchanged(cached.sources, unit, hash)) {
      this.compiled.set(name, { sources: cached.sources, contract: cached.contract });
      return this.took('disk', cached.contract);
    }
    const { contract, sources } = this.compileFresh(name, unit, text, hash);
    this.compiled.set(name, { sources, contract });
    this.writeCache(name, { format: CACHE_FORMAT, version: CACHE_VERSION, compiler: this.compilerIdentity(), sources, contract });
    return this.took('solc', contract);
  }

  private took(source: CompileSource, contract: CompiledContract): CompiledContract {
    this.lastSource = source;
    return contract;
  }

  private compilerIdentity(): string {
    return (this.identity ??= compilerIdentity());
  }

  /** Whether the recorded sources are the files as they are now (the contract's own with `hash`). */
  private unchanged(sources: Readonly<Record<string, string>>, unit: string, hash: string): boolean {
    if (sources[unit] !== hash) return false;
    for (const [file, recorded] of Object.entries(sources)) {
      if (file === unit) continue;
      const target = this.importPath(file);
      let current: string | undefined;
      try {
        current = target === undefined ? undefined : sha256(readFileSync(target, 'utf8'));
      } catch {
        return false;
      }
      if (current !== recorded) return false;
    }
    return true;
  }

  /** An imported source unit's path, inside contracts/solidity only. */
  private importPath(imported: string): string | undefined {
    const target = path.resolve(this.sourceDir, imported);
    return target.startsWith(path.resolve(this.sourceDir) + path.sep) ? target : undefined;
  }

  private compileFresh(name: string, unit: string, text: string, hash: string): { contract: CompiledContract; sources: Record<string, string> } {
    const sources: Record<string, string> = { [unit]: hash };
    const result = this.compileWith(
      { [unit]: text },
      {
        readImport: (imported) => {
          const target = this.importPath(imported);
          if (target === undefined) return undefined;
          try {
            const importedText = readFileSync(target, 'utf8');
            sources[imported] = sha256(importedText);
            return importedText;
          } catch {
            return undefined;
          }
        },
      },
    );
    const show = (file: string) => path.join(CONTRACTS_DIR, file);
    const errors = result.diagnostics.filter((d) => d.severity === 'error');
    if (errors.length > 0) throw new ConsoleError(`compiling ${unit} failed:\n${errors.map((d) => formatDiagnostic(d, show)).join('\n')}`);
    const artifact: Artifact | undefined = result.artifacts.find((a) => a.contractName === name);
    if (!artifact) {
      const found = result.artifacts.map((a) => a.contractName);
      throw new ConsoleError(`${show(unit)} has no contract ${name} (it has ${found.length ? found.join(', ') : 'none'})`);
    }
    if (artifact.bytecode === '0x') throw new ConsoleError(`${name} is abstract or an interface: it has no code to deploy`);
    const contract: CompiledContract = {
      name,
      abi: artifact.abi as Abi,
      bytecode: artifact.bytecode as `0x${string}`,
      warnings: result.diagnostics.filter((d) => d.severity === 'warning').map((d) => formatDiagnostic(d, show)),
    };
    return { contract, sources };
  }

  /** The folder's cached artifact of `name`, if it is one this compiler made; anything else (none, unreadable, another format) is no cache. */
  private readCache(name: string): CachedArtifact | undefined {
    let value: unknown;
    try {
      value = JSON.parse(readFileSync(path.join(this.artifactsDir, 'cache', `${name}.json`), 'utf8'));
    } catch {
      return undefined;
    }
    const cached = value as Partial<CachedArtifact> | null;
    if (typeof cached !== 'object' || cached === null || cached.format !== CACHE_FORMAT || cached.version !== CACHE_VERSION) return undefined;
    if (cached.compiler !== this.compilerIdentity() || typeof cached.sources !== 'object' || cached.sources === null) return undefined;
    const c = cached.contract;
    if (!c || c.name !== name || !Array.isArray(c.abi) || typeof c.bytecode !== 'string' || !/^0x[0-9a-f]+$/.test(c.bytecode) || !Array.isArray(c.warnings)) return undefined;
    return cached as CachedArtifact;
  }

  /**
   * Writes the cache entry and FISCO's abi/bin files, each through a temporary file renamed into
   * place (a console killed while writing leaves the old file or none, never half of one). The
   * cache only saves time: a folder that cannot be written is compiled from again next time.
   */
  private writeCache(name: string, entry: CachedArtifact): void {
    const write = (file: string, text: string) => {
      mkdirSync(path.dirname(file), { recursive: true });
      const temporary = `${file}.${process.pid}.tmp`;
      writeFileSync(temporary, text);
      renameSync(temporary, file);
    };
    try {
      write(path.join(this.artifactsDir, 'abi', `${name}.abi`), JSON.stringify(entry.contract.abi));
      write(path.join(this.artifactsDir, 'bin', `${name}.bin`), entry.contract.bytecode.slice(2));
      write(path.join(this.artifactsDir, 'cache', `${name}.json`), `${JSON.stringify(entry)}\n`);
    } catch {
      // not writable: every command compiles, as before there was a cache
    }
  }

  /** Appends a deployment to deploylog.txt. */
  remember(group: number, name: string, address: string, at: Date): void {
    const stamp = at.toISOString().replace('T', ' ').slice(0, 19);
    try {
      appendFileSync(path.join(this.dir, DEPLOY_LOG), `${stamp}  [group:${group}]  ${name}  ${address}\n`);
    } catch (error) {
      throw new ConsoleError(`${DEPLOY_LOG}: cannot record the deployment of ${name} at ${address}: ${(error as Error).message}`);
    }
  }

  /** The address `name` was last deployed at in `group`. */
  latest(group: number, name: string): string {
    let text = '';
    try {
      text = readFileSync(path.join(this.dir, DEPLOY_LOG), 'utf8');
    } catch {
      // no deployments yet
    }
    const lines = text.split('\n');
    for (let i = lines.length - 1; i >= 0; i--) {
      const m = /^\S+ \S+\s+\[group:(\d+)\]\s+(\S+)\s+(0x[0-9a-fA-F]{40})\s*$/.exec(lines[i]!);
      if (m && Number(m[1]) === group && m[2] === name) return m[3]!.toLowerCase();
    }
    throw new ConsoleError(`no ${name} was deployed in group ${group} from this console (${DEPLOY_LOG}); deploy ${name} first or give its address`);
  }
}
