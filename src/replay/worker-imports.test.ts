import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { packagesOf, STATIC_IMPORT, staticReach } from '../import-graph.test-helper.js';

// Every module a thread imports at start is loaded (and compiled) before the thread can answer:
// the reader and the crypto workers boot at the start of every `twinchain replay`, beside the
// replay's own thread. What they load statically is listed here, so that a new import of a heavy
// package (an ABI library, the trie, the EVM: 0.1–0.2 s each per thread) is a decision, not an
// accident. Dynamic `import()` (loaded on first use) and type-only imports do not count.

const packagesReached = (entry: string) => packagesOf(staticReach(entry).external);

const here = dirname(fileURLToPath(import.meta.url));

describe("the replay's threads load what they use", () => {
  it('the crypto workers: the crypto suites and RLP, no ABI library, trie or EVM', () => {
    expect(packagesReached(resolve(here, 'crypto-worker.ts'))).toEqual(['@ethereumjs/rlp', '@noble/curves', '@noble/hashes', 'hash-wasm', 'sm-crypto-v2']);
  });

  it('the reader: gunzip and the line splitting, no crypto', () => {
    expect(packagesReached(resolve(here, 'line-reader-worker.ts'))).toEqual(['@ethereumjs/rlp']);
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
