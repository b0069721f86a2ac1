import { createHash } from 'node:crypto';
import type { ReportData } from './report-data.js';
import { escapeHtml, jsonForScript } from './html-escape.js';
import { formatCount, formatDuration, formatLatency, formatSpeed } from './format.js';
import { loadPageAssets, type PageAssets } from './page-assets.js';
import { ALL_NODES_LANE, buildReportView, type ChartsView, type EmbeddedReport } from './report-view.js';

/** The canvas ids of the report's charts, in page order (a chart with nothing to show is a sentence instead). */
export const CHART_IDS = ['chart-heights', 'chart-tps', 'chart-latency', 'chart-rounds', 'chart-messages'] as const;

/** The whole report: one self-contained HTML document (Chart.js and the data inlined, no network). */
export function renderReport(data: ReportData): string {
  return renderReportDocument(data, loadPageAssets());
}

/** renderReport with the page assets given: a pure function of its arguments. */
export function renderReportDocument(data: ReportData, assets: PageAssets): string {
  const report = buildReportView(data);
  const scripts = [assets.chartJs, assets.pageScript];
  for (const [name, text] of [['Chart.js bundle', assets.chartJs], ['page script', assets.pageScript]] as const) {
    if (/<\/script|<!--/i.test(text)) throw new Error(`${name} contains "</script" or "<!--" and cannot be inlined in a <script> element`);
  }
  // the page may run its own inline scripts and nothing else: no fetches, fonts, images or frames
  const csp = [
    "default-src 'none'",
    `script-src ${scripts.map((s) => `'sha256-${createHash('sha256').update(s, 'utf8').digest('base64')}'`).join(' ')}`,
    "style-src 'unsafe-inline'",
    'img-src data:',
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
  const verdict = data.verdict === 'pass' ? 'PASS' : 'FAIL';

  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${escapeHtml(csp)}">
<meta name="generator" content="twinchain">
<title>${verdict} · ${escapeHtml(data.scenario.name)} · Twinchain report</title>
<style>
${assets.pageStyle}
</style>
</head>
<body>
<main>
${banner(data, report)}
${summary(data, report)}
${expectations(data)}
${violations(data)}
${charts(report.charts, data.totals.viewChanges)}
${faultTimeline(report.charts)}
${topology(data)}
<footer>Twinchain scenario report · all times are virtual (simulated) unless marked wall · charts drawn with the inlined Chart.js, no network access</footer>
</main>
<script type="application/json" id="report-data">${jsonForScript(report)}</script>
<script>${assets.chartJs}</script>
<script>${assets.pageScript}</script>
</body>
</html>
`;
}

function banner(data: ReportData, report: EmbeddedReport): string {
  const met = data.expectations.filter((e) => e.ok).length;
  const checks = [
    data.expectations.length > 0 ? `${met} of ${data.expectations.length} expectations met` : 'no expectations',
    data.violations.length === 0
      ? 'no safety violations'
      : `<strong>${data.violations.length} safety violation${data.violations.length === 1 ? '' : 's'}</strong>`,
  ];
  const description = data.scenario.description ? `<p class="description">${escapeHtml(data.scenario.description)}</p>` : '';
  return `<header class="banner ${data.verdict}">
<div class="verdict" id="verdict">${data.verdict === 'pass' ? 'PASS' : 'FAIL'}</div>
<div class="title">
<h1 id="scenario-name">${escapeHtml(data.scenario.name)}</h1>
${description}
<p class="checks">${checks.join(' · ')} · ${formatDuration(report.charts.endS * 1000)} virtual</p>
</div>
</header>`;
}

function summary(data: ReportData, report: EmbeddedReport): string {
  const facts: Array<[string, string]> = [
    ['Scenario file', `<code>${escapeHtml(data.scenario.file)}</code>`],
    ['Seed', `<code>${escapeHtml(String(data.scenario.seed))}</code>`],
    ['Virtual duration', `${formatDuration(data.virtualMs)}${data.scenario.durationMs !== data.virtualMs ? ` <span class="muted">(scenario: ${formatDuration(data.scenario.durationMs)})</span>` : ''}`],
    ['Wall time', formatDuration(data.wallMs)],
    ['Virtual / wall', `${formatSpeed(data.virtualMs, data.wallMs)} <span class="muted">real time</span>`],
    ['Topology', `${data.nodes.length} node${data.nodes.length === 1 ? '' : 's'}, ${data.groups.length} group${data.groups.length === 1 ? '' : 's'}`],
  ];
  const latency = report.charts.latency;
  const t = data.totals;
  const virtualS = data.virtualMs / 1000;
  const stats: Array<[string, string, string?]> = [
    ['submitted', formatCount(t.submitted)],
    ['committed', formatCount(t.committed)],
    // committed with a non-zero receipt status (a revert, out of gas, …): on chain, but failed
    ['committed with an error status', formatCount(t.failed), t.failed > 0 ? 'warn' : undefined],
    ['blocks', formatCount(t.blocks)],
    // view changes (and elections after the first) started, whether or not they reached a new view or term
    ['view changes tried', formatCount(t.viewChanges), t.viewChanges > 0 ? 'warn' : undefined],
    ['committed tx/s', virtualS > 0 ? formatRate(t.committed / virtualS) : '—'],
    ['latency p50', formatLatency(latency.p50Ms)],
    ['latency p99', formatLatency(latency.p99Ms)],
  ];
  return `<section class="summary">
<dl class="facts">
${facts.map(([k, v], i) => `<div${i === 0 ? ' class="wide"' : ''}><dt>${k}</dt><dd>${v}</dd></div>`).join('\n')}
</dl>
<div class="replay">
<div class="replay-head"><span>Replay this run</span><button type="button" id="copy-replay">Copy</button></div>
<pre><code id="replay-command">${escapeHtml(data.replayCommand)}</code></pre>
</div>
<ul class="stats" id="totals">
${stats.map(([k, v, cls]) => `<li${cls ? ` class="${cls}"` : ''}><span class="value">${v}</span><span class="label">${k}</span></li>`).join('\n')}
</ul>
</section>`;
}

function formatRate(perSecond: number): string {
  return perSecond >= 100 ? formatCount(perSecond) : String(Number(perSecond.toFixed(1)));
}

function expectations(data: ReportData): string {
  if (data.expectations.length === 0) {
    return `<section id="expectations"><h2>Expectations</h2><p class="note">The scenario declares no expectations.</p></section>`;
  }
  const rows = data.expectations
    .map(
      (e) => `<tr class="${e.ok ? 'ok' : 'not-ok'}"><td class="mark" aria-label="${e.ok ? 'met' : 'not met'}">${e.ok ? '✓' : '✗'}</td><td class="name">${escapeHtml(e.name)}</td><td>${escapeHtml(e.detail)}</td></tr>`,
    )
    .join('\n');
  const met = data.expectations.filter((e) => e.ok).length;
  return `<section id="expectations">
<h2>Expectations <span class="count">${met} of ${data.expectations.length} met</span></h2>
<table class="expectations stacking">
<thead><tr><th></th><th>expectation</th><th>detail</th></tr></thead>
<tbody>
${rows}
</tbody>
</table>
</section>`;
}

function violations(data: ReportData): string {
  if (data.violations.length === 0) {
    return `<section id="violations" class="violations none"><p>✓ No safety invariant was violated.</p></section>`;
  }
  const rows = data.violations
    .map((v) => `<tr><td class="num">${seconds(v.atMs)}</td><td class="name">${escapeHtml(v.invariant)}</td><td>${escapeHtml(v.detail)}</td></tr>`)
    .join('\n');
  return `<section id="violations" class="violations">
<h2>⚠ Safety violations <span class="count">${data.violations.length}</span></h2>
<table class="stacking">
<thead><tr><th>at (s)</th><th>invariant</th><th>detail</th></tr></thead>
<tbody>
${rows}
</tbody>
</table>
</section>`;
}

function seconds(ms: number): string {
  return String(Math.round(ms) / 1000);
}

interface ChartSlot {
  id: (typeof CHART_IDS)[number];
  title: string;
  hint: string;
  /** Words in place of the chart when it would be empty or flat: what happened, not just "no data". */
  note: string | undefined;
  wide?: boolean;
  heightPx?: number;
  /** Above the plot: the faults that lasted the whole run (a time chart greys the others' intervals). */
  label?: string;
}

function chartFigure(slot: ChartSlot): string {
  const style = slot.heightPx ? ` style="height:${slot.heightPx}px"` : '';
  const body = slot.note
    ? `<p class="quiet" id="${slot.id}-note">${slot.note}</p>`
    : `<div class="canvas-box"${style}><canvas id="${slot.id}" role="img" aria-label="${escapeHtml(slot.title)}"></canvas></div>`;
  return `<figure class="chart${slot.wide && !slot.note ? ' wide' : ''}${slot.note ? ' noted' : ''}">
<figcaption><h3>${slot.title}</h3>${slot.note ? '' : `<p class="hint">${slot.hint}</p>${slot.label ?? ''}`}</figcaption>
${body}
</figure>`;
}

/**
 * Words for the views/terms panel when no series moved (or none was recorded). The summary card
 * counts view changes tried; the panel shows views reached, so where some were tried and none
 * was reached the note says so, and the two agree.
 */
function roundsNote(view: ChartsView, tried: number): string | undefined {
  if (view.rounds.length === 0) return 'No PBFT view or Raft term was recorded: no consensus round ran.';
  const moved = view.rounds.some((r) => new Set(r.points.map(([, v]) => v)).size > 1);
  if (moved) return undefined;
  const parts: string[] = [];
  const views = view.rounds.filter((r) => r.kind === 'view');
  const terms = view.rounds.filter((r) => r.kind === 'term');
  const valuesOf = (series: typeof view.rounds): string => [...new Set(series.map((r) => r.points[0]?.[1] ?? 0))].sort((a, b) => a - b).join(', ');
  if (views.length > 0) {
    const sealers = `all ${views.length} PBFT sealer${views.length === 1 ? '' : 's'}`;
    parts.push(
      tried > 0
        ? `No view change completed: the view stayed ${valuesOf(views)} on ${sealers} for the whole run; the ${formatCount(tried)} view change${tried === 1 ? '' : 's'} tried (the summary's count) never gathered a quorum.`
        : `No view changes: the view stayed ${valuesOf(views)} on ${sealers} for the whole run.`,
    );
  }
  if (terms.length > 0) parts.push(`No new elections: the Raft term stayed ${valuesOf(terms)} on all ${terms.length} node${terms.length === 1 ? '' : 's'} after the first election.`);
  return parts.join(' ');
}

