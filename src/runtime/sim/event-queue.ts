import type { SimEvent } from './sim-event.js';

/** Binary min-heap of events ordered by (time, seq): the total order of the simulation. */
export class EventQueue {
  private heap: SimEvent[] = [];

  get size(): number {
    return this.heap.length;
  }

  peek(): SimEvent | undefined {
    return this.heap[0];
  }

  push(event: SimEvent): void {
    const heap = this.heap;
    let i = heap.length;
    heap.push(event);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = heap[parent]!;
      if (p.time < event.time || (p.time === event.time && p.seq < event.seq)) break;
      heap[i] = p;
      i = parent;
    }
    heap[i] = event;
  }

  pop(): SimEvent | undefined {
    const heap = this.heap;
    const top = heap[0];
    const last = heap.pop();
    if (top === undefined || last === undefined || heap.length === 0) return top;
    this.siftDown(last, 0);
    return top;
  }

  /** Drops every event for which `dead` holds, in O(n). */
  removeWhere(dead: (event: SimEvent) => boolean): number {
    const before = this.heap.length;
    this.heap = this.heap.filter((e) => !dead(e));
    for (let i = (this.heap.length >> 1) - 1; i >= 0; i--) this.siftDown(this.heap[i]!, i);
    return before - this.heap.length;
  }

  private siftDown(event: SimEvent, start: number): void {
    const heap = this.heap;
    const n = heap.length;
    let i = start;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= n) break;
      let c = heap[child]!;
      const right = child + 1;
      if (right < n) {
        const r = heap[right]!;
        if (r.time < c.time || (r.time === c.time && r.seq < c.seq)) {
          child = right;
          c = r;
        }
      }
      if (event.time < c.time || (event.time === c.time && event.seq < c.seq)) break;
      heap[i] = c;
      i = child;
    }
    heap[i] = event;
  }
}
