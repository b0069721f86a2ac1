import { describe, expect, it } from 'vitest';
import { inversions, probeSimulation } from './probe-node.test-helper.js';
import { SimulationError } from './simulation-error.js';

const ALL = ['a', 'b', 'c', 'd'];

/** Every node sends to every other node every 10 ms from t=0, 100 messages per link. */
function allToAll(sim: ReturnType<typeof probeSimulation>, names = ALL, count = 100) {
  sim.at(0, () => {
    for (const from of names) for (const to of names) if (from !== to) sim.handle(from)!.stream(to, 10, count);
  });
}

const from = (sim: ReturnType<typeof probeSimulation>, to: string, sender: string) =>
  sim.handle(to)!.arrivals.filter((a) => a.from === sender);

describe('partitions', () => {
  it('a symmetric partition delivers nothing across it, counts the drops, and heals', async () => {
    const sim = probeSimulation(ALL);
    const cut = sim.network.partition([
      ['a', 'b'],
      ['c', 'd'],
    ]);
    allToAll(sim);
    await sim.run({ until: 500 });
    for (const [x, y] of [['a', 'c'], ['c', 'a'], ['b', 'd'], ['d', 'a']]) {
      expect(from(sim, y!, x!)).toEqual([]);
      const stats = sim.network.linkStats(x!, y!);
      expect(stats.delivered).toBe(0);
      expect(stats.dropped.partition).toBe(stats.sent);
      expect(stats.sent).toBeGreaterThan(40);
    }
    const ab = sim.network.linkStats('a', 'b');
    expect(from(sim, 'b', 'a').length).toBe(ab.delivered);
    expect(ab.delivered + ab.inFlight).toBe(ab.sent);
    expect(sim.network.isCut('a', 'c')).toBe(true);

    sim.network.heal(cut);
    await sim.run({ until: 1200 });
    const healed = from(sim, 'c', 'a');
    expect(healed.length).toBeGreaterThan(40);
    expect(healed.every((m) => m.at > 500)).toBe(true);
    expect(sim.network.partitions).toEqual([]);
  });

  it('a one-way partition passes one direction only', async () => {
    const sim = probeSimulation(['a', 'b']);
    sim.network.partitionOneWay('a', 'b');
    allToAll(sim, ['a', 'b']);
    await sim.run({ until: 2000 });
    expect(from(sim, 'b', 'a')).toEqual([]);
    expect(sim.network.linkStats('a', 'b').dropped.partition).toBe(100);
    expect(from(sim, 'a', 'b').map((m) => m.seq)).toEqual([...Array(100).keys()]);
  });

  it('drops messages already in flight when the cut happens', async () => {
    const sim = probeSimulation(['a', 'b'], { network: { latency: { kind: 'constant', ms: 50 } } });
    sim.at(0, () => sim.handle('a')!.send('b', 1));
    sim.at(10, () => void sim.network.partition([['a'], ['b']]));
    await sim.run({ until: 100 });
    expect(from(sim, 'b', 'a')).toEqual([]);
    expect(sim.network.linkStats('a', 'b').dropped.partition).toBe(1);
  });

  it('overlapping partitions: healing one leaves the links the other cuts cut', async () => {
    const sim = probeSimulation(['a', 'b', 'c']);
    const first = sim.network.partition([['a'], ['b', 'c']]);
    const second = sim.network.partitionOneWay('a', 'b');
    sim.network.heal(first);
    expect(sim.network.isCut('a', 'b')).toBe(true);
    expect(sim.network.isCut('b', 'a')).toBe(false);
    expect(sim.network.isCut('a', 'c')).toBe(false);
    expect(sim.network.partitions.map((p) => p.id)).toEqual([second.id]);
    allToAll(sim, ['a', 'b', 'c'], 20);
    await sim.run({ until: 1000 });
    expect(from(sim, 'b', 'a')).toEqual([]);
    expect(from(sim, 'a', 'b')).toHaveLength(20);
    expect(from(sim, 'c', 'a')).toHaveLength(20);
    // healing a healed partition again does not lift the one still in force
    sim.network.heal(first);
    expect(sim.network.isCut('a', 'b')).toBe(true);
  });

  it('isolate cuts one node off and connectedPeers follows the topology', async () => {
    const sim = probeSimulation(ALL);
    await sim.run({ until: 1 });
    const peersOf = (name: string) => sim.handle(name)!.env.transport.connectedPeers().map((id) => sim.nodes().find((n) => n.nodeId === id)!.name);
    expect(peersOf('a')).toEqual(['b', 'c', 'd']);
    const island = sim.network.isolate('d');
    expect(peersOf('a')).toEqual(['b', 'c']);
    expect(peersOf('d')).toEqual([]);
    sim.network.heal(island);
    sim.network.partitionOneWay('c', 'a');
    expect(peersOf('a')).toEqual(['b', 'd']); // a connection needs both directions
    sim.network.heal();
    sim.pause('b');
    sim.crash('c');
    expect(peersOf('a')).toEqual(['b', 'd']); // paused peers keep their connections; crashed ones do not
  });
});

