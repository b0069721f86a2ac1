// The package's root folder, for the files a module reads from the package (fixtures/, native/,
// bin/) rather than from beside itself. Found by walking up to the first package.json, so the
// answer is the same from src/ (tsx), dist/ (compiled) and dist/bundle/ (the bundled CLI), whose
// modules sit at different depths below the root.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

let root: string | undefined;

export function packageRoot(): string {
  if (root !== undefined) return root;
  const start = path.dirname(fileURLToPath(import.meta.url));
  for (let dir = start; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return (root = dir);
    if (path.dirname(dir) === dir) throw new Error(`no package.json in ${start} or any folder above it`);
  }
}

/** A path below the package root, e.g. packagePath('fixtures', 'contracts'). */
export function packagePath(...parts: string[]): string {
  return path.join(packageRoot(), ...parts);
}
