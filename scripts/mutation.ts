// `npm run mutation`: the mutation score from generated mutants (docs/mutation.md).
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { DEFAULT_SWARM_BUDGET } from '../src/mutants/mutation-targets.js';
import { currentCommit, DEFAULT_OUT, MutationOptionError, regenerateTriageFile, replayMutant, runMutation } from '../src/mutants/mutation-run.js';
import { CARRY_FILE, mutantCount, plural, saveState, StateCarryError } from '../src/mutants/state-carry.js';
import { TriageFileError } from '../src/mutants/survivors-file.js';

const USAGE = `usage: npm run mutation -- [options] [file ...]

Runs StrykerJS over the consensus-critical code (or the files given), then swarm over the mutants
the tests did not kill, and writes reports/mutation/mutation-report.md and .json. Interrupted runs
resume where they stopped.

  --jobs N         test runners and swarm children at once (default: the machine's cores)
  --seeds N        swarm seeds per mutant (default ${DEFAULT_SWARM_BUDGET.seeds})
  --time T         swarm time per mutant, e.g. 60s or 2m (default ${DEFAULT_SWARM_BUDGET.timeMs / 1000}s)
  --tests-only     only the StrykerJS phase (known swarm results still show)
  --swarm-only     only the swarm phase, over the last StrykerJS results
  --force          re-test every mutant in the StrykerJS phase (no incremental reuse)
  --stale          accept swarm results produced on other code (see docs/mutation.md)
  --out DIR        output folder (default ${DEFAULT_OUT})
  --report-only    only the report, of the state as it stands (a run may still be going),
                   saying whether that state is complete or partial, and why
  --survivors      rewrite docs/mutation-survivors.md from the last report, keeping verdicts
  --save-state     pack the state a run resumes from into ${CARRY_FILE} (to commit it: a run on
                   a fresh clone with an empty state folder starts from that file)
  --state-file F   another file than ${CARRY_FILE} for --save-state and for starting from
  --replay ID --seed S [--scenario F]
                   plant mutant ID of the last report and replay swarm seed S on it

Exit status: 0 every mutant tested; 1 some could not be swarm-tested (listed); 2 bad options;
3 the run failed (StrykerJS's dry run with a failing test, say): stop a loop over files there.`;

function positiveInt(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new MutationOptionError(`--${name} must be a whole number of at least 1 (got "${value}")`);
  return Number(value);
}

function duration(value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(value.trim());
  if (!m || Number(m[1]) <= 0) throw new MutationOptionError(`--time must be a duration such as 60s, 90s or 2m (got "${value}")`);
  return Math.round(Number(m[1]) * { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(m[2] ?? 's') as 'ms' | 's' | 'm' | 'h']);
}

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      jobs: { type: 'string' },
      seeds: { type: 'string' },
      time: { type: 'string' },
      'tests-only': { type: 'boolean' },
      'swarm-only': { type: 'boolean' },
      force: { type: 'boolean' },
      stale: { type: 'boolean' },
      out: { type: 'string' },
      survivors: { type: 'boolean' },
      'report-only': { type: 'boolean' },
      'save-state': { type: 'boolean' },
      'state-file': { type: 'string' },
      replay: { type: 'string' },
      seed: { type: 'string' },
      scenario: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const out = values.out ?? DEFAULT_OUT;
  const onLine = (line: string) => console.log(line);
  if (values.survivors) {
    for (const line of await regenerateTriageFile(root, out)) onLine(line);
    return 0;
  }
  const stateFile = values['state-file'] === undefined ? CARRY_FILE : path.relative(root, path.resolve(values['state-file']));
  if (values['save-state']) {
    const saved = await saveState(root, out, stateFile, currentCommit(root));
    onLine(`state: ${stateFile}: ${plural(mutantCount(saved.incremental), 'test-phase result')}, ${plural(saved.swarmCache.length, 'swarm result')} (commit ${saved.commit}, ${saved.savedAt})`);
    return 0;
  }
  if (values.replay !== undefined) {
    if (values.seed === undefined) throw new MutationOptionError('--replay needs --seed S (the seed to replay)');
    const seed = Number(values.seed);
    if (!/^\d+$/.test(values.seed)) throw new MutationOptionError(`--seed must be a whole number (got "${values.seed}")`);
    return replayMutant({ root, out, id: values.replay, seed, ...(values.scenario ? { scenario: values.scenario } : {}), onLine });
  }
  if (values.seed !== undefined || values.scenario !== undefined) throw new MutationOptionError('--seed and --scenario go with --replay');
  if ([values['tests-only'], values['swarm-only'], values['report-only']].filter(Boolean).length > 1) throw new MutationOptionError('give one of --tests-only, --swarm-only and --report-only, not several');
  const files = positionals.map((f) => path.relative(root, path.resolve(f)).split(path.sep).join('/'));
  const report = await runMutation({
    root,
    out,
    ...(files.length > 0 ? { files } : {}),
    jobs: positiveInt(values.jobs, 'jobs', availableParallelism()),
    budget: { seeds: positiveInt(values.seeds, 'seeds', DEFAULT_SWARM_BUDGET.seeds), timeMs: duration(values.time, DEFAULT_SWARM_BUDGET.timeMs) },
    phases: values['report-only'] ? 'none' : values['tests-only'] ? 'tests' : values['swarm-only'] ? 'swarm' : 'all',
    stateFile,
    ...(values.force ? { force: true } : {}),
    ...(values.stale ? { stale: true } : {}),
    onLine,
  });
  if (values['report-only']) return 0;
  // complete or not: a mutant the swarm phase could not run leaves the score unfinished
  return report.total.notSwarmed > 0 ? 1 : 0;
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (e) {
  if (e instanceof MutationOptionError || e instanceof TriageFileError || e instanceof StateCarryError || (e as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
    console.error(`mutation: ${(e as Error).message}`);
    process.exitCode = 2;
  } else {
    // not 1 (some mutant not swarm-tested): a loop over files must stop here, not go on
    console.error(e);
    console.error(`mutation: the run failed (${(e as Error).message ?? e}); what finished is kept, and the next run resumes from it`);
    process.exitCode = 3;
  }
}