describe('link faults', () => {
  it('loses messages near the configured rate and counts them', async () => {
    const sim = probeSimulation(['a', 'b'], { network: { lossRate: 0.2 } });
    sim.at(0, () => sim.handle('a')!.stream('b', 0.1, 10_000));
    await sim.run({ until: 5000 });
    const stats = sim.network.linkStats('a', 'b');
    expect(stats.sent).toBe(10_000);
    expect(stats.dropped.loss / stats.sent).toBeGreaterThan(0.18);
    expect(stats.dropped.loss / stats.sent).toBeLessThan(0.22);
    expect(from(sim, 'b', 'a').length).toBe(stats.sent - stats.dropped.loss);
    expect(stats.delivered).toBe(stats.sent - stats.dropped.loss);
  });

  it('duplicates messages: the receiver sees some twice', async () => {
    const sim = probeSimulation(['a', 'b'], { network: { duplicateRate: 0.1 } });
    sim.at(0, () => sim.handle('a')!.stream('b', 1, 2000));
    await sim.run({ until: 5000 });
    const stats = sim.network.linkStats('a', 'b');
    const seqs = from(sim, 'b', 'a').map((m) => m.seq);
    expect(stats.duplicated / stats.sent).toBeGreaterThan(0.08);
    expect(stats.duplicated / stats.sent).toBeLessThan(0.12);
    expect(seqs.length).toBe(2000 + stats.duplicated);
    expect(new Set(seqs).size).toBe(2000);
  });

  it('keeps each link FIFO despite jitter, and reorders only with reorderRate', async () => {
    const jittery = probeSimulation(['a', 'b'], { network: { latency: { kind: 'uniform', minMs: 1, maxMs: 30 }, jitterMs: 20 } });
    jittery.at(0, () => jittery.handle('a')!.stream('b', 1, 1000));
    await jittery.run({ until: 5000 });
    expect(inversions(from(jittery, 'b', 'a').map((m) => m.seq))).toBe(0);

    const reordering = probeSimulation(['a', 'b'], { network: { reorderRate: 0.2, reorderDelayMs: 20 } });
    reordering.at(0, () => reordering.handle('a')!.stream('b', 1, 1000));
    await reordering.run({ until: 5000 });
    const seqs = from(reordering, 'b', 'a').map((m) => m.seq);
    expect(seqs).toHaveLength(1000);
    expect(inversions(seqs)).toBeGreaterThan(50);
  });

  it('drops what exceeds a link queue capacity', async () => {
    const sim = probeSimulation(['a', 'b']);
    sim.network.setLink('a', 'b', { queueCapacity: 5 });
    sim.at(0, () => {
      for (let i = 0; i < 20; i++) sim.handle('a')!.send('b', i);
    });
    await sim.run({ until: 100 });
    const stats = sim.network.linkStats('a', 'b');
    expect(from(sim, 'b', 'a').map((m) => m.seq)).toEqual([0, 1, 2, 3, 4]);
    expect(stats.dropped.queueFull).toBe(15);
    expect(stats.inFlight).toBe(0);
  });

  it('a clog holds messages for its duration and loses none', async () => {
    const sim = probeSimulation(['a', 'b'], { network: { latency: { kind: 'constant', ms: 2 } } });
    sim.at(0, () => sim.handle('a')!.stream('b', 10, 100));
    sim.at(200, () => sim.network.clog('a', 'b', 300));
    await sim.run({ until: 2000 });
    const arrivals = from(sim, 'b', 'a');
    expect(arrivals.map((m) => m.seq)).toEqual([...Array(100).keys()]);
    expect(arrivals.filter((m) => m.at > 202 && m.at < 500)).toEqual([]);
    expect(arrivals.filter((m) => m.at === 500).length).toBeGreaterThanOrEqual(29);
    expect(arrivals.filter((m) => m.at > 500).every((m) => m.at === m.seq * 10 + 2)).toBe(true);
  });

  it('a shorter clog inside a longer one does not shorten it', async () => {
    const sim = probeSimulation(['a', 'b'], { network: { latency: { kind: 'constant', ms: 2 } } });
    sim.at(0, () => sim.handle('a')!.stream('b', 10, 100));
    sim.at(200, () => sim.network.clog('a', 'b', 300));
    sim.at(250, () => sim.network.clogOneWay('a', 'b', 50));
    await sim.run({ until: 2000 });
    const arrivals = from(sim, 'b', 'a');
    expect(arrivals.filter((m) => m.at > 202 && m.at < 500)).toEqual([]);
    expect(arrivals.map((m) => m.seq)).toEqual([...Array(100).keys()]);
  });

  it('per-link overrides apply to their link only and can be changed at any virtual time', async () => {
    const sim = probeSimulation(['a', 'b', 'c'], { network: { latency: { kind: 'constant', ms: 1 } } });
    sim.network.setLink('a', 'b', { latency: { kind: 'constant', ms: 40 } });
    sim.at(0, () => {
      sim.handle('a')!.send('b', 1);
      sim.handle('a')!.send('c', 1);
    });
    sim.at(100, () => {
      sim.network.setLink('a', 'b', null);
      sim.handle('a')!.send('b', 2);
    });
    await sim.run({ until: 200 });
    expect(from(sim, 'b', 'a').map((m) => m.at)).toEqual([40, 101]);
    expect(from(sim, 'c', 'a').map((m) => m.at)).toEqual([1]);
  });

  it.each([
    [{ kind: 'constant', ms: 7 }, 7, 7],
    [{ kind: 'uniform', minMs: 2, maxMs: 9 }, 2, 9],
    [{ kind: 'exponential', minMs: 3, meanMs: 5 }, 3, 200],
    [{ kind: 'normal', meanMs: 10, stdDevMs: 2, minMs: 4 }, 4, 30],
  ] as const)('latency %j stays within its bounds', async (latency, min, max) => {
    const sim = probeSimulation(['a', 'b'], { network: { latency } });
    sim.network.setLink('a', 'b', { reorderRate: 1, reorderDelayMs: 0 }); // no FIFO clamping: raw latencies
    sim.at(0, () => {
      for (let i = 0; i < 2000; i++) sim.handle('a')!.send('b', i);
    });
    await sim.run({ until: 1000 });
    const latencies = from(sim, 'b', 'a').map((m) => m.at);
    expect(latencies).toHaveLength(2000);
    expect(Math.min(...latencies)).toBeGreaterThanOrEqual(min);
    expect(Math.max(...latencies)).toBeLessThanOrEqual(max);
    const mean = latencies.reduce((x, y) => x + y, 0) / latencies.length;
    const expected = latency.kind === 'constant' ? 7 : latency.kind === 'uniform' ? 5.5 : latency.kind === 'exponential' ? 5 : 10;
    expect(Math.abs(mean - expected)).toBeLessThan(0.3);
  });

  it('counts sends to unknown addresses per node', async () => {
    const sim = probeSimulation(['a']);
    sim.at(0, () => sim.handle('a')!.env.transport.send('ff'.repeat(64), new Uint8Array(1)));
    await sim.run({ until: 1 });
    expect(sim.network.nodeStats('a').unroutable).toBe(1);
    expect(sim.network.totals().unroutable).toBe(1);
  });

  it('sums traffic per node and for the whole network', async () => {
    const sim = probeSimulation(['a', 'b', 'c']);
    sim.network.partitionOneWay('c', 'a');
    allToAll(sim, ['a', 'b', 'c'], 10);
    await sim.run({ until: 1000 });
    const a = sim.network.nodeStats('a');
    expect(a.sent).toBe(20);
    expect(a.received).toBe(10);
    expect(a.droppedInbound.partition).toBe(10);
    expect(sim.network.nodeStats('c').droppedOutbound.partition).toBe(10);
    expect(sim.network.totals()).toMatchObject({ sent: 60, delivered: 50, inFlight: 0, dropped: { partition: 10, total: 10 } });
  });
});

