import { describe, expect, it } from 'vitest';
import type { Env } from '../env.js';
import { probeSimulation } from './probe-node.test-helper.js';
import { DEFAULT_EPOCH_MS, Simulation, deriveNodeId } from './simulation.js';
import type { WallClock } from './wall-clock.js';

/** A wall clock that jumps instead of sleeping; `onSleep` can act at a chosen wall time. */
function fakeWall(onSleep?: (from: number, ms: number, wall: { t: number }) => void): WallClock & { t: number; sleeps: number } {
  const wall = {
    t: 1000,
    sleeps: 0,
    now: () => wall.t,
    sleep: async (ms: number) => {
      wall.sleeps++;
      const from = wall.t;
      wall.t += ms;
      onSleep?.(from, ms, wall);
    },
  };
  return wall;
}

describe('scheduler', () => {
  it('runs events in (time, scheduling order) and boots nodes first', async () => {
    const sim = probeSimulation(['a', 'b']);
    const order: string[] = [];
    sim.at(5, () => void order.push('5/first'));
    sim.at(0, () => void order.push(`0 (booted: ${sim.node('a').state}, ${sim.node('b').state})`));
    sim.at(5, () => void order.push('5/second'));
    sim.at(2.5, () => {
      order.push('2.5');
      sim.after(2.5, () => void order.push('5/third (after)'));
    });
    await sim.run({ until: 10 });
    expect(order).toEqual(['0 (booted: up, up)', '2.5', '5/first', '5/second', '5/third (after)']);
  });

  it('runs each handler to completion, all its promises awaited, before the next event', async () => {
    const sim = new Simulation({ seed: 'async' });
    const log: string[] = [];
    const slow = async (name: string) => {
      log.push(`${name} start`);
      for (let i = 0; i < 5; i++) await Promise.resolve();
      await new Promise<void>((resolve) => setImmediate(resolve)); // a real macrotask in between
      log.push(`${name} end`);
    };
    sim.addNode('n', (env: Env) => {
      env.clock.setTimer(1, () => null as never); // plain JavaScript may return null: not a promise
      env.clock.setTimer(1, () => slow('timer1'));
      env.clock.setTimer(1, () => slow('timer2'));
      return undefined;
    });
    sim.at(1, () => slow('action'));
    await sim.run({ until: 2 });
    expect(log).toEqual(['action start', 'action end', 'timer1 start', 'timer1 end', 'timer2 start', 'timer2 end']);
  });

  it('awaits an async boot before anything else runs on the node', async () => {
    const sim = new Simulation<string>({ seed: 'boot' });
    const log: string[] = [];
    sim.addNode('n', async () => {
      await new Promise<void>((resolve) => setImmediate(resolve));
      log.push('booted');
      return 'handle';
    });
    sim.at(0, () => void log.push(`action sees ${sim.handle('n')}`));
    await sim.run({ until: 0 });
    expect(log).toEqual(['booted', 'action sees handle']);
  });

  it('cancels timers, fires zero-delay timers after the current event, and discards many cancelled timers', async () => {
    const sim = new Simulation({ seed: 'timers' });
    const fired: string[] = [];
    let env!: Env;
    sim.addNode('n', (e) => {
      env = e;
      return undefined;
    });
    sim.at(1, () => {
      const doomed = env.clock.setTimer(5, () => void fired.push('doomed'));
      env.clock.setTimer(0, () => void fired.push(`zero at ${sim.now}`));
      env.clock.cancelTimer(doomed);
      env.clock.cancelTimer(doomed);
      fired.push('action');
      for (let i = 0; i < 10_000; i++) env.clock.cancelTimer(env.clock.setTimer(100, () => void fired.push('never')));
    });
    await sim.run({ until: 1 });
    expect(sim.pendingEvents).toBeLessThan(5000);
    await sim.run({ until: 1000 });
    expect(fired).toEqual(['action', 'zero at 1']);
  });

  it('stops at a virtual time, after N events, when a predicate holds, on stop(), or when idle', async () => {
    const sim = probeSimulation(['a']);
    sim.at(0, () => sim.handle('a')!.tick(10));
    expect(await sim.run({ until: 95 })).toMatchObject({ reason: 'until', now: 95 });
    expect(sim.handle('a')!.timerFirings).toHaveLength(9);
    expect(await sim.run({ forMs: 10 })).toMatchObject({ reason: 'until', now: 105, events: 1 });
    expect(await sim.run({ maxEvents: 3 })).toMatchObject({ reason: 'max-events', events: 3, now: 130 });
    expect(await sim.run({ stopWhen: (e) => e.time >= 200 })).toMatchObject({ reason: 'stop-when', now: 200 });
    sim.at(250, () => sim.stop());
    expect(await sim.run({ until: 1000 })).toMatchObject({ reason: 'stopped', now: 250 });

    const idle = probeSimulation(['a']);
    expect(await idle.run({ maxEvents: 100 })).toMatchObject({ reason: 'idle', events: 1 });
  });

  it('calls afterEvent hooks with the event, and reports an invariant violation with the event', async () => {
    const sim = probeSimulation(['a', 'b']);
    const seen: string[] = [];
    const remove = sim.afterEvent((e) => void seen.push(`${e.index}:${e.kind}:${e.node}@${e.time}`));
    sim.at(0, () => sim.handle('a')!.send('b', 1));
    await sim.run({ until: 100 });
    expect(seen.slice(0, 3)).toEqual(['0:boot:a@0', '1:boot:b@0', '2:action:null@0']);
    expect(seen[3]).toMatch(/^3:deliver:b@\d/);
    remove();
    sim.afterEvent((e) => {
      if (e.kind === 'action') throw new Error('height went backwards');
    });
    sim.at(150, () => undefined);
    await expect(sim.run({ until: 200 })).rejects.toThrow('afterEvent hook failed after event #4 (action at t=150 ms): height went backwards');
    expect(seen).toHaveLength(4);
  });

  it('reports a failing handler with node, event and time, and refuses to go on', async () => {
    const sim = new Simulation({ seed: 'boom' });
    const ids: string[] = [];
    sim.addNode('a', (env) => {
      env.clock.setTimer(3, () => env.transport.send(ids[1]!, new Uint8Array(2)));
      return undefined;
    });
    sim.addNode('b', (env) => {
      env.transport.onReceive(async () => {
        await Promise.resolve();
        throw new Error('boom');
      });
      return undefined;
    });
    ids.push(sim.node('a').nodeId, sim.node('b').nodeId);
    const failure = sim.run({ until: 100 });
    await expect(failure).rejects.toThrow(/^b: deliver of a message from a failed at t=\d+(\.\d+)? ms: boom$/);
    await expect(sim.run({ until: 200 })).rejects.toThrow('run: the simulation failed earlier and cannot continue');
  });

  it('stops a run whose handlers keep scheduling work for "now", naming the node, event and time', async () => {
    const sim = new Simulation({ seed: 'spin', maxEventsPerInstant: 1000 });
    sim.addNode('a', (env) => {
      const again = (): void => void env.clock.setTimer(0, again);
      env.clock.setTimer(7, again);
      return undefined;
    });
    await expect(sim.run({ until: 100 })).rejects.toThrow(/^a: timer failed at t=7 ms: stuck: more than 1000 events at this instant and the virtual clock has not moved/);
    // a burst up to the limit at one instant is fine, and the count starts again when time moves
    const busy = new Simulation({ seed: 'burst', maxEventsPerInstant: 1000 });
    let fired = 0;
    busy.addNode('a', (env) => {
      for (const at of [5, 6]) for (let i = 0; i < 1000; i++) env.clock.setTimer(at, () => void fired++);
      return undefined;
    });
    await busy.run({ until: 100 });
    expect(fired).toBe(2000);
    const over = new Simulation({ seed: 'burst', maxEventsPerInstant: 1000 });
    over.addNode('a', (env) => {
      for (let i = 0; i < 1001; i++) env.clock.setTimer(5, () => undefined);
      return undefined;
    });
    await expect(over.run({ until: 100 })).rejects.toThrow('a: timer failed at t=5 ms: stuck: more than 1000 events');
    expect(() => new Simulation({ seed: 's', maxEventsPerInstant: 0 })).toThrow('new Simulation: maxEventsPerInstant must be an integer ≥ 1, got 0');
  });

  it('injects outside work as an event and hands back its result or error', async () => {
    const sim = probeSimulation(['a']);
    await sim.run({ until: 10 });
    const ok = sim.inject(() => sim.handle('a')!.env.clock.now() - DEFAULT_EPOCH_MS, { node: 'a', label: 'rpc' });
    const bad = sim.inject(() => {
      throw new Error('bad request');
    });
    const late = sim.inject(async () => 'async ok');
    await sim.run({ until: 20 });
    await expect(ok).resolves.toBe(10);
    await expect(bad).rejects.toThrow('bad request');
    await expect(late).resolves.toBe('async ok');
    sim.crash('a');
    const refused = sim.inject(() => 1, { node: 'a' });
    await sim.run({ until: 30 });
    await expect(refused).rejects.toThrow('inject (external): node "a" is down');
  });

  it('pins the epoch: time zero is 2026-01-01T00:00:00Z unless the scenario says otherwise', () => {
    const sim = new Simulation({ seed: 'epoch' });
    sim.addNode('a', () => undefined);
    expect(new Date(sim.node('a').clockNow).toISOString()).toBe('2026-01-01T00:00:00.000Z');
    const other = new Simulation({ seed: 'epoch', epochMs: Date.UTC(2019, 0, 21) });
    other.addNode('a', () => undefined);
    expect(other.node('a').clockNow).toBe(Date.UTC(2019, 0, 21));
  });

  it('derives node ids from the seed unless given, and describes what the seed expanded to', () => {
    const sim = new Simulation({ seed: 's' });
    sim.addNode('a', () => undefined);
    sim.addNode('b', () => undefined, { nodeId: 'ab'.repeat(64) });
    expect(sim.node('a').nodeId).toBe(deriveNodeId('s', 'a'));
    expect(sim.node('a').nodeId).toMatch(/^[0-9a-f]{128}$/);
    expect(sim.describe()).toMatchObject({
      seed: 's',
      epoch: '2026-01-01T00:00:00.000Z',
      nodes: [
        { name: 'a', state: 'booting' },
        { name: 'b', nodeId: 'ab'.repeat(64) },
      ],
    });
  });

  it('explains bad input', async () => {
    expect(() => new Simulation({ seed: '' })).toThrow('seed must be a non-empty string or a finite number');
    const sim = probeSimulation(['a']);
    const nothing = () => undefined as never;
    expect(() => sim.addNode('a', nothing)).toThrow('addNode: there is already a node named "a"');
    expect(() => sim.addNode('x', nothing, { nodeId: 'AB' })).toThrow('nodeId must be 128 lower-case hex digits');
    expect(() => sim.addNode('x', nothing, { nodeId: sim.node('a').nodeId })).toThrow('is already used by "a"');
    await expect(sim.run({})).rejects.toThrow('run: give a stop condition');
    await expect(sim.run({ until: 5, forMs: 5 })).rejects.toThrow('give until or forMs, not both');
    await expect(sim.run({ maxEvents: 1.5 })).rejects.toThrow('maxEvents must be a non-negative integer');
    await sim.run({ until: 10 });
    await expect(sim.run({ until: 5 })).rejects.toThrow('run: until must be a number of virtual ms ≥ now (10), got 5');
    expect(() => sim.at(3, () => undefined)).toThrow('at(3): the time must be a finite number of virtual ms ≥ now (10)');
    sim.at(11, () => void sim.handle('a')!.env.clock.setTimer(NaN, () => undefined));
    await expect(sim.run({ until: 20 })).rejects.toThrow('a: setTimer delay must be a finite number of ms ≥ 0 (got NaN)');
  });

  it('refuses a second run while one is in progress', async () => {
    const sim = probeSimulation(['a']);
    const first = sim.run({ until: 10 });
    await expect(sim.run({ until: 10 })).rejects.toThrow('run: a run or step is already in progress');
    await first;
  });
});

