import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ReportData } from './report-data.js';
import { renderReport } from './render-report.js';

/** Render the report and write it to `file` (folders created; written to a temporary file, then renamed). */
export async function writeReport(file: string, data: ReportData): Promise<void> {
  const html = renderReport(data);
  await mkdir(path.dirname(path.resolve(file)), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, html, 'utf8');
  try {
    await rename(temporary, file);
  } catch (e) {
    await rm(temporary, { force: true });
    throw e;
  }
}
