/**
 * Runs async jobs one at a time in arrival order. A group's handlers (messages, timers, RPC
 * submissions) all go through one, so a real node never interleaves two of them; in simulation
 * the scheduler already awaits each event, and the queue costs one promise per job.
 */
export class WorkQueue {
  private tail: Promise<unknown> = Promise.resolve();
  private depth = 0;

  run<T>(job: () => Promise<T> | T): Promise<T> {
    this.depth++;
    const result = this.tail.then(job);
    this.tail = result.then(
      () => this.depth--,
      () => this.depth--,
    );
    return result;
  }

  /** Jobs queued or running. */
  get size(): number {
    return this.depth;
  }
}
