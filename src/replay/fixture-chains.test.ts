// Every recording in fixtures/chains/ (made by `npm run fixtures:chains`, or added beside them)
// replays with every check passing; a file that cannot be replayed fails its test.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { LATER_CHECKS } from './recording-chain.test-helper.js';
import { cryptoWorkersReady } from './crypto-ahead.js';
import { replayPaths, replayRecording, replayTuning } from './replayer.js';
import { receiptComparisons } from './prepared-block.js';

const DIR = fileURLToPath(new URL('../../fixtures/chains/', import.meta.url));
const FILES = readdirSync(DIR)
  .filter((f) => /\.jsonl(\.gz)?$/.test(f))
  .sort();

/** The chains scripts/make-chain-fixtures.ts makes: <consensus>-<suite>-<variant>.jsonl.gz. */
const GENERATED = /^(pbft|raft)-(ecdsa|sm)-(later|earlier)\.jsonl\.gz$/;

/** What an earlier-variant (2.0.0-rc1) recording cannot support, and why: each skip is listed with its reason. */
const EARLIER_SKIPS: Record<string, RegExp> = {
  'tx hash': /earlier interface variant prints no blockLimit, signature.*cannot be re-encoded; executed as the recorded "from"/,
  'tx sender (signature)': /earlier interface variant prints no blockLimit, signature/,
  transactionsRoot: /the trie root scheme \(supported version 2\.0\.0-rc1\) hashes the signed payloads/,
  'receipt contractAddress': /earlier interface variant reports the zero address/,
  'receipt root': /earlier interface variant prints no receipt root/,
  receiptsRoot: /earlier interface variant prints no receiptsRoot/,
  dbHash: /earlier interface variant prints no dbHash/,
  signatures: /earlier interface variant prints no signatureList/,
  'signature quorum': /earlier interface variant prints no signatureList/,
};
const EARLIER_CHECKS = ['genesis hash', 'parentHash', 'receipt status', 'receipt output', 'receipt logs', 'receipt gasUsed', 'stateRoot', 'logsBloom', 'block hash', 'sealerList'];

/**
 * The workers' test replays each chain three ways up to this block: past the fifth sealer's
 * addition (block 83 or 85), so blocks signed by four and by five sealers are compared, at under a
 * third of the cost of the whole chain; every test below replays the whole chain.
 */
const WORKERS_TO = 120;

describe('fixtures/chains: every recording replays with every check passing', () => {
  it('holds the generated chains (PBFT and Raft, ECDSA and SM, both interface variants)', () => {
    expect(FILES.filter((f) => GENERATED.test(f))).toHaveLength(8);
  });

  it.each(['pbft-ecdsa-later.jsonl.gz', 'raft-sm-later.jsonl.gz'])('%s: the workers change nothing but the speed: the same report with every block they prepared as without them', async (name) => {
    const file = path.join(DIR, name);
    const strip = (r: Awaited<ReturnType<typeof replayRecording>>) => ({ ...r, seconds: 0, executionSeconds: 0 });
    const inline = await replayRecording(file, { signatureWorker: false, to: WORKERS_TO });
    expect(inline.blocks).toBe(WORKERS_TO);
    expect(await cryptoWorkersReady()).toBeGreaterThan(0);
    const paths = { ...replayPaths };
    const receipts = { ...receiptComparisons };
    const ahead = await replayRecording(file, { to: WORKERS_TO });
    expect(strip(ahead)).toEqual(strip(inline));
    expect(replayPaths.prepared - paths.prepared).toBe(ahead.blocks);
    // receipts the executor found to encode as recorded are not compared again, and tallied the same
    expect(receiptComparisons.asExpected - receipts.asExpected).toBeGreaterThan(0);
    expect(receiptComparisons.asExpected - receipts.asExpected + receiptComparisons.compared - receipts.compared).toBe(ahead.transactions);
    // and with every block's checks left until the next block has executed
    // (where the executor then takes the receipts of the parts the workers have answered, not waiting for the rest)
    const deferredBefore = replayPaths.deferred;
    const receiptsBefore = { ...receiptComparisons };
    replayTuning.deferChecks = 'always';
    try {
      expect(strip(await replayRecording(file, { to: WORKERS_TO }))).toEqual(strip(inline));
    } finally {
      replayTuning.deferChecks = 'auto';
    }
    expect(replayPaths.deferred - deferredBefore).toBe(ahead.blocks);
    expect(receiptComparisons.asExpected - receiptsBefore.asExpected).toBeGreaterThan(0);
  }, 60_000);

  for (const file of FILES) {
    it(file, async () => {
      const full = path.join(DIR, file);
      const report = await replayRecording(full); // a file that cannot be replayed throws
      expect(report.divergence).toBeUndefined();
      expect(report.verdict).toBe('pass');
      expect(report.blocks).toBeGreaterThan(0);
      for (const s of report.skipped) expect(s.reason, s.check).not.toBe('');
      const skipped = Object.fromEntries(report.skipped.map((s) => [s.check, s.reason]));
      if (report.interfaceVariant === 'earlier') {
        for (const check of EARLIER_CHECKS) expect(report.checks[check], check).toBeGreaterThan(0);
        for (const [check, reason] of Object.entries(skipped)) expect(reason, check).toMatch(EARLIER_SKIPS[check] ?? /^$/);
      }
      if (!GENERATED.test(file)) return;
      // the generated chains: several hundred blocks, a fifth sealer added through 0x1003
      expect(report.blocks).toBeGreaterThanOrEqual(300);
      expect(report.transactions).toBeGreaterThanOrEqual(600);
      expect(report.checks['sealerList']).toBe(report.blocks);
      if (report.interfaceVariant === 'later') {
        for (const check of [...LATER_CHECKS, 'receipt remainGas']) expect(report.checks[check], check).toBeGreaterThan(0);
        expect(report.checks['tx hash']).toBe(report.transactions);
        expect(report.checks['signature quorum']).toBe(report.blocks);
        // from 2.9.0 the genesis mark lists the sealers sorted (the one reason a later replay skips anything)
        expect(Object.keys(skipped)).toEqual(['genesis sealer order']);
      } else {
        expect(Object.keys(skipped).sort()).toEqual(Object.keys(EARLIER_SKIPS).sort());
      }
    }, 60_000);
  }
});
