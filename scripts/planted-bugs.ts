// `npm run planted-bugs`: plants each hand-written bug of mutation/planted-bugs.json in the working
// tree, one at a time, runs what should catch it, and puts the file back (docs/planted-bugs.md).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { loadPlantedBugs, PlantedBugError, withBugPlanted, type PlantedBug } from '../src/mutants/planted-bugs.js';
import { runChild } from '../src/mutants/runner.js';

const USAGE = `usage: npm run planted-bugs -- [--kind tests|swarm|all] [--seeds N] [name ...]

Plants each bug of mutation/planted-bugs.json (or the ones named) in the working tree, one at a
time, and runs what should catch it: its test files (kind tests), or swarm over its scenario with
--until-fail (kind swarm, N seeds, default 300). The file is put back after each. Refuses to
start when a bug's file has changes of its own.

Exit status: 0 every bug caught as the catalogue says (equivalent and left-alone ones are not run); 1 some bug
was not caught; 2 bad options or catalogue.`;

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

async function main(): Promise<number> {
  let values: { kind?: string; seeds?: string; help?: boolean };
  let names: string[];
  try {
    const parsed = parseArgs({ options: { kind: { type: 'string' }, seeds: { type: 'string' }, help: { type: 'boolean', short: 'h' } }, allowPositionals: true });
    values = parsed.values;
    names = parsed.positionals;
  } catch (e) {
    console.error(`${(e as Error).message.split('\n')[0]}\n\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const kind = values.kind ?? 'tests';
  if (!['tests', 'swarm', 'all'].includes(kind)) {
    console.error(`--kind must be tests, swarm or all (got "${kind}")\n\n${USAGE}`);
    return 2;
  }
  if (values.seeds !== undefined && !/^[1-9]\d*$/.test(values.seeds)) {
    console.error(`--seeds must be a whole number of at least 1 (got "${values.seeds}")`);
    return 2;
  }
  const seeds = values.seeds ?? '300';
  let bugs: PlantedBug[];
  try {
    bugs = loadPlantedBugs(root);
  } catch (e) {
    if (!(e instanceof PlantedBugError)) throw e;
    console.error(e.message);
    return 2;
  }
  const unknown = names.filter((n) => !bugs.some((b) => b.name === n));
  if (unknown.length > 0) {
    console.error(`no planted bug named ${unknown.join(', ')} in mutation/planted-bugs.json`);
    return 2;
  }
  const chosen = bugs.filter((b) => (names.length > 0 ? names.includes(b.name) : kind === 'all' || b.kind === kind));
  const dirty = execFileSync('git', ['status', '--porcelain', '--', ...new Set(chosen.map((b) => b.file))], { cwd: root, encoding: 'utf8' });
  if (dirty.trim() !== '') {
    console.error(`these files have changes of their own; commit or stash them first:\n${dirty.trim()}`);
    return 2;
  }
  let missed = 0;
  for (const bug of chosen) {
    if (bug.equivalent !== undefined || bug.leftAlone !== undefined) {
      console.log(`${bug.name}: not run (${bug.equivalent !== undefined ? `equivalent: ${bug.equivalent}` : `left alone: ${bug.leftAlone}`})`);
      continue;
    }
    const started = Date.now();
    const result = await withBugPlanted(root, bug, () => check(bug, seeds));
    const seconds = ((Date.now() - started) / 1000).toFixed(0);
    if (result.caught) console.log(`${bug.name}: caught by ${result.by} (${seconds} s)`);
    else {
      missed++;
      console.log(`${bug.name}: NOT CAUGHT by ${result.by} (${seconds} s)\n${result.tail.trim().split('\n').slice(-8).join('\n')}`);
    }
  }
  console.log(`${chosen.length} planted bugs: ${missed === 0 ? 'every one run was caught' : `${missed} not caught`}`);
  return missed === 0 ? 0 : 1;
}

const logs = mkdtempSync(path.join(tmpdir(), 'planted-bugs-'));

async function check(bug: PlantedBug, seeds: string): Promise<{ caught: boolean; by: string; tail: string }> {
  const log = path.join(logs, `${bug.name}.log`);
  const tail = () => readFileSync(log, 'utf8').slice(-4000);
  if (bug.kind === 'swarm' && bug.scenario !== undefined && bug.tests === undefined) {
    const run = await runChild(['bin/twinchain.js', 'swarm', bug.scenario, '--seeds', seeds, '--until-fail'], log, 60 * 60_000, root);
    return { caught: run.code === 1, by: `swarm ${bug.scenario} (${seeds} seeds)`, tail: tail() };
  }
  const vitest = path.join(root, 'node_modules', 'vitest', 'vitest.mjs');
  const run = await runChild([vitest, 'run', '--project', 'in-process', ...bug.tests!], log, 20 * 60_000, root);
  return { caught: run.code !== 0, by: bug.tests!.join(', '), tail: tail() };
}

process.exitCode = await main();
