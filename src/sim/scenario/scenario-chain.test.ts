import { describe, expect, it } from 'vitest';
import { parseScenario } from './scenario-loader.js';
import { honestNodes, resolveGroups, simChainOptions } from './scenario-chain.js';

describe('scenario → simulated chain', () => {
  it('resolves counts and lists of sealers and observers', () => {
    const s = parseScenario(`
name: g
duration: 10s
chain: { nodes: 6 }
groups:
  - { id: 1, consensus: pbft, sealers: 3, observers: 2 }
  - { id: 2, consensus: raft, sealers: [node3, node4, node5], observers: [node0] }
  - { id: 3, consensus: pbft, observers: 1, spare: [node5] }
`);
    expect(resolveGroups(s)).toEqual([
      { id: 1, consensus: 'pbft', sealers: ['node0', 'node1', 'node2'], observers: ['node3', 'node4'], spare: [] },
      { id: 2, consensus: 'raft', sealers: ['node3', 'node4', 'node5'], observers: ['node0'], spare: [] },
      { id: 3, consensus: 'pbft', sealers: ['node0', 'node1', 'node2', 'node3'], observers: ['node4'], spare: ['node5'] },
    ]);
  });

  it('maps network settings, byzantine intervals and twins to SimChain options', () => {
    const s = parseScenario(`
name: b
seed: 5
duration: 30s
chain: { nodes: 4, consensusSignatures: simulated }
network: { loss: 0.1, duplicate: 0.01, latency: { kind: constant, ms: 7 }, links: [{ from: node0, to: node1, loss: 0.5 }] }
byzantine:
  - { node: node1, behaviour: silent, from: 10s, until: 20s }
  - { node: node1, behaviour: equivocate, from: 1s, until: 5s }
  - { twins: node3 }
`);
    const options = simChainOptions(s, 'x');
    expect(options).toMatchObject({
      seed: 'x',
      nodes: 4,
      consensusSignatures: 'simulated',
      network: { lossRate: 0.1, duplicateRate: 0.01, latency: { kind: 'constant', ms: 7 } },
      twins: ['node3'],
      byzantine: {
        node1: [
          { behaviour: 'equivocate', group: 1, fromMs: 1000, untilMs: 5000 },
          { behaviour: 'silent', group: 1, fromMs: 10_000, untilMs: 20_000 },
        ],
      },
    });
    expect(honestNodes(s)).toEqual(['node0', 'node2']);
  });
});
