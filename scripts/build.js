// `npm run build`, also run by `prepare` (npm install/ci in a clone, npm pack, installs from git):
// compiles src/ (without tests and test helpers) to dist/ with declarations, copies the files
// modules read beside themselves, and marks the build with dist/.built, whose modification time
// is the moment the build started: bin/twinchain.js runs dist/ only while no file under src/ is
// newer than that.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildNative } from './build-native.js';

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

// The CLI bundled (dist/bundle/): the compiled modules and the packages they import in a few
// dozen files rather than ~430, which halves a command's start (0.65 s to 0.33 s here for the node
// command's imports), and every node, console and swarm a user or the tests start pays it.
// The entries are the CLI and what starts in a worker thread or a process of its own; chunks sit
// beside them, two folders below the root like dist/<folder>/, and modules that read files beside
// themselves (the report's page script and style) find their copies there. Native addons and
// solc (loaded on first use, 8 MB) stay in node_modules.
const bundle = path.join(dist, 'bundle');
const entries = ['cli/main.js', 'cli/swarm-worker.js', 'cli/shrink-worker.js', 'replay/crypto-worker.js', 'replay/line-reader-worker.js', 'bench/flood-main.js', 'bench/chain-load-main.js'];
const esbuild = await import('esbuild');
try {
  await esbuild.build({
    entryPoints: entries.map((e) => path.join(dist, e)),
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    outdir: bundle,
    entryNames: '[name]',
    chunkNames: '[name]-[hash]',
    external: ['classic-level', 'secp256k1', 'solc'],
    // CommonJS packages bundled into ES modules still call require
    banner: { js: "import { createRequire as __twinchainRequire } from 'node:module'; const require = __twinchainRequire(import.meta.url);" },
    logLevel: 'warning',
  });
} catch {
  console.error('build: bundling the CLI failed (above); bin/twinchain.js runs the unbundled dist/ until it builds');
  rmSync(bundle, { recursive: true, force: true });
  process.exit(1);
}
for (const file of ['report/report-page.js', 'report/report-page.css']) copyFileSync(path.join(dist, file), path.join(bundle, path.basename(file)));

const stamp = path.join(dist, '.built');
writeFileSync(stamp, `built from src/ at ${started.toISOString()}\n`);
utimesSync(stamp, started, started);
console.log(`build: dist/ compiled from src/ (${copied} other files copied), the CLI bundled in dist/bundle/ (${readdirSync(bundle).length} files)`);
// optional: never fails the build
console.log(`build: native addons: ${buildNative()}`);
