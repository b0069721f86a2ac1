import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { writeReport, type ReportData } from '../../report/index.js';
import type { ScenarioResult } from './scenario-runner.js';

/** The report's view of a run; `original` adds another run's fault timeline beside this one's. */
export function reportData(result: ScenarioResult, original?: ReportData['original']): ReportData {
  const { scenario, metrics } = result;
  const withOrigin = (points: Array<[number, number]>): Array<[number, number]> => (points[0]?.[0] === 0 ? points : [[0, 0], ...points]);
  return {
    scenario: {
      name: scenario.name,
      file: result.file,
      ...(scenario.description ? { description: scenario.description.trim() } : {}),
      seed: result.seed,
      durationMs: result.virtualMs,
    },
    verdict: result.verdict,
    replayCommand: result.replayCommand,
    wallMs: Math.round(result.wallMs),
    virtualMs: result.virtualMs,
    nodes: result.nodes.map((n) => ({ name: n.name, roles: `${n.roles}${n.honest ? '' : ' (byzantine)'}${n.state === 'up' ? '' : `, ${n.state} at the end`}` })),
    groups: result.groups.map((g) => ({ id: g.id, consensus: g.consensus, sealers: [...g.sealers], observers: [...g.observers] })),
    heights: [...metrics.heights.values()].map((s) => ({ node: s.node, group: s.group, points: withOrigin(s.points) })),
    throughput: [...metrics.committedPerSecond].map(([group, buckets]) => ({ group, bucketMs: 1000, txPerSecond: buckets })),
    latency: { samplesMs: [...result.latenciesMs] },
    consensusRounds: [...metrics.rounds.values()].map((s) => ({ node: s.node, group: s.group, kind: s.kind, points: s.points })),
    messages: result.nodes.map((n) => ({ node: n.name, sent: n.sent, received: n.received, dropped: n.dropped })),
    faults: result.faults.map((f) => ({ fromMs: f.fromMs, ...(f.untilMs === undefined ? {} : { untilMs: f.untilMs }), kind: f.kind, description: withMutations(f, metrics), nodes: f.nodes })),
    expectations: result.expectations.map((e) => ({ name: e.name, ok: e.ok, detail: e.detail })),
    violations: result.violations.map((v) => ({ atMs: v.atMs, invariant: v.invariant, detail: v.detail })),
    totals: { submitted: result.totals.submitted, committed: result.totals.committed, failed: result.totals.failed, blocks: result.totals.blocks, viewChanges: result.totals.viewChanges },
    ...(original ? { original } : {}),
  };
}

/** A mutating node's fault, with the mutations it made over the run (the report's fault timeline says what the adversary did). */
function withMutations(fault: ScenarioResult['faults'][number], metrics: ScenarioResult['metrics']): string {
  if (fault.kind !== 'mutate' || fault.nodes.length !== 1) return fault.description;
  const counts = metrics.mutations.get(fault.nodes[0]!);
  if (!counts || counts.size === 0) return `${fault.description}; made no mutation`;
  return `${fault.description}; made over the run: ${[...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([m, n]) => `${m} ×${n}`).join(', ')}`;
}

/** summary.json: the verdict and the numbers, for scripts and CI. */
export function summaryJson(result: ScenarioResult, extra: Record<string, unknown> = {}): string {
  return `${JSON.stringify(
    {
      scenario: result.scenario.name,
      file: result.file,
      seed: result.seed,
      verdict: result.verdict,
      replay: result.replayCommand,
      virtualMs: result.virtualMs,
      wallMs: Math.round(result.wallMs),
      virtualPerWall: Number((result.virtualMs / Math.max(1, result.wallMs)).toFixed(2)),
      events: result.events,
      traceDigest: result.digest,
      livenessMs: result.livenessMs ?? null,
      expectations: result.expectations,
      violations: result.violations,
      totals: result.totals,
      nodes: result.nodes,
      faults: result.faults,
      mutations: Object.fromEntries([...result.metrics.mutations].map(([node, counts]) => [node, Object.fromEntries(counts)])),
      ...extra,
    },
    null,
    2,
  )}\n`;
}

/** Writes summary.json and report.html into `dir` (the trace is written during the run); `original` as for reportData. */
export async function writeRunOutputs(result: ScenarioResult, dir: string, extra: Record<string, unknown> = {}, original?: ReportData['original']): Promise<{ summary: string; report: string }> {
  await mkdir(dir, { recursive: true });
  const summary = path.join(dir, 'summary.json');
  const report = path.join(dir, 'report.html');
  await writeFile(summary, summaryJson(result, extra));
  await writeReport(report, reportData(result, original));
  return { summary, report };
}
