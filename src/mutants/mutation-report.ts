/**
 * The mutation report: per file, the mutants generated and what became of each (killed by the
 * tests, killed by swarm with the invariant or expectation and the seed, timed out, compile or
 * runtime error, survived; equivalent per the triage file) and the score,
 * killed / (generated − equivalent).
 */
import { locationLabel, type SourceLocation } from './location-patch.js';
import type { SwarmBudget } from './mutation-targets.js';
import type { SwarmCacheEntry } from './swarm-cache.js';
import { UNKILLED, type GeneratedMutant } from './swarm-phase.js';
import type { Verdict } from './survivors-file.js';

/** What finally became of one mutant. */
export type Fate =
  | { readonly kind: 'killed-by-tests'; readonly tests: readonly string[] }
  | { readonly kind: 'killed-by-swarm'; readonly by: 'invariant' | 'expectation'; readonly scenario: string; readonly seed: number; readonly evidence: readonly string[] }
  | { readonly kind: 'timeout'; readonly phase: 'tests' | 'swarm'; readonly detail: string }
  | { readonly kind: 'compile-error'; readonly phase: 'tests' | 'swarm'; readonly detail: string }
  | { readonly kind: 'runtime-error'; readonly phase: 'tests' | 'swarm'; readonly scenario?: string; readonly seed?: number | null; readonly detail: string }
  | { readonly kind: 'survived'; readonly tests: 'Survived' | 'NoCoverage' | 'Ignored'; readonly seeds: number }
  /** The tests did not kill it and swarm has not run it (interrupted, or it could not be planted). */
  | { readonly kind: 'not-swarmed'; readonly tests: string; readonly reason: string };

export interface FileCounts {
  generated: number;
  killedByTests: number;
  killedBySwarm: number;
  timedOut: number;
  compileErrors: number;
  runtimeErrors: number;
  survived: number;
  equivalent: number;
  notSwarmed: number;
}

export interface ScoredCounts extends FileCounts {
  readonly killed: number;
  /** killed / (generated − equivalent), null when nothing counts. */
  readonly score: number | null;
}

export interface ReportedMutant {
  readonly id: string;
  readonly file: string;
  readonly at: SourceLocation;
  readonly line: number;
  readonly where: string;
  readonly mutatorName: string;
  readonly original: string;
  readonly replacement: string;
  readonly fate: Fate;
  /** The triage verdict, for survivors (and for killed mutants that carry one). */
  readonly verdict?: Verdict;
}

export interface MutationReport {
  readonly date: string;
  readonly commit: string;
  readonly budget: SwarmBudget;
  readonly files: ReadonlyArray<{ readonly file: string } & ScoredCounts>;
  readonly total: ScoredCounts;
  readonly mutants: readonly ReportedMutant[];
  /** Triage verdicts that contradict the run: "equivalent" or "gap closed" mutants that are killed / still survive. */
  readonly triageWarnings: readonly string[];
  readonly timing?: Timing;
  /** Made from a run's state as it stood (`--report-only`) with results missing or stale: what they are (not a score of the files). */
  readonly partial?: readonly string[];
  /** Made from a run's state (`--report-only`) that is complete: every mutant's final result, on the sources as they are. */
  readonly fromState?: true;
}

/** Wall times of a run's phases (absent: the phase did not run). */
export interface Timing {
  /** StrykerJS's phase, and the mutants it covered (reused results included). */
  readonly testPhaseMs?: number;
  readonly testMutants?: number;
  /** The swarm phase, the mutants it ran (cached results excluded) and how many of those only needed the type check. */
  readonly swarmPhaseMs?: number;
  readonly swarmRuns?: number;
  readonly compileErrors?: number;
}

export function timingWords(t: Timing): string {
  const s = (ms: number) => (ms >= 120_000 ? `${(ms / 60_000).toFixed(1)} min` : `${(ms / 1000).toFixed(1)} s`);
  const parts: string[] = [];
  if (t.testPhaseMs !== undefined) parts.push(`test phase ${s(t.testPhaseMs)} for ${t.testMutants ?? 0} mutants${t.testMutants ? ` (${s(t.testPhaseMs / t.testMutants)} each, reused results included)` : ''}`);
  if (t.swarmPhaseMs !== undefined) {
    const swarmed = (t.swarmRuns ?? 0) - (t.compileErrors ?? 0);
    parts.push(`swarm phase ${s(t.swarmPhaseMs)} for ${t.swarmRuns ?? 0} mutants run (${t.compileErrors ?? 0} stopped by the type check${swarmed > 0 ? `, ${swarmed} through swarm: ${s(t.swarmPhaseMs / swarmed)} each` : ''})`);
  }
  return parts.join('; ');
}

