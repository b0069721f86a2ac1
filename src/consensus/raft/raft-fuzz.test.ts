import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import { fuzz, RaftNet, SafetyViolation, T0, type NetOptions } from './raft-harness.test-helper.js';
import { Raft } from './raft.js';

describe('Raft under random crashes, restarts, partitions, loss and duplication (200 seeds)', () => {
  it.each(Array.from({ length: 200 }, (_, i) => i))('seed %i: no safety violation; after healing the group commits again and converges', (seed) => {
    const { net, actions, healedAt } = fuzz(seed);
    const heights = net.heights();
    expect(Math.min(...heights), `heights ${heights}, faults ${actions.join(', ')}`).toBeGreaterThan(healedAt);
    expect(new Set(heights).size, `heights ${heights}`).toBe(1);
    expect(net.delivered).toBeGreaterThan(1000);
    // the seed replays to the same digest
    if (seed % 10 === 0) expect(fuzz(seed).net.digest).toBe(net.digest);
  });
});

/** Crash/restart and partition churn only (no heal phase): for the checkers' own tests. */
function churn(seed: string, options: NetOptions): string | undefined {
  const rng = seedrandom(seed);
  const n = rng() < 0.5 ? 3 : 5;
  const net = new RaftNet(n, seed, { loss: 0.05, maxDelay: 40, ...options });
  try {
    for (let t = T0 + 2_000; t < T0 + 30_000; ) {
      t += 200 + Math.floor(rng() * 1_500);
      net.run(t);
      const i = Math.floor(rng() * n);
      if (rng() < 0.5) {
        if (net.isUp(i)) net.crash(i);
        else net.restart(i);
      }
      net.heal();
      const side = [...Array(n).keys()].filter(() => rng() < 0.5);
      const other = [...Array(n).keys()].filter((k) => !side.includes(k));
      if (side.length > 0 && other.length > 0 && rng() < 0.6) net.partition([side, other]);
    }
  } catch (e) {
    if (e instanceof SafetyViolation) return e.message;
    throw e;
  }
  return undefined;
}

describe('the continuous checks catch known-broken variants', () => {
  it('a node that forgets its term and vote on restart (no synced write) is caught voting twice', () => {
    const found = Array.from({ length: 30 }, (_, k) => churn(`amnesia-${k}`, { amnesia: true })).filter((m) => m !== undefined);
    expect(found.length).toBeGreaterThan(3);
    expect(found.some((m) => m.startsWith('two leaders in term'))).toBe(true);
  });

  it('voters that skip the up-to-date check are caught electing a leader without a committed block', () => {
    const proto = Raft.prototype as unknown as { onVoteRequest: (m: object, now: number) => void };
    const original = proto.onVoteRequest;
    proto.onVoteRequest = function (m, now) {
      return original.call(this, { ...m, lastEntryTerm: Number.MAX_SAFE_INTEGER }, now);
    };
    try {
      const found = Array.from({ length: 60 }, (_, k) => churn(`mutant-${k}`, { amnesia: false })).filter((m) => m !== undefined);
      expect(found.length).toBeGreaterThan(0);
      expect(found.some((m) => /lacks committed block|committed .* another node/.test(m))).toBe(true);
    } finally {
      proto.onVoteRequest = original;
    }
    expect(churn('mutant-control', {})).toBeUndefined();
  });
});
