// Builds the optional addon, run by scripts/build.js (so by `npm install`/`npm ci`):
// native/secp256k1-system.c (system libsecp256k1 key recovery) into
// native/build/secp256k1-system.node. Where a C compiler, Node's headers or libsecp256k1
// (Debian: libsecp256k1-dev) are missing it says so and goes on without failing: the crypto
// then uses the secp256k1 npm package alone (src/crypto/secp256k1-backend.ts).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Compiles native/<name>.c into native/build/<name>.node; what happened, in words. */
function buildAddon(name, headers, libraries) {
  const source = path.join(root, 'native', `${name}.c`);
  const out = path.join(root, 'native', 'build', `${name}.node`);
  mkdirSync(path.dirname(out), { recursive: true });
  try {
    execFileSync(process.env.CC || 'cc', ['-O2', '-fPIC', '-shared', '-Wall', '-Werror', `-I${headers}`, source, '-o', out, ...libraries], { stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (e) {
    rmSync(out, { force: true });
    return `${name} skipped: the compiler failed (${String(e.stderr ?? e.message).trim().split('\n')[0]})`;
  }
  return `built ${path.relative(root, out)}`;
}

export function buildNative() {
  // (thread-affinity.node: an addon of earlier versions, removed so that no stale copy ships)
  for (const name of ['secp256k1-system', 'thread-affinity']) rmSync(path.join(root, 'native', 'build', `${name}.node`), { force: true });
  if (process.platform !== 'linux') return 'skipped (Linux only)';
  const headers = [path.join(path.dirname(path.dirname(process.execPath)), 'include', 'node'), '/usr/include/node'].find((dir) => existsSync(path.join(dir, 'node_api.h')));
  if (!headers) return "skipped: Node's headers (node_api.h) are not installed";
  return existsSync('/usr/include/secp256k1_recovery.h')
    ? buildAddon('secp256k1-system', headers, ['-lsecp256k1', '-lpthread'])
    : 'secp256k1-system skipped: libsecp256k1 is not installed (Debian: apt-get install libsecp256k1-dev)';
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) console.log(`build-native: ${buildNative()}`);
