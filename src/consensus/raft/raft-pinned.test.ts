import { describe, expect, it } from 'vitest';
import { fuzz } from './raft-harness.test-helper.js';

describe('the runs of a few seeds, pinned', () => {
  // Every event of these runs (elections, votes, sealing, acknowledgements, commits, drops, steps
  // down, with their fields and times) folded into one digest per seed, recorded from this code.
  // Any change to what the state machine does or reports shows here: a deliberate one updates the
  // list (the test prints the new digests); a mutant of raft.ts that survives every other test
  // usually does not get past it.
  const PINNED: Record<number, string> = {
    0: '40a79730c67cf3c9',
    1: '4707d8cea1d817dc',
    2: '692bde15e2e0112b',
    3: '9bf3724fae096e08',
    4: '1e1fc2cf431abe18',
    5: 'a683f0bccc3d58ad',
    6: '851691a6866c4b3c',
    7: 'bbb7fbab07846c6d',
  };
  it('seeds 0 to 7 replay to their recorded digests', () => {
    const got = Object.fromEntries(Object.keys(PINNED).map((s) => [s, fuzz(Number(s)).net.digest]));
    expect(got, `digests now: ${JSON.stringify(got)}`).toEqual(PINNED);
  });
});
