/**
 * The swarm phase's results, one JSON line per mutant, appended as each finishes: an interrupted
 * phase resumes where it stopped. An entry is found by its mutant (file, location, replacement
 * and the hash of the file's source it was generated from) and used only when it was produced on
 * the same testbed (the hash of everything else the swarm runs: sources, scenarios, lock file)
 * with the same budget, unless stale entries are explicitly accepted.
 */
import { createHash } from 'node:crypto';
import { appendFile, mkdir, readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import type { SourceLocation } from './location-patch.js';
import type { SwarmBudget } from './mutation-targets.js';

export type SwarmVerdict =
  /** A static mutant (StrykerJS leaves those out): the unit tests next to its file, run in the planted copy, fail. */
  | { readonly kind: 'killed-by-tests'; readonly tests: readonly string[] }
  /** A failing seed: a safety/invariant violation, or (`expectation`) only failed expectations. */
  | { readonly kind: 'killed'; readonly by: 'invariant' | 'expectation'; readonly scenario: string; readonly seed: number; readonly evidence: readonly string[] }
  /** A seed, or the whole swarm child, crashed: the mutated code threw. */
  | { readonly kind: 'runtime-error'; readonly scenario: string; readonly seed: number | null; readonly evidence: readonly string[] }
  /** The swarm child did not finish within its budget and grace time (a hang). */
  | { readonly kind: 'timeout'; readonly scenario: string; readonly evidence: readonly string[] }
  /** The mutated source does not type-check, so it cannot be built. */
  | { readonly kind: 'compile-error'; readonly evidence: readonly string[] }
  | { readonly kind: 'survived' };

export interface SwarmCacheEntry {
  readonly key: string;
  readonly id: string;
  readonly file: string;
  readonly at: SourceLocation;
  readonly replacement: string;
  readonly testbed: string;
  readonly budget: SwarmBudget;
  readonly verdict: SwarmVerdict;
  /** Seeds run, per scenario. */
  readonly seeds: Readonly<Record<string, number>>;
  readonly wallMs: number;
  /** ISO time the result was produced. */
  readonly when: string;
  /** The commit it was produced on, if known. */
  readonly commit?: string;
}

const sha256 = (text: string | Uint8Array) => createHash('sha256').update(text).digest('hex');

/** The identity of a mutant's result: its file, location, replacement and the hash of the source it was generated from. */
export function swarmKey(file: string, at: SourceLocation, replacement: string, sourceHash: string): string {
  return sha256(JSON.stringify([file, at.start.line, at.start.column, at.end.line, at.end.column, replacement, sourceHash])).slice(0, 32);
}

export function sourceHash(source: string): string {
  return sha256(source);
}

/**
 * The hash of what a swarm run executes besides the mutant: every non-test source file (the
 * mutated file included: it is the testbed of the other files' mutants; src/mutants/ left out:
 * the mutation run itself, which swarm does not load), the scenario files, bin/ and the lock file.
 */
export async function testbedHash(root: string): Promise<string> {
  const files: string[] = [];
  const walk = async (rel: string): Promise<void> => {
    for (const e of await readdir(path.join(root, rel), { withFileTypes: true })) {
      const child = `${rel}/${e.name}`;
      if (e.isDirectory()) {
        if (child !== 'src/mutants') await walk(child);
      }
      else if (!e.name.endsWith('.test.ts') && !e.name.endsWith('.test-helper.ts')) files.push(child);
    }
  };
  for (const dir of ['src', 'scenarios', 'bin']) await walk(dir);
  files.push('package-lock.json');
  files.sort();
  const h = createHash('sha256');
  for (const f of files) h.update(`${f}\0${sha256(await readFile(path.join(root, f)))}\n`);
  return h.digest('hex').slice(0, 32);
}

const sameBudget = (a: SwarmBudget, b: SwarmBudget) => a.seeds === b.seeds && a.timeMs === b.timeMs;

export class SwarmCache {
  private constructor(
    private readonly file: string,
    private readonly entries: Map<string, SwarmCacheEntry[]>,
    /** Lines that could not be read (a line cut off by an interruption). */
    readonly skipped: number,
    /** The file ends in a cut-off line: the next entry starts on a line of its own. */
    private cutOff: boolean,
  ) {}

  static async open(file: string): Promise<SwarmCache> {
    const text = await readFile(file, 'utf8').catch((e: NodeJS.ErrnoException) => {
      if (e.code === 'ENOENT') return '';
      throw e;
    });
    return SwarmCache.parse(file, text);
  }

  /** A cache of the given text (the lines of a cache file), which `add` appends to `file`. */
  static parse(file: string, text: string): SwarmCache {
    const entries = new Map<string, SwarmCacheEntry[]>();
    let skipped = 0;
    for (const line of text.split('\n')) {
      if (line.trim() === '') continue;
      let e: SwarmCacheEntry;
      try {
        e = JSON.parse(line) as SwarmCacheEntry;
      } catch {
        skipped++;
        continue;
      }
      if (typeof e?.key !== 'string' || typeof e.verdict?.kind !== 'string') {
        skipped++;
        continue;
      }
      entries.set(e.key, [...(entries.get(e.key) ?? []), e]);
    }
    return new SwarmCache(file, entries, skipped, text !== '' && !text.endsWith('\n'));
  }

  /** The latest result for a key on this testbed and budget; with `stale`, the latest on any testbed with this budget. */
  find(key: string, testbed: string, budget: SwarmBudget, stale = false): SwarmCacheEntry | undefined {
    const all = (this.entries.get(key) ?? []).filter((e) => sameBudget(e.budget, budget));
    for (let i = all.length - 1; i >= 0; i--) if (all[i]!.testbed === testbed) return all[i];
    return stale ? all.at(-1) : undefined;
  }

  async add(entry: SwarmCacheEntry): Promise<void> {
    await mkdir(path.dirname(this.file), { recursive: true });
    // one line per write: a kill between two writes loses at most the line being written
    await appendFile(this.file, `${this.cutOff ? '\n' : ''}${JSON.stringify(entry)}\n`);
    this.cutOff = false;
    this.entries.set(entry.key, [...(this.entries.get(entry.key) ?? []), entry]);
  }
}