describe('logs and node trace events', () => {
  it('captures log lines at or above the level into the trace and hands them out formatted', async () => {
    const lines: string[] = [];
    const sim = new Simulation({ seed: 'logs', trace: { keep: true }, logLevel: 'info', onLog: (node, line) => void lines.push(`${node} ${line}`) });
    sim.addNode('n', (env) => {
      env.log.write('debug', env.clock.now(), 'noise');
      env.log.write('info', env.clock.now(), '[P2P][Service] heartBeat,connected count=3');
      env.trace.event('commit', { height: 1n, hash: new Uint8Array([0xab]) });
      return undefined;
    });
    await sim.run({ until: 0 });
    expect(lines).toEqual(['n info|2026-01-01 00:00:00.000000|[P2P][Service] heartBeat,connected count=3']);
    expect(sim.trace.records.filter((r) => r.kind === 'log' || r.kind === 'commit').map((r) => r.fields)).toEqual([
      { clock: DEFAULT_EPOCH_MS, level: 'info', message: '[P2P][Service] heartBeat,connected count=3' },
      { hash: '0xab', height: '1' },
    ]);
  });

  it('takes scenario-level entries into the same trace', async () => {
    const sim = new Simulation({ seed: 'notes', trace: { keep: true } });
    sim.addNode('n', () => undefined);
    sim.at(5, () => sim.traceEvent('invariant', { ok: true }));
    sim.at(6, () => sim.traceEvent('workload', { txs: 3 }, 'n'));
    await sim.run({ until: 10 });
    expect(sim.trace.records.filter((r) => r.kind !== 'action').slice(-2)).toEqual([
      { i: 3, t: 5, node: null, kind: 'invariant', fields: { ok: true } },
      { i: 5, t: 6, node: 'n', kind: 'workload', fields: { txs: 3 } },
    ]);
    expect(() => sim.traceEvent('crash', {})).toThrow('traceEvent: kind must be a non-empty string not reserved by the simulator (got "crash")');
  });

  it('refuses reserved kinds and fields that cannot be encoded', async () => {
    for (const [emit, message] of [
      [(env: Env) => env.trace.event('deliver', {}), 'n: trace event kind "deliver" is reserved by the simulator'],
      [(env: Env) => env.trace.event('x', { f: () => 1 }), 'n: trace event "x": canonicalJson: cannot encode a function'],
      [(env: Env) => env.log.write('loud' as never, 0, 'm'), 'n: unknown log level "loud"'],
    ] as const) {
      const sim = new Simulation({ seed: 'bad-trace' });
      sim.addNode('n', (env) => void emit(env));
      await expect(sim.run({ until: 0 })).rejects.toThrow(message);
    }
  });
});

