import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// Every module a thread imports at start is loaded (and compiled) before the thread can answer:
// the reader and the crypto workers boot at the start of every `twinchain replay`, beside the
// replay's own thread. What they load statically is listed here, so that a new import of a heavy
// package (an ABI library, the trie, the EVM: 0.1–0.2 s each per thread) is a decision, not an
// accident. Dynamic `import()` (loaded on first use) and type-only imports do not count.

const STATIC_IMPORT = /^\s*(?:import|export)\s+(?!type\b)(?:[^;'"]*?\sfrom\s+)?['"]([^'"]+)['"]/gm;

/** The packages (and node: modules) a source file reaches through static imports. */
function packagesReached(entry: string): { packages: string[]; files: number } {
  const seen = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const source = readFileSync(file, 'utf8');
    for (const [, specifier] of source.matchAll(STATIC_IMPORT)) {
      if (specifier!.startsWith('.')) visit(resolve(dirname(file), specifier!.replace(/\.js$/, '.ts')));
      else if (!specifier!.startsWith('node:')) packages.add(specifier!.startsWith('@') ? specifier!.split('/').slice(0, 2).join('/') : specifier!.split('/')[0]!);
    }
  };
  visit(entry);
  return { packages: [...packages].sort(), files: seen.size };
}

const here = dirname(fileURLToPath(import.meta.url));

describe("the replay's threads load what they use", () => {
  it('the crypto workers: the crypto suites and RLP, no ABI library, trie or EVM', () => {
    const { packages } = packagesReached(resolve(here, 'crypto-worker.ts'));
    expect(packages).toEqual(['@ethereumjs/rlp', '@noble/curves', '@noble/hashes', 'hash-wasm', 'sm-crypto-v2']);
  });

  it('the reader: gunzip and the line splitting, no crypto', () => {
    const { packages } = packagesReached(resolve(here, 'line-reader-worker.ts'));
    expect(packages).toEqual(['@ethereumjs/rlp']);
  });

  it('sees through multi-line imports and re-exports, and leaves out type-only and dynamic imports', () => {
    const source = [
      "import {\n  a,\n  b,\n} from 'pkg-a/sub';",
      "export { c } from '@scope/pkg-b/deep';",
      "import type { D } from 'pkg-types';",
      "export type { E } from 'pkg-types-2';",
      "import 'pkg-side-effect';",
      "const lazy = await import('pkg-lazy');",
    ].join('\n');
    expect([...source.matchAll(STATIC_IMPORT)].map((m) => m[1])).toEqual(['pkg-a/sub', '@scope/pkg-b/deep', 'pkg-side-effect']);
  });
});
