import { describe, expect, it } from 'vitest';
import { ALL_NODES_LANE, buildReportView, faultLanes, runEndMs } from './report-view.js';
import { emptyReportData, manyFaultsReportData, sampleReportData } from './sample-data.test-helper.js';

describe('buildReportView', () => {
  it('orders faults by start and runs open faults to the end of the run', () => {
    const data = sampleReportData();
    data.faults.reverse();
    const { charts } = buildReportView(data);
    expect(charts.faults.map((f) => [f.kind, f.fromS, f.untilS, f.open])).toEqual([
      ['crash', 20, 35, false],
      ['partition', 40, 48, false],
      ['network', 50, charts.endS, true],
    ]);
    expect(charts.faults[0]!.label).toBe('crash node3');
    expect(charts.faults[2]!.label).toBe('network');
  });

  it('marks the faults that last the whole run: from 0 to its end, open or closed there', () => {
    const data = sampleReportData();
    const end = runEndMs(data);
    data.faults = [
      { fromMs: 0, kind: 'equivocate', description: 'node3 equivocates', nodes: ['node3'] },
      { fromMs: 0, untilMs: end, kind: 'partition', description: 'node0 cut off', nodes: ['node0'] },
      { fromMs: 0, untilMs: end - 1_000, kind: 'pause', description: 'node1 paused', nodes: ['node1'] },
      { fromMs: 1, kind: 'network', description: 'loss 2%', nodes: [] },
      { fromMs: 0, untilMs: 0, kind: 'membership', description: 'addSealer(node3)', nodes: ['node3'] },
    ];
    const { charts } = buildReportView(data);
    expect(charts.faults.map((f) => [f.kind, f.wholeRun])).toEqual([
      ['equivocate', true],
      ['partition', true],
      ['pause', false],
      ['membership', false],
      ['network', false],
    ]);
    // nothing is "the whole run" of a run that lasted no time
    const empty = emptyReportData();
    empty.virtualMs = 0;
    empty.scenario.durationMs = 0;
    empty.faults = [{ fromMs: 0, kind: 'twins', description: 'node3 has a twin', nodes: ['node3'] }];
    expect(buildReportView(empty).charts.faults[0]!.wholeRun).toBe(false);
  });

  it('turns times into seconds and carries each step series to the end of the run', () => {
    const data = emptyReportData();
    data.virtualMs = 10_000;
    data.heights = [{ node: 'node0', group: 1, points: [[0, 0], [1_500, 1], [2_750, 2]] }];
    data.consensusRounds = [{ node: 'node0', group: 1, kind: 'term', points: [[0, 1]] }];
    const { charts } = buildReportView(data);
    expect(charts.endS).toBe(10);
    expect(charts.heights[0]!.points).toEqual([[0, 0], [1.5, 1], [2.75, 2], [10, 2]]);
    expect(charts.heights[0]!.label).toBe('node0');
    expect(charts.rounds[0]).toMatchObject({ label: 'node0', kind: 'term', points: [[0, 1], [10, 1]] });
  });

  it('labels series with their group when there are several, and gives a node the same colour everywhere', () => {
    const data = emptyReportData();
    data.nodes = [{ name: 'a', roles: 'g1 sealer' }, { name: 'b', roles: 'g1 sealer, g2 sealer' }];
    data.groups = [
      { id: 1, consensus: 'pbft', sealers: ['a', 'b'], observers: [] },
      { id: 2, consensus: 'raft', sealers: ['b'], observers: [] },
    ];
    data.heights = [
      { node: 'b', group: 2, points: [[0, 0]] },
      { node: 'a', group: 1, points: [[0, 0]] },
    ];
    data.consensusRounds = [
      { node: 'b', group: 2, kind: 'term', points: [[0, 1]] },
      { node: 'a', group: 1, kind: 'view', points: [[0, 0]] },
    ];
    const { charts } = buildReportView(data);
    expect(charts.groups).toEqual([1, 2]);
    // by group, then node order: the legend's order and the order the charts offset lines in
    expect(charts.heights.map((h) => [h.label, h.color])).toEqual([['a · g1', 0], ['b · g2', 1]]);
    expect(charts.rounds.map((r) => [r.label, r.color])).toEqual([['a · g1 view', 0], ['b · g2 term', 1]]);
  });

  it('merges throughput buckets into averages when there are more than 2,000', () => {
    const data = emptyReportData();
    data.throughput = [{ group: 1, bucketMs: 100, txPerSecond: Array.from({ length: 5_000 }, (_, i) => (i % 3 === 0 ? 30 : 0)) }];
    const [t] = buildReportView(data).charts.throughput;
    expect(t!.bucketS).toBe(0.3);
    expect(t!.points).toHaveLength(1_667 + 1); // ⌈5,000 / 3⌉ buckets and the end point
    expect(t!.points[0]).toEqual([0, 10]);
    expect(t!.points[1]).toEqual([0.3, 10]);
    // the last, partial bucket (5,000 = 3 × 1,666 + 2) averages what it has; the end point closes the step
    expect(t!.points[1_666]).toEqual([499.8, 15]);
    expect(t!.points[1_667]).toEqual([500, 15]);
  });

  it('finds the end of the run from whatever reaches furthest', () => {
    const data = emptyReportData();
    expect(runEndMs(data)).toBe(10_000);
    data.virtualMs = 5_000;
    expect(runEndMs(data)).toBe(5_000);
    data.faults = [{ fromMs: 1_000, untilMs: 7_000, kind: 'pause', description: 'pause node1', nodes: ['node1'] }];
    expect(runEndMs(data)).toBe(7_000);
  });

  it('puts every node in a lane of the fault timeline, overlapping faults of a node on separate rows', () => {
    const { charts } = buildReportView(manyFaultsReportData());
    const lanes = Object.fromEntries(charts.faultLanes.map((l) => [l.name, l]));
    expect(Object.keys(lanes)).toEqual(['node0', 'node1', 'node2', 'node3', ALL_NODES_LANE]);
    const kinds = (name: string): string[] => lanes[name]!.bars.map((b) => `${charts.faults[b.fault]!.kind}@${b.row}`);
    // node0: two message faults (5–7 s, 24–27 s) and the partition, none overlapping: one row
    expect(kinds('node0')).toEqual(['messages@0', 'messages@0', 'partition@0']);
    // node1 is paused inside the partition: a second row
    expect(kinds('node1')).toEqual(['partition@0', 'pause@1']);
    expect(lanes['node1']!.rows).toBe(2);
    // node3: six short crashes in a row, the partition, then an instant membership change
    expect(kinds('node3')).toEqual([...Array<string>(6).fill('crash@0'), 'partition@0', 'membership@0']);
    // faults on no node: the instant config change and the loss right after it share a row (the instant counts as 1% of the run)
    expect(kinds(ALL_NODES_LANE)).toEqual(['system config@0', 'network@0']);
    expect(faultLanes([], ['node0'], 10)).toEqual([]);
  });

  it('gives two instants at the same moment in one lane separate rows', () => {
    const data = emptyReportData();
    data.nodes = [{ name: 'n', roles: 'g1 sealer' }];
    data.faults = [
      { fromMs: 5_000, untilMs: 5_000, kind: 'membership', description: 'a', nodes: ['n'] },
      { fromMs: 5_000, untilMs: 5_000, kind: 'membership', description: 'b', nodes: ['n'] },
    ];
    expect(buildReportView(data).charts.faultLanes).toEqual([{ name: 'n', rows: 2, bars: [{ fault: 0, row: 0 }, { fault: 1, row: 1 }] }]);
  });
});
