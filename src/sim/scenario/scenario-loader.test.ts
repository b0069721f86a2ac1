import { describe, expect, it } from 'vitest';
import { durationMs, parseScenario, ScenarioError } from './scenario-loader.js';

const minimal = `name: demo
duration: 30s
chain:
  nodes: 4
`;

function error(text: string): ScenarioError {
  try {
    parseScenario(text, 'demo.yaml');
  } catch (e) {
    if (e instanceof ScenarioError) return e;
    throw e;
  }
  throw new Error('expected a ScenarioError');
}

describe('scenario loader', () => {
  it('fills defaults', () => {
    const s = parseScenario(minimal);
    expect(s.seed).toBe(1);
    expect(s.groups).toEqual([{ id: 1, consensus: 'pbft' }]);
    expect(s.chain).toMatchObject({ suite: 'ecdsa', supportedVersion: '2.11.0', consensusSignatures: 'real' });
    expect(s.expect).toMatchObject({ safety: true, allReceipted: true, liveness: { within: '15s' } });
  });

  it('parses durations', () => {
    expect([durationMs('500ms'), durationMs('10s'), durationMs('1.5m'), durationMs('1h'), durationMs(42)]).toEqual([500, 10_000, 90_000, 3_600_000, 42]);
  });

  it.each([
    [`${minimal}bogus: 1\n`, 'demo.yaml:5:1: bogus: unknown key "bogus"'],
    [`${minimal}groups:\n  - id: 1\n    consensus: pbfx\n`, 'demo.yaml:7:16: groups[0].consensus: Invalid option'],
    [`${minimal}groups:\n  - id: 1\n    sealers: 9\n`, 'demo.yaml:7:14: groups[0].sealers: 9 sealers but only 4 nodes'],
    [`${minimal}timeline:\n  - at: 5s\n    crash: node9\n`, 'demo.yaml:7:12: timeline[0].crash: unknown node "node9" (this scenario has node0 … node3)'],
    [`${minimal}timeline:\n  - at: 5s\n`, 'demo.yaml:6:5: timeline[0]: needs one action'],
    [`${minimal}timeline:\n  - at: 5s\n    crash: node1\n    heal: true\n`, 'has 2 actions (crash, heal)'],
    [`${minimal}timeline:\n  - at: 50s\n    heal: true\n`, 'timeline[0].at: 50s is after the end of the scenario (30s)'],
    [`${minimal}timeline:\n  - at: soon\n    heal: true\n`, 'demo.yaml:6:9: timeline[0].at: expected a duration'],
    [`name: demo\nduration: 30s\n`, 'demo.yaml:1:1: chain: Invalid input'],
    [`name: Demo!\nduration: 30s\nchain:\n  nodes: 4\n`, 'demo.yaml:1:7: name: expected a lower-case name'],
    [`${minimal}workloads:\n  - kind: helloworld\n    rate: 10\n    group: 2\n`, 'workloads[0].group: unknown group 2'],
    [`${minimal}network:\n  loss: 1.5\n`, 'demo.yaml:6:9: network.loss: Too big'],
    [`name: demo\nduration: [30s\n`, 'demo.yaml:3:1: YAML: '],
    [`- a\n- b\n`, 'demo.yaml:1:1: a scenario is a mapping'],
    [`${minimal}byzantine:\n  - node: node1\n    behaviour: lying\n`, 'byzantine[0].behaviour: Invalid option'],
  ])('reports %j as %s', (text, message) => {
    expect(error(text).message).toContain(message);
  });

  it('the error carries its parts', () => {
    const e = error(`${minimal}bogus: 1\n`);
    expect([e.file, e.line, e.column, e.key]).toEqual(['demo.yaml', 5, 1, 'bogus']);
  });
});
