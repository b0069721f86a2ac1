import { describe, expect, it } from 'vitest';
import { parseScenario } from '../scenario/scenario-loader.js';
import { assemble, splitScenario, timelineGroups, type Plan } from './plan.js';
import { byzantineVariants, faultExcess, msText, rescaled, truncated, unitWindow, withLeadersNamed, withoutGroup, withoutNode, workloadVariants } from './reductions.js';
import { scenarioYaml } from './scenario-yaml.js';

const plan = (text: string): Plan => splitScenario(parseScenario(text));
const scenarioOf = (p: Plan) => assemble(p.base, p.units);

describe('shrink reductions', () => {
  it('writes durations as files do', () => {
    expect([msText(12_000), msText(12_340), msText(12_345), msText(0)]).toEqual(['12s', '12.34s', '12.345s', '0s']);
  });

  it('without a node: the later nodes renamed down, lists without it, events that need it dropped', () => {
    const p = plan(`name: demo
duration: 30s
chain: { nodes: 5 }
groups:
  - { id: 1, sealers: 4, observers: [node4] }
workloads:
  - { kind: helloworld, rate: 5, targets: [node1] }
  - { kind: helloworld, rate: 5, targets: [node1, node3] }
timeline:
  - { at: 1s, crash: [node1, node2] }
  - { at: 2s, restart: [node1, node2] }
  - { at: 3s, crash: node1 }
  - { at: 4s, restart: node1 }
  - { at: 5s, partition: [[node0, node1], [node2, node3, node4]] }
  - { at: 6s, heal: true }
  - { at: 7s, messages: { kinds: [pbft.commit], to: [node1], drop: true, for: 1s } }
  - { at: 8s, clog: { between: [node3, node4], for: 1s } }
byzantine:
  - { node: node1, behaviour: silent }
  - { twins: node3 }
`);
    const s = scenarioOf(withoutNode(p, 'node1')!);
    expect(s.chain.nodes).toBe(4);
    expect(s.groups).toEqual([{ id: 1, consensus: 'pbft', sealers: 3, observers: ['node3'] }]);
    // the workload that sent only to node1 sends to every member; the other keeps node3, now node2
    expect(s.workloads.map((w) => w.targets)).toEqual([undefined, ['node2']]);
    expect(s.timeline).toEqual([
      { at: '1s', crash: ['node1'] },
      { at: '2s', restart: ['node1'] },
      { at: '5s', partition: [['node0'], ['node1', 'node2', 'node3']] },
      { at: '6s', heal: true },
      { at: '8s', clog: { between: ['node2', 'node3'], for: '1s', oneWay: false } },
    ]);
    expect(s.byzantine).toEqual([{ twins: 'node2' }]);
    // the result is a file the checker takes
    expect(() => parseScenario(scenarioYaml(s))).not.toThrow();
    // the last node goes without renames; a node that is not there, or the only one, cannot
    expect(scenarioOf(withoutNode(p, 'node4')!).groups[0]).toMatchObject({ sealers: 4, observers: [] });
    expect(withoutNode(p, 'node9')).toBeUndefined();
    expect(withoutNode(plan('name: one\nduration: 5s\nchain: { nodes: 1 }\n'), 'node0')).toBeUndefined();
  });

  it('without a group: its workloads, byzantine entries and changes go too; the last group stays', () => {
    const p = plan(`name: demo
duration: 30s
chain: { nodes: 4 }
groups:
  - { id: 1, sealers: 4 }
  - { id: 2, consensus: raft, sealers: [node1, node2, node3] }
workloads:
  - { kind: helloworld, rate: 5 }
  - { kind: helloworld, rate: 5, group: 2 }
timeline:
  - { at: 1s, crashLeader: { group: 2, for: 1s } }
  - { at: 2s, crash: node0 }
  - { at: 3s, setConfig: { group: 1, key: tx_count_limit, value: 5 } }
`);
    const s = scenarioOf(withoutGroup(p, 2)!);
    expect(s.groups.map((g) => g.id)).toEqual([1]);
    expect(s.workloads.map((w) => w.group)).toEqual([1]);
    expect(s.timeline.map((e) => e.at)).toEqual(['2s', '3s']);
    expect(withoutGroup(withoutGroup(p, 2)!, 1)).toBeUndefined();
  });

  it('cut off at a time: later events dropped, longer ones ended there', () => {
    const p = plan(`name: demo
duration: 30s
chain: { nodes: 4 }
workloads:
  - { kind: helloworld, rate: 5, stop: 20s }
  - { kind: deploy, rate: 1, start: 12s }
timeline:
  - { at: 5s, crash: node1 }
  - { at: 15s, restart: node1 }
  - { at: 8s, messages: { kinds: [pbft.commit], drop: true, for: 4s } }
  - { at: 11s, pause: node2 }
byzantine:
  - { node: node3, behaviour: silent, from: 2s, until: 25s }
`);
    const s = scenarioOf(truncated(p, 10_000));
    expect(s.duration).toBe('10s');
    expect(s.workloads).toEqual([{ kind: 'helloworld', group: 1, rate: 5, stop: '10s' }]);
    expect(s.timeline).toEqual([
      { at: '5s', crash: 'node1' },
      { at: '8s', messages: { kinds: ['pbft.commit'], drop: true, for: '2s' } },
      { at: '10s', restart: 'node1' },
    ]);
    expect(s.byzantine).toEqual([{ node: 'node3', behaviour: 'silent', group: 1, from: '2s', until: '10s' }]);
  });

  it('a window narrowed: every time of the event scaled into it, for and from/until and start/stop alike', () => {
    const p = plan(`name: demo
duration: 30s
chain: { nodes: 4 }
workloads:
  - { kind: helloworld, rate: 5 }
timeline:
  - { at: 4s, crash: node1 }
  - { at: 8s, restart: node1 }
  - { at: 6s, crash: node1 }
  - { at: 10s, clog: { between: [node0, node1], for: 2s } }
byzantine:
  - { node: node3, behaviour: silent }
`);
    const [workload, crash, clog, byzantine] = p.units;
    expect(unitWindow(crash!, 30_000)).toEqual([4000, 8000]);
    const narrow = rescaled(crash!, 4000, 6000, 30_000);
    expect(narrow.section === 'timeline' && narrow.items.map((i) => i.value)).toEqual([
      { at: '4s', crash: 'node1' },
      { at: '5s', crash: 'node1' },
      { at: '6s', restart: 'node1' },
    ]);
    const later = rescaled(clog!, 11_000, 12_000, 30_000);
    expect(later.section === 'timeline' && later.items[0]!.value.clog).toEqual({ between: ['node0', 'node1'], for: '1s', oneWay: false });
    expect(later.section === 'timeline' && later.items[0]!.value.at).toBe('11s');
    expect(unitWindow(byzantine!, 30_000)).toEqual([0, 30_000]);
    expect(rescaled(byzantine!, 15_000, 30_000, 30_000)).toMatchObject({ items: [{ value: { from: '15s', until: '30s' } }] });
    expect(rescaled(workload!, 0, 15_000, 30_000)).toMatchObject({ items: [{ value: { start: '0s', stop: '15s' } }] });
  });

  it('smaller workloads: counts halved (a rate down to 1 tx/s), fewer targets, a mix weight zeroed', () => {
    const s = parseScenario(`name: demo
duration: 30s
chain: { nodes: 4 }
workloads:
  - { kind: token, rate: 3, accounts: 8 }
  - { kind: mix, rate: 1, weights: { helloworld: 1, token: 1 }, targets: [node0, node2] }
`);
    const p = splitScenario(s);
    const values = (i: number) => workloadVariants(p.units[i]!, s).map((u) => (u.section === 'workloads' ? u.items[0]!.value : undefined));
    expect(values(0)).toEqual([
      { kind: 'token', group: 1, rate: 1.5, accounts: 4 },
      { kind: 'token', group: 1, rate: 3, accounts: 4 },
      ...['node0', 'node1', 'node2', 'node3'].map((n) => ({ kind: 'token', group: 1, rate: 3, accounts: 8, targets: [n] })),
    ].map((v, i) => (i === 0 ? { ...v, accounts: 8 } : v)));
    expect(values(1)).toEqual([
      { kind: 'mix', group: 1, rate: 1, weights: { helloworld: 1, deploy: 0, token: 1 }, targets: ['node2'] },
      { kind: 'mix', group: 1, rate: 1, weights: { helloworld: 1, deploy: 0, token: 1 }, targets: ['node0'] },
      { kind: 'mix', group: 1, rate: 1, weights: { helloworld: 0, deploy: 0, token: 1 }, targets: ['node0', 'node2'] },
      { kind: 'mix', group: 1, rate: 1, weights: { helloworld: 1, deploy: 0, token: 0 }, targets: ['node0', 'node2'] },
    ]);
  });

  it('a crashLeader written as the node it crashed', () => {
    const p = plan(`name: demo
duration: 30s
chain: { nodes: 4 }
timeline:
  - { at: 5s, crashLeader: { for: 2.5s }, label: churn }
`);
    const named = withLeadersNamed(p.units[0]!, () => 'node2');
    expect(named?.section === 'timeline' && named.items.map((i) => i.value)).toEqual([
      { at: '5s', crash: 'node2', label: 'churn' },
      { at: '7.5s', restart: 'node2', label: 'churn' },
    ]);
    expect(withLeadersNamed(p.units[0]!, () => undefined)).toBeUndefined();
  });

  it('a hostile workload: its behaviours one fewer at a time (all of them when it lists none), its burst halved', () => {
    const s = parseScenario(`name: demo
duration: 30s
chain: { nodes: 4, txPoolLimit: 50 }
workloads:
  - { kind: hostile, rate: 0.5, behaviours: [multi-submit, nonce-race, pool-burst], burst: 80, targets: [node1] }
  - { kind: hostile, rate: 1 }
  - { kind: hostile, rate: 0.2, behaviours: [nonce-race], targets: [node1] }
`);
    const p = splitScenario(s);
    const values = (i: number) => workloadVariants(p.units[i]!, s).map((u) => (u.section === 'workloads' ? (u.items[0]!.value as { behaviours?: string[]; burst?: number; rate: number }) : undefined));
    const first = values(0);
    expect(first.map((w) => w?.burst)).toContain(40);
    expect(first.flatMap((w) => (w?.behaviours?.length === 2 ? [w.behaviours] : []))).toEqual([
      ['nonce-race', 'pool-burst'],
      ['multi-submit', 'pool-burst'],
      ['multi-submit', 'nonce-race'],
    ]);
    // none listed: every behaviour, each left out once
    const second = values(1).flatMap((w) => (w?.behaviours ? [w.behaviours] : []));
    expect(second).toHaveLength(5);
    expect(second[0]).toEqual(['nonce-race', 'replay-committed', 'block-limit-edges', 'pool-burst']);
    // one behaviour is as narrow as it gets (the schema wants one), a rate below 1 is not halved, one target stays: only the burst halves
    expect(values(2)).toEqual([{ kind: 'hostile', group: 1, rate: 0.2, behaviours: ['nonce-race'], burst: 100, targets: ['node1'] }]);
    // the variants are files the checker takes
    for (const v of [...first, ...values(1)]) expect(() => parseScenario(scenarioYaml({ ...s, workloads: [v as never] }))).not.toThrow();
  });

  it("a mutating node's mutations one fewer at a time (all that swarm draws for its consensus when it lists none); other behaviours stay", () => {
    const s = parseScenario(`name: demo
duration: 30s
chain: { nodes: 9 }
groups:
  - { id: 1, sealers: [node0, node1, node2, node3] }
  - { id: 2, consensus: raft, sealers: [node4, node5, node6, node7, node8] }
byzantine:
  - { node: node1, behaviour: mutate, mutations: [view+1, duplicate, second-vote], rate: 0.4, from: 2s, until: 9s }
  - { node: node5, behaviour: mutate, group: 2 }
  - { node: node2, behaviour: silent }
  - { node: node3, behaviour: mutate, mutations: [replay] }
`);
    const p = splitScenario(s);
    const lists = (i: number) => byzantineVariants(p.units[i]!, s).map((u) => (u.section === 'byzantine' && 'node' in u.items[0]!.value ? u.items[0]!.value.mutations : undefined));
    expect(lists(0)).toEqual([
      ['duplicate', 'second-vote'],
      ['view+1', 'second-vote'],
      ['view+1', 'duplicate'],
    ]);
    // the rest of the entry as it was
    const narrowed = byzantineVariants(p.units[0]!, s)[0]!;
    expect(narrowed.section === 'byzantine' && narrowed.items[0]!.value).toEqual({ node: 'node1', behaviour: 'mutate', mutations: ['duplicate', 'second-vote'], rate: 0.4, group: 1, from: '2s', until: '9s' });
    // Raft's swarm list (12 mutations: no term+1, rogue-proposal or second-vote), each left out once
    const raft = lists(1);
    expect(raft).toHaveLength(12);
    expect(raft.every((m) => m?.length === 11 && !m.includes('term+1'))).toBe(true);
    expect(lists(2)).toEqual([]);
    expect(lists(3)).toEqual([]);
    for (const v of [...byzantineVariants(p.units[0]!, s), ...byzantineVariants(p.units[1]!, s)]) {
      const scenario = assemble(p.base, p.units.map((u) => (u.id === v.id ? v : u)));
      expect(() => parseScenario(scenarioYaml(scenario))).not.toThrow();
    }
  });

  it('an isolateLeader written as the node it cut off: an isolation (one-way: everyone else cut from it) and a heal after its for', () => {
    const p = plan(`name: demo
duration: 30s
chain: { nodes: 4 }
timeline:
  - { at: 5s, isolateLeader: { for: 3.5s }, label: stale }
  - { at: 12s, isolateLeader: { for: 2s, oneWay: true } }
`);
    const everyone = ['node0', 'node1', 'node2', 'node3'];
    const both = p.units.map((u) => withLeadersNamed(u, () => 'node2', everyone));
    expect(both.map((u) => u?.section === 'timeline' && u.items.map((i) => i.value))).toEqual([
      [
        { at: '5s', isolate: 'node2', label: 'stale' },
        { at: '8.5s', heal: true, label: 'stale' },
      ],
      [
        { at: '12s', partitionOneWay: { from: ['node0', 'node1', 'node3'], to: ['node2'] } },
        { at: '14s', heal: true },
      ],
    ]);
    // the named form is a file the checker takes, its pairs group as one event, and it counts as one faulty sealer
    const named = assemble(p.base, both.map((u) => u!));
    const parsed = parseScenario(scenarioYaml(named));
    expect(timelineGroups(parsed.timeline)).toEqual([[0, 1], [2, 3]]);
    expect(faultExcess(parsed)).toBe(0);
    expect(faultExcess(scenarioOf(p))).toBe(0);
    expect(withLeadersNamed(p.units[0]!, () => undefined, everyone)).toBeUndefined();
  });

  it('the fault budget: how far the faulty sealers at one time go beyond f', () => {
    const four = `name: demo
duration: 30s
chain: { nodes: 4 }
`;
    expect(faultExcess(parseScenario(four))).toBe(-1);
    expect(faultExcess(parseScenario(`${four}byzantine:\n  - { node: node1, behaviour: silent, from: 5s, until: 9s }\ntimeline:\n  - { at: 10s, crash: node2 }\n  - { at: 12s, restart: node2 }\n`))).toBe(0);
    expect(faultExcess(parseScenario(`${four}byzantine:\n  - { node: node1, behaviour: silent, from: 5s, until: 11s }\ntimeline:\n  - { at: 10s, crash: node2 }\n  - { at: 12s, restart: node2 }\n`))).toBe(1);
    expect(faultExcess(parseScenario(`${four}timeline:\n  - { at: 1s, partition: [[node0, node1], [node2, node3]] }\n`))).toBe(1);
    expect(faultExcess(parseScenario(`${four}timeline:\n  - { at: 1s, crashLeader: {} }\n  - { at: 2s, pause: node3 }\n`))).toBe(1);
    // a stale leader counts while it is cut off, and no longer
    expect(faultExcess(parseScenario(`${four}timeline:\n  - { at: 1s, isolateLeader: { for: 2s } }\n  - { at: 2s, pause: node3 }\n`))).toBe(1);
    expect(faultExcess(parseScenario(`${four}timeline:\n  - { at: 1s, isolateLeader: { for: 2s, oneWay: true } }\n  - { at: 3.5s, pause: node3 }\n`))).toBe(0);
    // Raft tolerates a minority: 2 of 5
    expect(faultExcess(parseScenario(`name: demo\nduration: 30s\nchain: { nodes: 5 }\ngroups:\n  - { id: 1, consensus: raft, sealers: 5 }\ntimeline:\n  - { at: 1s, crash: [node0, node1] }\n`))).toBe(0);
  });
});
