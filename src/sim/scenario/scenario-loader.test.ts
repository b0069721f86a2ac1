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

  it('takes the byzantine behaviours of each consensus (swarm draws Raft ones, and a shrunk swarm run writes them out)', () => {
    const raft = parseScenario(`name: demo\nduration: 30s\nchain: { nodes: 5 }\ngroups:\n  - { id: 1, consensus: raft, sealers: 5 }\nbyzantine:\n  - { node: node1, behaviour: conflicting-leader, from: 5s, until: 9s }\n  - { node: node2, behaviour: forge-sync, variant: other-fork }\n  - { node: node3, behaviour: double-vote }\n`);
    expect(raft.byzantine.map((b) => ('node' in b ? b.behaviour : b.twins))).toEqual(['conflicting-leader', 'forge-sync', 'double-vote']);
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
    [`name: demo\nduration: 30s\n`, 'demo.yaml:1:1: chain: missing required key "chain"'],
    [`name: Demo!\nduration: 30s\nchain:\n  nodes: 4\n`, 'demo.yaml:1:7: name: expected a lower-case name'],
    [`${minimal}workloads:\n  - kind: helloworld\n    rate: 10\n    group: 2\n`, 'workloads[0].group: unknown group 2'],
    [`${minimal}network:\n  loss: 1.5\n`, 'demo.yaml:6:9: network.loss: expected at most 1, got 1.5'],
    [`name: demo\nduration: [30s\n`, 'demo.yaml:3:1: YAML: '],
    [`- a\n- b\n`, 'demo.yaml:1:1: a scenario is a mapping'],
    [`${minimal}byzantine:\n  - node: node1\n    behaviour: lying\n`, 'byzantine[0].behaviour: Invalid option'],
  ])('reports %j as %s', (text, message) => {
    expect(error(text).message).toContain(message);
  });

  // issue 44: the node limit in our words, and zod's own wording ("Too big: expected number to be <=300") nowhere
  it.each([
    ['name: demo\nduration: 30s\nchain:\n  nodes: 301\n', "demo.yaml:4:10: chain.nodes: at most 300 nodes (the simulator's limit per scenario), got 301"],
    ['name: demo\nduration: 30s\nchain:\n  nodes: 0\n', 'demo.yaml:4:10: chain.nodes: a chain needs at least 1 node, got 0'],
    ['name: demo\nduration: 30s\nchain:\n  nodes: 2.5\n', 'demo.yaml:4:10: chain.nodes: expected a whole number of nodes, got 2.5'],
    [`${minimal}network:\n  loss: -0.5\n`, 'demo.yaml:6:9: network.loss: expected at least 0, got -0.5'],
  ])('words the limit of %j as %s', (text, message) => {
    expect(error(text).message).toBe(message);
    expect(error(text).message).not.toMatch(/Too big|Too small|Invalid input|<=|>=/);
  });

  // issue 44: "did you mean" also when the nearest key is set already (it used to say nothing)
  it.each([
    ['name: demo\nduration: 30s\nchain:\n  nodes: 4\n  node: 5\n', 'demo.yaml:5:3: chain.node: unknown key "node" (did you mean "nodes"? it is already set on line 4: remove one of the two)'],
    [`${minimal}groups:\n  - id: 1\n    sealers: 4\n    sealer: 4\n`, 'demo.yaml:8:5: groups[0].sealer: unknown key "sealer" (did you mean "sealers"? it is already set on line 7: remove one of the two)'],
    [`${minimal}groups:\n  - id: 1\n    sealer: 4\n`, 'demo.yaml:7:5: groups[0].sealer: unknown key "sealer" (did you mean "sealers"?)'],
  ])('suggests the nearest key in %j', (text, message) => {
    expect(error(text).message).toBe(message);
  });

  // a bare number used to be read as milliseconds: `duration: 60` ran 60 ms and failed
  it.each([
    [`name: demo\nduration: 60\nchain:\n  nodes: 4\n`, 'demo.yaml:2:11: duration: 60 has no unit: did you mean 60s? (a duration is a number with ms, s, m or h)'],
    [`${minimal}timeline:\n  - at: 5\n    heal: true\n`, 'demo.yaml:6:9: timeline[0].at: 5 has no unit: did you mean 5s?'],
    [`${minimal}timeline:\n  - at: 5s\n    clog: { between: [node0, node1], for: 2 }\n`, 'timeline[0].clog.for: 2 has no unit: did you mean 2s?'],
    [`${minimal}timeline:\n  - at: 5s\n    crashLeader: { for: 3 }\n`, 'timeline[0].crashLeader.for: 3 has no unit'],
    [`${minimal}timeline:\n  - at: 5s\n    messages: { kinds: [pbft.prepare], delay: 300, for: 2s }\n`, 'timeline[0].messages.delay: 300 has no unit: did you mean 300s?'],
    [`${minimal}timeline:\n  - at: 5s\n    messages: { kinds: [pbft.prepare], drop: true, for: 2 }\n`, 'timeline[0].messages.for: 2 has no unit'],
    [`${minimal}workloads:\n  - { kind: helloworld, rate: 10, start: 1 }\n`, 'workloads[0].start: 1 has no unit'],
    [`${minimal}workloads:\n  - { kind: helloworld, rate: 10, stop: 20 }\n`, 'workloads[0].stop: 20 has no unit'],
    [`${minimal}byzantine:\n  - { node: node1, behaviour: silent, from: 2 }\n`, 'byzantine[0].from: 2 has no unit'],
    [`${minimal}byzantine:\n  - { node: node1, behaviour: silent, until: 9 }\n`, 'byzantine[0].until: 9 has no unit'],
    [`${minimal}swarm:\n  window: [2, 30s]\n`, 'demo.yaml:6:12: swarm.window[0]: 2 has no unit'],
    [`${minimal}swarm:\n  faultDuration: [1s, 6]\n`, 'swarm.faultDuration[1]: 6 has no unit'],
    [`${minimal}expect:\n  liveness: { within: 10 }\n`, 'expect.liveness.within: 10 has no unit: did you mean 10s?'],
    [`${minimal}expect:\n  maxLatencyP99: 500\n`, 'expect.maxLatencyP99: 500 has no unit'],
  ])('refuses the bare number in %j: %s', (text, message) => {
    expect(error(text).message).toContain(message);
  });

  const pbft4 = `${minimal}groups:\n  - { id: 1, sealers: 4 }\n`;
  const scenarioWith = (extra: string, base = minimal) => `${base}${extra}`;
  // each of these loaded without an error (or crashed the run) before the checks existed
  it.each([
    // 1. roles in a group
    ['a sealer listed twice', `name: demo\nduration: 30s\nchain: { nodes: 4 }\ngroups:\n  - { id: 1, sealers: [node0, node1, node1] }\n`, 'demo.yaml:5:38: groups[0].sealers[2]: "node1" is listed twice in groups[0].sealers'],
    ['an observer listed twice', `name: demo\nduration: 30s\nchain: { nodes: 4 }\ngroups:\n  - { id: 1, sealers: 2, observers: [node2, node2] }\n`, 'groups[0].observers[1]: "node2" is listed twice'],
    ['a sealer that is an observer', `name: demo\nduration: 30s\nchain: { nodes: 4 }\ngroups:\n  - { id: 1, sealers: [node0, node1, node2], observers: [node2] }\n`, 'demo.yaml:5:57: groups[0].observers: "node2" is both in sealers and in observers; a node has one role in a group'],
    ['a counted sealer that is an observer', `name: demo\nduration: 30s\nchain: { nodes: 4 }\ngroups:\n  - { id: 1, sealers: 3, observers: [node0] }\n`, 'groups[0].observers: "node0" is both in sealers (the first 3 nodes) and in observers'],
    ['an observer that is spare', `name: demo\nduration: 30s\nchain: { nodes: 5 }\ngroups:\n  - { id: 1, sealers: 3, observers: [node3], spare: [node3, node4] }\n`, 'groups[0].spare: "node3" is both in observers and in spare'],
    ['more observers than nodes left', `name: demo\nduration: 30s\nchain: { nodes: 4 }\ngroups:\n  - { id: 1, sealers: 3, observers: 2 }\n`, 'groups[0].observers: 2 observers but only 1 of the 4 nodes are left'],
    ['no sealers left', `name: demo\nduration: 30s\nchain: { nodes: 2 }\ngroups:\n  - { id: 1, observers: 2 }\n`, 'groups[0].observers: group 1 has no sealers left'],
    ['a twin as a group member', `${minimal}groups:\n  - { id: 1, sealers: [node0, node1, node2, node3-twin] }\nbyzantine:\n  - { twins: node3 }\n`, 'groups[0].sealers[3]: "node3-twin" is a twin'],
    // 2. partitions
    ['overlapping partition sides', scenarioWith(`timeline:\n  - { at: 5s, partition: [[node0, node1], [node1, node2]] }\n`), 'demo.yaml:6:44: timeline[0].partition[1][0]: "node1" is on two sides of the partition (sides 0 and 1); the sides must not overlap'],
    ['a node twice on one side', scenarioWith(`timeline:\n  - { at: 5s, partition: [[node0, node0], [node2]] }\n`), 'timeline[0].partition[0][1]: "node0" is listed twice in side 0'],
    ['a one-way partition from a node to itself', scenarioWith(`timeline:\n  - { at: 5s, partitionOneWay: { from: node0, to: [node0, node1] } }\n`), 'timeline[0].partitionOneWay.to: "node0" is in both from and to'],
    ['a clog of a node with itself', scenarioWith(`timeline:\n  - { at: 5s, clog: { between: [node1, node1], for: 1s } }\n`), 'timeline[0].clog.between: names node1 twice'],
    // 3. version
    ['a version the chain cannot parse', `name: demo\nduration: 30s\nchain: { nodes: 4, supportedVersion: banana }\n`, 'demo.yaml:3:38: chain.supportedVersion: "banana" is not a supported version: expected x.y.z or 2.0.0-rcN'],
    ['a 3.x version', `name: demo\nduration: 30s\nchain: { nodes: 4, supportedVersion: 3.0.0 }\n`, 'chain.supportedVersion: "3.0.0" is not a supported version: only FISCO BCOS 2.x versions'],
    // 4. byzantine nodes and twins
    ['a byzantine observer', `name: demo\nduration: 30s\nchain: { nodes: 5 }\ngroups:\n  - { id: 1, sealers: 4, observers: [node4] }\nbyzantine:\n  - { node: node4, behaviour: silent }\n`, 'demo.yaml:7:13: byzantine[0].node: node4 is not a sealer of group 1 (its sealers: node0, node1, node2, node3)'],
    ['a byzantine node outside its group', `name: demo\nduration: 30s\nchain: { nodes: 5 }\ngroups:\n  - { id: 1, sealers: 4 }\n  - { id: 2, sealers: [node4] }\nbyzantine:\n  - { node: node4, behaviour: equivocate, group: 1 }\n`, 'byzantine[0].node: node4 is not a sealer of group 1'],
    ['twins in a Raft group', `name: demo\nduration: 30s\nchain: { nodes: 4 }\ngroups:\n  - { id: 1, consensus: raft, sealers: 4 }\nbyzantine:\n  - { twins: node1 }\n`, 'demo.yaml:7:14: byzantine[0].twins: node1 is in group 1, which runs raft; twins exist for PBFT groups only'],
    ['twins of a node in a Raft group beside a PBFT one', `name: demo\nduration: 30s\nchain: { nodes: 4 }\ngroups:\n  - { id: 1, sealers: 4 }\n  - { id: 2, consensus: raft, sealers: [node1, node2, node3] }\nbyzantine:\n  - { twins: node1 }\n`, 'byzantine[0].twins: node1 is in group 2, which runs raft'],
    ['a mutation that does not exist', scenarioWith(`byzantine:\n  - { node: node1, behaviour: mutate, mutations: [view+2] }\n`, pbft4), 'byzantine[0].mutations: unknown mutation "view+2": choose from view+1, view-1'],
    ['a Raft mutation in a PBFT group', scenarioWith(`byzantine:\n  - { node: node1, behaviour: mutate, mutations: [term-1] }\n`, pbft4), 'byzantine[0].mutations: unknown mutation "term-1" for pbft: choose from view+1'],
    ['a PBFT mutation in a Raft group', `name: demo\nduration: 30s\nchain: { nodes: 4 }\ngroups:\n  - { id: 1, consensus: raft, sealers: 4 }\nbyzantine:\n  - { node: node1, behaviour: mutate, mutations: [future-proposal] }\n`, 'byzantine[0].mutations: unknown mutation "future-proposal" for raft'],
    ['a mutation rate out of range', scenarioWith(`byzantine:\n  - { node: node1, behaviour: mutate, rate: 1.5 }\n`, pbft4), 'byzantine[0].rate: rate must be above 0 and at most 1 (got 1.5)'],
    ['mutations on another behaviour', scenarioWith(`byzantine:\n  - { node: node1, behaviour: silent, mutations: [duplicate] }\n`, pbft4), 'byzantine[0].mutations: only behaviour mutate takes mutations and a rate (got behaviour silent)'],
    ['a PBFT behaviour in a Raft group', `name: demo\nduration: 30s\nchain: { nodes: 4 }\ngroups:\n  - { id: 1, consensus: raft, sealers: 4 }\nbyzantine:\n  - { node: node1, behaviour: equivocate }\n`, 'byzantine[0].behaviour: equivocate is not a behaviour of raft groups; group 1 runs raft, whose behaviours are double-vote, conflicting-leader, forge-sync, mutate'],
    ['a Raft behaviour in a PBFT group', scenarioWith(`byzantine:\n  - { node: node1, behaviour: conflicting-leader }\n`, pbft4), 'byzantine[0].behaviour: conflicting-leader is not a behaviour of pbft groups; group 1 runs pbft, whose behaviours are'],
    ['a hostile behaviour that does not exist', scenarioWith(`workloads:\n  - { kind: hostile, rate: 1, behaviours: [nonce-rce] }\n`), 'demo.yaml:6:44: workloads[0].behaviours[0]: Invalid option: expected one of "multi-submit"|"nonce-race"|"replay-committed"|"block-limit-edges"|"pool-burst", got "nonce-rce" (did you mean "nonce-race"?)'],
    ['a leader isolated past the end', scenarioWith(`timeline:\n  - { at: 25s, isolateLeader: { group: 1, for: 10s } }\n`), 'timeline[0].isolateLeader.for: the heal would come after the end of the scenario'],
    ['a leader isolated in a group that does not exist', scenarioWith(`timeline:\n  - { at: 5s, isolateLeader: { group: 3, for: 2s } }\n`), 'timeline[0].isolateLeader.group: unknown group 3'],
    ['overlapping byzantine intervals', scenarioWith(`byzantine:\n  - { node: node1, behaviour: silent, from: 5s }\n  - { node: node1, behaviour: equivocate, from: 10s, until: 20s }\n`, pbft4), 'byzantine[1]: node1 is already byzantine at that time (byzantine[0])'],
    // 5. swarm bounds
    ['inverted swarm crashes', scenarioWith(`swarm:\n  crashes: [3, 1]\n`), 'demo.yaml:6:12: swarm.crashes: [3, 1] is inverted; write [low, high]'],
    ['an inverted swarm window', scenarioWith(`swarm:\n  window: [30s, 2s]\n`), 'swarm.window: [30s, 2s] is inverted'],
    ['a swarm window past the end', scenarioWith(`swarm:\n  window: [2s, 40s]\n`), 'swarm.window[1]: 40s is after the end of the scenario (30s)'],
    ['an inverted fault duration', scenarioWith(`swarm:\n  faultDuration: [6s, 1s]\n`), 'swarm.faultDuration: [6s, 1s] is inverted'],
    ['a negative swarm loss', scenarioWith(`swarm:\n  loss: [-0.5, 2]\n`), 'demo.yaml:6:10: swarm.loss[0]: a probability is between 0 and 1, got -0.5'],
    ['a swarm loss above 1', scenarioWith(`swarm:\n  loss: [0, 2]\n`), 'swarm.loss[1]: a probability is between 0 and 1, got 2'],
    ['a negative swarm latency', scenarioWith(`swarm:\n  latencyMs: [-100, -10]\n`), 'swarm.latencyMs[0]: must not be negative, got -100'],
    ['a fractional swarm count', scenarioWith(`swarm:\n  pauses: [0, 1.5]\n`), 'swarm.pauses[1]: a count is a whole number'],
    // 6. times past the end
    ['a workload stopping after the end', scenarioWith(`workloads:\n  - { kind: helloworld, rate: 5, stop: 40s }\n`), 'demo.yaml:6:40: workloads[0].stop: 40s is after the end of the scenario (30s)'],
    ['a workload stopping before it starts', scenarioWith(`workloads:\n  - { kind: helloworld, rate: 5, start: 10s, stop: 5s }\n`), 'workloads[0].stop: must be later than start (10s)'],
    ['a workload stopping when it starts', scenarioWith(`workloads:\n  - { kind: helloworld, rate: 5, start: 10s, stop: 10s }\n`), 'workloads[0].stop: must be later than start (10s)'],
    ['one sealer more than the nodes', scenarioWith(`groups:\n  - { id: 1, sealers: 5 }\n`), 'groups[0].sealers: 5 sealers but only 4 nodes'],
    ['a Raft election window one below its start', scenarioWith(`groups:\n  - { id: 1, consensus: raft, minElectTime: 1000, maxElectTime: 999 }\n`), 'groups[0].maxElectTime: must not be below minElectTime (1000)'],
    ['a byzantine interval ending after the end', scenarioWith(`byzantine:\n  - { node: node1, behaviour: silent, until: 45s }\n`, pbft4), 'byzantine[0].until: 45s is after the end of the scenario (30s)'],
    ['a byzantine interval starting after the end', scenarioWith(`byzantine:\n  - { node: node1, behaviour: silent, from: 45s }\n`, pbft4), 'byzantine[0].from: 45s is after the end of the scenario (30s)'],
    ['a byzantine interval ending before it starts', scenarioWith(`byzantine:\n  - { node: node1, behaviour: silent, from: 10s, until: 10s }\n`, pbft4), 'byzantine[0].until: must be later than from (10s)'],
    ['a clog lasting past the end', scenarioWith(`timeline:\n  - { at: 25s, clog: { between: [node0, node1], for: 10s } }\n`), 'timeline[0].clog.for: the clog would last until 35 s, after the end of the scenario (30s)'],
    // 7. workload targets
    ['a workload target outside its group', `name: demo\nduration: 30s\nchain: { nodes: 5 }\ngroups:\n  - { id: 1, sealers: 4 }\nworkloads:\n  - { kind: helloworld, rate: 5, targets: [node1, node4] }\n`, 'demo.yaml:7:51: workloads[0].targets[1]: node4 is not in group 1 (its members: node0, node1, node2, node3); it would never take this workload\'s transactions'],
    // 8. system config
    ['an unknown config key', scenarioWith(`timeline:\n  - { at: 5s, setConfig: { key: tx_count_limt, value: 5 } }\n`), 'timeline[0].setConfig.key: "tx_count_limt" is not a settable system config key; settable: tx_count_limit, tx_gas_limit, consensus_timeout; did you mean "tx_count_limit"?'],
    ['consensus_timeout before 2.6.0', `name: demo\nduration: 30s\nchain: { nodes: 4, supportedVersion: 2.4.0 }\ntimeline:\n  - { at: 5s, setConfig: { key: consensus_timeout, value: 5 } }\n`, 'timeline[0].setConfig.key: "consensus_timeout" is not a settable system config key (consensus_timeout is settable from supportedVersion 2.6.0'],
    ['a tx_count_limit of 0', scenarioWith(`timeline:\n  - { at: 5s, setConfig: { key: tx_count_limit, value: 0 } }\n`), 'timeline[0].setConfig.value: tx_count_limit must be at least 1, got 0'],
    ['a low tx_gas_limit', scenarioWith(`timeline:\n  - { at: 5s, setConfig: { key: tx_gas_limit, value: "99999" } }\n`), 'tx_gas_limit must be at least 100000, got 99999'],
    ['a negative config value', scenarioWith(`timeline:\n  - { at: 5s, setConfig: { key: tx_count_limit, value: -5 } }\n`), 'tx_count_limit must be a non-negative integer, got "-5"'],
    ['a fractional config value', scenarioWith(`timeline:\n  - { at: 5s, setConfig: { key: tx_count_limit, value: 2.5 } }\n`), 'tx_count_limit must be a non-negative integer, got 2.5'],
    ['a text config value', scenarioWith(`timeline:\n  - { at: 5s, setConfig: { key: tx_count_limit, value: lots } }\n`), 'tx_count_limit must be a non-negative integer, got "lots"'],
    ['a config value beyond int64', scenarioWith(`timeline:\n  - { at: 5s, setConfig: { key: tx_count_limit, value: "9223372036854775808" } }\n`), 'tx_count_limit must be at most 2^63-1 (9223372036854775807), got 9223372036854775808'],
    ['an inexact config number', scenarioWith(`timeline:\n  - { at: 5s, setConfig: { key: tx_gas_limit, value: 1e20 } }\n`), 'timeline[0].setConfig.value: 100000000000000000000 is too large to be exact as a YAML number; quote it'],
    ['a consensus_timeout too large', scenarioWith(`timeline:\n  - { at: 5s, setConfig: { key: consensus_timeout, value: 4294967 } }\n`), 'consensus_timeout must be below 4294967, got 4294967'],
    // 9. run size
    ['a run longer than a day', `name: demo\nduration: 25h\nchain: { nodes: 4 }\n`, 'demo.yaml:2:11: duration: 25h is longer than the limit of 24h of virtual time'],
    ['workload rates adding up past the limit', scenarioWith(`workloads:\n  - { kind: helloworld, rate: 1500 }\n  - { kind: token, rate: 600 }\n`), 'workloads[1].rate: the workloads\' rates add up to 2100 tx/s, above the limit of 2000 tx/s'],
    ['too many planned transactions', `name: demo\nduration: 24h\nchain: { nodes: 4 }\nworkloads:\n  - { kind: helloworld, rate: 100 }\n`, 'workloads[0].rate: the workloads plan about 8640000 transactions (rate × active seconds), above the limit of 1000000'],
    // found on the way: settings the simulator refuses, or that hang the run
    ['an inverted uniform latency', scenarioWith(`network:\n  latency: { kind: uniform, minMs: 50, maxMs: 2 }\n`), 'demo.yaml:6:47: network.latency.maxMs: 2 is below minMs (50)'],
    ['an exponential latency with its mean below its minimum', scenarioWith(`timeline:\n  - { at: 5s, link: { from: node0, to: node1, latency: { kind: exponential, minMs: 50, meanMs: 2 } } }\n`), 'timeline[0].link.latency.meanMs: 2 is below minMs (50)'],
    ['an absurd clock offset', scenarioWith(`timeline:\n  - { at: 5s, clockSkew: { node: node0, offsetMs: 1e15 } }\n`), 'timeline[0].clockSkew.offsetMs: at most a day (86400000 ms) either way, got 1000000000000000'],
    ['an absurd clock drift', scenarioWith(`timeline:\n  - { at: 5s, clockSkew: { node: node0, drift: 1e9 } }\n`), 'timeline[0].clockSkew.drift: at most 10 (a clock 11 times as fast), got 1000000000'],
    // 10. messages
    ['a missing nested key', `name: demo\nduration: 30s\nchain: { suite: sm }\n`, 'demo.yaml:3:8: chain.nodes: missing required key "nodes"'],
    ['a missing workload kind', scenarioWith(`workloads:\n  - { rate: 5 }\n`), 'workloads[0].kind: missing required key "kind" (one of helloworld, deploy, token, mix, hostile, replay)'],
    ['a wrong workload kind', scenarioWith(`workloads:\n  - { kind: tokens, rate: 5 }\n`), 'workloads[0].kind: expected one of helloworld, deploy, token, mix, hostile, replay, got "tokens" (did you mean "token"?)'],
    ['a misspelt byzantine key', scenarioWith(`byzantine:\n  - { node: node1, behaviour: silent, frm: 10s }\n`, pbft4), 'demo.yaml:8:39: byzantine[0].frm: unknown key "frm" (did you mean "from"?)'],
    ['a misspelt workload key', scenarioWith(`workloads:\n  - kind: helloworld\n    rat: 5\n`), 'demo.yaml:7:5: workloads[0].rat: unknown key "rat" (did you mean "rate"?)'],
    ['a misspelt nested key', scenarioWith(`timeline:\n  - { at: 5s, crashLeader: { group: 1, fro: 5s } }\n`), 'timeline[0].crashLeader.fro: unknown key "fro" (did you mean "for"?)'],
    ['a misspelt top-level key', scenarioWith(`descripton: x\n`), 'demo.yaml:5:1: descripton: unknown key "descripton" (did you mean "description"?)'],
    ['an unknown key close to one already there', scenarioWith(`chain2: 1\n`), 'chain2: unknown key "chain2"'],
    ['an unknown key far from any', scenarioWith(`whatever: 1\n`), 'whatever: unknown key "whatever"'],
    ['a misspelt node name', scenarioWith(`timeline:\n  - { at: 5s, crash: nod1 }\n`), 'timeline[0].crash: unknown node "nod1" (this scenario has node0 … node3); did you mean "node1"?'],
  ])('rejects %s', (_what, text, message) => {
    expect(error(text).message).toContain(message);
  });

  it('the error carries its parts', () => {
    const e = error(`${minimal}bogus: 1\n`);
    expect([e.file, e.line, e.column, e.key]).toEqual(['demo.yaml', 5, 1, 'bogus']);
  });
});
