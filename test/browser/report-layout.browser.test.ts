// How the report reads, in headless Chromium (Debian's /usr/bin/chromium via playwright-core, as in
// report.browser.test.ts) at a phone width and a desktop width: no sideways scrolling, identical
// height lines all visible, no chart left empty without words, faults as lanes per node with
// labels that do not overlap, latency percentile labels on a light background, and a scroll cue
// on a table wider than its box.
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, chromiumAvailable } from './chromium.js';
import { writeReport, type ReportData } from '../../src/report/index.js';
import { largeReportData, manyFaultsReportData, sampleReportData } from '../../src/report/sample-data.test-helper.js';
import { parseScenario, reportData, runScenario } from '../../src/sim/index.js';

const hasChromium = chromiumAvailable(fileURLToPath(import.meta.url));
const WIDTHS = [360, 1280] as const;
const QUICKSTART = fileURLToPath(new URL('../../scenarios/quickstart.yaml', import.meta.url));

interface Box {
  text: string;
  left: number;
  top: number;
  right: number;
  bottom: number;
}

function overlapping(boxes: Box[]): string[] {
  const found: string[] = [];
  for (let i = 0; i < boxes.length; i++) {
    for (let j = i + 1; j < boxes.length; j++) {
      const a = boxes[i]!;
      const b = boxes[j]!;
      if (a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5) found.push(`"${a.text}" × "${b.text}"`);
    }
  }
  return found;
}

