// Builds native/secp256k1-system.c (system libsecp256k1 key recovery) into
// native/build/secp256k1-system.node, run by scripts/build.js (so by `npm install`/`npm ci`).
// Optional: where a C compiler, Node's headers or libsecp256k1 (Debian: libsecp256k1-dev) are
// missing it says so and stops without failing; the crypto then uses the secp256k1 npm package
// alone (src/crypto/secp256k1-backend.ts).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const source = path.join(root, 'native', 'secp256k1-system.c');
const out = path.join(root, 'native', 'build', 'secp256k1-system.node');

export function buildNative() {
  rmSync(out, { force: true });
  if (process.platform !== 'linux') return 'skipped (Linux only)';
  const headers = [path.join(path.dirname(path.dirname(process.execPath)), 'include', 'node'), '/usr/include/node'].find((dir) => existsSync(path.join(dir, 'node_api.h')));
  if (!headers) return "skipped: Node's headers (node_api.h) are not installed";
  if (!existsSync('/usr/include/secp256k1_recovery.h')) return 'skipped: libsecp256k1 is not installed (Debian: apt-get install libsecp256k1-dev)';
  mkdirSync(path.dirname(out), { recursive: true });
  try {
    execFileSync(process.env.CC || 'cc', ['-O2', '-fPIC', '-shared', '-Wall', '-Werror', `-I${headers}`, source, '-o', out, '-lsecp256k1', '-lpthread'], { stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (e) {
    rmSync(out, { force: true });
    return `skipped: the compiler failed (${String(e.stderr ?? e.message).trim().split('\n')[0]})`;
  }
  return `built ${path.relative(root, out)}`;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) console.log(`build-native: ${buildNative()}`);
