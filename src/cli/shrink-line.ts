import { shellOption, shellWord } from '../sim/index.js';

/** Wall time a shrink may take unless --budget says otherwise. */
export const DEFAULT_SHRINK_BUDGET_MS = 5 * 60_000;

/** The command that shrinks a failing run: a swarm seed of a file with a swarm section, else the file's run with that seed (`plain`). */
export function shrinkCommand(file: string, seed: string | number, options: { out?: string; plain?: boolean } = {}): string {
  return `npx twinchain shrink ${shellWord(file)} ${shellOption('seed', String(seed))}${options.plain ? ' --plain' : ''}${options.out === undefined ? '' : ` ${shellOption('out', options.out)}`}`;
}
