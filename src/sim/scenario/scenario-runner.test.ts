import { describe, expect, it } from 'vitest';
import { decodeBlock, encodeBlock } from '../../chain/index.js';
import { rlpDecode, rlpEncode } from '../../codec/index.js';
import { Pbft } from '../../consensus/index.js';
import { LEDGER_KEYS } from '../../ledger/index.js';
import { PbftDriver } from '../../node/index.js';
import { parseScenario } from './scenario-loader.js';
import { runScenario } from './scenario-runner.js';

const base = (extra = '') => `
name: small
seed: 3
duration: 12s
chain: { nodes: 4 }
groups:
  - { id: 1, consensus: pbft, sealers: 4 }
network:
  latency: { kind: uniform, minMs: 2, maxMs: 10 }
workloads:
  - { kind: helloworld, rate: 10 }
${extra}`;

/** A PBFT whose quorum is f + 1 instead of n − f: two disjoint halves of 4 sealers can both commit. */
class BrokenQuorumPbft extends Pbft {
  override get quorum(): number {
    return this.f + 1;
  }
}

describe('the scenario runner', () => {
  it('treats restarting a running node as a no-op and resumes a paused one, even where timeline entries overlap', async () => {
    const timeline = `
timeline:
  - { at: 1s, restart: node2 }
  - { at: 2s, crashLeader: { group: 1, for: 3s } }
  - { at: 2500ms, crashLeader: { group: 1, for: 2s } }
  - { at: 3s, restart: [node0, node1, node2, node3] }
  - { at: 5s, pause: node1 }
  - { at: 6s, restart: node1 }
`;
    const result = await runScenario(parseScenario(base(`${timeline}expect: { liveness: { within: 5s } }`)), { file: 'small.yaml' });
    expect(result.expectations.filter((e) => !e.ok)).toEqual([]);
    expect(result.nodes.map((n) => n.state)).toEqual(['up', 'up', 'up', 'up']);
  });

  it('runs a small scenario: load committed, every expectation judged, outputs consistent', async () => {
    const scenario = parseScenario(base('expect: { liveness: { within: 5s }, minHeight: 5, minCommitted: 50, maxFailedRatio: 0, maxLatencyP99: 3s }'));
    const result = await runScenario(scenario, { file: 'small.yaml' });
    expect(result.expectations.filter((e) => !e.ok)).toEqual([]);
    expect(result.verdict).toBe('pass');
    expect(result.expectations.map((e) => e.name)).toEqual([
      expect.stringMatching(/^safety/),
      expect.stringMatching(/^liveness/),
      'every live honest node reached height 5',
      'every accepted transaction has a receipt on every live honest node',
      'at least 50 workload transactions committed',
      'at most 0% of committed workload transactions failed',
      '99% of workload transactions committed within 3000 ms',
    ]);
    // 12 s at 10 tx/s after the deploy: about 110 set() calls plus the deploy and the probe
    expect(result.totals.committed).toBeGreaterThan(100);
    expect(result.totals.committed).toBe(result.totals.submitted);
    expect(result.latenciesMs.length).toBe(result.totals.committed - 2);
    expect(new Set(result.nodes.map((n) => n.heights[1])).size).toBe(1);
    expect(result.livenessMs).toBeLessThan(5000);
    expect(result.replayCommand).toBe('npx twinchain run small.yaml --seed 3');
    // committed tx per second, summed, is every committed transaction
    const perSecond = result.metrics.committedPerSecond.get(1)!;
    expect(perSecond.reduce((a, b) => a + b, 0)).toBe(result.totals.committed);
  });

  it('fails an expectation that does not hold, naming it and the numbers', async () => {
    const result = await runScenario(parseScenario(base('expect: { minHeight: 10000, liveness: false }')));
    expect(result.verdict).toBe('fail');
    const failed = result.expectations.filter((e) => !e.ok);
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ name: 'every live honest node reached height 10000', detail: expect.stringMatching(/^lowest: node\d at \d+ \(group 1\)$/) });
  });

  it('liveness fails when no quorum is left after the faults (2 of 4 PBFT sealers down for good)', async () => {
    const scenario = parseScenario(base(`timeline:\n  - { at: 4s, crash: [node2, node3] }\nexpect: { liveness: { within: 4s }, allReceipted: false }`));
    const result = await runScenario(scenario);
    const liveness = result.expectations.find((e) => e.name.startsWith('liveness'))!;
    expect(liveness.ok).toBe(false);
    expect(liveness.detail).toMatch(/the probe was not committed within 4000 ms/);
    // and nothing unsafe happened meanwhile
    expect(result.violations).toEqual([]);
  });

  it('is deterministic: the same seed gives the same digest; another seed another', async () => {
    const scenario = parseScenario(base(`timeline:\n  - { at: 3s, crashLeader: { group: 1, for: 3s } }`));
    const [a, b, c] = [await runScenario(scenario), await runScenario(scenario), await runScenario(scenario, { seed: 99 })];
    expect(a.digest).toBe(b.digest);
    expect(a.events).toBe(b.events);
    expect(c.digest).not.toBe(a.digest);
    expect(a.faults[0]).toMatchObject({ kind: 'crash', fromMs: 3000, untilMs: 6000, description: expect.stringMatching(/^node\d, the leader of group 1, crashed$/) });
  });
});