function charts(view: ChartsView, tried: number): string {
  const latency = view.latency;
  const percentiles =
    latency.count > 0
      ? `<span class="pct">p50 <b>${formatLatency(latency.p50Ms)}</b></span> <span class="pct">p90 <b>${formatLatency(latency.p90Ms)}</b></span> <span class="pct">p99 <b>${formatLatency(latency.p99Ms)}</b></span> <span class="pct">max <b>${formatLatency(latency.maxMs)}</b></span> <span class="muted">over ${formatCount(latency.count)} transactions</span>`
      : 'submit → commit, per receipted transaction';
  const downsampled = view.heights.some((h) => h.downsampled) ? ' Long series are downsampled (every bucket keeps its first, last, lowest and highest point).' : '';
  const faulted = view.faults.some((f) => !f.wholeRun) ? ' Grey bands: some fault was active (see Faults below).' : '';
  const wholeRun = wholeRunLabel(view.faults);
  // many series: give the legend room, and the per-node charts the full width
  const legendPx = (series: number, perRow: number): number => 18 * Math.ceil(series / perRow);
  const wideLower = view.rounds.length > 8 || view.messages.nodes.length > 8;
  const slots: ChartSlot[] = [
    {
      id: 'chart-heights',
      title: 'Block height per node',
      hint: `Stepped lines, one per node and group. Nodes that agree would hide each other, so each node's line is drawn a couple of pixels above or below the true value: side by side, every colour shows.${faulted}${downsampled}`,
      note: view.heights.every((h) => h.points.length === 0) ? 'No block heights were recorded.' : undefined,
      wide: true,
      heightPx: 340 + legendPx(view.heights.length, 9),
      label: wholeRun,
    },
    {
      id: 'chart-tps',
      title: 'Committed transactions per second',
      hint: view.throughput.length > 0 ? `Per group, in ${view.throughput[0]!.bucketS} s buckets.` : 'Per group.',
      note: view.throughput.every((t) => t.points.every(([, v]) => v === 0)) ? 'No transactions were committed.' : undefined,
      label: wholeRun,
    },
    {
      id: 'chart-latency',
      title: 'Transaction latency',
      hint: percentiles,
      note: latency.count === 0 ? 'No transaction got a receipt.' : undefined,
    },
    {
      id: 'chart-rounds',
      title: 'Consensus views and terms',
      hint: `PBFT view or Raft term over time, per node; a rise is a view change or an election.${faulted}`,
      note: roundsNote(view, tried),
      wide: wideLower,
      heightPx: 270 + legendPx(view.rounds.length, wideLower ? 9 : 4),
      label: wholeRun,
    },
    {
      id: 'chart-messages',
      title: 'Messages per node',
      hint: 'Sent, received and dropped by the simulated network.',
      note: view.messages.nodes.length === 0 ? 'No message counts were recorded.' : undefined,
      wide: wideLower,
    },
  ];
  return `<section id="charts">
<h2>Charts <span class="count">x: virtual time in seconds</span></h2>
<div class="chart-grid">
${slots.map(chartFigure).join('\n')}
</div>
</section>`;
}

