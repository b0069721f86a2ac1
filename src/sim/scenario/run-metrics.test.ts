import { describe, expect, it } from 'vitest';
import { RunMetrics } from './run-metrics.js';

describe('RunMetrics views', () => {
  it('has a view series for every PBFT sealer from the start, so a run without view changes shows view 0, not nothing', () => {
    const metrics = new RunMetrics(() => true, new Set([1]));
    metrics.startViews(1, ['node0', 'node1']);
    metrics.onNodeEvent('node0', 'block-committed', { group: 1, number: 1 }, 1_000);
    metrics.onNodeEvent('node1', 'block-committed', { group: 1, number: 1 }, 1_004);
    expect([...metrics.rounds.values()]).toEqual([
      { node: 'node0', group: 1, kind: 'view', points: [[0, 0]] },
      { node: 'node1', group: 1, kind: 'view', points: [[0, 0]] },
    ]);
    // a view change, then the commit that puts the view back to 0
    metrics.onNodeEvent('node1', 'pbft-view', { group: 1, to: 1 }, 2_000);
    metrics.onNodeEvent('node1', 'block-committed', { group: 1, number: 2 }, 2_500);
    expect(metrics.rounds.get('1/node1')!.points).toEqual([[0, 0], [2_000, 1], [2_500, 0]]);
  });
});
