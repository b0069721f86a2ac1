import type { RunProgress, ScenarioResult } from './scenario-runner.js';

const n = (x: number) => x.toLocaleString('en-US');
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

function table(headers: string[], rows: string[][], leftColumns = 1): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i < leftColumns ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ').trimEnd();
  return [line(headers), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].map((l) => `  ${l}`).join('\n');
}

/** The summary's width: it fits a 100-column terminal. */
export const SUMMARY_WIDTH = 100;

/** `text` wrapped at word boundaries to SUMMARY_WIDTH, the first line after `first`, the others after `rest`. */
function wrap(text: string, first: string, rest: string): string {
  const lines: string[] = [];
  let line = first;
  let empty = true;
  for (const word of text.split(' ')) {
    if (!empty && line.length + 1 + word.length > SUMMARY_WIDTH) {
      lines.push(line);
      line = rest + word;
    } else line += (empty ? '' : ' ') + word;
    empty = false;
  }
  lines.push(line);
  return lines.join('\n');
}

/** One line of progress for a terminal: virtual time, phase, heights, transactions. */
export function progressLine(p: RunProgress, width = 24): string {
  // a run ends when the liveness phase settles, usually before its bound: done is the whole bar
  const finished = p.phase === 'done';
  const done = finished ? 1 : Math.min(1, p.virtualMs / p.totalMs);
  const filled = Math.round(done * width);
  const bar = `${'#'.repeat(filled)}${'.'.repeat(width - filled)}`;
  const heights = p.minHeight === p.maxHeight ? `height ${p.maxHeight}` : `heights ${p.minHeight}–${p.maxHeight}`;
  const trouble = p.violations > 0 ? `  ${p.violations} VIOLATION(S)` : '';
  const time = finished ? `${seconds(p.virtualMs)} 100%` : `${seconds(p.virtualMs)} / ${seconds(p.totalMs)}`;
  return `[${bar}] ${time}  ${p.phase}  ${heights}  ${n(p.committed)} tx${trouble}`;
}

/** The human summary printed after a run: verdict, speed, totals, expectations, nodes. */
export function formatSummary(result: ScenarioResult, paths: { report?: string; summary?: string; trace?: string } = {}): string {
  const ratio = result.virtualMs / Math.max(1, result.wallMs);
  const t = result.totals;
  const lines: string[] = [];
  lines.push(wrap(`${result.scenario.name} (${result.file}), seed ${String(result.seed)}: ${result.verdict === 'pass' ? 'PASS' : 'FAIL'}`, '', '    '));
  // wall figures vary from run to run: the line holding them stays short, so it never wraps differently
  lines.push(`  ${seconds(result.virtualMs)} virtual in ${seconds(result.wallMs)} wall: ${ratio.toFixed(1)}× real time (virtual/wall), ${n(result.events)} events`);
  lines.push(`  trace digest ${result.digest.slice(0, 16)}`);
  lines.push(
    wrap(
      `${n(t.blocks)} blocks, ${n(t.committed)} of ${n(t.submitted)} submitted transactions committed, liveness probes included (${n(t.failed)} failed, ${n(t.rejected)} refused, ${n(t.pending)} pending), ${n(t.viewChanges)} view changes/elections` +
        (result.livenessMs === undefined ? '' : `, live again ${Math.round(result.livenessMs)} ms after the faults`),
      '  ',
      '    ',
    ),
  );
  const mutations = result.metrics.mutationSummary();
  if (mutations.length > 0) lines.push(`  mutations made (byzantine mutate): ${mutations.join('; ')}`);
  lines.push('');
  // each expectation on its own line(s), its detail under it: a long name never pushes the detail off the screen
  lines.push('  Expectations:');
  for (const e of result.expectations) {
    lines.push(wrap(e.name, `  ${e.ok ? '✓' : '✗'} `, '    '));
    lines.push(wrap(e.detail, '      ', '      '));
  }
  if (result.violations.length > 0) {
    lines.push('');
    lines.push(`  Safety violations (${result.violations.length}${result.violations.length >= 200 ? '+' : ''}):`);
    for (const v of result.violations.slice(0, 10)) lines.push(wrap(`${seconds(v.atMs)}  ${v.invariant}  ${v.detail}`, '    ', '      '));
  }
  lines.push('');
  const groups = result.groups.map((g) => g.id);
  lines.push(
    table(
      ['node', 'state', 'roles', ...groups.map((g) => `height g${g}`), 'sent', 'received', 'dropped'],
      result.nodes.map((node) => [
        node.name,
        node.state,
        `${node.roles}${node.honest ? '' : ' (byzantine)'}`,
        ...groups.map((g) => String(node.heights[g] ?? '-')),
        n(node.sent),
        n(node.received),
        n(node.dropped),
      ]),
      3,
    ),
  );
  lines.push('');
  if (paths.report) lines.push(`report:  ${paths.report}`);
  if (paths.summary) lines.push(`summary: ${paths.summary}`);
  if (paths.trace) lines.push(`trace:   ${paths.trace}`);
  if (result.verdict === 'fail') {
    const failed = result.expectations.filter((e) => !e.ok);
    lines.push(wrap(`FAILED: ${failed.map((e) => e.name).join('; ')}`, '', '  '));
    lines.push(`replay this run exactly: ${result.replayCommand}`);
  }
  return lines.join('\n');
}