/**
 * The faults that lasted from 0 to the end, named above a time chart: a band for them would grey
 * the whole plot and hide when the other faults were.
 */
function wholeRunLabel(faults: ChartsView['faults']): string | undefined {
  const whole = faults.filter((f) => f.wholeRun);
  if (whole.length === 0) return undefined;
  const chips = whole.map((f) => `<span class="kind" style="border-color:${faultColor(f.kind)}" title="${escapeHtml(f.description)}">${escapeHtml(f.label)}</span>`);
  return `<p class="whole-run">whole run: ${chips.join(' ')}</p>`;
}

/** Fill colour per fault kind (others get a neutral grey); label text is white or black, whichever reads on it. */
const FAULT_COLORS: Record<string, string> = {
  crash: '#c9302c',
  restart: '#c9302c',
  pause: '#6e6e6e',
  partition: '#8e5ea2',
  partitionOneWay: '#8e5ea2',
  isolate: '#8e5ea2',
  twins: '#24292f',
  clog: '#d9822b',
  messages: '#d9822b',
  network: '#9c8a2d',
  link: '#9c8a2d',
  loss: '#9c8a2d',
  clockSkew: '#2f7f7a',
  byzantine: '#24292f',
  equivocate: '#24292f',
  'double-sign': '#24292f',
  membership: '#2b6cb0',
  'system config': '#2b6cb0',
};

