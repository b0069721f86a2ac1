import { describe, expect, it } from 'vitest';
import { fullCollectionLine, type Window } from './replay-bench.js';

describe('fullCollectionLine', () => {
  const round = (k: number, executorRate: number, replayRate: number) => ({
    executor: { from: 10 * k, to: 10 * k + 4 },
    replay: { from: 10 * k + 5, to: 10 * k + 9 },
    executorRate,
    replayRate,
  });
  // a full collection in round 1's and round 3's executor runs and in round 2's replay
  const rounds = [round(0, 7000, 5600), round(1, 6000, 6400), round(2, 7200, 6500), round(3, 6200, 5700)];
  const collected = new Set<Window>([rounds[1]!.executor, rounds[3]!.executor, rounds[2]!.replay]);
  const within = (w: Window) => collected.has(w);

  it('counts the runs a collection fell in and lists the rounds by their replay', () => {
    const line = fullCollectionLine({ within }, rounds);
    expect(line).toContain('in 1 of the 4 replays and 2 of the 4 executor runs; the rounds with one in their replay: 90%; the others: 80%, 107%, 92%.');
  });

  it('compares the medians of runs with the same luck, replay over executor', () => {
    const line = fullCollectionLine({ within }, rounds);
    // without: executors 7,000 and 7,200 (the upper median), replays 5,600, 6,400, 5,700; with: executors 6,000 and 6,200, the replay 6,500
    expect(line).toContain("without one, the executor's median 7,200 tx/s (2 runs) and the replay's 5,700 tx/s (3): 79%; with one, the executor's median 6,200 tx/s (2 runs) and the replay's 6,500 tx/s (1): 105%.");
  });

  it('leaves a comparison out where no run of one kind had that luck', () => {
    const line = fullCollectionLine({ within: () => false }, rounds);
    expect(line).toContain('in 0 of the 4 replays and 0 of the 4 executor runs');
    expect(line).toContain("without one, the executor's median 7,000 tx/s (4 runs) and the replay's 6,400 tx/s (4): 91%.");
    expect(line).not.toContain('with one,');
  });
});