describe('checker meta-tests: the safety checks catch real breakage', () => {
  it('catches a broken consensus (quorum f + 1): both halves of a 2 | 2 partition commit, and the runs disagree', async () => {
    const scenario = parseScenario(base(`timeline:\n  - { at: 3s, partition: [[node0, node1], [node2, node3]] }\n  - { at: 9s, heal: true }\nexpect: { liveness: false, allReceipted: false }`));
    const honest = await runScenario(scenario);
    expect(honest.violations).toEqual([]);
    const broken = await runScenario(scenario, {
      consensusFactories: { pbft: (group) => new PbftDriver(group, { createPbft: (...args) => new BrokenQuorumPbft(...args) }) },
    });
    expect(broken.verdict).toBe('fail');
    expect(broken.violations.length).toBeGreaterThan(0);
    const agreement = broken.violations.find((v) => v.invariant === 'agreement')!;
    expect(agreement).toBeDefined();
    expect(agreement.atMs).toBeGreaterThan(3000);
    expect(agreement.detail).toMatch(/^node\d committed 0x[0-9a-f]{8}… at height \d+, node\d committed 0x[0-9a-f]{8}…$/);
    expect(broken.expectations[0]).toMatchObject({ ok: false, name: expect.stringMatching(/^safety/) });
    // the protocol invariants see it first, from the wire and the stored blocks: a commit with f + 1 signatures
    const quorum = broken.violations.find((v) => v.invariant === 'signature-quorum')!;
    expect(quorum.detail).toMatch(/with 2 valid sealer signature\(s\) of 2; 3 needed$/);
    expect(quorum.atMs).toBeLessThanOrEqual(agreement.atMs);
  });

  it('catches a corrupted history: a block rewritten in one node\'s storage, and one stored at another height in another\'s, are found by the final audit', async () => {
    const scenario = parseScenario(base('expect: { liveness: false, allReceipted: false }'));
    const result = await runScenario(scenario, {
      onChain: (chain) =>
        chain.sim.at(8000, async () => {
          const group = chain.group('node2')!;
          const key = LEDGER_KEYS.block(3);
          const [blockBytes, senders] = rlpDecode((await group.store.get(key))!) as [Uint8Array, Uint8Array[]];
          const codec = { suite: chain.suite, generation: chain.version.txGeneration, receiptsWithRemainGas: chain.version.receiptHasRemainGas };
          const block = decodeBlock(blockBytes, codec);
          const forged = { ...block, header: { ...block.header, timestamp: block.header.timestamp + 1 } };
          await group.store.batch([{ type: 'put', key, value: rlpEncode([encodeBlock(forged, codec), senders]) }], { sync: true });
          // and node3 keeps its block 2 where block 1 belongs
          const other = chain.group('node3')!;
          await other.store.batch([{ type: 'put', key: LEDGER_KEYS.block(1), value: (await other.store.get(LEDGER_KEYS.block(2)))! }], { sync: true });
        }),
    });
    expect(result.verdict).toBe('fail');
    const history = result.violations.filter((v) => v.invariant === 'history');
    expect(history.map((v) => [v.node, v.height])).toEqual([
      ['node2', 3],
      ['node2', 4],
      ['node3', 1],
      ['node3', 1],
      ['node3', 1],
      ['node3', 2],
    ]);
    expect(history[0]!.detail).toMatch(/node2's stored block 3 is 0x[0-9a-f]{8}…, but node\d committed 0x[0-9a-f]{8}…/);
    expect(history[1]!.detail).toMatch(/node2's block 4 names parent/);
    expect(history.slice(2).map((v) => v.detail.replace(/0x[0-9a-f]{8}…/g, 'H'))).toEqual([
      "node3's block 1 names parent H, its block 0 is H",
      "node3's block stored at height 1 says it is block 2",
      expect.stringMatching(/^node3's stored block 1 is H, but node\d committed H$/),
      "node3's block 2 names parent H, its block 1 is H",
    ]);
    expect(result.violations.every((v) => v.node === 'node2' || v.node === 'node3')).toBe(true);
  });
});