describe('random streams', () => {
  it('adding a node does not change the draws of existing links', async () => {
    const times = async (names: string[]) => {
      const sim = probeSimulation(names, { seed: 'stable' });
      sim.at(0, () => {
        for (const to of names) if (to !== 'a') sim.handle('a')!.stream(to, 1, 200);
      });
      await sim.run({ until: 1000 });
      return from(sim, 'b', 'a').map((m) => m.at);
    };
    expect(await times(['a', 'b', 'c'])).toEqual(await times(['a', 'b']));
  });
});

describe('bad input', () => {
  it('explains bad link settings, names and payloads', async () => {
    const sim = probeSimulation(['a', 'b']);
    expect(() => sim.network.setDefaults({ lossRate: 2 })).toThrow('lossRate must be a number in [0, 1] (got 2)');
    expect(() => sim.network.setLink('a', 'b', { latency: { kind: 'uniform', minMs: 5, maxMs: 1 } })).toThrow('maxMs (1) is below minMs (5)');
    expect(() => sim.network.setLink('a', 'b', { latency: { kind: 'exponential', minMs: 5, meanMs: 4 } })).toThrow('meanMs (4) is below minMs (5)');
    expect(() => sim.network.setLink('a', 'b', { latency: { kind: 'exponential', minMs: 5, meanMs: 5 } })).not.toThrow();
    expect(() => sim.network.setLink('a', 'b', { latency: { kind: 'pareto' } as never })).toThrow('kind must be constant, uniform, exponential or normal');
    expect(() => sim.network.setLink('a', 'b', { lossrate: 0.1 } as never)).toThrow('unknown link setting "lossrate"');
    expect(() => sim.network.setLink('a', 'b', { queueCapacity: 0 })).toThrow('queueCapacity must be a positive integer or null');
    expect(() => sim.network.partition([['a'], ['zed']])).toThrow(SimulationError);
    expect(() => sim.network.partition([['a'], ['zed']])).toThrow('unknown node "zed" (nodes: a, b)');
    expect(() => sim.network.partition([['a', 'b'], ['b']])).toThrow('"b" is in more than one group');
    expect(() => sim.network.clog('a', 'b', -1)).toThrow('durationMs must be a finite number ≥ 0');
    sim.at(0, () => sim.handle('a')!.env.transport.send(sim.node('b').nodeId, 'hello' as never));
    await expect(sim.run({ until: 1 })).rejects.toThrow('a: Transport.send needs the payload as a Uint8Array (got string)');
  });
});
