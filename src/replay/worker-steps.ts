// The order in which a replay worker (crypto-worker.ts) does its work: every part waiting to be
// prepared (step 1) before anything else, then the receipts of the parts prepared (step 2, one
// part per turn of its event loop), then their crypto (step 3, one part per turn), so that
// requests sent meanwhile are taken between two steps. The replay executes a block as soon as its
// parts are prepared, wants its receipts once it has executed (the executor takes their blooms
// and hashes), and can make the checks that need the crypto once the next block has executed: a
// block read while the crypto of the one before is still to do is prepared first, and its
// receipts encoded, and the replay does not wait for either. Once every part waiting is prepared,
// the worker can let go of the lines it parsed for them (`allPrepared`).

export class WorkerSteps<Request, Prepared> {
  private readonly toPrepare: Request[] = [];
  private readonly toReceipts: Prepared[] = [];
  private readonly toCrypto: Prepared[] = [];
  private scheduled = false;

  /**
   * `prepare`: step 1 of a request, giving what steps 2 and 3 need (undefined where it answered the
   * request whole); `receipts`: step 2; `crypto`: step 3; `allPrepared`: called once every
   * request received so far has had step 1; `later`: runs a function in a later turn of the event
   * loop.
   */
  constructor(
    private readonly steps: {
      readonly prepare: (request: Request) => Prepared | undefined;
      readonly receipts: (prepared: Prepared) => void;
      readonly crypto: (prepared: Prepared) => void;
      readonly allPrepared: () => void;
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
        if (prepared !== undefined) this.toReceipts.push(prepared);
      }
      this.steps.allPrepared();
    } else if (this.toReceipts.length > 0) {
      const next = this.toReceipts.shift()!;
      this.steps.receipts(next);
      this.toCrypto.push(next);
    } else {
      const next = this.toCrypto.shift();
      if (next !== undefined) this.steps.crypto(next);
    }
    if (this.toPrepare.length > 0 || this.toReceipts.length > 0 || this.toCrypto.length > 0) this.schedule();
  }
}
