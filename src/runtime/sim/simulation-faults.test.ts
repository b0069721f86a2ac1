import { describe, expect, it } from 'vitest';
import type { Env } from '../env.js';
import type { KvStore } from '../../storage/index.js';
import { probeSimulation, type Probe } from './probe-node.test-helper.js';
import { DEFAULT_EPOCH_MS, Simulation } from './simulation.js';

const key = (s: string) => new TextEncoder().encode(s);

describe('crash and restart', () => {
  it('a crashed node receives nothing and its timers stop; messages to it count as node-down drops', async () => {
    const sim = probeSimulation(['a', 'b'], { network: { latency: { kind: 'constant', ms: 20 } } });
    let b: Probe | undefined;
    sim.at(0, () => {
      b = sim.handle('b');
      b!.tick(50);
      sim.handle('a')!.stream('b', 10, 100);
    });
    sim.at(500, () => sim.crash('b'));
    await sim.run({ until: 1500 });
    expect(b!.arrivals.length).toBeGreaterThan(40);
    expect(b!.arrivals.every((m) => m.at <= 500)).toBe(true);
    expect(b!.timerFirings.every((t) => t <= 500)).toBe(true);
    const stats = sim.network.linkStats('a', 'b');
    expect(stats.delivered).toBe(b!.arrivals.length);
    expect(stats.dropped.nodeDown).toBe(stats.sent - stats.delivered);
    expect(stats.dropped.nodeDown).toBeGreaterThan(40);
    expect(sim.node('b')).toMatchObject({ state: 'down', handle: undefined });
  });

  it('a timer the crashed incarnation armed never fires in the restarted one', async () => {
    const sim = probeSimulation(['a', 'b']);
    let before: Probe | undefined;
    sim.at(0, () => {
      before = sim.handle('b');
      before!.tick(50);
    });
    sim.at(520, () => sim.crash('b'));
    // back before the old incarnation's next tick (550) was due
    sim.at(530, () => sim.restart('b'));
    await sim.run({ until: 1500 });
    expect(sim.node('b').state).toBe('up');
    expect(sim.handle('b')).not.toBe(before);
    expect(before!.timerFirings).toEqual([50, 100, 150, 200, 250, 300, 350, 400, 450, 500]);
  });

  it('loses the writes not yet synced, restarts from what was durable, and leaves the old Env inert', async () => {
    const boots: Array<{ synced?: string; unsynced?: string }> = [];
    let oldEnv: Env | undefined;
    let oldStore: KvStore | undefined;
    const sim = new Simulation<{ env: Env; store: KvStore }>({ seed: 'crash', trace: { keep: true } });
    sim.addNode('n', async (env) => {
      const store = await env.storage.open('ledger');
      const read = async (k: string) => {
        const v = await store.get(key(k));
        return v && new TextDecoder().decode(v);
      };
      boots.push({ synced: await read('synced'), unsynced: await read('unsynced') });
      if (boots.length === 1) {
        await store.batch([{ type: 'put', key: key('synced'), value: key('yes') }], { sync: true });
        await store.put(key('unsynced'), key('yes'));
      }
      return { env, store };
    });
    sim.addNode('peer', () => ({}) as never);
    sim.at(10, () => {
      oldEnv = sim.handle('n')!.env;
      oldStore = sim.handle('n')!.store;
      sim.crash('n');
    });
    sim.at(20, () => sim.restart('n'));
    await sim.run({ until: 30 });

    expect(boots).toEqual([{}, { synced: 'yes' }]);
    expect(sim.trace.records.find((r) => r.kind === 'crash')?.fields).toEqual({ lostWrites: 1 });
    expect(sim.node('n')).toMatchObject({ state: 'up', incarnation: 2 });
    await expect(oldStore!.get(key('synced'))).rejects.toThrow('n: store "ledger" belongs to incarnation 1, which crashed');

    const sentBefore = sim.network.totals().sent;
    let fired = false;
    oldEnv!.transport.send(sim.node('peer').nodeId, new Uint8Array(1));
    oldEnv!.clock.setTimer(1, () => {
      fired = true;
    });
    await sim.run({ until: 100 });
    expect(sim.network.totals().sent).toBe(sentBefore);
    expect(fired).toBe(false);
  });

  it('refuses faults that make no sense for the node state', async () => {
    const sim = probeSimulation(['a']);
    await sim.run({ until: 1 });
    expect(() => sim.restart('a')).toThrow('restart("a"): the node is up; only a crashed node can restart');
    expect(() => sim.resume('a')).toThrow('resume("a"): the node is up, not paused');
    sim.crash('a');
    expect(() => sim.crash('a')).toThrow('crash("a"): the node is already down');
    expect(() => sim.pause('a')).toThrow('pause("a"): the node is down; only a running node can pause');
    expect(() => sim.crash('nobody')).toThrow('crash: unknown node "nobody" (nodes: a)');
  });
});