function faultColor(kind: string): string {
  return Object.prototype.hasOwnProperty.call(FAULT_COLORS, kind) ? FAULT_COLORS[kind]! : '#57606a';
}

/** A round step for about `count` ticks over [0, end] (a few more when that is rounder): 1, 2 or 5 times a power of ten. */
export function tickStep(end: number, count: number): number {
  if (!(end > 0)) return 1;
  const raw = end / Math.max(1, count) / 1.15;
  const power = 10 ** Math.floor(Math.log10(raw));
  for (const m of [1, 2, 5]) if (m * power >= raw) return m * power;
  return 10 * power;
}

const percent = (x: number): string => `${Math.round(x * 10_000) / 100}%`;

interface GanttSpec {
  readonly id: string;
  readonly title: string;
  readonly hint: string;
  readonly faults: ChartsView['faults'];
  readonly lanes: ChartsView['faultLanes'];
  /** Right end of the time axis, in seconds. */
  readonly endS: number;
}

/** A fault timeline: a lane per node, a bar per fault on the lanes of the nodes it touched (HTML, no canvas). */
function faultGantt(spec: GanttSpec): string {
  const end = spec.endS > 0 ? spec.endS : 1;
  const step = tickStep(end, 6);
  const ticks: number[] = [];
  for (let t = 0; t <= end + 1e-9; t += step) ticks.push(Math.round(t * 1000) / 1000);
  const lanes = spec.lanes
    .map((lane) => {
      const bars = lane.bars
        .map(({ fault, row }) => {
          const f = spec.faults[fault]!;
          const left = Math.min(1, f.fromS / end);
          const width = Math.max(0, Math.min(1, f.untilS / end) - left);
          const color = faultColor(f.kind);
          const when = `${f.fromS} s → ${f.open ? 'end' : `${f.untilS} s`}`;
          return `<div class="fault-bar${f.untilS === f.fromS ? ' instant' : ''}" data-kind="${escapeHtml(f.kind)}" data-fault="${fault}" style="left:${percent(left)};width:${percent(width)};top:${row * 20 + 2}px;background:${color}" title="${escapeHtml(`${f.kind} · ${when}: ${f.description}`)}"><span class="fault-label" style="color:${textOn(color)}">${escapeHtml(f.kind)}</span></div>`;
        })
        .join('');
      return `<div class="fault-lane${lane.name === ALL_NODES_LANE ? ' all' : ''}" data-lane="${escapeHtml(lane.name)}"><div class="lane-name" title="${escapeHtml(lane.name)}">${escapeHtml(lane.name)}</div><div class="lane-track" style="height:${lane.rows * 20 + 4}px">${bars}</div></div>`;
    })
    .join('\n');
  const axis = ticks
    .map((t) => `<span class="tick${t === 0 ? ' first' : ''}${Math.abs(t - end) < step / 2 && t !== 0 ? ' last' : ''}" style="left:${percent(t / end)}">${formatTick(t)}</span>`)
    .join('');
  return `<figure class="chart wide gantt-figure" id="${spec.id}">
<figcaption><h3>${escapeHtml(spec.title)}</h3><p class="hint">${spec.hint}</p></figcaption>
<div class="gantt" style="--grid:${percent(step / end)}">
${lanes}
<div class="gantt-axis"><div class="lane-name"></div><div class="axis-track">${axis}</div></div>
<div class="axis-title">virtual time (s)</div>
</div>
</figure>`;
}

