import { appendFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileSources } from '../solidity/index.js';
import { ContractStore } from './contracts.js';

const FIXTURES = new URL('../../fixtures/contracts/', import.meta.url).pathname;
let root: string;
beforeAll(() => {
  root = mkdtempSync(path.join(tmpdir(), 'console-contracts-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A console folder with some fixture contracts in contracts/solidity. */
function folder(name: string): string {
  const dir = path.join(root, name);
  mkdirSync(path.join(dir, 'contracts', 'solidity'), { recursive: true });
  for (const file of ['HelloWorld.sol', 'TableUser.sol', 'Table.sol']) cpSync(path.join(FIXTURES, file), path.join(dir, 'contracts', 'solidity', file));
  return dir;
}

/**
 * solc, run once per distinct input: these tests are about when the store asks for a compile, not
 * about solc (the first test runs the store's own compiler), and each solc run is ~1 s. A hit reads
 * the same imports again, so the store sees the reads a compile makes, and an import whose text
 * changed is a miss.
 */
const solcRuns: Array<{ key: string; imports: Map<string, string | undefined>; out: ReturnType<typeof compileSources> }> = [];
const solc: typeof compileSources = (sources, options = {}) => {
  const key = JSON.stringify([sources, options]);
  const hit = solcRuns.find((r) => r.key === key && [...r.imports].every(([name, text]) => options.readImport?.(name) === text));
  if (hit) return structuredClone(hit.out);
  const imports = new Map<string, string | undefined>();
  const readImport = (name: string) => {
    const text = options.readImport?.(name);
    imports.set(name, text);
    return text;
  };
  const out = compileSources(sources, { ...options, readImport });
  solcRuns.push({ key, imports, out });
  return structuredClone(out);
};

/** A compiler that counts its runs. */
function counting() {
  const runs: string[] = [];
  const compile: typeof compileSources = (sources, options) => {
    runs.push(...Object.keys(sources));
    return solc(sources, options);
  };
  return { runs, compile };
}

const refusing: typeof compileSources = () => {
  throw new Error('the compiler ran');
};

describe('ContractStore: compiled artifacts kept in the console folder', () => {
  it('compiles once; a later console (a new store) takes the artifact from the folder without running the compiler', () => {
    const dir = folder('once');
    const first = new ContractStore(dir);
    const compiled = first.compile('HelloWorld');
    expect(first.lastSource).toBe('solc');
    // FISCO's console layout, and the cache entry
    expect(JSON.parse(readFileSync(path.join(dir, 'contracts/sdk/abi/HelloWorld.abi'), 'utf8'))).toEqual(compiled.abi);
    expect(`0x${readFileSync(path.join(dir, 'contracts/sdk/bin/HelloWorld.bin'), 'utf8')}`).toBe(compiled.bytecode);
    const entry = JSON.parse(readFileSync(path.join(dir, 'contracts/sdk/cache/HelloWorld.json'), 'utf8')) as { compiler: string; sources: Record<string, string> };
    expect(entry.compiler).toMatch(/^solc-js 0\.8\.\d+, evm constantinople, optimizer 200 runs$/);
    expect(Object.keys(entry.sources)).toEqual(['HelloWorld.sol']);

    const later = new ContractStore(dir, refusing);
    expect(later.compile('HelloWorld')).toEqual(compiled);
    expect(later.lastSource).toBe('disk');
    expect(later.compile('HelloWorld')).toEqual(compiled);
    expect(later.lastSource).toBe('memory');
  });

  it('recompiles when the source changes, in this console and in the next', () => {
    const dir = folder('edited');
    const { runs, compile } = counting();
    const store = new ContractStore(dir, compile);
    const before = store.compile('HelloWorld');
    const source = path.join(dir, 'contracts/solidity/HelloWorld.sol');
    writeFileSync(source, readFileSync(source, 'utf8').replace('Hello, World!', 'Hello, cache!'));
    const after = store.compile('HelloWorld');
    expect(store.lastSource).toBe('solc');
    expect(after.bytecode).not.toBe(before.bytecode);
    expect(runs).toEqual(['HelloWorld.sol', 'HelloWorld.sol']);
    // the folder's cache holds the new one
    const next = new ContractStore(dir, refusing);
    expect(next.compile('HelloWorld').bytecode).toBe(after.bytecode);
  });

  it('recompiles when a file the contract imports changes', () => {
    const dir = folder('imports');
    const first = new ContractStore(dir, solc);
    first.compile('TableUser');
    const entry = JSON.parse(readFileSync(path.join(dir, 'contracts/sdk/cache/TableUser.json'), 'utf8')) as { sources: Record<string, string> };
    expect(Object.keys(entry.sources).sort()).toEqual(['Table.sol', 'TableUser.sol']);
    expect(new ContractStore(dir, refusing).compile('TableUser').name).toBe('TableUser');
    appendFileSync(path.join(dir, 'contracts/solidity/Table.sol'), '\n// changed\n');
    const { runs, compile } = counting();
    const store = new ContractStore(dir, compile);
    store.compile('TableUser');
    expect([store.lastSource, runs]).toEqual(['solc', ['TableUser.sol']]);
  });

  it('recompiles for another compiler, and over a cache entry that is damaged', () => {
    const dir = folder('damaged');
    new ContractStore(dir, solc).compile('HelloWorld');
    const cache = path.join(dir, 'contracts/sdk/cache/HelloWorld.json');
    const entry = JSON.parse(readFileSync(cache, 'utf8')) as Record<string, unknown>;
    writeFileSync(cache, JSON.stringify({ ...entry, compiler: 'solc-js 0.4.25, evm constantinople, optimizer 200 runs' }));
    for (const damage of [() => undefined, () => writeFileSync(cache, '{"format":'), () => writeFileSync(cache, JSON.stringify({ ...entry, contract: { name: 'HelloWorld' } }))]) {
      damage();
      const { runs, compile } = counting();
      const store = new ContractStore(dir, compile);
      expect(store.compile('HelloWorld').bytecode).toMatch(/^0x[0-9a-f]+$/);
      expect(runs).toEqual(['HelloWorld.sol']);
    }
  });

  it('a folder it cannot write compiles every time, and the commands work as before', () => {
    const dir = folder('unwritable');
    // contracts/sdk is a file: nothing can be kept there
    writeFileSync(path.join(dir, 'contracts/sdk'), 'not a folder');
    const { runs, compile } = counting();
    expect(new ContractStore(dir, compile).compile('HelloWorld').name).toBe('HelloWorld');
    expect(new ContractStore(dir, compile).compile('HelloWorld').name).toBe('HelloWorld');
    expect(runs).toEqual(['HelloWorld.sol', 'HelloWorld.sol']);
    expect(existsSync(path.join(dir, 'contracts/sdk/cache'))).toBe(false);
  });
});
