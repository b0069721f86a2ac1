import { describe, expect, it } from 'vitest';
import type { Env } from '../env.js';
import { Simulation } from './simulation.js';

interface Twinnable {
  readonly env: Env;
  readonly got: Array<{ from: string; byte: number }>;
}

/** Nodes a, b, c, and t: a twin of c (same node id). */
function twinSimulation(seed = 'twins') {
  const sim = new Simulation<Twinnable>({ seed, network: { latency: { kind: 'uniform', minMs: 1, maxMs: 5 } } });
  const nameOf = new Map<string, string>();
  const boot = (env: Env): Twinnable => {
    const self: Twinnable = { env, got: [] };
    env.transport.onReceive((from, payload) => void self.got.push({ from: nameOf.get(from)!, byte: payload[0]! }));
    return self;
  };
  for (const name of ['a', 'b', 'c']) nameOf.set(sim.addNode(name, boot).nodeId, name);
  const twin = sim.addNode('t', boot, { twinOf: 'c' });
  return { sim, id: (name: string) => sim.node(name).nodeId, twin };
}

describe('twins: two nodes sharing one identity', () => {
  it('share the id; a message to it reaches both, and each copy is counted on its own link', async () => {
    const { sim, id, twin } = twinSimulation();
    expect(twin.nodeId).toBe(id('c'));
    expect(sim.describe().nodes).toContainEqual(expect.objectContaining({ name: 't', twinOf: 'c' }));
    sim.at(1, () => sim.handle('a')!.env.transport.send(id('c'), Uint8Array.of(7)));
    await sim.run({ until: 50 });
    expect(sim.handle('c')!.got).toEqual([{ from: 'a', byte: 7 }]);
    expect(sim.handle('t')!.got).toEqual([{ from: 'a', byte: 7 }]);
    expect(sim.network.linkStats('a', 'c').delivered).toBe(1);
    expect(sim.network.linkStats('a', 't').delivered).toBe(1);
    expect(sim.network.nodeStats('a').sent).toBe(2);
  });

  it('peers see the shared id once; a twin does not see its own id, and its sends look like the original', async () => {
    const { sim, id } = twinSimulation();
    await sim.run({ until: 1 });
    const sorted = (ids: string[]) => [...ids].sort();
    expect(sorted(sim.handle('a')!.env.transport.connectedPeers())).toEqual(sorted([id('b'), id('c')]));
    expect(sorted(sim.handle('t')!.env.transport.connectedPeers())).toEqual(sorted([id('a'), id('b')]));
    expect(sorted(sim.handle('c')!.env.transport.connectedPeers())).toEqual(sorted([id('a'), id('b')]));
    sim.at(2, () => sim.handle('t')!.env.transport.send(id('b'), Uint8Array.of(9)));
    // a twin addressing its own id reaches the other twin, never itself
    sim.at(2, () => sim.handle('t')!.env.transport.send(id('c'), Uint8Array.of(3)));
    await sim.run({ until: 50 });
    expect(sim.handle('b')!.got).toEqual([{ from: 'c', byte: 9 }]);
    expect(sim.handle('c')!.got).toEqual([{ from: 'c', byte: 3 }]);
    expect(sim.handle('t')!.got).toEqual([]);
  });

  it('a partition confines each twin to its side (the Twins paper model), and the id stays a peer while one instance is reachable', async () => {
    const { sim, id } = twinSimulation();
    sim.network.partition([
      ['a', 'c'],
      ['b', 't'],
    ]);
    sim.at(1, () => {
      sim.handle('a')!.env.transport.send(id('c'), Uint8Array.of(1));
      sim.handle('b')!.env.transport.send(id('c'), Uint8Array.of(2));
    });
    await sim.run({ until: 50 });
    expect(sim.handle('c')!.got).toEqual([{ from: 'a', byte: 1 }]);
    expect(sim.handle('t')!.got).toEqual([{ from: 'b', byte: 2 }]);
    expect(sim.network.linkStats('a', 't').dropped.partition).toBe(1);
    expect(sim.handle('a')!.env.transport.connectedPeers()).toEqual([id('c')]);
    expect(sim.handle('b')!.env.transport.connectedPeers()).toEqual([id('c')]);
    sim.crash('t');
    expect(sim.handle('b')!.env.transport.connectedPeers()).toEqual([]);
  });

  it('refuses an accidental duplicate id and a twin with a different id', () => {
    const sim = new Simulation({ seed: 'dup' });
    const a = sim.addNode('a', () => undefined);
    expect(() => sim.addNode('b', () => undefined, { nodeId: a.nodeId })).toThrow(/already used by "a" \(use twinOf/);
    expect(() => sim.addNode('c', () => undefined, { twinOf: 'a', nodeId: 'ab'.repeat(64) })).toThrow(/not two different ids/);
    expect(() => sim.addNode('d', () => undefined, { twinOf: 'nobody' })).toThrow(/unknown node "nobody"/);
    expect(sim.addNode('e', () => undefined, { twinOf: 'a', nodeId: a.nodeId }).nodeId).toBe(a.nodeId);
  });

  it('the same seed twice gives the same trace with twins present', async () => {
    const run = async () => {
      const { sim, id } = twinSimulation('twins-determinism');
      for (let i = 0; i < 20; i++) sim.at(i, () => sim.handle(['a', 'b', 't'][i % 3]!)!.env.transport.send(id(['c', 'a', 'b'][i % 3]!), Uint8Array.of(i)));
      return (await sim.run({ until: 100 })).digest;
    };
    expect(await run()).toBe(await run());
  });
});
