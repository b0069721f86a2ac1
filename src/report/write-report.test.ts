import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { renderReport } from './render-report.js';
import { writeReport } from './write-report.js';
import { sampleReportData } from './sample-data.test-helper.js';

describe('writeReport', () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('creates the folders and writes the rendered document, leaving no temporary file', async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'twinchain-report-'));
    const file = path.join(dir, 'reports', 'nested', 'crash-and-partition.html');
    const data = sampleReportData();
    await writeReport(file, data);
    expect(await readFile(file, 'utf8')).toBe(renderReport(data));
    expect(await readdir(path.dirname(file))).toEqual(['crash-and-partition.html']);
  });
});
