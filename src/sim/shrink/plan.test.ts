import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseScenario } from '../scenario/scenario-loader.js';
import { drawSwarm } from '../scenario/swarm.js';
import { assemble, isEvent, splitScenario, timelineGroups } from './plan.js';
import { describeUnit } from './describe.js';
import { scenarioYaml } from './scenario-yaml.js';

const SCENARIOS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'scenarios');

const base = `name: demo
duration: 40s
chain: { nodes: 5 }
groups:
  - { id: 1, sealers: 4, observers: [node4] }
`;

describe('shrink plan', () => {
  it('groups each fault with what undoes it; other entries stand alone', () => {
    const s = parseScenario(`${base}timeline:
  - { at: 1s, crash: [node1, node2] }
  - { at: 2s, pause: node3 }
  - { at: 3s, restart: node1 }
  - { at: 4s, partition: [[node0], [node1, node2, node3]] }
  - { at: 5s, restart: node2 }
  - { at: 6s, isolate: node4 }
  - { at: 7s, heal: true }
  - { at: 8s, resume: node3 }
  - { at: 9s, link: { from: node0, to: node1, loss: 0.5 } }
  - { at: 10s, clockSkew: { node: node2, offsetMs: 300 } }
  - { at: 11s, messages: { kinds: [pbft.commit], drop: true, for: 2s } }
  - { at: 12s, link: { from: node0, to: node1, reset: true } }
  - { at: 13s, clockSkew: { node: node2 } }
  - { at: 14s, crashLeader: { for: 2s } }
  - { at: 15s, network: { loss: 0.1 } }
  - { at: 16s, crash: node0 }
`);
    // a crash that is never undone stays alone; partitions share the heal that lifts both
    expect(timelineGroups(s.timeline)).toEqual([[0, 2, 4], [1, 7], [3, 5, 6], [8, 11], [9, 12], [10], [13], [14], [15]]);
  });

  it('the order of the file does not matter, only times (ties keep the file order)', () => {
    const s = parseScenario(`${base}timeline:
  - { at: 9s, restart: node1 }
  - { at: 2s, crash: node1 }
  - { at: 5s, restart: node1 }
`);
    expect(timelineGroups(s.timeline)).toEqual([[1, 2], [0]]);
  });

  it('splits a scenario into events and network settings, and assembles all of them back into the same scenario', () => {
    const s = parseScenario(`${base}network:
  latency: { kind: uniform, minMs: 2, maxMs: 20 }
  loss: 0.01
  links: [{ from: node0, to: node1, loss: 0.2 }]
workloads:
  - { kind: helloworld, rate: 5 }
  - { kind: token, rate: 2, accounts: 4 }
timeline:
  - { at: 5s, crash: node1 }
  - { at: 5s, pause: node2 }
  - { at: 6s, restart: node1 }
  - { at: 6s, resume: node2 }
byzantine:
  - { node: node3, behaviour: silent, from: 10s, until: 20s }
`);
    const plan = splitScenario(s);
    expect(plan.units.map((u) => u.section)).toEqual(['network', 'network', 'links', 'workloads', 'workloads', 'timeline', 'timeline', 'byzantine']);
    expect(plan.units.filter(isEvent)).toHaveLength(5);
    expect(plan.units.map((u) => u.id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(assemble(plan.base, plan.units)).toEqual({ ...s, swarm: undefined, network: s.network });
    expect(plan.units.map(describeUnit)).toEqual([
      'network latency { kind: uniform, minMs: 2, maxMs: 20 }',
      'network loss 0.01',
      'link { from: node0, to: node1, loss: 0.2 }',
      'workload helloworld { group: 1, rate: 5 }',
      'workload token { group: 1, rate: 2, accounts: 4 }',
      'crash node1 at 5 s, restart node1 at 6 s',
      'pause node2 at 5 s, resume node2 at 6 s',
      'byzantine node3 silent in group 1 from 10 s to 20 s',
    ]);
    // a subset keeps each section's order, and entries at one time their file order
    const some = assemble(plan.base, [plan.units[6]!, plan.units[5]!]);
    expect(some.timeline.map((e) => Object.keys(e).find((k) => k !== 'at'))).toEqual(['crash', 'pause', 'restart', 'resume']);
    expect(some.workloads).toEqual([]);
    expect(some.network).toEqual({});
  });

  it("a swarm seed's draw of pbft-swarm.yaml and raft-swarm.yaml (mutate adversaries, hostile clients, stale leaders, clock skews, pool bursts), split, assembled, written as YAML and read back, is the same scenario", () => {
    const seen = new Set<string>();
    for (const name of ['pbft-swarm', 'raft-swarm']) {
      const file = parseScenario(readFileSync(path.join(SCENARIOS, `${name}.yaml`), 'utf8'), `${name}.yaml`);
      for (let seed = 1; seed <= 12; seed++) {
        const { scenario } = drawSwarm(file, seed);
        const plan = splitScenario(scenario);
        const text = scenarioYaml(assemble(plan.base, plan.units));
        const { swarm: _swarm, ...drawn } = scenario;
        expect(parseScenario(text, `${name}.yaml`)).toEqual(drawn);
        expect(text).not.toMatch(/^swarm:/m);
        for (const b of drawn.byzantine) if ('node' in b) seen.add(b.behaviour === 'mutate' ? `${name} mutate ${b.mutations ? 'listed' : 'default'}` : `${name} ${b.behaviour}`);
        for (const e of drawn.timeline) for (const k of ['isolateLeader', 'clockSkew'] as const) if (e[k]) seen.add(`${name} ${k}`);
        for (const w of drawn.workloads) if (w.kind === 'hostile') seen.add(`${name} ${w.behaviours?.includes('pool-burst') ? 'pool burst' : 'hostile'}`);
        // each unit describes itself (a mutating node with its mutations and rate)
        for (const u of plan.units) if (u.section === 'byzantine' && 'node' in u.items[0]!.value && u.items[0]!.value.behaviour === 'mutate') expect(describeUnit(u)).toMatch(/mutate \(.+ at rate 0\.\d+\) in group 1/);
      }
    }
    // the seeds drew every kind of the new draws, for both consensus protocols
    for (const name of ['pbft-swarm', 'raft-swarm']) for (const kind of ['mutate listed', 'isolateLeader', 'clockSkew', 'hostile', 'pool burst']) expect(seen, `${name} ${kind}`).toContain(`${name} ${kind}`);
  });

  it("a swarm seed's draw with Raft adversaries, read back, is the same scenario", () => {
    for (const consensus of ['pbft', 'raft']) {
      const file = parseScenario(`name: sw
duration: 40s
chain: { nodes: 5 }
groups:
  - { id: 1, consensus: ${consensus}, sealers: 5 }
network:
  latency: { kind: uniform, minMs: 2, maxMs: 20 }
workloads:
  - { kind: helloworld, rate: 10 }
swarm: { crashes: [0, 2], pauses: [0, 1], partitions: [0, 2], messageFaults: [0, 3], churn: [0, 2], adversaries: [1, 1], loss: [0, 0.08], latencyMs: [5, 60], window: [2s, 30s], faultDuration: [1s, 6s] }
`);
      for (let seed = 1; seed <= 8; seed++) {
        const { scenario } = drawSwarm(file, seed);
        const plan = splitScenario(scenario);
        const text = scenarioYaml(assemble(plan.base, plan.units));
        const { swarm: _swarm, ...drawn } = scenario;
        expect(parseScenario(text, 'sw.yaml')).toEqual(drawn);
      }
    }
  });
});
