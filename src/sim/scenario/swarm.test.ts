import { describe, expect, it } from 'vitest';
import { durationMs, parseScenario } from './scenario-loader.js';
import { namesOf, type Scenario } from './scenario-schema.js';
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

describe('swarm draws of election churn and message-kind faults', () => {
  const churny = (nodes: number, consensus: 'pbft' | 'raft', extra = '') =>
    parseScenario(`
name: swarm-churn
duration: 40s
chain: { nodes: ${nodes} }
groups: [{ id: 1, consensus: ${consensus}, sealers: ${nodes} }]
swarm: { crashes: [0, 1], churn: [1, 3], messageFaults: [1, 4], window: [2s, 30s], faultDuration: [1s, 6s] }
${extra}`);

  /** Most nodes down at once; a crashLeader counts as one more node for its `for` (the leader is not known before the run). */
  function mostDown(s: Scenario): number {
    const changes: Array<[number, number]> = [];
    const down = new Map<string, number>();
    for (const e of [...s.timeline].sort((a, b) => durationMs(a.at) - durationMs(b.at))) {
      const t = durationMs(e.at);
      for (const n of namesOf(e.crash ?? [])) if (!down.has(n)) down.set(n, t);
      for (const n of namesOf(e.restart ?? [])) {
        const since = down.get(n);
        if (since !== undefined) changes.push([since, 1], [t, -1]);
        down.delete(n);
      }
      if (e.crashLeader) changes.push([t, 1], [t + durationMs(e.crashLeader.for!), -1]);
    }
    expect(down.size).toBe(0); // every crash undone
    changes.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    let now = 0;
    let worst = 0;
    for (const [, d] of changes) worst = Math.max(worst, (now += d));
    return worst;
  }

  it('are the same for the same seed, and differ between seeds', () => {
    const s = churny(4, 'pbft');
    expect(drawSwarm(s, 11)).toEqual(drawSwarm(s, 11));
    expect(drawSwarm(s, 11).drawn).not.toEqual(drawSwarm(s, 12).drawn);
  });

  it('keep churn within the fault budget (PBFT 4 → 1, PBFT 7 → 2, Raft 5 → 2), with the drawn restarts and down times', () => {
    let repeated = 0;
    let storms = 0;
    let leader = 0;
    for (const [nodes, consensus, f] of [[4, 'pbft', 1], [7, 'pbft', 2], [5, 'raft', 2]] as const) {
      const s = churny(nodes, consensus);
      for (let seed = 1; seed <= 40; seed++) {
        const draw = drawSwarm(s, seed);
        expect(mostDown(draw.scenario), `${consensus} ${nodes} seed ${seed}`).toBeLessThanOrEqual(f);
        const churn = draw.scenario.timeline.filter((e) => e.label?.startsWith('swarm churn'));
        for (const e of churn) {
          expect(durationMs(e.at)).toBeGreaterThanOrEqual(2000);
          expect(durationMs(e.at)).toBeLessThan(40_000);
        }
        const lines = draw.drawn.filter((d) => d.startsWith('churn'));
        expect(lines.length).toBeGreaterThanOrEqual(1);
        expect(lines.length).toBeLessThanOrEqual(3);
        for (const line of lines) {
          const times = /^churn: node\d crashed and restarted (\d+) times/.exec(line);
          const storm = /^churn: vote storm in group 1: the leader crashed for (\d+) ms, vote requests delayed (\d+) ms, node\d crashed and restarted (\d+) times meanwhile/.exec(line);
          if (storm) {
            storms++;
            expect(consensus).toBe('raft');
            expect(Number(storm[1])).toBeGreaterThanOrEqual(1500);
            expect(Number(storm[2])).toBeGreaterThanOrEqual(300);
            expect(Number(storm[2])).toBeLessThanOrEqual(1500);
            expect(Number(storm[3])).toBeGreaterThanOrEqual(1);
            const delayed = draw.scenario.timeline.filter((e) => e.label === 'swarm vote storm: vote requests delayed');
            expect(delayed.length).toBeGreaterThanOrEqual(1);
            expect(delayed.some((e) => e.messages?.kinds.join() === 'raft.voteReq' && e.messages.delay === `${storm[2]}ms`)).toBe(true);
          } else if (times) {
            repeated++;
            expect(Number(times[1])).toBeGreaterThanOrEqual(3);
            expect(Number(times[1])).toBeLessThanOrEqual(8);
          } else if (/^churn: the leader of group 1 crashed for \d+ ms, node\d crashed \d+ ms after it for \d+ ms/.test(line)) leader++;
          else expect(line).toMatch(/^churn: skipped/);
        }
        // each crash and its restart: down 50–800 ms (a voter 50–400 ms; in a vote storm 30–250 ms)
        const stormy = draw.scenario.timeline.filter((e) => e.label === 'swarm vote storm: voter crash');
        for (const c of stormy) {
          const restart = draw.scenario.timeline.find((e) => e.label === 'swarm vote storm: voter restart' && e.restart === c.crash && durationMs(e.at) > durationMs(c.at))!;
          expect(durationMs(restart.at) - durationMs(c.at)).toBeLessThanOrEqual(250);
        }
        const crashes = churn.filter((e) => e.crash);
        for (const c of crashes) {
          const restart = churn.find((e) => e.restart === c.crash && durationMs(e.at) > durationMs(c.at))!;
          const down = durationMs(restart.at) - durationMs(c.at);
          expect(down).toBeGreaterThanOrEqual(50);
          expect(down).toBeLessThanOrEqual(c.label === 'swarm churn voter crash' ? 400 : 800);
        }
      }
    }
    expect(repeated).toBeGreaterThan(10);
    expect(leader).toBeGreaterThan(10);
    expect(storms).toBeGreaterThan(3);
  });

  it('pick churn nodes among the budget’s candidates only', () => {
    const s = churny(7, 'pbft', 'timeline: [{ at: 1s, crash: node5 }]');
    for (let seed = 1; seed <= 30; seed++) {
      const draw = drawSwarm(s, seed);
      const touched = draw.scenario.timeline.filter((e) => e.label?.startsWith('swarm churn')).flatMap((e) => namesOf(e.crash ?? e.restart ?? []));
      expect(touched).not.toContain('node5');
    }
    const none = drawSwarm(churny(4, 'pbft', 'byzantine: [{ node: node3, behaviour: silent }]'), 1);
    expect(none.scenario.timeline.some((e) => e.label?.startsWith('swarm churn'))).toBe(false);
    expect(none.drawn.some((d) => d.startsWith('churn: skipped, no fault budget'))).toBe(true);
  });

  it('draw message-kind faults of the group’s consensus (or sync) inside the window, over before the liveness phase', () => {
    for (const consensus of ['pbft', 'raft'] as const) {
      const s = churny(5, consensus);
      const seen = new Set<string>();
      const patterns = new Set<string>();
      const actions = new Set<string>();
      for (let seed = 1; seed <= 60; seed++) {
        const draw = drawSwarm(s, seed);
        const faults = draw.scenario.timeline.filter((e) => e.label === 'swarm messages');
        expect(faults.length).toBeGreaterThanOrEqual(1);
        expect(faults.length).toBeLessThanOrEqual(4);
        expect(draw.drawn.filter((d) => d.startsWith('messages'))).toHaveLength(faults.length);
        for (const e of faults) {
          const m = e.messages!;
          const [from, length] = [durationMs(e.at), durationMs(m.for)];
          expect(from).toBeGreaterThanOrEqual(2000);
          expect(from).toBeLessThanOrEqual(30_000);
          expect(length).toBeGreaterThanOrEqual(1000);
          expect(length).toBeLessThanOrEqual(6000);
          expect(from + length).toBeLessThan(40_000);
          expect(m.kinds).toHaveLength(1);
          expect(m.kinds[0]).toMatch(new RegExp(`^(${consensus}|sync)\\.`));
          seen.add(m.kinds[0]!);
          expect((m.drop === undefined) !== (m.delay === undefined)).toBe(true);
          if (m.delay !== undefined) {
            expect(durationMs(m.delay)).toBeGreaterThanOrEqual(100);
            expect(durationMs(m.delay)).toBeLessThanOrEqual(3000);
            actions.add('delay');
          } else actions.add(m.drop === true ? 'drop' : 'probability');
          if (typeof m.drop === 'number') expect(m.drop).toBeGreaterThan(0);
          patterns.add(m.to ? 'to' : m.from ? 'from' : 'all');
        }
      }
      expect(seen.size).toBeGreaterThanOrEqual(5);
      expect([...patterns].sort()).toEqual(['all', 'from', 'to']);
      expect([...actions].sort()).toEqual(['delay', 'drop', 'probability']);
    }
  });

  it('leave files without the new keys drawing what they drew before', () => {
    // the draws for churn and message faults come after the others and only when asked for
    const s = scenario(4, 'pbft');
    const before = drawSwarm(s, 3);
    expect(before.scenario.timeline.some((e) => e.messages || e.crashLeader)).toBe(false);
    expect(before.drawn.some((d) => d.startsWith('churn') || d.startsWith('messages'))).toBe(false);
  });

  it('reject inverted ranges of the new keys', () => {
    expect(() => parseScenario(`name: x\nduration: 20s\nchain: { nodes: 4 }\nswarm: { churn: [3, 1] }\n`)).toThrow('swarm.churn: [3, 1] is inverted');
    expect(() => parseScenario(`name: x\nduration: 20s\nchain: { nodes: 4 }\nswarm: { messageFaults: [2, 0] }\n`)).toThrow('swarm.messageFaults: [2, 0] is inverted');
  });
});
