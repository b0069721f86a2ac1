// The round trip the replay issue names: a chain served over HTTP is recorded with `record` and
// re-executed with `replay`, every check passing, on each state type and suite and in both
// interface variants.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { contractBytecode } from '../../fixtures/contracts/artifacts.js';
import { devChain, type DevChainOptions } from './dev-chain.test-helper.js';
import { record } from './recorder.js';
import { TestChain } from './recording-chain.test-helper.js';
import { replayRecording } from './replayer.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

describe('record over HTTP, then replay', () => {
  it.each<[string, DevChainOptions]>([
    ['2.11.0 ECDSA, storage state', {}],
    ['2.11.0 ECDSA, trie', { stateType: 'mpt' }],
    ['2.5.0 SM, storage state', { supportedVersion: '2.5.0', suite: 'sm' }],
    ['2.0.0-rc1 (earlier variant)', { supportedVersion: '2.0.0-rc1', stateType: 'mpt' }],
  ])('%s: every block re-executes to what the node answered', async (_name, options) => {
    const dir = await mkdtemp(path.join(tmpdir(), 'twinchain-record-replay-'));
    dirs.push(dir);
    const c = await devChain(options);
    try {
      const file = path.join(dir, 'chain.jsonl.gz');
      const summary = await record({ url: c.url, out: file });
      expect(summary.blocks).toBe(c.height());
      const report = await replayRecording(file);
      expect(report.divergence).toBeUndefined();
      expect(report.verdict).toBe('pass');
      expect(report.blocks).toBe(c.height());
      expect(report.transactions).toBe(c.transactions());
      // every receipt was compared, and the block hash of every block
      expect(report.checks['receipt status']).toBe(c.transactions());
      expect(report.checks['receipt output']).toBe(c.transactions());
      expect(report.checks['block hash']).toBe(c.height());
      if (options.supportedVersion !== '2.0.0-rc1') {
        for (const check of ['tx hash', 'tx sender (signature)', 'receipt gasUsed']) expect(report.checks[check], check).toBe(c.transactions());
        for (const check of ['stateRoot', 'receiptsRoot', 'signature quorum']) expect(report.checks[check], check).toBe(c.height());
        expect(report.skipped).toEqual([]);
      } else {
        // the earlier variant prints no signatures: what could not be checked is said, not assumed
        expect(report.skipped.length).toBeGreaterThan(0);
        for (const skip of report.skipped) expect(skip.reason.length).toBeGreaterThan(10);
      }
    } finally {
      await c.close();
    }
  });
});

describe('a call to address 0', () => {
  it.each(['2.11.0', '2.0.0-rc1'])('at %s replays as a call, not as the creation the later variant prints the same way', async (version) => {
    const dir = await mkdtemp(path.join(tmpdir(), 'twinchain-zero-to-'));
    dirs.push(dir);
    const chain = await TestChain.create({ version, stateType: 'mpt' });
    await chain.block([chain.tx(null, contractBytecode('HelloWorld')), chain.tx(new Uint8Array(20), Uint8Array.of(1, 2, 3))]);
    const file = path.join(dir, 'zero.jsonl');
    await chain.record(file);
    const report = await replayRecording(file);
    expect(report.divergence).toBeUndefined();
    expect(report.transactions).toBe(2);
  });
});