/** WCAG contrast ratio of two #rrggbb / [r, g, b] colours. */
function contrast(a: number[], b: number[]): number {
  const lum = ([r, g, bl]: number[]): number => {
    const lin = (c: number): number => {
      const s = c / 255;
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    };
    return 0.2126 * lin(r!) + 0.7152 * lin(g!) + 0.0722 * lin(bl!);
  };
  const [hi, lo] = [lum(a), lum(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

function rgbOf(color: string): number[] {
  const hex = /^#([0-9a-f]{6})$/i.exec(color);
  if (hex) {
    const n = parseInt(hex[1]!, 16);
    return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
  }
  const rgb = /^rgba?\((\d+),\s*(\d+),\s*(\d+)/.exec(color);
  if (rgb) return [Number(rgb[1]), Number(rgb[2]), Number(rgb[3])];
  throw new Error(`not a colour: ${color}`);
}

describe.skipIf(!hasChromium)('report layout in headless Chromium at 360 and 1280 px', () => {
  let browser: Browser;
  let dir: string;
  const files = new Map<string, string>();

  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    dir = await mkdtemp(path.join(tmpdir(), 'twinchain-report-layout-'));
    const quickstart = await runScenario(parseScenario(readFileSync(QUICKSTART, 'utf8')), { file: 'scenarios/quickstart.yaml' });
    const reports: Array<[string, ReportData]> = [
      ['quickstart', reportData(quickstart)],
      ['sample', sampleReportData()],
      ['faults', manyFaultsReportData()],
      // two groups and millions of messages: a nodes table wider than a phone
      ['wide', largeReportData(4, 60_000)],
    ];
    for (const [name, data] of reports) {
      const file = path.join(dir, `${name}.html`);
      await writeReport(file, data);
      files.set(name, file);
    }
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  // one context per width: a context per page (browser.newPage) made opening a report about twice
  // as slow (2026-12-02: 27 s against 13 s for ten pages); the reports keep no storage
  const contexts = new Map<number, Promise<BrowserContext>>();
  async function open(name: string, width: number): Promise<Page> {
    if (!contexts.has(width)) contexts.set(width, browser.newContext({ viewport: { width, height: 800 } }));
    const page = await (await contexts.get(width)!).newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(pathToFileURL(files.get(name)!).href);
    await page.waitForFunction(() => '__reportReady' in window, undefined, { timeout: 10_000 });
    const ready = await page.evaluate(() => (window as unknown as { __reportReady: { errors: string[] } }).__reportReady);
    expect([...errors, ...ready.errors]).toEqual([]);
    return page;
  }

  // each report opened once per width for the checks that only read it (opening the two-group
  // report is the slow part); a check that scrolls or resizes opens its own page
  const opened = new Map<string, Promise<Page>>();
  function shared(name: string, width: number): Promise<Page> {
    const key = `${name}@${width}`;
    if (!opened.has(key)) opened.set(key, open(name, width));
    return opened.get(key)!;
  }

  for (const width of WIDTHS) {
    describe(`at ${width} px`, () => {
      it('does not scroll sideways', async () => {
        for (const name of ['quickstart', 'sample', 'faults', 'wide']) {
          const page = await shared(name, width);
          const size = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, inner: window.innerWidth }));
          expect(size.scroll, `${name}: page ${size.scroll} px wide in a ${size.inner} px window`).toBeLessThanOrEqual(size.inner);
        }
      });

      it('shows every one of four identical height lines (quickstart)', async () => {
        const page = await shared('quickstart', width);
        // every node's colour appears on the canvas around the line, at a quarter, half and three quarters of the run
        const missing = await page.evaluate(() => {
          interface ChartLike {
            ctx: CanvasRenderingContext2D;
            chartArea: { top: number; bottom: number; left: number; right: number };
            data: { datasets: Array<{ label: string; borderColor: string }> };
            currentDevicePixelRatio: number;
          }
          const Chart = (window as unknown as { Chart: { getChart(c: HTMLCanvasElement): ChartLike } }).Chart;
          const chart = Chart.getChart(document.getElementById('chart-heights') as HTMLCanvasElement);
          const ratio = chart.currentDevicePixelRatio;
          const area = chart.chartArea;
          const rgb = (hex: string): number[] => {
            const n = parseInt(hex.slice(1), 16);
            return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
          };
          const out: string[] = [];
          for (const fraction of [0.25, 0.5, 0.75]) {
            const x = Math.round((area.left + (area.right - area.left) * fraction) * ratio);
            const top = Math.round(area.top * ratio);
            const strip = chart.ctx.getImageData(x - 3, top, 7, Math.round((area.bottom - area.top) * ratio)).data;
            for (const d of chart.data.datasets) {
              const [r, g, b] = rgb(d.borderColor);
              let seen = false;
              for (let i = 0; i < strip.length && !seen; i += 4) {
                seen = Math.abs(strip[i]! - r!) + Math.abs(strip[i + 1]! - g!) + Math.abs(strip[i + 2]! - b!) < 30;
              }
              if (!seen) out.push(`${d.label} at ${fraction * 100}%`);
            }
          }
          return { missing: out, datasets: chart.data.datasets.length };
        });
        expect(missing.datasets).toBe(4);
        expect(missing.missing).toEqual([]);
      });

      it('leaves no panel empty without words that say nothing went wrong (quickstart: no view change, no fault)', async () => {
        const page = await shared('quickstart', width);
        const seen = await page.evaluate(() => {
          interface ChartLike {
            data: { datasets: Array<{ data: unknown[] }> };
          }
          const Chart = (window as unknown as { Chart: { getChart(c: HTMLCanvasElement): ChartLike | undefined } }).Chart;
          const emptyCharts: string[] = [];
          for (const canvas of document.querySelectorAll('canvas')) {
            if (canvas.getClientRects().length === 0) continue; // not shown
            const chart = Chart.getChart(canvas);
            const points = (chart?.data.datasets ?? []).reduce((n, d) => n + d.data.length, 0);
            if (points === 0) emptyCharts.push(canvas.id);
          }
          const visibleText = (id: string): string => (document.getElementById(id) as HTMLElement | null)?.innerText ?? '';
          return { emptyCharts, charts: visibleText('charts'), faults: visibleText('faults') };
        });
        expect(seen.emptyCharts).toEqual([]);
        expect(seen.charts).not.toMatch(/no data|were recorded/i);
        expect(seen.charts).toMatch(/no view changes?: .*view stayed 0/i);
        expect(seen.faults).toMatch(/no faults in this scenario/i);
      });

      it('draws the fault timeline as one lane per node, labels not overlapping (a dozen faults)', async () => {
        const page = await shared('faults', width);
        const data = manyFaultsReportData();
        const seen = await page.evaluate(() => {
          const box = (e: Element): { text: string; left: number; top: number; right: number; bottom: number } => {
            const r = e.getBoundingClientRect();
            return { text: (e.textContent ?? '').trim(), left: r.left, top: r.top, right: r.right, bottom: r.bottom };
          };
          const shown = (e: Element): boolean => {
            const r = e.getBoundingClientRect();
            return r.width > 0 && r.height > 0 && getComputedStyle(e).visibility !== 'hidden';
          };
          const lanes = [...document.querySelectorAll('#faults .fault-lane')].map((lane) => ({
            node: lane.getAttribute('data-lane'),
            box: box(lane),
            bars: [...lane.querySelectorAll('.fault-bar')].map((b) => ({ kind: b.getAttribute('data-kind'), box: box(b) })),
            labels: [...lane.querySelectorAll('.fault-label')].filter(shown).map(box),
          }));
          const gantt = document.querySelector('#faults .gantt');
          return { lanes, gantt: gantt ? box(gantt) : undefined };
        });
        const nodes = data.nodes.map((n) => n.name);
        expect(seen.lanes.map((l) => l.node)).toEqual([...nodes, 'all nodes']);
        // one bar per fault in the lane of each node it touches (faults without nodes: the "all nodes" lane)
        for (const lane of seen.lanes) {
          const expected = data.faults.filter((f) => (lane.node === 'all nodes' ? f.nodes.length === 0 : f.nodes.includes(lane.node!))).length;
          expect(lane.bars.length, `bars in lane ${lane.node}`).toBe(expected);
          for (const bar of lane.bars) {
            expect(bar.box.top, `${lane.node} ${bar.kind}`).toBeGreaterThanOrEqual(lane.box.top - 0.5);
            expect(bar.box.bottom, `${lane.node} ${bar.kind}`).toBeLessThanOrEqual(lane.box.bottom + 0.5);
            expect(bar.box.right - bar.box.left, `${lane.node} ${bar.kind} visible`).toBeGreaterThanOrEqual(2);
          }
          for (const label of lane.labels) {
            expect(label.left, label.text).toBeGreaterThanOrEqual(seen.gantt!.left - 0.5);
            expect(label.right, label.text).toBeLessThanOrEqual(seen.gantt!.right + 0.5);
            expect(label.top, label.text).toBeGreaterThanOrEqual(lane.box.top - 0.5);
            expect(label.bottom, label.text).toBeLessThanOrEqual(lane.box.bottom + 0.5);
          }
        }
        const labels = seen.lanes.flatMap((l) => l.labels);
        expect(labels.length).toBeGreaterThan(3);
        expect(overlapping(labels)).toEqual([]);
        // and the lanes' own labels (node names) are readable beside them
        const names = await page.locator('#faults .fault-lane .lane-name').allInnerTexts();
        expect(names).toEqual([...nodes, 'all nodes']);
      });

      it('shows a scroll cue on the nodes table while it is wider than its box, and none when it fits', async () => {
        const cue = (page: Page): Promise<{ wider: boolean; hint: boolean; hintInside: boolean; left: boolean; right: boolean }> =>
          page.evaluate(() => {
            const frame = document.querySelector('table.nodes')!.closest('.scroll-frame')!;
            const box = frame.querySelector('.table-scroll')!;
            const hint = frame.querySelector('.scroll-hint')!.getBoundingClientRect();
            const outer = frame.getBoundingClientRect();
            const edge = (side: string): boolean => getComputedStyle(frame, side).display !== 'none';
            return {
              wider: box.scrollWidth > box.clientWidth,
              hint: hint.width > 0 && hint.height > 0,
              hintInside: hint.left >= outer.left && hint.right <= outer.right && hint.right <= window.innerWidth,
              left: edge('::before'),
              right: edge('::after'),
            };
          });
        // the sample's table fits at either width: no cue
        const fits = await shared('sample', width);
        expect(await cue(fits)).toMatchObject({ wider: false, hint: false, left: false, right: false });
        const page = await open('wide', width);
        const start = await cue(page);
        if (width === 360) {
          // wider than the page: the right edge fades and says "scroll →"
          expect(start).toEqual({ wider: true, hint: true, hintInside: true, left: false, right: true });
          expect(await page.locator('.scroll-frame:has(table.nodes) .scroll-hint').innerText()).toBe('scroll →');
          // scrolled to its end: the hint and the right edge go, the left edge fades instead
          await page.evaluate(() => {
            const box = document.querySelector('table.nodes')!.closest('.table-scroll')!;
            box.scrollLeft = box.scrollWidth;
          });
          await page.waitForFunction(() => getComputedStyle(document.querySelector('table.nodes')!.closest('.scroll-frame')!, '::after').display === 'none');
          expect(await cue(page)).toMatchObject({ wider: true, hint: false, left: true, right: false });
        } else {
          expect(start).toMatchObject({ wider: false, hint: false, left: false, right: false });
          // the window narrowed to a phone's: the cue comes with the overflow
          await page.setViewportSize({ width: 360, height: 800 });
          await page.waitForFunction(() => getComputedStyle(document.querySelector('table.nodes')!.closest('.scroll-frame')!, '::after').display !== 'none');
          expect(await cue(page)).toEqual({ wider: true, hint: true, hintInside: true, left: false, right: true });
        }
        await page.close();
      });

      it('draws every line inside the plot: its highest point not on or over the top edge, its lowest not under the x axis', async () => {
        // the sample's views end at 4 and its throughput at 450, a two-group run's heights at 600: each a
        // round number Chart.js would make the top of the axis
        for (const name of ['sample', 'wide']) {
          const page = await shared(name, width);
          const lines = await page.evaluate(() => {
            interface ChartLike {
              chartArea: { top: number; bottom: number };
              scales: { y: { getPixelForValue(v: number): number } };
              data: { datasets: Array<{ label: string; borderWidth: number; data: Array<{ y: number }> }> };
            }
            const Chart = (window as unknown as { Chart: { getChart(c: HTMLCanvasElement): ChartLike | undefined } }).Chart;
            const offsets = (window as unknown as { __reportLayout: { seriesOffsets: Record<string, number[]> } }).__reportLayout.seriesOffsets;
            const out: Array<{ line: string; top: number; highest: number; bottom: number; lowest: number }> = [];
            for (const id of ['chart-heights', 'chart-tps', 'chart-rounds']) {
              const canvas = document.getElementById(id) as HTMLCanvasElement | null;
              const chart = canvas ? Chart.getChart(canvas) : undefined;
              if (!chart) continue;
              chart.data.datasets.forEach((d, i) => {
                const max = Math.max(...d.data.map((p) => p.y));
                // the upper edge of the line where it is highest, as drawn: moved by the series' offset
                const highest = chart.scales.y.getPixelForValue(max) + (offsets[id]?.[i] ?? 0) - d.borderWidth / 2;
                // the middle of the line where it is lowest (a line at 0 lies on the axis, not under it)
                const lowest = chart.scales.y.getPixelForValue(Math.min(...d.data.map((p) => p.y))) + (offsets[id]?.[i] ?? 0);
                out.push({ line: `${id} ${d.label}`, top: chart.chartArea.top, highest, bottom: chart.chartArea.bottom, lowest });
              });
            }
            return out;
          });
          expect(lines.length, name).toBeGreaterThanOrEqual(5);
          for (const l of lines) {
            expect(l.highest, `${name}: ${l.line}`).toBeGreaterThan(l.top);
            expect(l.lowest, `${name}: ${l.line}`).toBeLessThanOrEqual(l.bottom + 0.5);
          }
        }
      });

      it('puts the latency percentile labels on a light background, apart from each other', async () => {
        // in the quickstart the histogram's bars reach the top of the plot, where the labels used to be
        const page = await shared('quickstart', width);
        const labels = await page.evaluate(() => {
          interface ChartLike {
            ctx: CanvasRenderingContext2D;
            currentDevicePixelRatio: number;
          }
          const Chart = (window as unknown as { Chart: { getChart(c: HTMLCanvasElement): ChartLike } }).Chart;
          const chart = Chart.getChart(document.getElementById('chart-latency') as HTMLCanvasElement);
          const layout = (window as unknown as { __reportLayout?: { percentileLabels: Array<{ text: string; color: string; x: number; y: number; w: number; h: number }> } }).__reportLayout;
          const ratio = chart.currentDevicePixelRatio;
          return (layout?.percentileLabels ?? []).map((l) => {
            // the background: the commonest colour inside the label's box (glyphs are a minority of its pixels)
            const px = chart.ctx.getImageData(Math.round(l.x * ratio), Math.round(l.y * ratio), Math.max(1, Math.round(l.w * ratio)), Math.max(1, Math.round(l.h * ratio))).data;
            const counts = new Map<string, number>();
            // the canvas is transparent where nothing is drawn: composite over the page's white
            const over = (c: number, a: number): number => Math.round((c * a + 255 * (255 - a)) / 255);
            for (let i = 0; i < px.length; i += 4) {
              const a = px[i + 3]!;
              const key = `${over(px[i]!, a)},${over(px[i + 1]!, a)},${over(px[i + 2]!, a)}`;
              counts.set(key, (counts.get(key) ?? 0) + 1);
            }
            const background = [...counts].sort((a, b) => b[1] - a[1])[0]![0].split(',').map(Number);
            return { text: l.text, color: l.color, background, box: { text: l.text, left: l.x, top: l.y, right: l.x + l.w, bottom: l.y + l.h } };
          });
        });
        expect(labels.map((l) => l.text.split(' ')[0])).toEqual(['p50', 'p90', 'p99']);
        for (const l of labels) {
          expect(contrast(rgbOf(l.color), l.background), `${l.text}: ${l.color} on rgb(${l.background.join(',')})`).toBeGreaterThanOrEqual(4.5);
        }
        expect(overlapping(labels.map((l) => l.box))).toEqual([]);
      });
    });
  }
});
