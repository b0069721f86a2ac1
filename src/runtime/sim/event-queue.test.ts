import { describe, expect, it } from 'vitest';
import { EventQueue } from './event-queue.js';
import { SeededRng } from './seeded-rng.js';
import { SimEvent } from './sim-event.js';

const event = (time: number, seq: number) => Object.assign(new SimEvent(), { time, seq });

describe('EventQueue', () => {
  it('pops in (time, seq) order whatever the push order', () => {
    const rng = new SeededRng('queue');
    const queue = new EventQueue();
    const events = Array.from({ length: 5000 }, (_, seq) => event(rng.int(200), seq));
    for (const e of [...events].sort(() => rng.next() - 0.5)) queue.push(e);
    const popped: SimEvent[] = [];
    for (let e = queue.pop(); e !== undefined; e = queue.pop()) popped.push(e);
    expect(popped).toEqual([...events].sort((a, b) => a.time - b.time || a.seq - b.seq));
    expect(queue.size).toBe(0);
    expect(queue.pop()).toBeUndefined();
  });

  it('removes events in bulk and keeps the order of the rest', () => {
    const queue = new EventQueue();
    for (let i = 0; i < 100; i++) queue.push(event(100 - i, i));
    expect(queue.removeWhere((e) => e.seq % 3 === 0)).toBe(34);
    const times: number[] = [];
    for (let e = queue.pop(); e !== undefined; e = queue.pop()) times.push(e.time);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(times).toHaveLength(66);
  });
});
