import { describe, expect, it } from 'vitest';
import { checkDeterminism, formatDivergence } from './determinism-check.js';
import { busyScenario } from './scenario.test-helper.js';
import { Simulation } from './simulation.js';

describe('determinism', () => {
  it('the same seed twice gives the identical digest; another seed gives another', async () => {
    const digest = async (seed: string) => {
      const sim = busyScenario(seed);
      const result = await sim.run({ until: 1500 });
      expect(result.events).toBeGreaterThan(300);
      return result.digest;
    };
    const first = await digest('alpha');
    expect(await digest('alpha')).toBe(first);
    expect(await digest('beta')).not.toBe(first);
  });

  it('checkDeterminism passes a deterministic scenario', async () => {
    const report = await checkDeterminism((seed) => busyScenario(seed), { seed: 'alpha', until: 1500 });
    expect(report.divergence).toBeNull();
    expect(report.deterministic).toBe(true);
    expect(report.digests[0]).toBe(report.digests[1]);
    expect(report.events[0]).toBeGreaterThan(300);
    expect(formatDivergence(report)).toMatch(/^seed "alpha": deterministic \(\d+ events, digest [0-9a-f]{16}\)$/);
  });

  it('catches a Math.random() planted in a handler and reports the first diverging event', async () => {
    let calls = 0;
    const report = await checkDeterminism(
      (seed) =>
        busyScenario(seed, {
          react: (env, payload) => {
            // the bug: a handler that asks the process for randomness instead of env.random
            if (++calls > 200 && Math.random() < 0.5) env.clock.setTimer(1, () => undefined);
            void payload;
          },
        }),
      { seed: 'alpha', until: 1500 },
    );
    expect(report.deterministic).toBe(false);
    const d = report.divergence!;
    expect(d).not.toBeNull();
    expect(d.index).toBeGreaterThan(100);
    expect(d.first).not.toEqual(d.second);
    const records = [d.first, d.second].filter((r) => r !== null);
    expect(records.every((r) => r.i === d.index)).toBe(true);
    const earlier = records.reduce((x, y) => (y.t < x.t ? y : x));
    expect(d.time).toBe(earlier.t);
    expect(d.node).toBe(earlier.node);
    expect(d.node).toMatch(/^n[0-3]$/); // the planted timer fires on a node
    const text = formatDivergence(report);
    expect(text).toContain(`the two runs diverge at trace entry #${d.index} (t=${d.time} ms, node ${d.node})`);
    expect(text).toMatch(/run 1: (\{"i":\d+|\(no entry\))/);
    expect(text).toMatch(/run 2: (\{"i":\d+|\(no entry\))/);
  });

  it('catches nondeterminism while the scenario is being built', async () => {
    const report = await checkDeterminism(
      (seed) => {
        const sim = new Simulation({ seed });
        sim.addNode(Math.random() < 2 ? `node-${Math.random()}` : 'x', () => undefined);
        return sim;
      },
      { seed: 1, until: 10 },
    );
    expect(report.divergence).toMatchObject({ index: 0, time: 0 });
    expect(report.divergence!.first!.kind).toBe('add');
  });

  it('explains misuse', async () => {
    const shared = new Simulation({ seed: 's' });
    await expect(checkDeterminism(() => shared, { seed: 's', until: 1 })).rejects.toThrow('must build a new Simulation on every call');
    await expect(checkDeterminism(() => new Simulation({ seed: 'other' }), { seed: 's', until: 1 })).rejects.toThrow(
      'the scenario built a simulation with seed "other", not "s"',
    );
    await expect(checkDeterminism((seed) => new Simulation({ seed }), { seed: 's' })).rejects.toThrow('give a stop condition');
  });
});
