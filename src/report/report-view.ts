import type { ReportData } from './report-data.js';
import { downsampleSteps, MAX_SERIES_POINTS, type StepPoint } from './downsample.js';
import { summarizeLatency, type LatencySummary } from './latency-histogram.js';

/** Throughput series longer than this are merged into wider buckets (averaged). */
const MAX_THROUGHPUT_BUCKETS = 2_000;

/** A step series for a time chart, times in seconds of virtual time. */
export interface SeriesView {
  label: string;
  node: string;
  group: number;
  /** Index into the page's palette; the same node has the same colour on every chart. */
  color: number;
  points: StepPoint[];
  /** True when the series was downsampled (more than MAX_SERIES_POINTS change points). */
  downsampled: boolean;
}

export interface FaultView {
  fromS: number;
  untilS: number;
  /** True when the fault lasts until the end of the run. */
  open: boolean;
  /** True when it lasts from 0 to the end of the run: the charts name it instead of greying the whole plot. */
  wholeRun: boolean;
  kind: string;
  label: string;
  description: string;
  nodes: string[];
}

/** One bar of the fault timeline: the fault (index into ChartsView.faults) in a lane, on a row of that lane. */
export interface FaultBar {
  fault: number;
  row: number;
}

/** A lane of the fault timeline: one per node (all of them, faulted or not), and one for faults on every node. */
export interface FaultLane {
  name: string;
  /** Rows of the lane: faults of a lane that overlap in time go on different rows. */
  rows: number;
  bars: FaultBar[];
}

/** The lane of faults that name no node (network-wide loss, config changes, message faults on every link). */
export const ALL_NODES_LANE = 'all nodes';

/** What the page's script draws: chart-ready, already downsampled and binned. */
export interface ChartsView {
  /** Right end of every time axis, in seconds of virtual time. */
  endS: number;
  groups: number[];
  heights: SeriesView[];
  throughput: Array<{ group: number; bucketS: number; points: StepPoint[] }>;
  latency: LatencySummary;
  rounds: Array<SeriesView & { kind: 'view' | 'term' }>;
  messages: { nodes: string[]; sent: number[]; received: number[]; dropped: number[] };
  faults: FaultView[];
  /** The fault timeline's lanes; empty when there were no faults. */
  faultLanes: FaultLane[];
  /** Another run's faults to draw beside these (ReportData.original), and the end of the time axis both share. */
  original?: { title: string; note: string; endS: number; faults: FaultView[]; faultLanes: FaultLane[] };
}

/** The JSON embedded in the report: the run's facts, plus the charts' data in place of raw samples. */
export interface EmbeddedReport {
  format: 'twinchain-report/1';
  scenario: ReportData['scenario'];
  verdict: ReportData['verdict'];
  replayCommand: string;
  wallMs: number;
  virtualMs: number;
  totals: ReportData['totals'];
  expectations: ReportData['expectations'];
  violations: ReportData['violations'];
  nodes: ReportData['nodes'];
  groups: ReportData['groups'];
  charts: ChartsView;
}

const seconds = (ms: number): number => Math.round(ms) / 1000;

export function buildReportView(data: ReportData): EmbeddedReport {
  return {
    format: 'twinchain-report/1',
    scenario: data.scenario,
    verdict: data.verdict,
    replayCommand: data.replayCommand,
    wallMs: data.wallMs,
    virtualMs: data.virtualMs,
    totals: data.totals,
    expectations: data.expectations,
    violations: data.violations,
    nodes: data.nodes,
    groups: data.groups,
    charts: buildChartsView(data),
  };
}

/** The last virtual time anything in the report refers to, in ms. */
export function runEndMs(data: ReportData): number {
  let end = data.virtualMs > 0 ? data.virtualMs : data.scenario.durationMs;
  const lastOf = (points: ReadonlyArray<readonly [number, number]>): number => (points.length > 0 ? points[points.length - 1]![0] : 0);
  for (const s of data.heights) end = Math.max(end, lastOf(s.points));
  for (const s of data.consensusRounds) end = Math.max(end, lastOf(s.points));
  for (const t of data.throughput) end = Math.max(end, t.bucketMs * t.txPerSecond.length);
  for (const f of data.faults) end = Math.max(end, f.fromMs, f.untilMs ?? 0);
  for (const v of data.violations) end = Math.max(end, v.atMs);
  return end;
}