const GANTT_HINT = `One lane per node: a bar for each fault that touched it (a partition shows on every node it split). Faults on no single node are in the “${ALL_NODES_LANE}” lane. The table below lists every fault; hover a bar for its description.`;

function formatTick(t: number): string {
  return Number(t.toFixed(3)).toLocaleString('en-US');
}

/** Black or white text, whichever has the higher contrast on `hex`. */
function textOn(hex: string): string {
  const n = parseInt(hex.slice(1), 16);
  const lin = (c: number): number => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  const lum = 0.2126 * lin((n >> 16) & 255) + 0.7152 * lin((n >> 8) & 255) + 0.0722 * lin(n & 255);
  return (1.05 / (lum + 0.05)) >= ((lum + 0.05) / 0.05) ? '#ffffff' : '#000000';
}

function faultTable(faults: ChartsView['faults']): string {
  return scrollBox(`<table class="faults">
<thead><tr><th>from (s)</th><th>until (s)</th><th>kind</th><th>nodes</th><th>description</th></tr></thead>
<tbody>
${faults
  .map(
    (f) =>
      `<tr><td class="num">${f.fromS}</td><td class="num">${f.open ? 'end' : f.untilS}</td><td><span class="kind" style="border-color:${faultColor(f.kind)}">${escapeHtml(f.kind)}</span></td><td>${escapeHtml(f.nodes.join(', ') || '—')}</td><td>${escapeHtml(f.description)}</td></tr>`,
  )
  .join('\n')}
</tbody>
</table>`);
}

