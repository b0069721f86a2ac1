import { describe, expect, it } from 'vitest';
import { buildReportView, runEndMs } from './report-view.js';
import { emptyReportData, sampleReportData } from './sample-data.test-helper.js';

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
    expect(charts.heights.map((h) => [h.label, h.color])).toEqual([['b · g2', 1], ['a · g1', 0]]);
    expect(charts.rounds.map((r) => [r.label, r.color])).toEqual([['b · g2 term', 1], ['a · g1 view', 0]]);
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
});
