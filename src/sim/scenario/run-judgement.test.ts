import { describe, expect, it } from 'vitest';
import { parseScenario } from './scenario-loader.js';
import { runScenario } from './scenario-runner.js';

// With liveness: false no heal and no probe end the run, so what minHeight sees is what the
// faults left: the expectation is about the lowest live honest node, never the highest.
const lagging = (timeline: string) => `
name: lagging
seed: 3
duration: 10s
chain: { nodes: 4 }
groups:
  - { id: 1, consensus: pbft, sealers: 4 }
workloads:
  - { kind: helloworld, rate: 10 }
timeline:
${timeline}
expect: { minHeight: 3, liveness: false, allReceipted: false }
`;

const minHeight = async (timeline: string) => {
  const result = await runScenario(parseScenario(lagging(timeline)), { file: 'lagging.yaml' });
  return { judged: result.expectations.find((e) => e.name === 'every live honest node reached height 3')!, result };
};

describe('judging minHeight', () => {
  it('fails when one live honest node stays below it while the others pass it, and names that node', async () => {
    const { judged, result } = await minHeight('  - { at: 500ms, partition: [[node0, node1, node2], [node3]] }');
    expect(judged).toMatchObject({ ok: false, detail: 'lowest: node3 at 0 (group 1)' });
    expect(result.verdict).toBe('fail');
    expect(result.nodes.filter((n) => n.name !== 'node3').every((n) => (n.heights[1] ?? 0) >= 3)).toBe(true);
  });

  it('leaves a crashed node out: only live nodes must reach it', async () => {
    const { judged, result } = await minHeight('  - { at: 500ms, crash: node3 }');
    expect(judged.ok).toBe(true);
    expect(judged.detail).toMatch(/^lowest: node[012] at \d+ \(group 1\)$/);
    expect(result.nodes.find((n) => n.name === 'node3')!.state).not.toBe('up');
  });
});
