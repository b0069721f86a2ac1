// Every file in scenarios/ runs through `twinchain run --check-determinism` (in process) and must
// pass. The files are split over two test files so vitest's two workers share them.
import { readdirSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { captureIo } from '../../src/cli/capture-io.test-helper.js';
import { main } from '../../src/cli/main.js';

const SCENARIOS = new URL('../../scenarios/', import.meta.url).pathname;

export function libraryShard(shard: number, shards: number): void {
  const files = readdirSync(SCENARIOS)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .filter((_f, i) => i % shards === shard);
  let out: string | undefined;
  afterAll(async () => {
    if (out) await rm(out, { recursive: true, force: true });
  });
  it.each(files)('%s passes, and a second run has the same trace digest', async (file) => {
    out ??= await mkdtemp(path.join(tmpdir(), 'twinchain-library-'));
    const dir = path.join(out, file);
    const io = captureIo();
    const code = await main(['run', path.join('scenarios', file), '--check-determinism', '--quiet', '--out', dir], io);
    expect(io.stderr).toBe('');
    expect(io.stdout).toMatch(/: PASS \(\d+(\.\d+)?× real time\), deterministic; report /);
    expect(code).toBe(0);
    const summary = JSON.parse(await readFile(path.join(dir, 'summary.json'), 'utf8')) as { verdict: string; determinism: { deterministic: boolean; digests: string[] } };
    expect(summary.verdict).toBe('pass');
    expect(summary.determinism.deterministic).toBe(true);
    expect(summary.determinism.digests[0]).toBe(summary.determinism.digests[1]);
    expect((await readFile(path.join(dir, 'report.html'), 'utf8')).length).toBeGreaterThan(100_000);
  });
}
