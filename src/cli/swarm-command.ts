import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { drawSwarm, runScenario, shellWord, writeRunOutputs, type ScenarioResult } from '../sim/index.js';
import { CliError } from './cli-error.js';
import type { CliIo } from './io.js';
import { integerOption, parseOptions } from './parse-options.js';
import { loadScenarioOrExit } from './run-command.js';

/**
 * twinchain swarm <file> --seeds N: N runs, each with faults drawn (from its seed) within the
 * bounds of the file's `swarm` section; lists the failing seeds and how to replay each.
 */
export async function run(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseOptions(args, {
    seeds: { type: 'string' },
    from: { type: 'string' },
    seed: { type: 'string' },
    out: { type: 'string' },
  });
  if (positionals.length !== 1) throw new CliError(`expected exactly one scenario file, got ${positionals.length}`);
  if (values.seed !== undefined && (values.seeds !== undefined || values.from !== undefined)) throw new CliError('give --seed (replay one seed) or --seeds/--from, not both');
  const file = positionals[0]!;
  const scenario = await loadScenarioOrExit(file);
  if (!scenario.swarm) io.err(`note: ${file} has no swarm section; every seed runs the file's own faults with its own random choices`);
  const single = values.seed === undefined ? undefined : integerOption(values.seed, 'seed', 0, 0);
  const first = single ?? integerOption(values.from, 'from', 1, 0);
  const count = single === undefined ? integerOption(values.seeds, 'seeds', 10, 1) : 1;
  const out = values.out ?? path.join('reports', `${scenario.name}-swarm`);
  await mkdir(out, { recursive: true }).catch((e: Error) => {
    throw new CliError(`cannot create the output folder ${out}: ${e.message}`);
  });

  const rows: Array<{ seed: number; verdict: 'pass' | 'fail' | 'error'; drawn: readonly string[]; result?: ScenarioResult; error?: string; replay: string; report?: string }> = [];
  io.out(`${scenario.name}: ${count} swarm run${count === 1 ? '' : 's'} from seed ${first}`);
  for (let seed = first; seed < first + count; seed++) {
    const draw = drawSwarm(scenario, seed);
    const replay = `npx twinchain swarm ${shellWord(file)} --seed ${seed}`;
    // a replay of one seed also keeps its trace; a scan keeps only the digests
    const seedDir = path.join(out, `seed-${seed}`);
    const tracePath = single === undefined ? undefined : path.join(seedDir, 'trace.jsonl');
    if (tracePath) await mkdir(seedDir, { recursive: true });
    let result: ScenarioResult;
    try {
      result = await runScenario(draw.scenario, { file, seed, replayCommand: replay, ...(tracePath ? { tracePath } : {}) });
    } catch (e) {
      // one seed's internal failure is that seed's finding, not the end of the swarm
      const error = e instanceof Error ? e.message : String(e);
      rows.push({ seed, verdict: 'error', drawn: draw.drawn, error, replay });
      io.out(`  seed ${String(seed).padStart(4)}  ERROR  ${draw.drawn.join('; ') || 'no faults drawn'}\n        ${error}`);
      continue;
    }
    const row: (typeof rows)[number] = { seed, verdict: result.verdict, drawn: draw.drawn, result, replay };
    if (result.verdict === 'fail' || single !== undefined) {
      row.report = (await writeRunOutputs(result, seedDir, { swarm: { drawn: draw.drawn } })).report;
    }
    rows.push(row);
    const failed = result.expectations.filter((e) => !e.ok).map((e) => e.name);
    io.out(
      `  seed ${String(seed).padStart(4)}  ${result.verdict === 'pass' ? 'pass' : 'FAIL'}  ${(result.virtualMs / Math.max(1, result.wallMs)).toFixed(1).padStart(6)}×  ` +
        `${result.totals.blocks} blocks  ${draw.drawn.join('; ') || 'no faults drawn'}${failed.length > 0 ? `\n        failed: ${failed.join('; ')}` : ''}`,
    );
  }
  const failing = rows.filter((r) => r.verdict !== 'pass');
  await writeFile(
    path.join(out, 'swarm.json'),
    `${JSON.stringify(
      {
        scenario: scenario.name,
        file,
        runs: rows.map((r) => ({
          seed: r.seed,
          verdict: r.verdict,
          drawn: r.drawn,
          digest: r.result?.digest ?? null,
          replay: r.replay,
          failed: r.result?.expectations.filter((e) => !e.ok) ?? [],
          ...(r.error === undefined ? {} : { error: r.error }),
          report: r.report ?? null,
        })),
      },
      null,
      2,
    )}\n`,
  );
  io.out('');
  if (failing.length === 0) {
    io.out(`all ${rows.length} seeds passed${single !== undefined && rows[0]?.report ? `; report ${rows[0].report}, trace ${path.join(out, `seed-${first}`, 'trace.jsonl')}` : ''}`);
    return 0;
  }
  io.out(`${failing.length} of ${rows.length} seeds FAILED:`);
  for (const r of failing) {
    const where = r.error !== undefined ? `internal error: ${r.error}` : `report ${r.report}${single === undefined ? '; the replay also writes the trace' : `, trace ${path.join(out, `seed-${r.seed}`, 'trace.jsonl')}`}`;
    io.out(`  seed ${r.seed}: ${r.replay}    (${where})`);
  }
  return 1;
}
