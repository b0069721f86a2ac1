// `console -e 'call …'` starts as a new process for every command: what it loads before it runs
// is most of its time (bench console). It reaches no ABI library but ox's parameter codec, no
// curve library and no compiler: the crypto suite comes with the first transaction, solc-js
// with the first compile (and not for a contract whose artifact is cached).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { packagesOf, staticReach } from '../import-graph.test-helper.js';

const ROOT = path.resolve(fileURLToPath(new URL('../..', import.meta.url)));

describe("the console's start-up", () => {
  it('reaches only the packages a read needs: ox (ABI), @noble/hashes (keccak), smol-toml (config.toml), @ethereumjs/rlp (codec)', () => {
    const { files, external } = staticReach(path.join(ROOT, 'src', 'cli', 'console-command.ts'));
    // no viem (its root module alone is some 340 modules), no curve library, no solc (required on the first compile)
    expect(packagesOf(external)).toEqual(['@ethereumjs/rlp', '@noble/hashes', 'ox', 'smol-toml']);
    const reached = files.map((f) => path.relative(ROOT, f));
    expect(reached.filter((f) => f.startsWith('src/crypto/'))).toEqual([]);
  });
});
