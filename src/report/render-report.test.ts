import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CHART_IDS, renderReport, renderReportDocument, tickStep } from './render-report.js';
import { loadPageAssets } from './page-assets.js';
import type { EmbeddedReport } from './report-view.js';
import { emptyReportData, HOSTILE, hostileReportData, largeReportData, manyFaultsReportData, sampleReportData } from './sample-data.test-helper.js';

interface ScriptElement {
  attributes: string;
  body: string;
}

/** The document's script elements, as an HTML parser would split them (the first "</script" ends one). */
function scriptsOf(html: string): ScriptElement[] {
  return [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script/gi)].map((m) => ({ attributes: m[1]!, body: m[2]! }));
}

/** The document with every script element's body removed: what the HTML parser treats as markup. */
function markupOf(html: string): string {
  return html.replace(/(<script\b[^>]*>)[\s\S]*?(<\/script)/gi, '$1$2');
}

function embeddedReport(html: string): EmbeddedReport {
  const json = scriptsOf(html).find((s) => s.attributes.includes('id="report-data"'));
  expect(json?.attributes).toContain('type="application/json"');
  return JSON.parse(json!.body) as EmbeddedReport;
}

describe('renderReport', () => {
  it('is one document with exactly three inline scripts: the data, Chart.js and the page script', () => {
    const html = renderReport(sampleReportData());
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html.match(/<script/gi)).toHaveLength(3);
    expect(html.match(/<\/script/gi)).toHaveLength(3);
    const [data, chartJs, page] = scriptsOf(html);
    expect(data!.attributes).toBe(' type="application/json" id="report-data"');
    expect(chartJs!.attributes).toBe('');
    expect(chartJs!.body).toContain('window.Chart=');
    expect(chartJs!.body).not.toContain('sourceMappingURL');
    expect(page!.body).toContain('window.__reportReady');
    for (const id of CHART_IDS) expect(html).toContain(`<canvas id="${id}"`);
  });

  it('references no outside resource: no src/href/url()/import/fetch to any URL, and a CSP that forbids them', () => {
    const html = renderReport(sampleReportData());
    const markup = markupOf(html);
    // markup: no element loads anything (every script and style is inline)
    expect(markup).not.toMatch(/\s(src|href|srcset|action|poster|data|background)\s*=/i);
    expect(markup).not.toMatch(/<(link|img|iframe|object|embed|audio|video|source|base)\b/i);
    // CSS: no url() and no @import
    const style = /<style>([\s\S]*?)<\/style>/.exec(html)![1]!;
    expect(style).not.toMatch(/url\s*\(|@import/i);
    // scripts: no module imports, fetches, XHRs, beacons or dynamic script/link insertion with a URL
    for (const { body } of scriptsOf(html)) {
      expect(body).not.toMatch(/\bimport\s*\(\s*['"`]|\bimport\s+[\w{*][^;]*\bfrom\s*['"`]|^\s*import\s*['"`]/m);
      expect(body).not.toMatch(/\bfetch\s*\(\s*['"`](https?:)?\/\//);
      expect(body).not.toMatch(/XMLHttpRequest|sendBeacon|new\s+WebSocket|new\s+EventSource|importScripts/);
      expect(body).not.toMatch(/\.(src|href)\s*=\s*['"`](https?:)?\/\//);
    }
    // the page forbids any load but its own hashed inline scripts, so a slip would fail loudly in a browser
    const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/.exec(html)![1]!.replaceAll('&#39;', "'");
    expect(csp).toContain("default-src 'none'");
    const inline = scriptsOf(html).filter((s) => !s.attributes.includes('application/json'));
    const hashes = inline.map((s) => `'sha256-${createHash('sha256').update(s.body, 'utf8').digest('base64')}'`);
    expect(csp).toContain(`script-src ${hashes.join(' ')};`);
    expect(csp).not.toContain('unsafe-eval');
  });

  it('keeps hostile strings inside the JSON script and escaped in the markup', () => {
    const data = hostileReportData();
    const html = renderReport(data);
    // still exactly the three scripts: nothing broke out of the JSON element or the markup
    expect(html.match(/<script/gi)).toHaveLength(3);
    expect(html.match(/<!--/g)).toBeNull();
    const json = scriptsOf(html)[0]!.body;
    expect(json).not.toMatch(/[<>\u2028\u2029]/);
    const report = embeddedReport(html);
    expect(report.scenario.name).toBe(HOSTILE.name);
    expect(report.scenario.description).toBe(HOSTILE.description);
    expect(report.violations[0]!.detail).toBe(HOSTILE.detail);
    expect(report.charts.faults.map((f) => f.kind)).toContain(HOSTILE.name);

    const markup = markupOf(html);
    expect(markup).not.toContain('<img');
    expect(markup).not.toContain('<b>bold');
    expect(markup).toContain('&lt;/script&gt;&lt;script&gt;window.__pwned=1&lt;/script&gt;&lt;!--&lt;script&gt;');
    expect(markup).toContain('&quot;&gt;&lt;img src=x onerror=&quot;window.__pwned=2&quot;&gt;');
    expect(markup).toContain('&lt;b&gt;bold&lt;/b&gt; &amp; &lt;script&gt;');
    expect(markup).toContain(`<title>FAIL · ${'&lt;/script&gt;&lt;script&gt;window.__pwned=1&lt;/script&gt;&lt;!--&lt;script&gt;'}`);
  });

  it('shows the verdict, the replay command, the totals and every expectation with ✓ or ✗', () => {
    const pass = renderReport(sampleReportData());
    expect(pass).toContain('<header class="banner pass">');
    expect(pass).toContain('<div class="verdict" id="verdict">PASS</div>');
    expect(pass).toContain('5 of 5 expectations met · no safety violations');
    expect(pass).toContain('<code id="replay-command">npx twinchain run scenarios/crash-and-partition.yaml --seed 42</code>');
    expect(pass).toContain('<span class="value">2,900</span><span class="label">committed</span>');
    expect(pass).toContain('12.3× <span class="muted">real time</span>');
    expect(pass.match(/<td class="mark" aria-label="met">✓<\/td>/g)).toHaveLength(5);
    expect(pass).toContain('No safety invariant was violated.');

    const data = sampleReportData();
    data.verdict = 'fail';
    data.expectations[2] = { name: 'minHeight 80', ok: false, detail: 'reached height 52' };
    data.violations = [
      { atMs: 41_200, invariant: 'agreement', detail: 'node0 and node2 committed different blocks at height 40' },
      { atMs: 41_900, invariant: 'agreement', detail: 'node1 and node3 committed different blocks at height 41' },
    ];
    const fail = renderReport(data);
    expect(fail).toContain('<header class="banner fail">');
    expect(fail).toContain('<div class="verdict" id="verdict">FAIL</div>');
    expect(fail).toContain('4 of 5 expectations met · <strong>2 safety violations</strong>');
    expect(fail).toContain(
      '<tr class="not-ok"><td class="mark" aria-label="not met">✗</td><td class="name">minHeight 80</td><td>reached height 52</td></tr>',
    );
    expect(fail).toContain('<h2>⚠ Safety violations <span class="count">2</span></h2>');
    expect(fail).toContain('<td class="num">41.2</td><td class="name">agreement</td>');
    // the order the reader needs: banner, expectations, violations, then charts
    const order = ['id="verdict"', 'id="expectations"', 'id="violations"', 'id="chart-heights"', 'class="gantt"', 'id="topology"'];
    const positions = order.map((marker) => fail.indexOf(marker));
    expect(positions.every((p) => p > 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
  });

  it('renders a run that recorded nothing: a sentence instead of every chart, no empty canvas', () => {
    const html = renderReport(emptyReportData());
    for (const id of CHART_IDS) {
      expect(html).not.toContain(`<canvas id="${id}"`);
      expect(html).toContain(`<p class="quiet" id="${id}-note">`);
    }
    expect(html).not.toContain('class="gantt"');
    for (const note of [
      'No block heights were recorded.',
      'No transactions were committed.',
      'No transaction got a receipt.',
      'No PBFT view or Raft term was recorded: no consensus round ran.',
      'No message counts were recorded.',
      'No faults in this scenario: no node was crashed, paused, cut off or made byzantine, and no message fault was injected.',
      'The scenario declares no expectations.',
    ]) {
      expect(html).toContain(note);
    }
    const report = embeddedReport(html);
    expect(report.charts.latency.count).toBe(0);
    expect(report.charts.heights).toEqual([]);
    expect(report.charts.endS).toBe(10);
    expect(html).toContain('<dt>Virtual / wall</dt><dd>— <span class="muted">real time</span></dd>');
  });

  it('keeps a 10-minute 16-node run to a few MB by downsampling and binning', () => {
    const data = largeReportData(16, 600_000);
    const started = performance.now();
    const html = renderReport(data);
    const elapsed = performance.now() - started;
    expect(html.length).toBeLessThan(4_000_000);
    expect(elapsed).toBeLessThan(5_000);
    const report = embeddedReport(html);
    expect(report.charts.heights).toHaveLength(32);
    for (const series of report.charts.heights) {
      expect(series.downsampled).toBe(true);
      expect(series.points.length).toBeLessThanOrEqual(5_001); // + the point that carries the last value to the end
      expect(series.points[0]![0]).toBeLessThan(0.01);
      expect(series.points[series.points.length - 1]![1]).toBe(6_000);
    }
    expect(report.charts.latency.count).toBe(600_000);
    expect(report.charts.latency.bins.length).toBeLessThan(60);
    expect(report.charts.throughput[0]!.points.length).toBeLessThanOrEqual(2_001);
    expect(html).toContain('Long series are downsampled');
  });

  it('is a pure function of its arguments: same output twice, input untouched', () => {
    const data = sampleReportData();
    const before = structuredClone(data);
    const assets = { chartJs: 'window.Chart=function(){};', pageScript: 'window.__reportReady={charts:0,errors:[]};', pageStyle: 'body{}' };
    const first = renderReportDocument(data, assets);
    expect(renderReportDocument(data, assets)).toBe(first);
    expect(data).toEqual(before);
    expect(first).toContain('<script>window.Chart=function(){};</script>');
    expect(() => renderReportDocument(data, { ...assets, pageScript: 'var s = "</script>";' })).toThrow(/cannot be inlined/);
  });

  it('inlines the installed Chart.js UMD bundle', () => {
    const { chartJs } = loadPageAssets();
    expect(chartJs).toMatch(/^\/\*!\n \* Chart\.js v4\./);
    expect(chartJs.length).toBeGreaterThan(100_000);
  });

  it('says "no view changes" instead of drawing flat view lines, and "no new elections" for flat Raft terms', () => {
    const data = sampleReportData();
    data.consensusRounds = data.nodes.map((n) => ({ node: n.name, group: 1, kind: 'view' as const, points: [[0, 0]] }));
    data.totals = { ...data.totals, viewChanges: 0 };
    const pbft = renderReport(data);
    expect(pbft).not.toContain('<canvas id="chart-rounds"');
    expect(pbft).toContain('No view changes: the view stayed 0 on all 4 PBFT sealers for the whole run.');
    // two of four sealers down: view changes tried, none reached; the card and the panel agree
    const tried = renderReport({ ...data, totals: { ...data.totals, viewChanges: 4 } });
    expect(tried).toContain('<span class="value">4</span><span class="label">view changes tried</span>');
    // the failed-count card says what it counts: committed transactions whose receipt status is not 0
    expect(tried).toMatch(/<span class="value">[0-9,]+<\/span><span class="label">committed with an error status<\/span>/);
    expect(tried).toContain('No view change completed: the view stayed 0 on all 4 PBFT sealers for the whole run; the 4 view changes tried (the summary\'s count) never gathered a quorum.');
    data.consensusRounds = data.nodes.map((n) => ({ node: n.name, group: 1, kind: 'term' as const, points: [[300, 1]] }));
    expect(renderReport(data)).toContain('No new elections: the Raft term stayed 1 on all 4 nodes after the first election.');
    // one rise anywhere: the chart
    data.consensusRounds[2]!.points.push([9_000, 2]);
    expect(renderReport(data)).toContain('<canvas id="chart-rounds"');
  });

  it('draws the fault timeline as HTML lanes: one per node, bars at their share of the run, labels coloured to read on the bar', () => {
    const data = manyFaultsReportData();
    const html = renderReport(data);
    const lanes = [...html.matchAll(/<div class="fault-lane[^"]*" data-lane="([^"]+)">/g)].map((m) => m[1]);
    expect(lanes).toEqual(['node0', 'node1', 'node2', 'node3', 'all nodes']);
    // the partition (40–48 s of the 60.06 s run) is on every node's lane
    expect(html.match(/data-kind="partition"[^>]*style="left:66\.6%;width:13\.32%/g)).toHaveLength(4);
    // white on the dark crash red, black on the light messages orange
    expect(html).toMatch(/data-kind="crash"[^>]*><span class="fault-label" style="color:#ffffff">crash</);
    expect(html).toMatch(/data-kind="messages"[^>]*><span class="fault-label" style="color:#000000">messages</);
    expect(html).not.toContain('<canvas id="chart-faults"');
    // axis ticks every 10 s for a 60 s run
    expect([...html.matchAll(/<span class="tick[^"]*" style="left:[^"]+">([^<]+)</g)].map((m) => m[1])).toEqual(['0', '10', '20', '30', '40', '50', '60']);
  });

  it('names a fault of the whole run above the time charts instead of a band over all of them', () => {
    const data = sampleReportData();
    const bands = ' Grey bands: some fault was active (see Faults below).';
    // the sample's faults are shorter than the run: bands, no label
    const shorter = renderReport(data);
    expect(shorter).toContain(bands);
    expect(shorter).not.toContain('class="whole-run"');

    data.faults = [{ fromMs: 0, kind: 'equivocate', description: 'node3 equivocates <from the start>', nodes: ['node3'] }];
    const whole = renderReport(data);
    expect(embeddedReport(whole).charts.faults[0]!.wholeRun).toBe(true);
    expect(whole).not.toContain(bands);
    const label = '<p class="whole-run">whole run: <span class="kind" style="border-color:#24292f" title="node3 equivocates &lt;from the start&gt;">equivocate node3</span></p>';
    // in the caption of each time chart, above its plot
    for (const id of ['chart-heights', 'chart-tps', 'chart-rounds']) {
      expect(whole).toMatch(new RegExp(`${label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}</figcaption>\n<div class="canvas-box"[^>]*><canvas id="${id}"`));
    }
    expect(whole.split(label)).toHaveLength(4);

    // beside shorter faults: those keep their bands
    data.faults.push({ fromMs: 20_000, untilMs: 35_000, kind: 'crash', description: 'crash node3', nodes: ['node3'] });
    const both = renderReport(data);
    expect(both).toContain(bands);
    expect(both.split(label)).toHaveLength(4);
  });

  it('picks round tick steps', () => {
    expect([tickStep(60, 6), tickStep(40.4, 6), tickStep(600, 6), tickStep(7, 6), tickStep(0, 6), tickStep(60.06, 6)]).toEqual([10, 10, 100, 2, 1, 10]);
  });
});
