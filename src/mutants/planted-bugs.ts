/**
 * Realistic bugs planted by hand, one at a time, to measure what the tests and swarm catch on
 * bugs nobody tuned them to (docs/planted-bugs.md). Each is a text replacement in one source
 * file; `npm run planted-bugs` plants each in the working tree, runs what should catch it, and
 * puts the file back.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export const PLANTED_BUGS_FILE = 'mutation/planted-bugs.json';

export interface PlantedBug {
  readonly name: string;
  /** `tests`: the named test files must fail; `swarm`: the scenario's swarm must fail within the seed budget. */
  readonly kind: 'tests' | 'swarm';
  readonly file: string;
  /** Text that occurs exactly once in `file`, and what it becomes. */
  readonly find: string;
  readonly replace: string;
  /** Test files that fail with the bug planted (kind tests; also a swarm bug only the unit tests catch). */
  readonly tests?: readonly string[];
  /** Swarm bugs: the scenario, and the first seed that failed when it was planted. */
  readonly scenario?: string;
  readonly firstFailingSeed?: number;
  /** Why the bug changes no behaviour anything can observe: nothing is expected to catch it. */
  readonly equivalent?: string;
  /** A bug that changes behaviour nothing pins, left so on purpose: why. */
  readonly leftAlone?: string;
  /** The test added when the bug was first planted and nothing caught it. */
  readonly gapClosed?: string;
  readonly note?: string;
}

export class PlantedBugError extends Error {
  override readonly name = 'PlantedBugError';
}

/** The catalogue, checked: names unique, each entry's find once in its file, its test files present. */
export function loadPlantedBugs(root: string, file = PLANTED_BUGS_FILE): PlantedBug[] {
  const where = path.join(root, file);
  let bugs: unknown;
  try {
    bugs = JSON.parse(readFileSync(where, 'utf8'));
  } catch (e) {
    throw new PlantedBugError(`${file}: ${(e as Error).message}`);
  }
  if (!Array.isArray(bugs)) throw new PlantedBugError(`${file}: expected an array of planted bugs`);
  const seen = new Set<string>();
  return bugs.map((raw: unknown, i) => {
    const bug = raw as PlantedBug;
    const at = `${file}[${i}]${typeof bug?.name === 'string' ? ` (${bug.name})` : ''}`;
    if (typeof bug !== 'object' || bug === null || typeof bug.name !== 'string' || bug.name === '') throw new PlantedBugError(`${at}: needs a name`);
    if (seen.has(bug.name)) throw new PlantedBugError(`${at}: the name is used twice`);
    seen.add(bug.name);
    if (bug.kind !== 'tests' && bug.kind !== 'swarm') throw new PlantedBugError(`${at}: kind must be tests or swarm`);
    if (typeof bug.find !== 'string' || bug.find === '' || typeof bug.replace !== 'string') throw new PlantedBugError(`${at}: needs find (not empty) and replace`);
    if (bug.find === bug.replace) throw new PlantedBugError(`${at}: find and replace are the same`);
    const source = path.join(root, bug.file);
    if (!existsSync(source)) throw new PlantedBugError(`${at}: ${bug.file} does not exist`);
    const count = occurrences(readFileSync(source, 'utf8'), bug.find);
    if (count !== 1) throw new PlantedBugError(`${at}: its find text occurs ${count} times in ${bug.file} (once needed): the code moved; update the entry`);
    for (const t of bug.tests ?? []) if (!existsSync(path.join(root, t))) throw new PlantedBugError(`${at}: test file ${t} does not exist`);
    const checkedBy = (bug.tests?.length ?? 0) > 0 || (bug.kind === 'swarm' && bug.scenario !== undefined);
    if (!checkedBy && bug.equivalent === undefined && bug.leftAlone === undefined) throw new PlantedBugError(`${at}: name the tests or the scenario that catch it, or say why it is equivalent or left alone`);
    return bug;
  });
}

function occurrences(text: string, find: string): number {
  let n = 0;
  for (let at = text.indexOf(find); at >= 0; at = text.indexOf(find, at + find.length)) n++;
  return n;
}

/** Plants `bug`, runs `check`, and puts the file back whatever happens (the original bytes). */
export async function withBugPlanted<T>(root: string, bug: PlantedBug, check: () => Promise<T>): Promise<T> {
  const source = path.join(root, bug.file);
  const original = readFileSync(source, 'utf8');
  if (occurrences(original, bug.find) !== 1) throw new PlantedBugError(`${bug.name}: its find text is not in ${bug.file} exactly once`);
  const restore = () => writeFileSync(source, original);
  const onSignal = () => {
    restore();
    process.exit(130);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  writeFileSync(source, original.replace(bug.find, () => bug.replace));
  try {
    return await check();
  } finally {
    restore();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