/** A mutant's fate from its test status and (for the unkilled) its swarm result. */
export function fateOf(m: GeneratedMutant, swarm: SwarmCacheEntry | undefined, swarmError: string | undefined): Fate {
  switch (m.status) {
    case 'Killed':
      return { kind: 'killed-by-tests', tests: m.killedBy };
    case 'Timeout':
      return { kind: 'timeout', phase: 'tests', detail: m.statusReason ?? 'the covering tests did not finish' };
    case 'CompileError':
      return { kind: 'compile-error', phase: 'tests', detail: m.statusReason ?? '' };
    case 'RuntimeError':
      return { kind: 'runtime-error', phase: 'tests', detail: m.statusReason ?? '' };
    case 'Pending':
      return { kind: 'not-swarmed', tests: 'Pending', reason: 'the test phase did not finish' };
  }
  if (!UNKILLED.includes(m.status)) throw new Error(`unknown StrykerJS status ${m.status as string}`);
  if (!swarm) return { kind: 'not-swarmed', tests: m.status, reason: swarmError ?? 'the swarm phase has not run it' };
  const v = swarm.verdict;
  const seeds = Object.values(swarm.seeds).reduce((a, b) => a + b, 0);
  switch (v.kind) {
    case 'killed-by-tests':
      return { kind: 'killed-by-tests', tests: v.tests };
    case 'killed':
      return { kind: 'killed-by-swarm', by: v.by, scenario: v.scenario, seed: v.seed, evidence: v.evidence };
    case 'timeout':
      return { kind: 'timeout', phase: 'swarm', detail: v.evidence.join('; ') };
    case 'compile-error':
      return { kind: 'compile-error', phase: 'swarm', detail: v.evidence.join('; ') };
    case 'runtime-error':
      return { kind: 'runtime-error', phase: 'swarm', scenario: v.scenario, seed: v.seed, detail: v.evidence.join('; ') };
    case 'survived':
      return { kind: 'survived', tests: m.status as 'Survived' | 'NoCoverage' | 'Ignored', seeds };
  }
}

export function isSurvivor(f: Fate): boolean {
  return f.kind === 'survived' || f.kind === 'not-swarmed';
}

function emptyCounts(): FileCounts {
  return { generated: 0, killedByTests: 0, killedBySwarm: 0, timedOut: 0, compileErrors: 0, runtimeErrors: 0, survived: 0, equivalent: 0, notSwarmed: 0 };
}

function count(c: FileCounts, m: ReportedMutant): void {
  c.generated++;
  const f = m.fate;
  if (f.kind === 'killed-by-tests') c.killedByTests++;
  else if (f.kind === 'killed-by-swarm') c.killedBySwarm++;
  else if (f.kind === 'timeout') c.timedOut++;
  else if (f.kind === 'compile-error') c.compileErrors++;
  else if (f.kind === 'runtime-error') c.runtimeErrors++;
  else {
    if (f.kind === 'not-swarmed') c.notSwarmed++;
    if (m.verdict?.kind === 'equivalent') c.equivalent++;
    else c.survived++;
  }
}

export function scored(c: FileCounts): ScoredCounts {
  const killed = c.killedByTests + c.killedBySwarm + c.timedOut + c.compileErrors + c.runtimeErrors;
  const counted = c.generated - c.equivalent;
  return { ...c, killed, score: counted > 0 ? killed / counted : null };
}

/** Names the mutant in words for the report and the triage file. */
export function reportedMutant(m: GeneratedMutant, fate: Fate, verdict: Verdict | undefined): ReportedMutant {
  return { id: m.id, file: m.file, at: m.at, line: m.at.start.line, where: locationLabel(m.at), mutatorName: m.mutatorName, original: m.original, replacement: m.replacement, fate, ...(verdict ? { verdict } : {}) };
}

