// `npm run build`, also run by `prepare` (npm install/ci in a clone, npm pack, installs from git):
// compiles src/ (without tests and test helpers) to dist/ with declarations, copies the files
// modules read beside themselves, and marks the build with dist/.built, whose modification time
// is the moment the build started: bin/twinchain.js runs dist/ only while no file under src/ is
// newer than that.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildNative } from './build-native.js';
import { bundleCli, stampBuild } from './bundle-cli.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const src = path.join(root, 'src');
const dist = path.join(root, 'dist');
const started = new Date();

// a clean folder: a module deleted from src/ must not live on in dist/
rmSync(dist, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
try {
  execFileSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
} catch {
  console.error('build: tsc failed (above); dist/ is incomplete and bin/twinchain.js will run the sources through tsx');
  rmSync(dist, { recursive: true, force: true });
  process.exit(1);
}

// Files other than TypeScript that modules read relative to themselves (the report's page
// script and style). The worker boot files are left out: they start workers for a parent that
// runs from the sources, and compiled code starts its workers from the compiled modules directly.
let copied = 0;
for (const rel of readdirSync(src, { recursive: true })) {
  const file = String(rel);
  if (file.endsWith('.ts') || file.endsWith('-boot.js') || !path.extname(file)) continue;
  mkdirSync(path.dirname(path.join(dist, file)), { recursive: true });
  copyFileSync(path.join(src, file), path.join(dist, file));
  copied++;
}

// The CLI bundled (dist/bundle/, scripts/bundle-cli.js) from the compiled modules
let bundled;
try {
  bundled = await bundleCli(root, 'dist');
} catch {
  console.error('build: bundling the CLI failed (above); bin/twinchain.js runs the unbundled dist/ until it builds');
  rmSync(path.join(dist, 'bundle'), { recursive: true, force: true });
  process.exit(1);
}
stampBuild(root, started);
console.log(`build: dist/ compiled from src/ (${copied} other files copied), the CLI bundled in dist/bundle/ (${bundled} files)`);
// optional: never fails the build
console.log(`build: native addons: ${buildNative()}`);
