// The order in which a replay worker (crypto-worker.ts) does its work: every part waiting to be
// prepared (step 1) before the next part's crypto (step 2), one crypto step per turn of its event
// loop, so that requests sent meanwhile are taken between two steps. The replay executes a block
// as soon as its parts are prepared and can make the checks that need a block's crypto once the
// next block has executed: a block read while the crypto of the one before is still to do is
// prepared first, and the replay does not wait for it.

export class WorkerSteps<Request, Prepared> {
  private readonly toPrepare: Request[] = [];
  private readonly toCrypto: Prepared[] = [];
  private scheduled = false;

  /**
   * `prepare`: step 1 of a request, giving what step 2 needs (undefined where it answered the
   * request whole); `crypto`: step 2; `idle`: called once nothing is left to do; `later`: runs
   * a function in a later turn of the event loop.
   */
  constructor(
    private readonly steps: {
      readonly prepare: (request: Request) => Prepared | undefined;
      readonly crypto: (prepared: Prepared) => void;
      readonly idle: () => void;
      readonly later: (run: () => void) => void;
    },
  ) {}

  /** Requests received (in the order their answers are due). */
  add(requests: readonly Request[]): void {
    this.toPrepare.push(...requests);
    this.schedule();
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    this.steps.later(() => this.step());
  }

  private step(): void {
    this.scheduled = false;
    if (this.toPrepare.length > 0) {
      for (const request of this.toPrepare.splice(0)) {
        const prepared = this.steps.prepare(request);
        if (prepared !== undefined) this.toCrypto.push(prepared);
      }
    } else {
      const next = this.toCrypto.shift();
      if (next !== undefined) this.steps.crypto(next);
    }
    if (this.toPrepare.length > 0 || this.toCrypto.length > 0) this.schedule();
    else this.steps.idle();
  }
}
