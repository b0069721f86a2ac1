import { readdir } from 'node:fs/promises';
import path from 'node:path';

/**
 * The small glob dialect of mutation-targets.ts: `**` (any folders), `*` (any characters but
 * `/`), literal text otherwise; a leading `!` excludes. Matches paths relative to the root with
 * forward slashes.
 */
export function globToRegExp(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*' && glob[i + 1] === '*') {
      // `**/` is zero or more folders; a trailing `**` anything
      if (glob[i + 2] === '/') {
        re += '(?:[^/]+/)*';
        i += 2;
      } else {
        re += '.*';
        i += 1;
      }
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

/** Whether a relative path is selected by globs (at least one positive match, no `!` match). */
export function matchesGlobs(file: string, globs: readonly string[]): boolean {
  const f = file.replace(/\\/g, '/');
  let selected = false;
  for (const g of globs) {
    if (g.startsWith('!')) {
      if (globToRegExp(g.slice(1)).test(f)) return false;
    } else if (!selected && globToRegExp(g).test(f)) selected = true;
  }
  return selected;
}

const SKIPPED = new Set(['node_modules', '.git', 'dist', 'reports', '.stryker-tmp']);

/** Files under `root` (relative, forward slashes, sorted) that the globs select. */
export async function expandGlobs(root: string, globs: readonly string[]): Promise<string[]> {
  const tops = new Set(globs.filter((g) => !g.startsWith('!')).map((g) => g.split('/')[0]!));
  const found: string[] = [];
  const walk = async (rel: string): Promise<void> => {
    const entries = await readdir(path.join(root, rel), { withFileTypes: true }).catch(() => []);
    for (const e of entries) {
      const child = rel === '' ? e.name : `${rel}/${e.name}`;
      if (e.isDirectory()) {
        if (!SKIPPED.has(e.name)) await walk(child);
      } else if (matchesGlobs(child, globs)) found.push(child);
    }
  };
  for (const top of tops) {
    if (top.includes('*')) await walk('');
    else if (globs.some((g) => g === top || g === `!${top}`)) {
      if (matchesGlobs(top, globs)) found.push(top);
    } else await walk(top);
  }
  return [...new Set(found)].sort();
}
