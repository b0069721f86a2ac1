import { shellOption, shellWord } from '../sim/index.js';

/**
 * The commands printed for a failing seed, kept in one place so that swarm, swarm merge, shrink
 * and mutants print them the same way.
 */

/** Wall time a shrink may take unless --budget says otherwise. */
export const DEFAULT_SHRINK_BUDGET_MS = 5 * 60_000;

/** The command that replays one swarm seed exactly (with the --out the scan was given, so it writes there too). */
export function swarmReplayCommand(file: string, seed: number, out?: string): string {
  return `npx twinchain swarm ${shellWord(file)} --seed ${seed}${out === undefined ? '' : ` ${shellOption('out', out)}`}`;
}

/** The command that shrinks a failing run: a swarm seed of a file with a swarm section, else (`plain`) the file's run with that seed. */
export function shrinkCommand(file: string, seed: string | number, options: { readonly out?: string; readonly plain?: boolean } = {}): string {
  return `npx twinchain shrink ${shellWord(file)} ${shellOption('seed', String(seed))}${options.plain ? ' --plain' : ''}${options.out === undefined ? '' : ` ${shellOption('out', options.out)}`}`;
}

/** The command that shrinks a mutant's failing seed: its replay (`twinchain mutants --only ID --seed S`) with --shrink, which shrinks in the patched copy. */
export function mutantShrinkCommand(replay: string): string {
  return `${replay} --shrink`;
}

/**
 * A failing seed's lines in a list of failures: its replay command and where its report is, then
 * the command that shrinks it when it failed (a seed that ended in an internal error has no
 * failure to shrink).
 */
export function failingSeedLines(file: string, seed: number, replay: string, where: string, shrinkable = true): string[] {
  return [`  seed ${seed}: ${replay}    (${where})`, ...(shrinkable ? [`    shrink: ${shrinkCommand(file, seed)}`] : [])];
}