/** The original run's timeline (ReportData.original) on the same axis as this run's, and its faults in a table that opens on demand. */
function originalTimeline(view: ChartsView, endS: number): string {
  const o = view.original;
  if (!o) return '';
  const timeline =
    o.faults.length === 0
      ? `<p class="quiet" id="original-faults-note">${escapeHtml(o.title)}: no faults.</p>`
      : faultGantt({ id: 'original-timeline', title: o.title, hint: `${escapeHtml(o.note)} Same time axis as the timeline above.`, faults: o.faults, lanes: o.faultLanes, endS });
  const table = o.faults.length === 0 ? '' : `<details class="original-faults"><summary>${escapeHtml(o.title)}: every fault (${o.faults.length})</summary>\n${faultTable(o.faults)}\n</details>`;
  return `${timeline}\n${table}`;
}

function faultTimeline(view: ChartsView): string {
  // beside another run's timeline, both share the longer run's axis
  const endS = Math.max(view.endS, view.original?.endS ?? 0);
  const title = view.original ? 'Fault timeline of this run' : 'Fault timeline';
  if (view.faults.length === 0) {
    return `<section id="faults">
<h2>Faults <span class="count">0</span></h2>
<p class="quiet" id="faults-note">No faults in this scenario: no node was crashed, paused, cut off or made byzantine, and no message fault was injected.</p>
${originalTimeline(view, endS)}
</section>`;
  }
  return `<section id="faults">
<h2>Faults <span class="count">${view.faults.length}</span></h2>
${faultGantt({ id: 'fault-timeline', title, hint: GANTT_HINT, faults: view.faults, lanes: view.faultLanes, endS })}
${originalTimeline(view, endS)}
${faultTable(view.faults)}
</section>`;
}

function topology(data: ReportData): string {
  const finalHeights = new Map<string, string[]>();
  for (const h of data.heights) {
    const last = h.points[h.points.length - 1];
    if (!last) continue;
    const list = finalHeights.get(h.node) ?? [];
    list.push(data.groups.length > 1 ? `g${h.group}: ${formatCount(last[1])}` : formatCount(last[1]));
    finalHeights.set(h.node, list);
  }
  const messages = new Map(data.messages.map((m) => [m.node, m]));
  const nodeRows = data.nodes
    .map((n) => {
      const m = messages.get(n.name);
      const cells = m ? [m.sent, m.received, m.dropped].map((x) => `<td class="num">${formatCount(x)}</td>`).join('') : '<td></td><td></td><td></td>';
      return `<tr><td class="name">${escapeHtml(n.name)}</td><td>${escapeHtml(n.roles)}</td><td class="num">${escapeHtml((finalHeights.get(n.name) ?? []).join(', '))}</td>${cells}</tr>`;
    })
    .join('\n');
  const groupRows = data.groups
    .map(
      (g) =>
        `<tr><td class="num">${g.id}</td><td>${g.consensus.toUpperCase()}</td><td>${escapeHtml(g.sealers.join(', '))}</td><td>${escapeHtml(g.observers.join(', ') || '—')}</td></tr>`,
    )
    .join('\n');
  return `<section id="topology">
<h2>Nodes and groups</h2>
<div class="tables">
${scrollBox(`<table class="nodes">
<thead><tr><th>node</th><th>roles</th><th>final height</th><th>sent</th><th>received</th><th>dropped</th></tr></thead>
<tbody>
${nodeRows}
</tbody>
</table>`)}
${scrollBox(`<table class="groups">
<thead><tr><th>group</th><th>consensus</th><th>sealers</th><th>observers</th></tr></thead>
<tbody>
${groupRows}
</tbody>
</table>`)}
</div>
</section>`;
}

/**
 * A table in a box of its own that scrolls sideways when the table is wider than the page. While
 * columns are hidden to a side, the page script marks the frame: a fading edge on that side, and
 * a "scroll →" hint while there is more to the right.
 */
function scrollBox(table: string): string {
  return `<div class="scroll-frame"><div class="table-scroll">${table}</div><span class="scroll-hint" aria-hidden="true">scroll →</span></div>`;
}
