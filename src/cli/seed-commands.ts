import { shellOption, shellWord } from '../sim/index.js';
import { commands } from './commands.js';

/**
 * The commands printed for a failing seed, kept in one place so that swarm, swarm merge (and any
 * other command that lists failing seeds) print them the same way.
 */

/** The command that replays one swarm seed exactly (with the --out the scan was given, so it writes there too). */
export function swarmReplayCommand(file: string, seed: number, out?: string): string {
  return `npx twinchain swarm ${shellWord(file)} --seed ${seed}${out === undefined ? '' : ` ${shellOption('out', out)}`}`;
}

/** The command that shrinks a failing seed's run, once this twinchain has `twinchain shrink`; undefined before. */
export function shrinkCommand(file: string, seed: number, available = commands.some((c) => c.name === 'shrink')): string | undefined {
  return available ? `npx twinchain shrink ${shellWord(file)} --seed ${seed}` : undefined;
}

/**
 * A failing seed's lines in a list of failures: its replay command and where its report is, then
 * its shrink command when there is one.
 */
export function failingSeedLines(file: string, seed: number, replay: string, where: string, shrinkAvailable?: boolean): string[] {
  const shrink = shrinkCommand(file, seed, shrinkAvailable);
  return [`  seed ${seed}: ${replay}    (${where})`, ...(shrink === undefined ? [] : [`    shrink: ${shrink}`])];
}
