import { createReadStream } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import {
  formatSummary,
  loadScenarioFile,
  progressLine,
  replayCommand,
  runScenario,
  ScenarioError,
  writeRunOutputs,
  type RunProgress,
  type Scenario,
  type ScenarioResult,
} from '../sim/index.js';
import { CliError } from './cli-error.js';
import type { CliIo } from './io.js';
import { makeOutputFolder } from './output-path.js';
import { parseOptions } from './parse-options.js';

/** `--seed 42` is the number 42 (as in a scenario file); anything else is a string seed. */
export function parseSeed(value: string | undefined): string | number | undefined {
  if (value === undefined) return undefined;
  if (value === '') throw new CliError('--seed must not be empty');
  return /^-?\d{1,15}$/.test(value) ? Number(value) : value;
}

export async function loadScenarioOrExit(file: string): Promise<Scenario> {
  try {
    return await loadScenarioFile(file);
  } catch (e) {
    if (e instanceof ScenarioError) throw new CliError(`bad scenario file: ${e.message}`, 2);
    throw e;
  }
}

/** The first line where two trace files differ (after their start headers), or undefined. */
async function firstDifference(a: string, b: string): Promise<{ line: number; first: string; second: string } | undefined> {
  const lines = (file: string) => createInterface({ input: createReadStream(file), crlfDelay: Infinity })[Symbol.asyncIterator]();
  const [x, y] = [lines(a), lines(b)];
  for (let line = 1; ; line++) {
    const [p, q] = await Promise.all([x.next(), y.next()]);
    if (p.done && q.done) return undefined;
    if (line === 1) continue; // the start header names the file
    if (p.done || q.done || p.value !== q.value) return { line, first: p.done ? '(end of trace)' : String(p.value), second: q.done ? '(end of trace)' : String(q.value) };
  }
}

function progressPrinter(enabled: boolean): { onProgress?: (p: RunProgress) => void; clear: () => void } {
  if (!enabled) return { clear: () => undefined };
  let last = 0;
  let shown = false;
  return {
    onProgress: (p) => {
      const now = performance.now();
      if (now - last < 100 && p.phase !== 'done') return;
      last = now;
      shown = true;
      process.stdout.write(`\r${progressLine(p)}\x1b[K`);
    },
    clear: () => {
      if (shown) process.stdout.write('\r\x1b[K');
    },
  };
}

/** twinchain run <file>: exit 0 when every expectation held, 1 when one failed, 2 for a bad file or usage. */
export async function run(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseOptions(args, {
    seed: { type: 'string' },
    out: { type: 'string' },
    'check-determinism': { type: 'boolean' },
    quiet: { type: 'boolean' },
  });
  if (positionals.length !== 1) throw new CliError(`expected exactly one scenario file, got ${positionals.length}`);
  const file = positionals[0]!;
  const seed = parseSeed(values.seed);
  const scenario = await loadScenarioOrExit(file);
  const out = values.out ?? path.join('reports', scenario.name);
  // the replay command names the same --out, so a replay writes where this run did
  const replay = values.out === undefined ? undefined : replayCommand(file, seed ?? scenario.seed, values.out);
  await makeOutputFolder(out);
  const trace = path.join(out, 'trace.jsonl');
  const progress = progressPrinter(io.isTty && !values.quiet);
  let result: ScenarioResult;
  try {
    result = await runScenario(scenario, {
      file,
      ...(seed === undefined ? {} : { seed }),
      ...(replay === undefined ? {} : { replayCommand: replay }),
      tracePath: trace,
      ...(progress.onProgress ? { onProgress: progress.onProgress } : {}),
    });
  } finally {
    progress.clear();
  }

  let determinism: Record<string, unknown> = {};
  let deterministic = true;
  if (values['check-determinism']) {
    const rerunTrace = path.join(out, 'trace.rerun.jsonl');
    const rerun = (tracePath?: string) => runScenario(scenario, { file, ...(seed === undefined ? {} : { seed }), ...(tracePath ? { tracePath } : {}) });
    // the digest alone decides; only a run that differs is traced again, to find the first difference
    const again = await rerun();
    deterministic = again.digest === result.digest && again.events === result.events;
    let difference: Awaited<ReturnType<typeof firstDifference>> | undefined;
    if (!deterministic) {
      await rerun(rerunTrace);
      difference = await firstDifference(trace, rerunTrace);
    }
    determinism = { determinism: { checked: true, deterministic, digests: [result.digest, again.digest], events: [result.events, again.events], ...(difference ? { firstDifference: difference } : {}) } };
    if (!deterministic) {
      io.err(`NOT DETERMINISTIC: two runs of seed ${String(result.seed)} differ (digests ${result.digest.slice(0, 16)} vs ${again.digest.slice(0, 16)}, ${result.events} vs ${again.events} events)`);
      if (difference) io.err(`  first difference at trace line ${difference.line}:\n    run 1: ${difference.first}\n    run 2: ${difference.second}\n  traces: ${trace} and ${rerunTrace}`);
    }
  }
  const paths = await writeRunOutputs(result, out, determinism);
  if (values.quiet) {
    io.out(`${scenario.name}, seed ${String(result.seed)}: ${result.verdict === 'pass' ? 'PASS' : 'FAIL'} (${(result.virtualMs / Math.max(1, result.wallMs)).toFixed(1)}× real time)${values['check-determinism'] ? (deterministic ? ', deterministic' : ', NOT DETERMINISTIC') : ''}; report ${paths.report}`);
    if (result.verdict === 'fail') {
      for (const e of result.expectations.filter((x) => !x.ok)) io.out(`  ✗ ${e.name}: ${e.detail}`);
      io.out(`replay this run exactly: ${result.replayCommand}`);
    }
  } else {
    io.out(formatSummary(result, { report: paths.report, summary: paths.summary, trace }));
    if (values['check-determinism'] && deterministic) io.out(`determinism: a second run gave the same trace digest (${result.events.toLocaleString('en-US')} events)`);
  }
  return result.verdict === 'pass' && deterministic ? 0 : 1;
}
