import { describe, expect, it } from 'vitest';
import { parseScenario, ScenarioError } from './scenario-loader.js';
import { runScenario } from './scenario-runner.js';
import type { SimChain } from '../sim-chain.js';
import { ACTION_KEYS } from './scenario-schema.js';
import { fileFaults } from './swarm.js';

const base = (timeline = '', duration = '14s') => `
name: kinds
seed: 5
duration: ${duration}
chain: { nodes: 4 }
groups:
  - { id: 1, consensus: pbft, sealers: 4 }
network:
  latency: { kind: uniform, minMs: 2, maxMs: 10 }
workloads:
  - { kind: helloworld, rate: 10 }
expect: { liveness: { within: 10s } }
${timeline}`;

function error(text: string): string {
  try {
    parseScenario(text, 'kinds.yaml');
  } catch (e) {
    if (e instanceof ScenarioError) return e.message;
    throw e;
  }
  throw new Error('expected a ScenarioError');
}

describe('the messages timeline action', () => {
  it('loads, is an action key, and counts as busy time for swarm', () => {
    const s = parseScenario(base('timeline:\n  - { at: 2s, messages: { kinds: [pbft.commit, pbft.sign], to: [node1, node2], drop: 0.5, for: 3s } }\n  - { at: 6s, messages: { kinds: [sync.blocks], from: node0, delay: 800ms, for: 1s } }'));
    expect(ACTION_KEYS).toContain('messages');
    expect(s.timeline[0]!.messages).toEqual({ kinds: ['pbft.commit', 'pbft.sign'], to: ['node1', 'node2'], drop: 0.5, for: '3s' });
    expect(fileFaults(s).busy).toEqual([[2000, 5000], [6000, 7000]]);
  });

  it.each([
    ['{ kinds: [pbft.comit], drop: true, for: 1s }', 'timeline[0].messages.kinds[0]: unknown message kind "pbft.comit"; did you mean "pbft.commit"? (kinds: pbft.prepare, pbft.sign'],
    ['{ kinds: [commit], drop: true, for: 1s }', 'unknown message kind "commit" (kinds: pbft.prepare'],
    ['{ kinds: [], drop: true, for: 1s }', 'timeline[0].messages.kinds: list at least one message kind'],
    ['{ kinds: [raft.voteResp, raft.voteResp], drop: true, for: 1s }', 'timeline[0].messages.kinds[1]: "raft.voteResp" is listed twice'],
    ['{ kinds: [pbft.commit], to: node7, drop: true, for: 1s }', 'timeline[0].messages.to: unknown node "node7" (this scenario has node0 … node3)'],
    ['{ kinds: [pbft.commit], from: [node1, nod2], drop: true, for: 1s }', 'timeline[0].messages.from[1]: unknown node "nod2"'],
    ['{ kinds: [pbft.commit], for: 1s }', 'timeline[0].messages: needs drop (true or a probability) or delay (a duration)'],
    ['{ kinds: [pbft.commit], drop: true, delay: 1s, for: 1s }', 'timeline[0].messages: has both drop and delay; give one per entry'],
    ['{ kinds: [pbft.commit], drop: 0, for: 1s }', 'timeline[0].messages.drop'],
    ['{ kinds: [pbft.commit], drop: false, for: 1s }', 'timeline[0].messages.drop'],
    ['{ kinds: [pbft.commit], drop: 1.5, for: 1s }', 'timeline[0].messages.drop'],
    ['{ kinds: [pbft.commit], delay: soon, for: 1s }', 'timeline[0].messages.delay: expected a duration'],
    ['{ kinds: [pbft.commit], drop: true }', 'timeline[0].messages.for: missing required key "for"'],
    ['{ kinds: [pbft.commit], drop: true, for: 20s }', 'timeline[0].messages.for: the fault would last until 22 s, after the end of the scenario (14s)'],
    ['{ kinds: [pbft.commit], drop: true, for: 1s, links: all }', 'timeline[0].messages.links: unknown key "links"'],
  ])('reports %s', (value, message) => {
    expect(error(base(`timeline:\n  - { at: 2s, messages: ${value} }`))).toContain(message);
  });

  it('dropping Commits (and the blocks sync would fetch instead) to three of four PBFT sealers makes the group change view; safety and liveness hold', async () => {
    const fault = 'timeline:\n  - { at: 4s, messages: { kinds: [pbft.commit, sync.blocks], to: [node1, node2, node3], drop: true, for: 4s } }';
    const clean = await runScenario(parseScenario(base()), { file: 'kinds.yaml' });
    let chain: SimChain | undefined;
    const faulty = await runScenario(parseScenario(base(fault)), { file: 'kinds.yaml', onChain: (c) => void (chain = c) });
    expect(clean.totals.viewChanges).toBe(0);
    expect(faulty.totals.viewChanges).toBeGreaterThan(0);
    expect(faulty.violations).toEqual([]);
    expect(faulty.expectations.filter((e) => !e.ok)).toEqual([]);
    expect(faulty.verdict).toBe('pass');
    expect(faulty.faults).toContainEqual({ fromMs: 4000, untilMs: 8000, kind: 'messages', description: 'pbft.commit, sync.blocks every node → node1, node2, node3 dropped for 4000 ms', nodes: ['node1', 'node2', 'node3'], entry: 0 });
    // the drops are the three's alone, and the report's per-node drop counts include them
    const inbound = ['node0', 'node1', 'node2', 'node3'].map((n) => chain!.sim.network.nodeStats(n).droppedInbound.kind);
    expect(inbound[0]).toBe(0);
    for (const d of inbound.slice(1)) expect(d).toBeGreaterThan(0);
    expect(faulty.nodes.reduce((sum, n) => sum + n.dropped, 0)).toBeGreaterThanOrEqual(inbound.reduce((a, b) => a + b, 0));
  });

  it('Commits dropped alone are made up for by block sync: the three catch up without a view change', async () => {
    const fault = 'timeline:\n  - { at: 4s, messages: { kinds: [pbft.commit], to: [node1, node2, node3], drop: true, for: 4s } }';
    const result = await runScenario(parseScenario(base(fault)), { file: 'kinds.yaml' });
    expect(result.verdict).toBe('pass');
    expect(new Set(result.nodes.map((n) => n.heights[1])).size).toBe(1);
  });
});