describe('paced runs', () => {
  it('follows the wall clock at the given rate', async () => {
    const wall = fakeWall();
    const sim = probeSimulation(['a']);
    sim.at(0, () => sim.handle('a')!.tick(100));
    const lags: number[] = [];
    sim.afterEvent((e) => void lags.push((wall.now() - 1000) * 10 - e.time));
    const result = await sim.run({ until: 1000, pace: { rate: 10, wall } });
    expect(result).toMatchObject({ reason: 'until', now: 1000 });
    expect(wall.t).toBeCloseTo(1100, 6);
    expect(wall.sleeps).toBeGreaterThanOrEqual(10);
    expect(lags.every((lag) => lag >= 0 && lag < 10)).toBe(true); // never ahead of the wall clock
  });

  it('runs work injected while waiting at the virtual time matching the wall clock, then serves until stopped', async () => {
    const sim = probeSimulation(['a']);
    let injected: Promise<number> | undefined;
    const wall = fakeWall((from, ms, w) => {
      if (injected === undefined && from + ms > 1250) {
        w.t = 1250; // a request arrives 250 wall ms after the start, mid-sleep
        injected = sim.inject(() => sim.now, { node: 'a' });
        void injected.then(() => sim.stop());
      }
    });
    const result = await sim.run({ until: Infinity, pace: { rate: 1, wall } });
    expect(result.reason).toBe('stopped');
    await expect(injected).resolves.toBe(250);
  });

  it('explains a bad rate', async () => {
    const sim = probeSimulation(['a']);
    await expect(sim.run({ until: 10, pace: { rate: 0, wall: fakeWall() } })).rejects.toThrow('pace.rate must be a finite number > 0');
  });
});

describe('Simulation onNodeEvent', () => {
  it('hands every node trace event to the observer with the node and virtual time', async () => {
    const { Simulation: Sim } = await import('./simulation.js');
    const seen: Array<[string, string, unknown, number]> = [];
    const sim = new Sim<void>({ seed: 'events', onNodeEvent: (node, kind, fields, t) => seen.push([node, kind, fields.n, t]) });
    sim.addNode('a', (env) => {
      env.clock.setTimer(50, () => env.trace.event('tick', { n: 1 }));
    });
    await sim.run({ until: 100 });
    expect(seen).toEqual([['a', 'tick', 1, 50]]);
  });
});