export function buildReport(mutants: readonly ReportedMutant[], meta: { date: string; commit: string; budget: SwarmBudget; timing?: Timing; partial?: readonly string[]; fromState?: true }): MutationReport {
  const byFile = new Map<string, FileCounts>();
  const total = emptyCounts();
  const warnings: string[] = [];
  for (const m of mutants) {
    const c = byFile.get(m.file) ?? emptyCounts();
    byFile.set(m.file, c);
    count(c, m);
    count(total, m);
    // a type error says nothing about behaviour: an equivalent verdict on a mutant that does not compile is not contradicted
    if (m.verdict && !isSurvivor(m.fate) && m.fate.kind !== 'compile-error' && m.verdict.kind === 'equivalent') warnings.push(`${m.id} is triaged equivalent but was ${fateWords(m.fate)}: the verdict is wrong`);
    if (m.verdict && isSurvivor(m.fate) && m.verdict.kind === 'gap closed') warnings.push(`${m.id} is triaged "gap closed" (${m.verdict.text}) but still survives`);
  }
  return {
    date: meta.date,
    commit: meta.commit,
    budget: meta.budget,
    files: [...byFile].sort(([a], [b]) => a.localeCompare(b)).map(([file, c]) => ({ file, ...scored(c) })),
    total: scored(total),
    mutants,
    triageWarnings: warnings,
    ...(meta.timing ? { timing: meta.timing } : {}),
    ...(meta.partial ? { partial: meta.partial } : {}),
    ...(meta.fromState ? { fromState: true as const } : {}),
  };
}

export function fateWords(f: Fate): string {
  switch (f.kind) {
    case 'killed-by-tests':
      return `killed by the tests${f.tests.length > 0 ? ` (${f.tests[0]}${f.tests.length > 1 ? ', …' : ''})` : ''}`;
    case 'killed-by-swarm':
      return `killed by swarm: ${f.by === 'invariant' ? f.evidence.join(', ') : `expectation ${f.evidence.join(', ')}`} on ${f.scenario} seed ${f.seed}`;
    case 'timeout':
      return `timed out in the ${f.phase === 'tests' ? 'tests' : 'swarm'}`;
    case 'compile-error':
      return `a compile error${f.detail ? ` (${f.detail.slice(0, 120)})` : ''}`;
    case 'runtime-error':
      return `a runtime error in the ${f.phase === 'tests' ? 'tests' : `swarm${f.scenario ? ` (${f.scenario}${f.seed === null || f.seed === undefined ? '' : ` seed ${f.seed}`})` : ''}`}${f.detail ? `: ${f.detail.slice(0, 120)}` : ''}`;
    case 'survived':
      return `survived the tests (${f.tests === 'NoCoverage' ? 'no test reaches it' : f.tests === 'Ignored' ? 'static: its folder’s unit tests in the planted copy' : 'covered, not killed'}) and ${f.seeds} swarm seeds`;
    case 'not-swarmed':
      return `survived the tests (${f.tests}); not swarm-tested: ${f.reason}`;
  }
}

const pct = (s: number | null) => (s === null ? '–' : `${(Math.floor(s * 1000) / 10).toFixed(1)}%`);

function mdCode(text: string): string {
  const t = text.replace(/\s+/g, ' ').trim().replace(/\|/g, '\\|');
  const c = t.length > 80 ? `${t.slice(0, 80)}…` : t;
  return c.includes('`') ? `\`\` ${c} \`\`` : `\`${c === '' ? ' ' : c}\``;
}

