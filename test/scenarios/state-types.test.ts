// One scenario under each state type: FISCO's storage state and the trie both pass it, and
// their chains differ exactly in what the state type decides (the roots, hence block hashes).
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureIo } from '../../src/cli/capture-io.test-helper.js';
import { main } from '../../src/cli/main.js';

const SOURCE = new URL('../../scenarios/storage-state.yaml', import.meta.url).pathname;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'twinchain-state-types-'));
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function run(file: string) {
  const out = path.join(dir, path.basename(file, '.yaml'));
  const io = captureIo();
  const code = await main(['run', file, '--quiet', '--out', out], io);
  return { code, io, summary: code === 0 ? (JSON.parse(await readFile(path.join(out, 'summary.json'), 'utf8')) as { verdict: string; traceDigest: string }) : undefined };
}

describe('[state] type in a scenario', () => {
  it('the storage-state scenario passes with storage and with mpt, and the two chains differ', async () => {
    const text = await readFile(SOURCE, 'utf8');
    expect(text).toContain('state: storage');
    const storageFile = path.join(dir, 'as-storage.yaml');
    const mptFile = path.join(dir, 'as-mpt.yaml');
    await writeFile(storageFile, text);
    await writeFile(mptFile, text.replace('state: storage', 'state: mpt'));
    const storage = await run(storageFile);
    const mpt = await run(mptFile);
    expect([storage.code, mpt.code]).toEqual([0, 0]);
    expect(storage.summary!.verdict).toBe('pass');
    expect(mpt.summary!.verdict).toBe('pass');
    expect(storage.summary!.traceDigest).not.toBe(mpt.summary!.traceDigest);
  }, 120_000);

  it('refuses an unknown state type, naming where', async () => {
    const bad = path.join(dir, 'bad.yaml');
    await writeFile(bad, (await readFile(SOURCE, 'utf8')).replace('state: storage', 'state: rocksdb'));
    const r = await run(bad);
    expect(r.code).toBe(2);
    expect(r.io.stderr).toMatch(/bad\.yaml:\d+:\d+: .*state.*(storage|mpt)/);
  });
});
