// The console's contracts: contracts/solidity/<Name>.sol compiled with the pinned solc-js for
// FISCO's EVM, and deploylog.txt, where deployed addresses are remembered (FISCO's format:
// `<date time>  [group:N]  <Name>  <address>`), which `call <Name> latest` reads.
import { appendFileSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Abi } from 'viem';
import { compileSources, formatDiagnostic, type Artifact } from '../solidity/index.js';
import { ConsoleError } from './console-error.js';

export const CONTRACTS_DIR = path.join('contracts', 'solidity');
export const DEPLOY_LOG = 'deploylog.txt';

export interface CompiledContract {
  readonly name: string;
  readonly abi: Abi;
  readonly bytecode: `0x${string}`;
  /** Compiler warnings, formatted. */
  readonly warnings: readonly string[];
}

export class ContractStore {
  private readonly compiled = new Map<string, { mtimeMs: number; contract: CompiledContract }>();

  constructor(readonly dir: string) {}

  get sourceDir(): string {
    return path.join(this.dir, CONTRACTS_DIR);
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

  /** Compiles `<Name>.sol` (once per change of the file) and returns contract `Name` from it. */
  compile(name: string): CompiledContract {
    if (!/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name)) throw new ConsoleError(`"${name}" is not a contract name`);
    const file = path.join(this.sourceDir, `${name}.sol`);
    let mtimeMs: number;
    let text: string;
    try {
      mtimeMs = statSync(file).mtimeMs;
      text = readFileSync(file, 'utf8');
    } catch {
      const known = this.names();
      throw new ConsoleError(`${path.join(CONTRACTS_DIR, `${name}.sol`)}: no such file (contracts here: ${known.length ? known.join(', ') : 'none'})`);
    }
    const cached = this.compiled.get(name);
    if (cached && cached.mtimeMs === mtimeMs) return cached.contract;
    const sourceDir = this.sourceDir;
    const unit = `${name}.sol`;
    const result = compileSources(
      { [unit]: text },
      {
        readImport: (imported) => {
          const target = path.resolve(sourceDir, imported);
          if (!target.startsWith(sourceDir + path.sep)) return undefined;
          try {
            return readFileSync(target, 'utf8');
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
    this.compiled.set(name, { mtimeMs, contract });
    return contract;
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