function buildChartsView(data: ReportData): ChartsView {
  const endMs = runEndMs(data);
  const endS = seconds(endMs);
  const colorOf = nodeColors(data);
  const groups = [...new Set([...data.groups.map((g) => g.id), ...data.heights.map((h) => h.group), ...data.throughput.map((t) => t.group)])].sort(
    (a, b) => a - b,
  );
  const multiGroup = groups.length > 1;
  const mixedKinds = new Set(data.consensusRounds.map((r) => r.kind)).size > 1;

  const stepSeries = (node: string, group: number, label: string, points: ReadonlyArray<[number, number]>): SeriesView => {
    const sampled = downsampleSteps(points, MAX_SERIES_POINTS);
    const inSeconds: StepPoint[] = sampled.map(([t, v]) => [seconds(t), v]);
    const last = inSeconds[inSeconds.length - 1];
    // a step series holds its last value: draw it to the end of the run
    if (last && last[0] < endS) inSeconds.push([endS, last[1]]);
    return { label, node, group, color: colorOf(node), points: inSeconds, downsampled: sampled.length < points.length };
  };

  const faults = faultViews(data.faults, endMs);
  const original = data.original && originalView(data.original);
  return {
    endS,
    groups,
    heights: inNodeOrder(data.heights, colorOf).map((h) => stepSeries(h.node, h.group, multiGroup ? `${h.node} · g${h.group}` : h.node, h.points)),
    throughput: data.throughput.map((t) => throughputView(t)),
    latency: summarizeLatency(data.latency.samplesMs),
    rounds: inNodeOrder(data.consensusRounds, colorOf).map((r) => ({
      ...stepSeries(r.node, r.group, `${multiGroup ? `${r.node} · g${r.group}` : r.node}${mixedKinds ? ` ${r.kind}` : ''}`, r.points),
      kind: r.kind,
    })),
    messages: {
      nodes: data.messages.map((m) => m.node),
      sent: data.messages.map((m) => m.sent),
      received: data.messages.map((m) => m.received),
      dropped: data.messages.map((m) => m.dropped),
    },
    faults,
    faultLanes: faultLanes(faults, [...data.nodes.map((n) => n.name)], endS),
    ...(original ? { original } : {}),
  };
}

function originalView(o: NonNullable<ReportData['original']>): NonNullable<ChartsView['original']> {
  let endMs = o.durationMs;
  for (const f of o.faults) endMs = Math.max(endMs, f.fromMs, f.untilMs ?? 0);
  const faults = faultViews(o.faults, endMs);
  const endS = seconds(endMs);
  return { title: o.title, note: o.note, endS, faults, faultLanes: faultLanes(faults, o.nodes, endS) };
}

/** Series by group, then in node order (the legend's order, and the order the charts offset lines in). */
function inNodeOrder<T extends { node: string; group: number }>(series: readonly T[], colorOf: (node: string) => number): T[] {
  return series
    .map((s, order) => ({ s, order }))
    .sort((a, b) => a.s.group - b.s.group || colorOf(a.s.node) - colorOf(b.s.node) || a.order - b.order)
    .map(({ s }) => s);
}

/** Palette index per node: its position in the node list, then first appearance elsewhere. */
function nodeColors(data: ReportData): (node: string) => number {
  const index = new Map<string, number>();
  const names = [
    ...data.nodes.map((n) => n.name),
    ...data.heights.map((h) => h.node),
    ...data.consensusRounds.map((r) => r.node),
    ...data.messages.map((m) => m.node),
  ];
  for (const name of names) if (!index.has(name)) index.set(name, index.size);
  return (node) => index.get(node) ?? 0;
}

function throughputView(t: ReportData['throughput'][number]): ChartsView['throughput'][number] {
  const merge = Math.max(1, Math.ceil(t.txPerSecond.length / MAX_THROUGHPUT_BUCKETS));
  const bucketMs = t.bucketMs * merge;
  const points: StepPoint[] = [];
  for (let start = 0; start < t.txPerSecond.length; start += merge) {
    const slice = t.txPerSecond.slice(start, start + merge);
    const mean = slice.reduce((a, b) => a + b, 0) / slice.length;
    points.push([seconds((start / merge) * bucketMs), Math.round(mean * 100) / 100]);
  }
  const last = points[points.length - 1];
  if (last) points.push([seconds(t.bucketMs * t.txPerSecond.length), last[1]]);
  return { group: t.group, bucketS: bucketMs / 1000, points };
}

/** Faults in time order (the order of the table, the timeline and the band labels). */
function faultViews(faults: ReportData['faults'], endMs: number): FaultView[] {
  return faults
    .map((f, order) => ({ f, order }))
    .sort((a, b) => a.f.fromMs - b.f.fromMs || a.order - b.order)
    .map(({ f }) => ({
      fromS: seconds(f.fromMs),
      untilS: seconds(Math.max(f.untilMs ?? endMs, f.fromMs)),
      open: f.untilMs === undefined,
      wholeRun: endMs > 0 && f.fromMs <= 0 && (f.untilMs ?? endMs) >= endMs,
      kind: f.kind,
      label: f.nodes.length > 0 ? `${f.kind} ${f.nodes.join(', ')}` : f.kind,
      description: f.description,
      nodes: f.nodes,
    }));
}

/**
 * The lanes of the fault timeline: every node in node order (then nodes only faults name), and
 * ALL_NODES_LANE when a fault names no node. In a lane, faults go on the first row where they do
 * not overlap an earlier one; an instant (or very short) fault counts as 1% of the run wide.
 */
export function faultLanes(faults: readonly FaultView[], nodes: readonly string[], endS: number): FaultLane[] {
  if (faults.length === 0) return [];
  const names = [...nodes];
  for (const f of faults) for (const n of f.nodes) if (!names.includes(n)) names.push(n);
  if (faults.some((f) => f.nodes.length === 0)) names.push(ALL_NODES_LANE);
  const minWidth = Math.max(endS, 1) / 100;
  return names.map((name) => {
    const rowEnds: number[] = [];
    const bars: FaultBar[] = [];
    faults.forEach((f, fault) => {
      if (name === ALL_NODES_LANE ? f.nodes.length > 0 : !f.nodes.includes(name)) return;
      let row = 0;
      while (row < rowEnds.length && rowEnds[row]! > f.fromS) row++;
      rowEnds[row] = Math.max(f.untilS, f.fromS + minWidth);
      bars.push({ fault, row });
    });
    return { name, rows: Math.max(1, rowEnds.length), bars };
  });
}
