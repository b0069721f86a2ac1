import { describe, expect, it } from 'vitest';
import { durationMs, parseScenario } from './scenario-loader.js';
import type { Scenario } from './scenario-schema.js';
import { drawSwarm, faultBudget, pickStart } from './swarm.js';

const scenario = (nodes: number, consensus: 'pbft' | 'raft', extra = '') =>
  parseScenario(`
name: swarm-base
duration: 60s
chain: { nodes: ${nodes} }
groups: [{ id: 1, consensus: ${consensus}, sealers: ${nodes} }]
swarm: { crashes: [1, 3], pauses: [0, 2], partitions: [1, 3], loss: [0, 0.1], latencyMs: [5, 50], window: [5s, 40s], faultDuration: [1s, 5s] }
${extra}`);

/** Nodes that are crashed, paused or cut off at each moment of a drawn timeline. */
function worstMoment(s: Scenario): number {
  const entries = [...s.timeline].sort((a, b) => durationMs(a.at) - durationMs(b.at));
  const down = new Set<string>();
  let worst = 0;
  for (const e of entries) {
    for (const n of [e.crash, e.pause].flat()) if (n) down.add(n);
    for (const n of [e.restart, e.resume].flat()) if (n) down.delete(n);
    if (e.partition) for (const n of e.partition[0]!) down.add(`cut:${n}`);
    if (e.heal) for (const n of [...down]) if (n.startsWith('cut:')) down.delete(n);
    worst = Math.max(worst, down.size);
  }
  return worst;
}

describe('swarm draws', () => {
  it('are the same for the same seed and differ between seeds', () => {
    const s = scenario(4, 'pbft');
    expect(drawSwarm(s, 7)).toEqual(drawSwarm(s, 7));
    expect(drawSwarm(s, 7).drawn).not.toEqual(drawSwarm(s, 8).drawn);
    expect(drawSwarm(s, 7).scenario.seed).toBe(7);
  });

  it('stay within the fault budget: PBFT 4 → 1 node at a time, Raft 5 → 2, inside the window, each fault undone', () => {
    for (const [nodes, consensus, f] of [[4, 'pbft', 1], [7, 'pbft', 2], [5, 'raft', 2]] as const) {
      const s = scenario(nodes, consensus);
      expect(faultBudget(s).budget).toBe(f);
      for (let seed = 1; seed <= 30; seed++) {
        const draw = drawSwarm(s, seed);
        expect(worstMoment(draw.scenario), `${consensus} ${nodes} seed ${seed}`).toBeLessThanOrEqual(f);
        const starts = draw.scenario.timeline.filter((e) => e.crash || e.pause || e.partition);
        for (const e of starts) {
          expect(durationMs(e.at)).toBeGreaterThanOrEqual(5000);
          expect(durationMs(e.at)).toBeLessThanOrEqual(40_000); // the window's end
        }
        const ends = draw.scenario.timeline.filter((e) => e.restart || e.resume || e.heal);
        expect(ends).toHaveLength(starts.length);
        expect(draw.scenario.network.loss).toBeLessThanOrEqual(0.1);
      }
    }
  });

  it("leave no budget for faults when the file's byzantine nodes use it up", () => {
    const s = scenario(4, 'pbft', 'byzantine: [{ node: node3, behaviour: silent }]');
    expect(faultBudget(s)).toEqual({ budget: 0, candidates: ['node0', 'node1', 'node2'] });
    const draw = drawSwarm(s, 1);
    expect(draw.scenario.timeline).toEqual([]);
    expect(draw.drawn.filter((d) => d.includes('no fault budget')).length).toBeGreaterThan(0);
  });

  it("count a node the file leaves down for good against the budget, and never pick it", () => {
    const s = scenario(7, 'pbft', 'timeline: [{ at: 1s, crash: node5 }]');
    expect(faultBudget(s)).toEqual({ budget: 1, candidates: ['node0', 'node1', 'node2', 'node3', 'node4', 'node6'] });
    for (let seed = 1; seed <= 30; seed++) {
      const draw = drawSwarm(s, seed);
      expect(worstMoment(draw.scenario), `seed ${seed}`).toBeLessThanOrEqual(2);
      expect(draw.scenario.timeline.some((e) => e.label?.startsWith('swarm') && [e.crash, e.pause, e.restart, e.resume].flat().includes('node5'))).toBe(false);
    }
    expect(faultBudget(scenario(4, 'pbft', 'timeline: [{ at: 1s, crashLeader: { group: 1 } }]')).budget).toBe(0);
    expect(faultBudget(scenario(4, 'pbft', 'timeline: [{ at: 1s, isolate: node1 }]')).budget).toBe(0); // never healed
  });

  it("keep clear of the file's own passing faults: no swarm fault overlaps them", () => {
    const s = scenario(4, 'pbft', 'timeline: [{ at: 10s, crash: node2 }, { at: 20s, restart: node2 }, { at: 25s, crashLeader: { group: 1, for: 5s } }]');
    expect(faultBudget(s).budget).toBe(1);
    for (let seed = 1; seed <= 30; seed++) {
      const draw = drawSwarm(s, seed);
      const swarm = draw.scenario.timeline.filter((e) => e.label?.startsWith('swarm'));
      for (let i = 0; i < swarm.length; i += 2) {
        const [from, to] = [durationMs(swarm[i]!.at), durationMs(swarm[i + 1]!.at)];
        for (const [a, b] of [[10_000, 20_000], [25_000, 30_000]]) expect(from < b && to > a, `seed ${seed}: ${from}–${to} overlaps ${a}–${b}`).toBe(false);
      }
    }
  });

  it('pick fault starts only where a fault of that length keeps a second clear of busy intervals', () => {
    // window [10 s, 30 s], 5 s faults, busy 20–35 s: starts must be in [10 s, 14 s]
    expect(pickStart(0, [10_000, 30_000], 5000, [[20_000, 35_000]])).toBe(10_000);
    expect(pickStart(0.999, [10_000, 30_000], 5000, [[20_000, 35_000]])).toBe(13_996);
    expect(pickStart(0.5, [10_000, 30_000], 5000, [[12_000, 35_000]])).toBeUndefined();
    expect(pickStart(0.5, [10_000, 30_000], 5000, [])).toBe(20_000);
    expect(pickStart(0.5, [30_000, 10_000], 5000, [])).toBeUndefined();
  });
});
