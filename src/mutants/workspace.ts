import { rmSync } from 'node:fs';
import { cp, copyFile, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { MutantPatch } from './catalogue.js';
import { LocationError, locationLabel, replaceAt, textAt, type SourceLocation } from './location-patch.js';
import { packageRoot } from '../package-root.js';

/**
 * A replacement at a location (a StrykerJS mutant): the text there must still be `original`, so a
 * file changed since the mutant was generated fails to plant instead of planting something else.
 */
export interface LocatedPatch {
  /** Path relative to the repository root. */
  readonly file: string;
  readonly at: SourceLocation;
  readonly original: string;
  readonly replace: string;
}

/** Anything that can be planted in a copy: the catalogue's anchored patches or located ones. */
export interface Plantable {
  readonly id: string;
  readonly patches: ReadonlyArray<MutantPatch | LocatedPatch>;
}

function isLocated(patch: MutantPatch | LocatedPatch): patch is LocatedPatch {
  return 'at' in patch;
}

function clip(text: string): string {
  const t = text.replace(/\s+/g, ' ');
  return JSON.stringify(t.length > 90 ? `${t.slice(0, 90)}…` : t);
}

/** A mutant that cannot be planted: names the file and the anchor that did not match exactly once. */
export class MutantPatchError extends Error {
  override readonly name = 'MutantPatchError';
}

/** The repository this code runs from. */
export function repoRoot(): string {
  return packageRoot();
}

function count(text: string, find: string): number {
  let n = 0;
  for (let at = text.indexOf(find); at >= 0; at = text.indexOf(find, at + 1)) n++;
  return n;
}

function anchorLabel(find: string): string {
  const line = find.split('\n').find((l) => l.trim() !== '') ?? find;
  const t = line.trim();
  return JSON.stringify(t.length > 90 ? `${t.slice(0, 90)}…` : t);
}

/** The problem with one patch against a file's text, or null when its anchor occurs exactly once (or its location holds the original). */
export function patchProblem(mutantId: string, patch: MutantPatch | LocatedPatch, text: string | undefined): string | null {
  if (text === undefined) return `mutant ${mutantId}: ${patch.file} does not exist`;
  if (isLocated(patch)) {
    let found: string;
    try {
      found = textAt(text, patch.at);
    } catch (e) {
      if (e instanceof LocationError) return `mutant ${mutantId}: ${patch.file} has no ${locationLabel(patch.at)}: ${e.message}`;
      throw e;
    }
    return found === patch.original ? null : `mutant ${mutantId}: ${patch.file} ${locationLabel(patch.at)} holds ${clip(found)}, not the mutated ${clip(patch.original)} (the file changed since the mutant was generated)`;
  }
  const n = count(text, patch.find);
  if (n === 1) return null;
  return `mutant ${mutantId}: the anchor ${anchorLabel(patch.find)} occurs ${n === 0 ? 'nowhere' : `${n} times`} in ${patch.file} (it must occur exactly once)`;
}

/** Every anchor problem of a mutant against the sources under `root` (empty when it applies cleanly). */
export async function anchorProblems(mutant: Plantable, root: string): Promise<string[]> {
  const problems: string[] = [];
  const texts = new Map<string, string | undefined>();
  for (const patch of mutant.patches) {
    if (!texts.has(patch.file)) texts.set(patch.file, await readFile(path.join(root, patch.file), 'utf8').catch(() => undefined));
    const problem = patchProblem(mutant.id, patch, texts.get(patch.file));
    if (problem) problems.push(problem);
  }
  return problems;
}

/** Applies a mutant's patches to the files under `root` (a copy!), in order; throws MutantPatchError naming file and anchor or location. */
export async function applyMutant(mutant: Plantable, root: string): Promise<void> {
  for (const patch of mutant.patches) {
    const file = path.join(root, patch.file);
    const text = await readFile(file, 'utf8').catch(() => undefined);
    const problem = patchProblem(mutant.id, patch, text);
    if (problem) throw new MutantPatchError(problem);
    await writeFile(file, isLocated(patch) ? replaceAt(text!, patch.at, patch.replace) : text!.replace(patch.find, () => patch.replace));
  }
}

/** What a mutant's temporary copy holds: enough to run the CLI from it. */
export const COPIED = ['bin', 'src', 'scenarios', 'fixtures'] as const;
export const COPIED_FILES = ['package.json', 'tsconfig.json'] as const;

const live = new Set<string>();
let exitHook = false;

/** Removes every temporary copy still present (synchronously: usable on exit and on a signal). */
export function removeAllCopies(): void {
  for (const dir of live) rmSync(dir, { recursive: true, force: true });
  live.clear();
}

/**
 * Bundles a copy's (patched) sources into its dist/bundle/ as `npm run build` bundles the compiled
 * ones (scripts/bundle-cli.js of the repository at `from`), so the copy's CLI, its swarm and shrink
 * children and their worker threads start from the bundle: through tsx every process and worker
 * would compile the sources again (a swarm with two workers: 8.6-9.8 s of CPU against 4.4-4.5 s).
 * False, and the copy runs its sources through tsx as before, where there is no esbuild or it
 * refuses the code.
 */
async function bundleCopy(dir: string, from: string): Promise<boolean> {
  try {
    const { bundleSources } = (await import(pathToFileURL(path.join(from, 'scripts', 'bundle-cli.js')).href)) as { bundleSources(root: string): Promise<boolean> };
    return await bundleSources(dir);
  } catch {
    return false;
  }
}

/**
 * A patched temporary copy of the repository at `from`, with node_modules linked, not copied, and
 * its CLI bundled from the patched sources (`bundled`) where esbuild could.
 */
export async function mutantCopy(mutant: Plantable | undefined, from = repoRoot()): Promise<{ dir: string; bundled: boolean; remove: () => Promise<void> }> {
  const dir = await mkdtemp(path.join(tmpdir(), `twinchain-mutant-${mutant?.id ?? 'none'}-`));
  live.add(dir);
  if (!exitHook) {
    exitHook = true;
    process.once('exit', removeAllCopies);
  }
  const remove = async () => {
    live.delete(dir);
    await rm(dir, { recursive: true, force: true });
  };
  try {
    for (const folder of COPIED) await cp(path.join(from, folder), path.join(dir, folder), { recursive: true, filter: (src) => !src.includes(`${path.sep}node_modules`) });
    for (const file of COPIED_FILES) await copyFile(path.join(from, file), path.join(dir, file));
    await symlink(path.join(from, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
    if (mutant) await applyMutant(mutant, dir);
  } catch (e) {
    await remove();
    throw e;
  }
  return { dir, bundled: await bundleCopy(dir, from), remove };
}
