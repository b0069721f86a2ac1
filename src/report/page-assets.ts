import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/** The static parts of a report page, inlined into every report. */
export interface PageAssets {
  /** Chart.js UMD bundle (defines window.Chart). */
  chartJs: string;
  /** The page's own script: reads the embedded JSON and draws the charts. */
  pageScript: string;
  pageStyle: string;
}

let cached: PageAssets | undefined;

/**
 * Chart.js' UMD bundle from the installed package (its exports map hides dist/, so resolve the
 * package entry and take the bundle beside it) and the page script and style beside this module.
 * Read once per process.
 */
export function loadPageAssets(): PageAssets {
  if (cached) return cached;
  const chartEntry = createRequire(import.meta.url).resolve('chart.js');
  const bundlePath = path.join(path.dirname(chartEntry), 'chart.umd.js');
  const chartJs = readFileSync(bundlePath, 'utf8')
    // the source map is not shipped with the report; without this line devtools would ask for it
    .replace(/\n\/\/# sourceMappingURL=\S+\s*$/, '\n');
  if (!chartJs.includes('window.Chart=')) throw new Error(`${bundlePath} does not look like Chart.js' UMD bundle (no window.Chart)`);
  cached = {
    chartJs,
    pageScript: readFileSync(new URL('./report-page.js', import.meta.url), 'utf8'),
    pageStyle: readFileSync(new URL('./report-page.css', import.meta.url), 'utf8'),
  };
  return cached;
}
