// The CLI bundled into dist/bundle/: the modules and the packages they import in a few dozen files
// rather than ~430, which halves a command's start (0.65 s to 0.33 s for the node command's
// imports), and every node, console and swarm a user or the tests start pays it.
// `npm run build` bundles the compiled modules of dist/; a mutant's temporary copy (src/mutants)
// bundles its patched TypeScript sources directly (esbuild reads TypeScript as tsx does), so its
// swarm, shrink and workers start from a bundle instead of booting every process through tsx.
import { copyFileSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The entries: the CLI and what starts in a worker thread or a process of its own. Chunks sit beside
 * them, two folders below the root like dist/<folder>/, and modules that read files beside
 * themselves (the report's page script and style) find their copies there.
 */
export const BUNDLE_ENTRIES = ['cli/main', 'cli/swarm-worker', 'cli/shrink-worker', 'replay/crypto-worker', 'replay/line-reader-worker', 'bench/flood-main', 'bench/chain-load-main'];

/** Files beside a module that it reads at run time, copied into the bundle's folder. */
const ASSETS = ['report/report-page.js', 'report/report-page.css'];

/**
 * Bundles the CLI of the repository at `root` into root/dist/bundle/, from the compiled modules of
 * dist/ (`from: 'dist'`) or from the TypeScript sources of src/ (`from: 'src'`). Native addons and
 * solc (loaded on first use, 8 MB) stay in node_modules. Throws when esbuild reports an error
 * (which it also prints at `logLevel`).
 */
export async function bundleCli(root, from, logLevel = 'warning') {
  const base = path.join(root, from);
  const bundle = path.join(root, 'dist', 'bundle');
  const esbuild = await import('esbuild');
  await esbuild.build({
    entryPoints: BUNDLE_ENTRIES.map((e) => path.join(base, `${e}.${from === 'src' ? 'ts' : 'js'}`)),
    absWorkingDir: root,
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
    logLevel,
  });
  for (const file of ASSETS) copyFileSync(path.join(base, file), path.join(bundle, path.basename(file)));
  return readdirSync(bundle).length;
}

/**
 * Marks dist/ of `root` as built from src/ as it was at `started` (dist/.built's modification
 * time): bin/twinchain.js and the worker boots run dist/ only while nothing under src/ is newer.
 */
export function stampBuild(root, started) {
  const stamp = path.join(root, 'dist', '.built');
  writeFileSync(stamp, `built from src/ at ${started.toISOString()}\n`);
  utimesSync(stamp, started, started);
}

/**
 * A mutant copy's bundle, from its (patched) sources: true when dist/ now runs, false when the copy
 * keeps running its sources through tsx (esbuild missing or refusing the code: dist/ removed).
 */
export async function bundleSources(root) {
  try {
    await bundleCli(root, 'src', 'silent');
    // stamped when done: nothing edits a copy meanwhile, and a patch written in the millisecond
    // before the bundle began must not count as newer than it
    stampBuild(root, new Date());
    return true;
  } catch {
    rmSync(path.join(root, 'dist'), { recursive: true, force: true });
    return false;
  }
}
