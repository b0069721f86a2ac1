// Every relative link of README.md and docs/*.md leads somewhere: to a file or folder of the
// repository, and where it has a #fragment, to a heading (or an explicit id) of the page it names.
// The index (docs/README.md) links every page, and the README stays within 25 KB.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const PAGES = ['README.md', ...readdirSync(path.join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).sort().map((name) => `docs/${name}`)];

export interface Link {
  readonly line: number;
  readonly target: string;
}

/** The page's lines outside fenced code blocks, without inline code spans unless asked to keep them. */
function prose(text: string, keepCodeSpans = false): string[] {
  const out: string[] = [];
  let fence: string | undefined;
  for (const line of text.split('\n')) {
    const open = /^\s*(```|~~~)/.exec(line);
    if (fence !== undefined) {
      if (open && open[1] === fence) fence = undefined;
      out.push('');
      continue;
    }
    if (open) {
      fence = open[1];
      out.push('');
      continue;
    }
    out.push(keepCodeSpans ? line : line.replace(/(`+)[^`]*?\1/g, ''));
  }
  return out;
}

/** Inline links `[text](target)` and reference definitions `[name]: target`, with their lines. */
export function linksOf(text: string): Link[] {
  const links: Link[] = [];
  prose(text).forEach((line, i) => {
    for (const m of line.matchAll(/\]\(\s*(?:<([^>]+)>|([^)\s]+))(?:\s+"[^"]*")?\s*\)/g)) links.push({ line: i + 1, target: (m[1] ?? m[2])! });
    const def = /^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/.exec(line);
    if (def) links.push({ line: i + 1, target: def[1]! });
    for (const m of line.matchAll(/<a\s[^>]*href="([^"]+)"/g)) links.push({ line: i + 1, target: m[1]! });
  });
  return links;
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
export function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors a page defines: its headings' slugs (repeats numbered as GitHub does) and explicit ids. */
export function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of prose(text, true)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading) {
      const base = slug(heading[1]!);
      const n = seen.get(base) ?? 0;
      seen.set(base, n + 1);
      anchors.add(n === 0 ? base : `${base}-${n}`);
    }
    for (const m of line.matchAll(/<a\s[^>]*(?:id|name)="([^"]+)"/g)) anchors.add(m[1]!);
  }
  return anchors;
}

/** What is wrong with each relative link of a page (nothing when every one resolves). */
export function brokenLinks(page: string, read: (file: string) => string | undefined, isFile: (file: string) => boolean | undefined): string[] {
  const text = read(page)!;
  const problems: string[] = [];
  for (const { line, target } of linksOf(text)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) continue; // http:, https:, mailto:
    const hash = target.indexOf('#');
    const file = decodeURIComponent(hash < 0 ? target : target.slice(0, hash));
    const fragment = hash < 0 ? undefined : decodeURIComponent(target.slice(hash + 1));
    const resolved = file === '' ? page : path.posix.normalize(path.posix.join(path.posix.dirname(page), file)).replace(/(.)\/$/, '$1');
    const where = `${page}:${line}: ${target}`;
    if (resolved.startsWith('..')) {
      problems.push(`${where}: leads outside the repository`);
      continue;
    }
    const kind = isFile(resolved);
    if (kind === undefined) {
      problems.push(`${where}: ${resolved} does not exist`);
      continue;
    }
    if (fragment === undefined || fragment === '') continue;
    if (!kind || !resolved.endsWith('.md')) {
      problems.push(`${where}: a #fragment on ${resolved}, which is not a Markdown page`);
      continue;
    }
    const anchors = anchorsOf(read(resolved)!);
    if (!anchors.has(fragment)) problems.push(`${where}: ${resolved} has no heading with the anchor #${fragment}`);
  }
  return problems;
}

const read = (file: string): string | undefined => (existsSync(path.join(ROOT, file)) ? readFileSync(path.join(ROOT, file), 'utf8') : undefined);
const isFile = (file: string): boolean | undefined => (existsSync(path.join(ROOT, file)) ? statSync(path.join(ROOT, file)).isFile() : undefined);

describe('links of the README and docs/', () => {
  it('reads links and anchors as GitHub does', () => {
    expect(linksOf('See [a](docs/a.md#x-y) and [b](<b c.md>), not `[c](c.md)`.\n```\n[d](d.md)\n```\n[e]: e.md\n<a href="f.md">f</a>').map((l) => l.target)).toEqual(['docs/a.md#x-y', 'b c.md', 'e.md', 'f.md']);
    expect(slug('Swarm on many machines')).toBe('swarm-on-many-machines');
    expect(slug("A shard's result")).toBe('a-shards-result');
    expect(slug('`twinchain swarm merge <dirs | -> [--out dir]`')).toBe('twinchain-swarm-merge-dirs------out-dir');
    expect(slug('Shards: `--shard I/N`')).toBe('shards---shard-in');
    expect([...anchorsOf('# T\n## Speed\n## Speed\n```\n## not a heading\n```\n<a id="here"></a>')]).toEqual(['t', 'speed', 'speed-1', 'here']);
  });

  it('finds a missing page, a missing heading and a fragment on a folder', () => {
    const pages: Record<string, string> = { 'README.md': '[ok](docs/a.md#b) [gone](docs/x.md) [no heading](docs/a.md#c) [folder](src/#x) [self](#top) [out](../x.md)\n# Top', 'docs/a.md': '# A\n## B' };
    const files = (f: string): boolean | undefined => (f in pages ? true : f === 'src' ? false : undefined);
    expect(brokenLinks('README.md', (f) => pages[f], files)).toEqual([
      'README.md:1: docs/x.md: docs/x.md does not exist',
      'README.md:1: docs/a.md#c: docs/a.md has no heading with the anchor #c',
      'README.md:1: src/#x: a #fragment on src, which is not a Markdown page',
      'README.md:1: ../x.md: leads outside the repository',
    ]);
  });

  for (const page of PAGES) {
    it(`${page}: every relative link resolves`, () => {
      expect(brokenLinks(page, read, isFile)).toEqual([]);
    });
  }

  it('the README stays a front door: at most 25 KB (reference material goes to docs/)', () => {
    expect(Buffer.byteLength(read('README.md')!)).toBeLessThanOrEqual(25 * 1024);
  });

  it('docs/README.md, the index, links every page of docs/, and the README links the index', () => {
    const indexed = new Set(linksOf(read('docs/README.md')!).map((l) => `docs/${l.target.split('#')[0]}`));
    expect(PAGES.filter((page) => page.startsWith('docs/') && page !== 'docs/README.md' && !indexed.has(page))).toEqual([]);
    expect(linksOf(read('README.md')!).map((l) => l.target)).toContain('docs/README.md');
  });
});
