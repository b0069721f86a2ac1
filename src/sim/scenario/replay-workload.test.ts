import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WORKLOAD_RECORDING, writeWorkloadRecording } from '../../../scripts/make-workload-recording.js';
import { TestChain } from '../../replay/recording-chain.test-helper.js';
import { loadScenario, ScenarioError } from './scenario-loader.js';
import { runScenario } from './scenario-runner.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'twinchain-replay-workload-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const scenarioText = (workload: string, extra = '', duration = '30s') => `
name: replay-small
seed: 5
duration: ${duration}
chain: { nodes: 4 }
groups:
  - { id: 1, consensus: pbft, sealers: 4 }
network:
  latency: { kind: uniform, minMs: 2, maxMs: 20 }
workloads:
  - ${workload}
  - { kind: helloworld, rate: 5 }
${extra}`;

/** Loads a scenario written into the temporary folder (recordings are named relative to it). */
const load = (text: string) => loadScenario(text, path.join(dir, 'scenario.yaml'));

/** The fixture's lines (header first), decompressed. */
async function fixtureLines(): Promise<Array<Record<string, unknown>>> {
  return gunzipSync(await readFile(WORKLOAD_RECORDING))
    .toString('utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

type Line = { block: { transactions: Array<{ hash: string }> }; receipts: Array<{ status: string; output: string }> };


describe('the replay workload', () => {
  it('the committed recording is what scripts/make-workload-recording.ts writes', async () => {
    const again = path.join(dir, 'again.jsonl.gz');
    expect(await writeWorkloadRecording(again)).toEqual({ blocks: 11, transactions: 32 });
    expect(gunzipSync(await readFile(again)).toString('utf8')).toBe(gunzipSync(await readFile(WORKLOAD_RECORDING)).toString('utf8'));
  });

  it('ends with every recorded receipt under a partition and a leader crash (pace: recorded)', async () => {
    const timeline = `timeline:
  - { at: 2s, partition: [[node0, node1], [node2, node3]], label: split 2-2 }
  - { at: 5s, heal: true }
  - { at: 7s, crashLeader: { group: 1, for: 5s }, label: leader crash }
expect: { liveness: { within: 10s }, allReceipted: true }`;
    const scenario = await load(scenarioText(`{ kind: replay, file: ${path.relative(dir, WORKLOAD_RECORDING)}, pace: recorded, expect: same-receipts }`, timeline));
    const result = await runScenario(scenario, { file: 'replay-small.yaml' });
    const check = result.expectations.find((e) => e.name.startsWith('workloads[0] (replay'))!;
    expect(check, JSON.stringify(result.expectations, null, 1)).toMatchObject({ ok: true, detail: expect.stringMatching(/^32 transactions of 11 recorded blocks, each matching on 4 node\(s\)/) });
    expect(result.verdict, JSON.stringify(result.expectations.filter((e) => !e.ok))).toBe('pass');
    // the recorded pace spreads the 11 blocks over 10 s of virtual time, across both faults
    expect(result.faults.map((f) => f.kind)).toEqual(expect.arrayContaining(['partition', 'crash']));
    expect(result.totals.viewChanges).toBeGreaterThan(0);
  });

  it('asap: sends block after block as they settle, the same receipts under the same faults', async () => {
    const timeline = `timeline:
  - { at: 1s, partition: [[node0, node1], [node2, node3]] }
  - { at: 4s, heal: true }
  - { at: 5s, crashLeader: { group: 1, for: 5s } }`;
    const scenario = await load(scenarioText(`{ kind: replay, file: ${path.relative(dir, WORKLOAD_RECORDING)}, expect: same-receipts, rate: 20 }`, timeline));
    const result = await runScenario(scenario, { file: 'replay-small.yaml' });
    expect(result.verdict, JSON.stringify(result.expectations.filter((e) => !e.ok))).toBe('pass');
    expect(result.expectations.at(-1)!.detail).toMatch(/^32 transactions/);
  });

  it('fails the expectation when the recording says otherwise, naming the transactions and both receipts', async () => {
    const lines = await fixtureLines();
    const block3 = lines[3] as unknown as Line;
    // block 3: Counter.incrementBy(41) returned 42, Reverter.revertWithReason reverted (0x16)
    block3.receipts[1]!.output = `0x${'0'.repeat(63)}7`;
    block3.receipts[2]!.status = '0x0';
    const tampered = path.join(dir, 'tampered.jsonl');
    await writeFile(tampered, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    const result = await runScenario(await load(scenarioText('{ kind: replay, file: tampered.jsonl, expect: same-receipts }')), { file: 'replay-small.yaml' });
    expect(result.verdict).toBe('fail');
    const check = result.expectations.find((e) => e.name.startsWith('workloads[0] (replay tampered.jsonl)'))!;
    expect(check.ok).toBe(false);
    const [h1, h2] = [block3.block.transactions[1]!.hash, block3.block.transactions[2]!.hash];
    expect(check.detail).toMatch(/^2 of 32 transactions differ; /);
    expect(check.detail).toContain(`${h1} (recorded block 3, transaction 1) on node`);
    expect(check.detail).toContain(`recorded status 0x0 output 0x${'0'.repeat(63)}7, simulated status 0x0 output 0x${'0'.repeat(62)}2a`);
    expect(check.detail).toContain(`${h2} (recorded block 3, transaction 2) on node`);
    expect(check.detail).toMatch(/recorded status 0x0 output 0x08c379a0[0-9a-f]*…\(\d+ bytes\), simulated status 0x16 output 0x08c379a0/);
  });

  it('counts transactions past their blockLimit as refused with the node reason, and the run ends', async () => {
    const expiring = path.join(dir, 'expiring.jsonl.gz');
    await writeWorkloadRecording(expiring, { blockLimitMargin: 1 });
    // by 8 s the HelloWorld load has taken the chain past the recorded heights
    const result = await runScenario(await load(scenarioText('{ kind: replay, file: expiring.jsonl.gz, start: 8s, expect: same-receipts }', 'expect: { liveness: { within: 5s } }', '12s')), { file: 'replay-small.yaml' });
    // every one refused at once (settled, so the next block follows), none left pending
    expect(result.totals.rejected).toBe(32);
    const check = result.expectations.find((e) => e.name.startsWith('workloads[0] (replay'))!;
    expect(check.ok).toBe(false);
    expect(check.detail).toMatch(/^32 of 32 transactions differ; 0x[0-9a-f]{64} \(recorded block 1, transaction 0\): refused by the node: -?\d+: .*blockLimit 1 not in \(\d+, \d+\]; recorded status 0x0/);
    expect(result.virtualMs).toBeLessThan(12_000 + 5_000);
  });

  describe('at load', () => {
    const fails = async (text: string, pattern: RegExp) => {
      const error = await load(text).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(ScenarioError);
      expect((error as Error).message).toMatch(pattern);
    };

    it('reads the recording relative to the scenario file, once, into the workload', async () => {
      const scenario = await load(scenarioText(`{ kind: replay, file: ${path.relative(dir, WORKLOAD_RECORDING)} }`));
      const w = scenario.workloads[0]!;
      expect(w.kind === 'replay' && w.pace).toBe('asap');
      expect(w.kind === 'replay' && w.recording).toMatchObject({ transactions: 32, suite: 'ecdsa', supportedVersion: '2.11.0', group: 1 });
      expect(structuredClone(w)).toEqual(w);
    });

    it('names the scenario key when the file is missing', async () => {
      await fails(scenarioText('{ kind: replay, file: nowhere.jsonl.gz }'), /scenario\.yaml:11:27: workloads\[0\]\.file: the recording "nowhere\.jsonl\.gz" cannot be read \(looked for .*nowhere\.jsonl\.gz, relative to the scenario file\): no such file/);
    });

    it("passes on the recording's file:line", async () => {
      const lines = await fixtureLines();
      (lines[2] as unknown as Line).block.transactions[1]!.hash = `0x${'ab'.repeat(32)}`;
      await writeFile(path.join(dir, 'bad-hash.jsonl'), lines.map((l) => JSON.stringify(l)).join('\n'));
      await fails(scenarioText('{ kind: replay, file: bad-hash.jsonl }'), /workloads\[0\]\.file: cannot replay the recording: .*bad-hash\.jsonl:3: block 2, transaction 1: re-encoded from its fields it hashes to 0x[0-9a-f]{64}, not to the recorded 0xabab/);
      await writeFile(path.join(dir, 'bad-json.jsonl'), `${JSON.stringify(lines[0])}\n${JSON.stringify(lines[1])}\n{oops\n`);
      await fails(scenarioText('{ kind: replay, file: bad-json.jsonl }'), /cannot replay the recording: .*bad-json\.jsonl:3: not JSON/);
    });

    // once: '"supportedVersion" "banana" is not a supported version: supported_version: expected … (got "banana")'
    it('says once what is wrong with the recorded supported version', async () => {
      const lines = await fixtureLines();
      for (const [version, why] of [
        ['banana', 'expected x.y.z or 2.0.0-rcN'],
        ['3.0.0', 'only FISCO BCOS 2.x versions (2.0.0-rc1 … 2.255.255) are supported'],
      ]) {
        (lines[0] as unknown as { supportedVersion: string }).supportedVersion = version!;
        const file = path.join(dir, `version-${version}.jsonl`);
        await writeFile(file, lines.map((l) => JSON.stringify(l)).join('\n'));
        const error = await load(scenarioText(`{ kind: replay, file: version-${version}.jsonl }`)).catch((e: unknown) => e as Error);
        expect((error as Error).message).toMatch(new RegExp(`workloads\\[0\\]\\.file: cannot replay the recording: ${file}:1: header: "supportedVersion" "${version}" is not a supported version: ${why!.replace(/[.()]/g, '\\$&')}$`));
      }
    });

    it('refuses transactions of the earlier interface variant, which carry no signature', async () => {
      const chain = await TestChain.create({ version: '2.0.0-rc1' });
      await chain.runScenario();
      await chain.record(path.join(dir, 'earlier.jsonl'));
      await fails(
        scenarioText('{ kind: replay, file: earlier.jsonl }'),
        /earlier\.jsonl:2: block 1, transaction 0: recorded from the earlier interface variant \(2\.0\.0-rc1\), which prints no blockLimit, signature: the signed transaction cannot be rebuilt, so it cannot be submitted again/,
      );
    });

    it('refuses what the simulated group would not take, and same-receipts on another genesis', async () => {
      const file = path.relative(dir, WORKLOAD_RECORDING);
      await fails(scenarioText(`{ kind: replay, file: ${file} }`).replace('chain: { nodes: 4 }', 'chain: { nodes: 4, suite: sm }'), /the recording is of an ecdsa chain, its signatures do not verify on this sm chain; set chain.suite: ecdsa/);
      await fails(
        scenarioText(`{ kind: replay, file: ${file}, group: 2 }`).replace('- { id: 1, consensus: pbft, sealers: 4 }', '- { id: 1, consensus: pbft, sealers: 4 }\n  - { id: 2, consensus: pbft, sealers: 4 }'),
        /workloads\[0\]\.group: .*workload-small\.jsonl\.gz:2: block 1, transaction 0 \(0x[0-9a-f]{64}\) is for group 1; this workload sends to group 2, whose nodes would refuse it: set group: 1/,
      );
      await fails(scenarioText(`{ kind: replay, file: ${file}, expect: same-receipts }`).replace('chain: { nodes: 4 }', 'chain: { nodes: 4, supportedVersion: 2.4.0 }'), /workloads\[0\]\.expect: same-receipts needs a genesis equivalent to the recorded chain's, which has supported version 2\.11\.0 \(chain\.supportedVersion is 2\.4\.0\)/);
      await fails(scenarioText(`{ kind: replay, file: ${file}, expect: same-receipts }`).replace('sealers: 4 }', 'sealers: 4, state: mpt, txGasLimit: 100000 }'), /state storage \(group 1's is mpt\), txGasLimit 300000000 \(group 1's is 100000\)/);
      await fails(scenarioText(`{ kind: replay, file: ${file}, expect: receipts }`), /workloads\[0\]\.expect: .*same-receipts/);
      await fails(scenarioText(`{ kind: replay, file: ${file}, pace: slow }`), /workloads\[0\]\.pace: .*"asap".*"recorded"/);
    });
  });
});
