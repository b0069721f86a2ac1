import { describe, expect, it } from 'vitest';
import { probeSimulation, type Probe } from './probe-node.test-helper.js';
import type { Simulation, SimulationOptions } from './simulation.js';

// probe messages carry a 4-byte big-endian sequence number: even ones are one kind, odd ones another
const parity = (payload: Uint8Array): string | undefined => (payload.length < 4 ? undefined : payload[3]! % 2 === 0 ? 'even' : 'odd');
const ALL = ['a', 'b', 'c', 'd'];
const CONSTANT: Partial<SimulationOptions> = { network: { latency: { kind: 'constant', ms: 10 } } };

function setup(options: Partial<SimulationOptions> = CONSTANT, names = ALL, count = 100): Simulation<Probe> {
  const sim = probeSimulation(names, options);
  sim.network.setClassifier(parity);
  sim.at(0, () => {
    for (const from of names) for (const to of names) if (from !== to) sim.handle(from)!.stream(to, 10, count);
  });
  return sim;
}

const arrivals = (sim: Simulation<Probe>, to: string, from: string) => sim.handle(to)!.arrivals.filter((a) => a.from === from);

describe('message-kind faults', () => {
  it('dropping one kind to one node: that node gets none of it during the fault, every other message flows', async () => {
    const sim = setup();
    sim.at(200, () => void sim.network.messageFault({ kinds: ['even'], to: 'b', drop: true, durationMs: 400 }));
    await sim.run({ until: 1500 });
    for (const sender of ['a', 'c', 'd']) {
      const got = arrivals(sim, 'b', sender);
      // sent at 200 ≤ t < 600 (seq 20 … 59): the even ones are gone, the odd ones arrive
      const during = got.filter((m) => m.seq >= 20 && m.seq < 60);
      expect(during.map((m) => m.seq)).toEqual([...Array(20).keys()].map((i) => 21 + 2 * i));
      expect(got.filter((m) => m.seq < 20 || m.seq >= 60)).toHaveLength(60);
      const stats = sim.network.linkStats(sender, 'b');
      expect(stats.dropped.kind).toBe(20);
      expect(stats.dropped.total).toBe(20);
      expect(stats.delivered).toBe(80);
    }
    for (const [x, y] of [['b', 'a'], ['a', 'c'], ['d', 'c']] as const) expect(arrivals(sim, y, x)).toHaveLength(100);
    expect(sim.network.nodeStats('b').droppedInbound.kind).toBe(60);
    expect(sim.network.totals().dropped.kind).toBe(60);
    expect(sim.network.messageFaults).toEqual([]);
  });

  it('from and to narrow the links; lifting ends the fault early', async () => {
    const sim = setup();
    // made before the run: it acts from the first message on
    const handle = sim.network.messageFault({ kinds: ['even', 'odd'], from: ['a', 'c'], to: 'd', drop: true, durationMs: 10_000 });
    sim.at(500, () => {
      expect(sim.network.messageFaults).toEqual([{ id: handle.id, description: 'drop even,odd a,c -> d' }]);
      sim.network.liftMessageFault(handle);
    });
    await sim.run({ until: 1500 });
    for (const sender of ['a', 'c']) expect(arrivals(sim, 'd', sender).map((m) => m.seq)).toEqual([...Array(50).keys()].map((i) => 50 + i));
    expect(arrivals(sim, 'd', 'b')).toHaveLength(100);
    expect(arrivals(sim, 'c', 'a')).toHaveLength(100);
    expect(sim.network.messageFaults).toEqual([]);
  });

  it('a delay shifts arrival by exactly the delay, for that kind only, not holding back the link’s other messages', async () => {
    const base = setup();
    await base.run({ until: 2000 });
    const sim = setup();
    sim.at(0, () => void sim.network.messageFault({ kinds: ['odd'], from: 'a', to: 'b', delayMs: 250, durationMs: 500 }));
    await sim.run({ until: 2000 });
    const before = new Map(arrivals(base, 'b', 'a').map((m) => [m.seq, m.at]));
    const after = arrivals(sim, 'b', 'a');
    expect(after).toHaveLength(100);
    for (const m of after) {
      const delayed = m.seq % 2 === 1 && m.seq < 50; // sent before 500 ms
      expect(m.at - before.get(m.seq)!, `seq ${m.seq}`).toBe(delayed ? 250 : 0);
    }
    expect(arrivals(sim, 'c', 'a')).toEqual(arrivals(base, 'c', 'a'));
    expect(sim.network.linkStats('a', 'b').dropped.total).toBe(0);
  });

  it('a probabilistic drop loses about that share, the same per seed, without moving the links’ own draws', async () => {
    const run = async (seed: string, p: number | undefined) => {
      const sim = setup({ seed, network: { latency: { kind: 'uniform', minMs: 1, maxMs: 30 }, jitterMs: 5 } }, ['a', 'b'], 2000);
      if (p !== undefined) sim.at(0, () => void sim.network.messageFault({ kinds: ['even'], drop: p, durationMs: 100_000 }));
      await sim.run({ until: 30_000 });
      return { got: arrivals(sim, 'b', 'a'), dropped: sim.network.linkStats('a', 'b').dropped.kind };
    };
    const one = await run('s1', 0.3);
    expect(one.dropped / 1000).toBeGreaterThan(0.25);
    expect(one.dropped / 1000).toBeLessThan(0.35);
    expect(one.got).toHaveLength(2000 - one.dropped);
    expect(await run('s1', 0.3)).toEqual(one);
    const other = await run('s2', 0.3);
    expect(other.got.map((m) => m.seq)).not.toEqual(one.got.map((m) => m.seq));
    // odd messages get the very latency draws they get without the fault (the FIFO rule aside, which only ever delays)
    const clean = await run('s1', undefined);
    const cleanAt = new Map(clean.got.map((m) => [m.seq, m.at]));
    const odd = one.got.filter((m) => m.seq % 2 === 1);
    expect(odd).toHaveLength(1000);
    const same = odd.filter((m) => m.at === cleanAt.get(m.seq)).length;
    expect(same / 1000).toBeGreaterThan(0.9);
  });

  it('with a classifier but no fault, or after the faults expired, the trace digest is what it is without', async () => {
    const digest = async (install: boolean, fault: boolean) => {
      const sim = probeSimulation(ALL, { seed: 'digest' });
      if (install) sim.network.setClassifier(parity);
      sim.at(0, () => {
        for (const from of ALL) for (const to of ALL) if (from !== to) sim.handle(from)!.stream(to, 10, 50);
      });
      if (fault) sim.at(0, () => void sim.network.messageFault({ kinds: ['even'], drop: true, durationMs: 0 }));
      await sim.run({ until: 1000 });
      return { digest: sim.trace.digest, arrivals: ALL.map((n) => sim.handle(n)!.arrivals) };
    };
    const plain = await digest(false, false);
    expect(await digest(true, false)).toEqual(plain);
    const expired = await digest(true, true);
    expect(expired.arrivals).toEqual(plain.arrivals); // the fault is traced, but acts on nothing
    expect(expired.digest).not.toBe(plain.digest);
  });

  it('explains bad input', () => {
    const sim = probeSimulation(['a', 'b']);
    expect(() => sim.network.messageFault({ kinds: ['even'], drop: true, durationMs: 1 })).toThrow('no message classifier is installed');
    sim.network.setClassifier(parity);
    expect(() => sim.network.messageFault({ kinds: [], drop: true, durationMs: 1 })).toThrow('kinds must be a non-empty list');
    expect(() => sim.network.messageFault({ kinds: ['even'], durationMs: 1 })).toThrow('exactly one of drop and delayMs');
    expect(() => sim.network.messageFault({ kinds: ['even'], drop: true, delayMs: 5, durationMs: 1 })).toThrow('exactly one of drop and delayMs');
    expect(() => sim.network.messageFault({ kinds: ['even'], drop: 1.5, durationMs: 1 })).toThrow('drop must be true or a probability in (0, 1]');
    expect(() => sim.network.messageFault({ kinds: ['even'], delayMs: -1, durationMs: 1 })).toThrow('delayMs must be a finite number ≥ 0');
    expect(() => sim.network.messageFault({ kinds: ['even'], drop: true, durationMs: NaN })).toThrow('durationMs must be a finite number ≥ 0');
    expect(() => sim.network.messageFault({ kinds: ['even'], to: 'zed', drop: true, durationMs: 1 })).toThrow('unknown node "zed"');
  });
});
