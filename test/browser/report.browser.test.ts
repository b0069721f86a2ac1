// The report in a real browser: headless Chromium (Debian's /usr/bin/chromium, driven by
// playwright-core; no browser is downloaded) opens rendered reports from file:// and every chart
// must render with no console error, no page error and no network request. Skips when Chromium
// is not installed; .ci/run installs it.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, chromiumAvailable } from './chromium.js';
import { CHART_IDS, writeReport, type ReportData } from '../../src/report/index.js';
import {
  emptyReportData,
  HOSTILE,
  hostileReportData,
  largeReportData,
  sampleReportData,
} from '../../src/report/sample-data.test-helper.js';
import { parseScenario, reportData, runScenario } from '../../src/sim/index.js';

const hasChromium = chromiumAvailable(fileURLToPath(import.meta.url));

interface ReportReady {
  charts: number;
  ids: string[];
  errors: string[];
}

interface ChartCheck {
  id: string;
  width: number;
  height: number;
  datasets: number;
  points: number;
}

interface Opened {
  page: Page;
  ready: ReportReady;
  /** Console errors and warnings, uncaught page errors, dialogs, and requests for anything but the report. */
  problems: string[];
  charts: ChartCheck[];
}

describe.skipIf(!hasChromium)(`report in headless Chromium${hasChromium ? '' : ` (skipped: ${CHROMIUM} cannot run)`}`, () => {
  let browser: Browser;
  // one context for every page: a context per page (browser.newPage) made opening a report about
  // twice as slow (2026-12-02: 27 s against 13 s for ten pages); the reports keep no storage
  let context: BrowserContext;
  let dir: string;

  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    dir = await mkdtemp(path.join(tmpdir(), 'twinchain-report-browser-'));
  });

  afterAll(async () => {
    await browser?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  async function open(name: string, data: ReportData): Promise<Opened> {
    const file = path.join(dir, `${name}.html`);
    await writeReport(file, data);
    const url = pathToFileURL(file).href;
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') problems.push(`console ${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    page.on('dialog', (d) => {
      problems.push(`dialog: ${d.message()}`);
      void d.dismiss();
    });
    page.on('request', (r) => {
      if (r.url() !== url) problems.push(`request: ${r.url()}`);
    });
    await page.route('**/*', (route) => (route.request().url() === url ? route.continue() : route.abort()));
    await page.goto(url);
    await page.waitForFunction(() => '__reportReady' in window, undefined, { timeout: 10_000 });
    const ready = await page.evaluate(() => (window as unknown as { __reportReady: ReportReady }).__reportReady);
    const charts = await page.evaluate((ids) => {
      interface ChartLike {
        data: { datasets: Array<{ data: unknown[] }> };
      }
      const Chart = (window as unknown as { Chart: { getChart(c: HTMLCanvasElement): ChartLike | undefined } }).Chart;
      return ids.map((id) => {
        const canvas = document.getElementById(id) as HTMLCanvasElement | null;
        const box = canvas?.getBoundingClientRect();
        const chart = canvas ? Chart.getChart(canvas) : undefined;
        const datasets = chart?.data.datasets ?? [];
        return {
          id,
          width: box?.width ?? 0,
          height: box?.height ?? 0,
          datasets: datasets.length,
          points: datasets.reduce((n, d) => n + d.data.length, 0),
        };
      });
    }, [...CHART_IDS]);
    return { page, ready, problems, charts };
  }

  it('renders every chart of the sample report with data, fault bands and no error or request', async () => {
    const { page, ready, problems, charts } = await open('sample', sampleReportData());
    expect(problems).toEqual([]);
    expect(ready).toEqual({ charts: CHART_IDS.length, ids: [...CHART_IDS], errors: [] });
    for (const chart of charts) {
      expect(chart.width, chart.id).toBeGreaterThan(200);
      expect(chart.height, chart.id).toBeGreaterThan(100);
      expect(chart.datasets, chart.id).toBeGreaterThan(0);
      expect(chart.points, chart.id).toBeGreaterThan(0);
    }
    // the fault-band plugin greys the plot inside the crash interval (20-35 s), not before it
    const tint = await page.evaluate(() => {
      interface ScaleLike {
        getPixelForValue(v: number): number;
      }
      interface ChartLike {
        ctx: CanvasRenderingContext2D;
        chartArea: { top: number; bottom: number };
        scales: { x: ScaleLike };
        currentDevicePixelRatio: number;
      }
      const Chart = (window as unknown as { Chart: { getChart(c: HTMLCanvasElement): ChartLike } }).Chart;
      const chart = Chart.getChart(document.getElementById('chart-heights') as HTMLCanvasElement);
      const y = chart.chartArea.top + 40; // above the height lines at these times
      const ratio = chart.currentDevicePixelRatio;
      // one readback of the whole row (a second one makes Chromium warn about willReadFrequently)
      const row = chart.ctx.getImageData(0, Math.round(y * ratio), chart.ctx.canvas.width, 1).data;
      const rgb = (seconds: number): number[] => {
        const x = Math.round(chart.scales.x.getPixelForValue(seconds) * ratio);
        return [row[x * 4]!, row[x * 4 + 1]!, row[x * 4 + 2]!];
      };
      return { inside: rgb(27.3), outside: rgb(7.3) };
    });
    // (the canvas is transparent outside bands and lines: alpha 0 reads as [0, 0, 0])
    expect(tint.inside.every((c) => c > 60 && c < 200)).toBe(true);
    expect(Math.max(...tint.inside) - Math.min(...tint.inside)).toBeLessThan(20);
    expect(tint.outside).toEqual([0, 0, 0]);
    // the fault timeline: a lane per node, the crash on node3's
    expect(await page.locator('#faults .fault-lane[data-lane="node3"] .fault-bar[data-kind="crash"]').count()).toBe(1);
    expect(await page.textContent('#verdict')).toBe('PASS');
    // the replay command is one click away: copied, or at least selected for Ctrl+C
    await page.click('#copy-replay');
    await page.waitForFunction(() => document.getElementById('copy-replay')?.textContent !== 'Copy');
    const copied = await page.evaluate(() => ({ button: document.getElementById('copy-replay')?.textContent, selection: String(window.getSelection()) }));
    if (copied.button === 'Copied') expect(copied.selection).toBe('');
    else expect(copied).toEqual({ button: 'Selected: press Ctrl+C', selection: 'npx twinchain run scenarios/crash-and-partition.yaml --seed 42' });
    expect(problems).toEqual([]);
    // set REPORT_SCREENSHOT=/tmp/report-sample.png to look at the page
    if (process.env.REPORT_SCREENSHOT) await page.screenshot({ path: process.env.REPORT_SCREENSHOT, fullPage: true });
    await page.close();
  });

  it('shows hostile strings as text and runs none of them', async () => {
    const { page, ready, problems } = await open('hostile', hostileReportData());
    expect(problems).toEqual([]);
    expect(ready.errors).toEqual([]);
    expect(ready.charts).toBe(CHART_IDS.length);
    const seen = await page.evaluate(() => ({
      pwned: (window as unknown as { __pwned?: number }).__pwned,
      title: document.title,
      name: document.getElementById('scenario-name')?.textContent,
      description: document.querySelector('.banner .description')?.textContent,
      images: document.images.length,
      scripts: document.scripts.length,
      embeddedName: (JSON.parse(document.getElementById('report-data')!.textContent!) as { scenario: { name: string } }).scenario.name,
    }));
    expect(seen).toEqual({
      pwned: undefined,
      title: `FAIL · ${HOSTILE.name} · Twinchain report`,
      name: HOSTILE.name,
      description: HOSTILE.description,
      images: 0,
      scripts: 3,
      embeddedName: HOSTILE.name,
    });
    expect(await page.textContent('#verdict')).toBe('FAIL');
    expect(await page.locator('#violations tbody tr').count()).toBe(1);
    await page.close();
  });

  it('renders a run that recorded nothing: a sentence for every chart, no empty canvas, no errors', async () => {
    const { page, ready, problems, charts } = await open('empty', emptyReportData());
    expect(problems).toEqual([]);
    expect(ready).toEqual({ charts: 0, ids: [], errors: [] });
    for (const chart of charts) expect(chart.width, chart.id).toBe(0);
    expect(await page.locator('canvas').count()).toBe(0);
    expect(await page.locator('p.quiet').count()).toBe(CHART_IDS.length + 1);
    await page.close();
  });

  it('renders the report of a real scenario run (crash, partition, equivocation, view changes) with every chart filled', async () => {
    const scenario = parseScenario(`
name: browser-e2e
seed: 21
duration: 20s
chain: { nodes: 4 }
network: { latency: { kind: uniform, minMs: 2, maxMs: 20 } }
workloads: [{ kind: mix, rate: 10, weights: { helloworld: 2, token: 1, deploy: 1 } }]
byzantine: [{ node: node3, behaviour: equivocate, from: 12s }]
timeline:
  - { at: 4s, crashLeader: { group: 1, for: 3s } }
  - { at: 9s, partition: [[node0], [node1, node2, node3]] }
  - { at: 11s, heal: true }
expect: { liveness: { within: 15s } }
`);
    const result = await runScenario(scenario, { file: 'browser-e2e.yaml' });
    expect(result.verdict).toBe('pass');
    const { page, ready, problems, charts } = await open('e2e', reportData(result));
    expect(problems).toEqual([]);
    expect(ready).toEqual({ charts: CHART_IDS.length, ids: [...CHART_IDS], errors: [] });
    for (const chart of charts) {
      expect(chart.width, chart.id).toBeGreaterThan(200);
      expect(chart.points, chart.id).toBeGreaterThan(0);
    }
    expect(charts.find((c) => c.id === 'chart-heights')!.datasets).toBe(4);
    expect(await page.textContent('#verdict')).toBe('PASS');
    expect(await page.locator('table.faults tbody tr').count()).toBe(3);
    expect(await page.locator('#faults .fault-lane').count()).toBe(4);
    await page.close();
  });

  it('names a fault that lasts the whole run above the plots instead of greying all of them; a shorter fault keeps its band', async () => {
    const scenario = parseScenario(`
name: whole-run-fault
seed: 4
duration: 12s
chain: { nodes: 4 }
network: { latency: { kind: uniform, minMs: 2, maxMs: 20 } }
workloads: [{ kind: helloworld, rate: 5 }]
byzantine: [{ node: node3, behaviour: equivocate }]
timeline:
  - { at: 6s, crash: node1 }
  - { at: 9s, restart: node1 }
`);
    const data = reportData(await runScenario(scenario, { file: 'whole-run-fault.yaml' }));
    expect(data.faults.map((f) => [f.kind, f.fromMs, f.untilMs])).toEqual([
      ['equivocate', 0, undefined],
      ['crash', 6_000, 9_000],
    ]);
    const { page, ready, problems } = await open('whole-run', data);
    expect(problems).toEqual([]);
    expect(ready.ids).toEqual(expect.arrayContaining(['chart-heights', 'chart-tps']));
    // the label, above each time chart's plot
    const labels = await page.evaluate(() =>
      [...document.querySelectorAll('.chart .whole-run')].map((p) => {
        const canvas = p.closest('figure')!.querySelector('canvas');
        return { text: (p as HTMLElement).innerText, above: canvas !== null && p.getBoundingClientRect().bottom <= canvas.getBoundingClientRect().top, chart: canvas?.id };
      }),
    );
    expect(labels.length).toBeGreaterThanOrEqual(2);
    for (const l of labels) expect(l).toMatchObject({ text: 'whole run: equivocate node3', above: true });
    // on the heights plot: no grey before the crash (the equivocation was active then), grey while node1 was down
    const tint = await page.evaluate(() => {
      interface ChartLike {
        ctx: CanvasRenderingContext2D;
        chartArea: { top: number };
        scales: { x: { getPixelForValue(v: number): number } };
        currentDevicePixelRatio: number;
      }
      const Chart = (window as unknown as { Chart: { getChart(c: HTMLCanvasElement): ChartLike } }).Chart;
      const chart = Chart.getChart(document.getElementById('chart-heights') as HTMLCanvasElement);
      const ratio = chart.currentDevicePixelRatio;
      const row = chart.ctx.getImageData(0, Math.round((chart.chartArea.top + 8) * ratio), chart.ctx.canvas.width, 1).data;
      const rgba = (seconds: number): number[] => {
        const x = Math.round(chart.scales.x.getPixelForValue(seconds) * ratio);
        return [...row.slice(x * 4, x * 4 + 4)];
      };
      return { before: rgba(3), during: rgba(7.5), after: rgba(11) };
    });
    expect(tint.before).toEqual([0, 0, 0, 0]);
    expect(tint.after).toEqual([0, 0, 0, 0]);
    expect(tint.during[3]).toBeGreaterThan(0);
    await page.close();
  });

  it('renders a 10-minute 16-node run in a few seconds', async () => {
    const started = performance.now();
    const { page, ready, problems, charts } = await open('large', largeReportData(16, 600_000));
    expect(problems).toEqual([]);
    expect(ready.errors).toEqual([]);
    expect(ready.charts).toBe(CHART_IDS.length);
    expect(charts.find((c) => c.id === 'chart-heights')!.datasets).toBe(32);
    expect(performance.now() - started).toBeLessThan(15_000);
    await page.close();
  });
});