describe('pause and resume', () => {
  it('defers deliveries and timers while paused and runs them all, in order, on resume', async () => {
    const sim = probeSimulation(['a', 'b'], { network: { latency: { kind: 'constant', ms: 1 } } });
    sim.at(0, () => {
      sim.handle('b')!.tick(100);
      sim.handle('a')!.stream('b', 10, 100);
    });
    sim.at(250, () => sim.pause('b'));
    sim.at(600, () => sim.resume('b'));
    await sim.run({ until: 2000 });
    const b = sim.handle('b')!;
    expect(b.arrivals.filter((m) => m.at > 250 && m.at < 600)).toEqual([]);
    expect(b.arrivals.filter((m) => m.at === 600).length).toBe(35);
    expect(b.arrivals.map((m) => m.seq)).toEqual([...Array(100).keys()]);
    expect(b.timerFirings.filter((t) => t > 250 && t < 600)).toEqual([]);
    expect(b.timerFirings).toContain(600);
    expect(sim.network.linkStats('a', 'b').dropped.total).toBe(0);
  });

  it('a crash while paused drops what was waiting: messages count as node-down, injected work fails', async () => {
    const sim = probeSimulation(['a', 'b']);
    await sim.run({ until: 10 });
    sim.pause('b');
    sim.at(20, () => sim.handle('a')!.stream('b', 1, 5));
    const work = sim.inject(() => 'never', { node: 'b' });
    sim.at(50, () => sim.crash('b'));
    await sim.run({ until: 100 });
    await expect(work).rejects.toThrow('inject (external): node "b" crashed before it could run the work');
    expect(sim.network.linkStats('a', 'b')).toMatchObject({ sent: 5, delivered: 0, inFlight: 0, dropped: { nodeDown: 5 } });
  });

  it('holds injected work for a paused node until it resumes', async () => {
    const sim = probeSimulation(['a']);
    await sim.run({ until: 10 });
    sim.pause('a');
    const answer = sim.inject(() => sim.now, { node: 'a' });
    sim.at(50, () => sim.resume('a'));
    await sim.run({ until: 100 });
    await expect(answer).resolves.toBe(50);
  });
});

describe('clock skew', () => {
  it('a skewed clock reads the offset', async () => {
    const sim = probeSimulation(['a', 'b', 'c']);
    sim.setClockSkew('b', { offsetMs: 5000 });
    sim.setClockSkew('c', { offsetMs: -250 });
    const readings: number[] = [];
    sim.at(100, () => {
      for (const n of ['a', 'b', 'c']) readings.push(sim.handle(n)!.env.clock.now());
    });
    await sim.run({ until: 100 });
    expect(readings).toEqual([DEFAULT_EPOCH_MS + 100, DEFAULT_EPOCH_MS + 5100, DEFAULT_EPOCH_MS - 150]);
    expect(sim.node('b').clockNow - sim.node('a').clockNow).toBe(5000);
  });

  it('drift makes a clock run fast or slow, and its timers follow its own clock', async () => {
    const sim = probeSimulation(['fast', 'slow']);
    sim.setClockSkew('fast', { drift: 0.5 });
    sim.setClockSkew('slow', { drift: -0.5 });
    const firedAt: Record<string, number> = {};
    sim.at(0, () => {
      for (const n of ['fast', 'slow']) sim.handle(n)!.env.clock.setTimer(1500, () => void (firedAt[n] = sim.now));
    });
    await sim.run({ until: 1000 });
    expect(sim.node('fast').clockNow).toBe(DEFAULT_EPOCH_MS + 1500);
    expect(sim.node('slow').clockNow).toBe(DEFAULT_EPOCH_MS + 500);
    expect(firedAt).toEqual({ fast: 1000 });
    await sim.run({ until: 3000 });
    expect(firedAt).toEqual({ fast: 1000, slow: 3000 });
  });

  it('takes an initial skew from addNode and explains bad skews', () => {
    const sim = new Simulation({ seed: 1 });
    sim.addNode('a', () => undefined, { clockSkew: { offsetMs: 42 } });
    expect(sim.node('a').clockNow).toBe(DEFAULT_EPOCH_MS + 42);
    expect(() => sim.setClockSkew('a', { drift: -1 })).toThrow('drift must be a finite number > -1 (got -1)');
    expect(() => sim.setClockSkew('a', { offsetMs: NaN })).toThrow('offsetMs must be a finite number (got NaN)');
  });
});
