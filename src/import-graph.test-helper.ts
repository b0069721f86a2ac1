// What a source file loads before it runs: the modules it reaches through static imports, and
// the packages. For tests that keep a start-up light (`twinchain --help`, the replay's threads).
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** Static imports and re-exports; type-only ones and import() (loaded on use) are left out. */
export const STATIC_IMPORT = /^\s*(?:import|export)\s+(?!type\b)(?:[^;'"]*?\sfrom\s+)?['"]([^'"]+)['"]/gm;

/** The source files `entry` reaches (absolute paths, itself included) and the other specifiers it imports (packages, node: modules). */
export function staticReach(entry: string): { files: string[]; external: string[] } {
  const files = new Set<string>();
  const external = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    for (const [, specifier] of readFileSync(file, 'utf8').matchAll(STATIC_IMPORT)) {
      if (specifier!.startsWith('.')) visit(resolve(dirname(file), specifier!.replace(/\.js$/, '.ts')));
      else external.add(specifier!);
    }
  };
  visit(entry);
  return { files: [...files].sort(), external: [...external].sort() };
}

/** The packages among the specifiers: `@scope/name` or `name`, node: modules left out. */
export function packagesOf(specifiers: readonly string[]): string[] {
  const names = specifiers.filter((s) => !s.startsWith('node:')).map((s) => (s.startsWith('@') ? s.split('/').slice(0, 2).join('/') : s.split('/')[0]!));
  return [...new Set(names)].sort();
}
