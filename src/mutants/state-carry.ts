/**
 * Carrying a mutation run's state from one machine to another.
 *
 * The whole run takes many hours, longer than a machine (a CI runner, a development session)
 * may live, and its state folder (reports/mutation/state/) is not in git. `--save-state` packs
 * what a later run resumes from into one gzipped file that can be committed: the test phase's
 * results (the incremental file with an interrupted run's journal folded in, as a resume would
 * fold it), the swarm cache and the baseline record. A run on a fresh clone whose state folder
 * is empty starts from that file, and StrykerJS's incremental diff re-tests only what changed
 * since (the sources the results were produced on travel with them).
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { decodeTimeoutMemory, foldJournal, readJournal, type SourceSnapshot } from './stryker-journal.js';
import { readStrykerReport, statePaths } from './stryker-phase.js';
import { parseStrykerReport, StrykerReportError, type StrykerReport } from './stryker-report.js';
import { writeAtomically } from './write-atomically.js';

/** Where `--save-state` writes and a fresh run looks, relative to the root. */
export const CARRY_FILE = path.join('mutation', 'state.json.gz');

const FORMAT = 'twinchain-mutation-state';

export interface CarriedState {
  readonly format: typeof FORMAT;
  readonly version: 1;
  /** ISO time it was saved. */
  readonly savedAt: string;
  /** The commit the saving checkout was on. */
  readonly commit: string;
  /** The test phase's results, in StrykerJS's incremental-file schema (file names relative to the root). */
  readonly incremental: StrykerReport | null;
  /** The swarm cache's lines, as swarm-cache.jsonl holds them. */
  readonly swarmCache: readonly string[];
  /** The swarm baseline record (swarm-baseline.json), if any. */
  readonly baseline: unknown;
}

/** A carry file that cannot be used, or a state folder it would overwrite: says which and why. */
export class StateCarryError extends Error {
  override readonly name = 'StateCarryError';
}

/** `n` and the noun, plural unless n is 1 (src/cli has the same, but the mutation run may not import src/cli). */
export const plural = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;

/** The mutants a state's test-phase results hold. */
export function mutantCount(r: StrykerReport | null): number {
  return r === null ? 0 : Object.values(r.files).reduce((n, f) => n + f.mutants.length, 0);
}

/**
 * The state a run would resume from now: the incremental file with the journal of a run that was
 * interrupted (or is still going: this only reads) folded in. Leaves the state folder as it is.
 */
export async function currentState(root: string, out: string, commit: string, now: Date): Promise<CarriedState> {
  const p = statePaths(out);
  const previous = await readStrykerReport(path.resolve(root, p.incremental));
  const journal = await readJournal(path.resolve(root, p.journal));
  const snapshotText = await readFile(path.resolve(root, p.snapshot), 'utf8').catch(() => undefined);
  let incremental: StrykerReport | null = previous ?? null;
  const memory = decodeTimeoutMemory(await readFile(path.resolve(root, p.timeouts), 'utf8').catch(() => undefined));
  if (journal.mutants.length > 0 && snapshotText !== undefined) incremental = foldJournal(previous, journal, JSON.parse(snapshotText) as SourceSnapshot, root, memory);
  // the absolute root of the machine that saved it means nothing elsewhere
  if (incremental) incremental = { ...incremental, projectRoot: '.' };
  const cacheText = await readFile(path.resolve(root, p.swarmCache), 'utf8').catch(() => '');
  const swarmCache = cacheText.split('\n').filter((l) => l.trim() !== '');
  const baselineText = await readFile(path.resolve(root, p.state, 'swarm-baseline.json'), 'utf8').catch(() => undefined);
  return { format: FORMAT, version: 1, savedAt: now.toISOString(), commit, incremental, swarmCache, baseline: baselineText === undefined ? null : (JSON.parse(baselineText) as unknown) };
}

/** Packs the current state into `file` (gzipped JSON); returns what it holds. Refuses an empty state. */
export async function saveState(root: string, out: string, file: string, commit: string, now = new Date()): Promise<CarriedState> {
  const state = await currentState(root, out, commit, now);
  if (state.incremental === null && state.swarmCache.length === 0) throw new StateCarryError(`nothing to save: ${statePaths(out).state} holds no test-phase results and no swarm results (run npm run mutation first)`);
  await writeAtomically(path.resolve(root, file), gzipSync(JSON.stringify(state), { level: 9 }));
  return state;
}

/** Reads and checks a carry file; every problem is named with the file. */
export async function readCarriedState(file: string, shown = file): Promise<CarriedState> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (e) {
    throw new StateCarryError(`${shown}: cannot read it (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  let json: unknown;
  try {
    json = JSON.parse(gunzipSync(bytes).toString('utf8'));
  } catch (e) {
    throw new StateCarryError(`${shown}: not a gzipped JSON mutation state (${(e as Error).message})`);
  }
  const s = json as Partial<CarriedState> | null;
  if (typeof s !== 'object' || s === null || s.format !== FORMAT) throw new StateCarryError(`${shown}: not a mutation state saved by npm run mutation -- --save-state (no "format": "${FORMAT}")`);
  if (s.version !== 1) throw new StateCarryError(`${shown}: version ${JSON.stringify(s.version)} of the state format; this code reads version 1`);
  if (!Array.isArray(s.swarmCache) || s.swarmCache.some((l) => typeof l !== 'string')) throw new StateCarryError(`${shown}: "swarmCache" must be an array of lines`);
  let incremental: StrykerReport | null = null;
  if (s.incremental !== null && s.incremental !== undefined) {
    try {
      incremental = parseStrykerReport(s.incremental, `${shown} "incremental"`);
    } catch (e) {
      if (e instanceof StrykerReportError) throw new StateCarryError(e.message);
      throw e;
    }
  }
  return { format: FORMAT, version: 1, savedAt: String(s.savedAt ?? 'unknown'), commit: String(s.commit ?? 'unknown'), incremental, swarmCache: s.swarmCache, baseline: s.baseline ?? null };
}

/** Whether the state folder holds results of its own (then a carry file is not loaded over it). */
export function stateFolderHasResults(root: string, out: string): boolean {
  const p = statePaths(out);
  return [p.incremental, p.journal, p.swarmCache].some((f) => existsSync(path.resolve(root, f)));
}

/** Unpacks a carry file into an empty state folder. Refuses to overwrite results already there. */
export async function loadState(root: string, out: string, file: string): Promise<CarriedState> {
  const p = statePaths(out);
  if (stateFolderHasResults(root, out)) throw new StateCarryError(`${p.state} already holds results of its own: move it away first to load ${file} (nothing was changed)`);
  const state = await readCarriedState(path.resolve(root, file), file);
  if (state.incremental) await writeAtomically(path.resolve(root, p.incremental), JSON.stringify({ ...state.incremental, projectRoot: root }));
  if (state.swarmCache.length > 0) await writeAtomically(path.resolve(root, p.swarmCache), `${state.swarmCache.join('\n')}\n`);
  if (state.baseline !== null) await writeAtomically(path.resolve(root, p.state, 'swarm-baseline.json'), `${JSON.stringify(state.baseline, null, 2)}\n`);
  return state;
}