/** The report as Markdown. */
export function renderMarkdown(r: MutationReport): string {
  const t = r.total;
  const out = [
    '# Mutation report',
    '',
    `Date ${r.date}, commit ${r.commit}. Mutants generated by StrykerJS, run against the selected tests (per-test coverage), then, where the tests did not kill them, against swarm: at most ${r.budget.seeds} seeds or ${Math.round(r.budget.timeMs / 1000)} s per mutant (docs/mutation.md).`,
    '',
    ...(r.partial ? [`**Partial**: made from a run's state as it stood (\`--report-only\`), which is not complete, so the figures are not the files' score: ${r.partial.join('; ')}.`, ''] : []),
    ...(r.fromState ? ['Made from the run\'s state (`--report-only`), which is complete: every mutant has its final result, made on the mutated files and selected tests as they are at this commit.', ''] : []),
    `**Score: ${pct(t.score)}** — ${t.killed} killed of ${t.generated} generated − ${t.equivalent} equivalent = ${t.generated - t.equivalent}; ${t.survived} survived${t.notSwarmed > 0 ? ` (${t.notSwarmed} of them not swarm-tested)` : ''}.`,
    '',
    '| file | generated | killed by tests | killed by swarm | timed out | compile errors | runtime errors | survived | equivalent | score |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...r.files.map((f) => `| ${f.file} | ${f.generated} | ${f.killedByTests} | ${f.killedBySwarm} | ${f.timedOut} | ${f.compileErrors} | ${f.runtimeErrors} | ${f.survived} | ${f.equivalent} | ${pct(f.score)} |`),
    `| **total** | ${t.generated} | ${t.killedByTests} | ${t.killedBySwarm} | ${t.timedOut} | ${t.compileErrors} | ${t.runtimeErrors} | ${t.survived} | ${t.equivalent} | **${pct(t.score)}** |`,
    '',
  ];
  if (r.timing && timingWords(r.timing) !== '') out.push(`Timing (wall): ${timingWords(r.timing)}.`, '');
  if (r.triageWarnings.length > 0) out.push('## Triage warnings', '', ...r.triageWarnings.map((w) => `- ${w}`), '');
  const swarmKilled = r.mutants.filter((m) => m.fate.kind === 'killed-by-swarm');
  if (swarmKilled.length > 0) {
    out.push('## Killed by swarm', '', '| mutant | where | mutator | original → replacement | caught by | scenario | seed |', '|---|---|---|---|---|---|---:|');
    for (const m of swarmKilled) {
      const f = m.fate as Extract<Fate, { kind: 'killed-by-swarm' }>;
      out.push(`| ${m.id} | ${m.file}:${m.where} | ${m.mutatorName} | ${mdCode(m.original)} → ${mdCode(m.replacement)} | ${f.by === 'invariant' ? f.evidence.join(', ') : `expectation: ${f.evidence.join(', ')}`} | ${f.scenario} | ${f.seed} |`);
    }
    out.push('');
  }
  const errors = r.mutants.filter((m) => m.fate.kind === 'compile-error' || m.fate.kind === 'runtime-error' || (m.fate.kind === 'timeout' && m.fate.phase === 'swarm'));
  if (errors.length > 0) {
    out.push('## Compile errors, runtime errors and swarm timeouts', '', '| mutant | where | mutator | original → replacement | what |', '|---|---|---|---|---|');
    for (const m of errors) out.push(`| ${m.id} | ${m.file}:${m.where} | ${m.mutatorName} | ${mdCode(m.original)} → ${mdCode(m.replacement)} | ${fateWords(m.fate).replace(/\|/g, '\\|').replace(/\n/g, ' ')} |`);
    out.push('');
  }
  const survivors = r.mutants.filter((m) => isSurvivor(m.fate));
  if (survivors.length > 0) {
    out.push('## Survivors', '', 'Triaged in docs/mutation-survivors.md.', '', '| mutant | where | mutator | original → replacement | result | verdict |', '|---|---|---|---|---|---|');
    for (const m of survivors) out.push(`| ${m.id} | ${m.file}:${m.where} | ${m.mutatorName} | ${mdCode(m.original)} → ${mdCode(m.replacement)} | ${fateWords(m.fate)} | ${m.verdict ? `${m.verdict.kind}${m.verdict.text ? `: ${m.verdict.text.replace(/\|/g, '\\|')}` : ''}` : 'not triaged'} |`);
    out.push('');
  }
  return `${out.join('\n').trimEnd()}\n`;
}

/** The short summary printed at the end of a run. */
export function summaryLines(r: MutationReport): string[] {
  const t = r.total;
  const lines = [
    `mutation score ${pct(t.score)}: ${t.killed} killed of ${t.generated} generated (${t.equivalent} equivalent left out): ${t.killedByTests} by the tests, ${t.killedBySwarm} by swarm, ${t.timedOut} timed out, ${t.compileErrors} compile errors, ${t.runtimeErrors} runtime errors; ${t.survived} survived${t.notSwarmed > 0 ? ` (${t.notSwarmed} not swarm-tested)` : ''}`,
  ];
  for (const f of r.files) lines.push(`  ${f.file}: ${pct(f.score)} (${f.killed}/${f.generated - f.equivalent}; ${f.survived} survived)`);
  const untriaged = r.mutants.filter((m) => isSurvivor(m.fate) && !m.verdict).length;
  if (untriaged > 0) lines.push(`${untriaged} survivor${untriaged === 1 ? ' is' : 's are'} not in docs/mutation-survivors.md yet: npm run mutation -- --survivors`);
  for (const w of r.triageWarnings) lines.push(`triage: ${w}`);
  return lines;
}
