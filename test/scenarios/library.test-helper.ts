// Every file in scenarios/ runs through `twinchain run` (in process), must pass, and must replay
// to the trace digest pinned below: every message delivered, timer fired, log line and fault, in
// order, as this code records it. A second run in another process (or on another machine) that
// gives another digest is non-determinism; a change to what a node does or logs shows as a new
// digest too, and a deliberate one updates the list (the failure names the new digest). One run
// per file and a pin, rather than `--check-determinism`'s two runs: half the time, and a check
// across processes rather than within one. The files are split over two test files so vitest's
// two workers share them.
import { readdirSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { captureIo } from '../../src/cli/capture-io.test-helper.js';
import { main } from '../../src/cli/main.js';

const SCENARIOS = new URL('../../scenarios/', import.meta.url).pathname;

/** Each library scenario's trace digest at its default seed. */
export const PINNED: Record<string, string> = {
  'late-observer.yaml': 'fab9e084bd047da6',
  'pbft-7-nodes-2-faulty.yaml': 'baa9c0d236509729',
  'pbft-equivocating-leader.yaml': '2c71d629f827e8d9',
  'pbft-leader-crash.yaml': '9e4c9290ab61637d',
  'pbft-lossy-network.yaml': 'b2a9db8499f270fa',
  'pbft-partition-heal.yaml': '40dbdf667774836a',
  'pbft-slow-network.yaml': '64996682e2d6b096',
  'pbft-swarm.yaml': '3d8abad816fc18e2',
  'pbft-twins.yaml': '747d0f9b16ac7b51',
  'quickstart.yaml': '92f2275386a80d3a',
  'raft-leader-crash.yaml': '7ddc3c1eeb8b16c2',
  'raft-partition.yaml': '4de67d0f43a4047c',
  'raft-swarm.yaml': 'f35011b778aaa405',
  'replay-traffic.yaml': '60fad863050001a0',
  'sealer-added.yaml': 'cd2a43f5828a6115',
  'sm-chain.yaml': '12a0e0242d6199d1',
  'storage-state.yaml': 'ca09d0a04afcf06a',
  'system-config-change.yaml': '2d7e93de84edd216',
  'two-groups.yaml': '633bffd272367b06',
};

export function libraryFiles(): string[] {
  return readdirSync(SCENARIOS)
    .filter((f) => f.endsWith('.yaml'))
    .sort();
}

export function libraryShard(shard: number, shards: number): void {
  const files = libraryFiles().filter((_f, i) => i % shards === shard);
  let out: string | undefined;
  afterAll(async () => {
    if (out) await rm(out, { recursive: true, force: true });
  });
  it.each(files)('%s passes and replays to its pinned trace digest', async (file) => {
    out ??= await mkdtemp(path.join(tmpdir(), 'twinchain-library-'));
    const dir = path.join(out, file);
    const io = captureIo();
    const code = await main(['run', path.join('scenarios', file), '--quiet', '--out', dir], io);
    expect(io.stderr).toBe('');
    expect(io.stdout).toMatch(/: PASS \(\d+(\.\d+)?× real time\); report /);
    expect(code).toBe(0);
    const summary = JSON.parse(await readFile(path.join(dir, 'summary.json'), 'utf8')) as { verdict: string; traceDigest: string };
    expect(summary.verdict).toBe('pass');
    expect(summary.traceDigest, `scenarios/${file}: the digest now (pinned in test/scenarios/library.test-helper.ts)`).toBe(PINNED[file]);
    expect((await readFile(path.join(dir, 'report.html'), 'utf8')).length).toBeGreaterThan(100_000);
  });
}
