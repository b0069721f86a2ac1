export type { ReportData, ReportFault } from './report-data.js';
export { renderReport, renderReportDocument, CHART_IDS } from './render-report.js';
export { writeReport } from './write-report.js';
export { loadPageAssets, type PageAssets } from './page-assets.js';
export { buildReportView, type EmbeddedReport, type ChartsView, type SeriesView, type FaultView } from './report-view.js';
export { downsampleSteps, stepValueAt, MAX_SERIES_POINTS, type StepPoint } from './downsample.js';
export { summarizeLatency, percentile, type LatencySummary } from './latency-histogram.js';
export { escapeHtml, jsonForScript } from './html-escape.js';
