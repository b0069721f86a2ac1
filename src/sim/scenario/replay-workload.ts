import type { RecordedTraffic, TrafficTransaction } from '../../replay/index.js';
import { durationMs } from './scenario-loader.js';
import type { ReplayWorkload } from './scenario-schema.js';
import { MAX_ATTEMPTS, RESEND_AFTER_MS } from './tx-client.js';
import type { TxRecord } from './tx-tracker.js';
import type { WorkloadCheck, WorkloadContext } from './workloads.js';

/** How often a waiting replay looks whether its last block's transactions settled (commits wake it at once). */
const POLL_MS = 250;
/** Mismatches named in the expectation's detail. */
const SHOWN = 3;

const short = (hex: string) => (hex.length > 74 ? `${hex.slice(0, 74)}…(${(hex.length - 2) / 2} bytes)` : hex);
const statusText = (status: bigint | number) => `0x${status.toString(16)}`;

/**
 * A replay workload: sends a recording's signed transactions again, unchanged, through the
 * group's JSON-RPC (sendRawTransaction), in recorded order. A recorded block's transactions go,
 * in their order, to one live node; the next block's only once each of them is settled
 * (committed, refused for good, or out of attempts), so what a transaction depends on from
 * earlier blocks (a deployed contract, a sender's account nonce, a counter's value) is on chain
 * before it. `asap` sends a block as soon as that is so; `recorded` also waits until the
 * block's recorded timestamp, relative to the first block's, has passed in virtual time since
 * the workload's start. `rate` caps the transactions per virtual second.
 */
export class ReplayDriver {
  private readonly traffic: RecordedTraffic;
  private readonly records = new Map<string, TxRecord>();
  /** Hashes whose commit wakes the driver (registered once each). */
  private readonly watched = new Set<string>();
  private block = 0;
  private txIndex = 0;
  private target: string | undefined;
  private nextSlot = 0;
  private wakeAt: number | undefined;
  private startMs = 0;
  private stopMs = 0;
  /** Virtual ms the last transaction was sent, or the workload stopped with some unsent. */
  private stoppedAt: number | undefined;
  /** Kept for the runner's totals: the replay never skips a tick. */
  readonly skipped = 0;

  constructor(
    private readonly ctx: WorkloadContext,
    private readonly spec: ReplayWorkload,
    private readonly index: number,
  ) {
    if (!spec.recording) {
      throw new Error(`workloads[${index}] (replay ${spec.file}): the recording was not read; load the scenario with loadScenarioFile or loadScenario, which read it`);
    }
    this.traffic = spec.recording;
  }

  private get targets(): readonly string[] | undefined {
    return this.spec.targets === undefined ? undefined : typeof this.spec.targets === 'string' ? [this.spec.targets] : this.spec.targets;
  }

  start(): void {
    this.startMs = this.spec.start === undefined ? 0 : durationMs(this.spec.start);
    this.stopMs = Math.min(this.spec.stop === undefined ? Infinity : durationMs(this.spec.stop), this.ctx.endMs);
    this.nextSlot = this.startMs;
    this.wake(this.startMs);
  }

  /** Runs step() at `ms` (the earliest of the wake-ups asked for). */
  private wake(ms: number): void {
    const { sim } = this.ctx.chain;
    const at = Math.max(ms, sim.now);
    if (this.wakeAt !== undefined && this.wakeAt <= at) return;
    this.wakeAt = at;
    sim.at(at, async () => {
      if (this.wakeAt !== at) return;
      this.wakeAt = undefined;
      await this.step();
    }, `workload ${this.index} replay`);
  }

  private settled(record: TxRecord | undefined, now: number): boolean {
    if (!record) return false;
    if (record.committedAt !== undefined) return true;
    if (record.attempts > 0 && !record.accepted && !record.retryable) return true;
    return record.attempts >= MAX_ATTEMPTS && now - record.lastTryAt >= RESEND_AFTER_MS;
  }

  private async step(): Promise<void> {
    const { sim } = this.ctx.chain;
    const blocks = this.traffic.blocks;
    for (;;) {
      const now = sim.now;
      if (this.block >= blocks.length) {
        this.stoppedAt ??= now;
        return;
      }
      if (now >= this.stopMs) {
        this.stoppedAt ??= now;
        return;
      }
      const block = blocks[this.block]!;
      if (this.txIndex === 0) {
        if (this.block > 0) {
          const previous = blocks[this.block - 1]!.transactions;
          const waiting = previous.filter((t) => !this.settled(this.records.get(t.hash), now));
          if (waiting.length > 0) {
            for (const t of waiting) {
              if (this.watched.has(t.hash)) continue;
              this.watched.add(t.hash);
              this.ctx.client.tracker.whenCommitted(t.hash, () => this.wake(sim.now));
            }
            return this.wake(now + POLL_MS);
          }
        }
        if (this.spec.pace === 'recorded') {
          const due = this.startMs + Math.max(0, block.timestamp - blocks[0]!.timestamp);
          if (now < due) return this.wake(due);
        }
        this.target = this.ctx.client.pick(this.spec.group, this.targets);
      }
      while (this.txIndex < block.transactions.length) {
        if (this.spec.rate !== undefined && sim.now < this.nextSlot) return this.wake(this.nextSlot);
        if (sim.now >= this.stopMs) {
          this.stoppedAt ??= sim.now;
          return;
        }
        const t = block.transactions[this.txIndex]!;
        // a node that went down since the block began: pick another for the rest of it
        if (this.target !== undefined && !this.ctx.client.candidates(this.spec.group, this.targets).includes(this.target)) this.target = this.ctx.client.pick(this.spec.group, this.targets);
        const record = await this.ctx.client.sendRaw(t.hash, t.raw, this.spec.group, 'replay', this.targets, this.target);
        this.records.set(t.hash, record);
        if (this.spec.rate !== undefined) this.nextSlot = Math.max(this.nextSlot, sim.now) + 1000 / this.spec.rate;
        this.txIndex++;
      }
      this.block++;
      this.txIndex = 0;
    }
  }

  /** With `expect: same-receipts`: every recorded transaction's receipt, on every live honest member, has the recorded status and output. */
  async checks(): Promise<WorkloadCheck[]> {
    if (this.spec.expect !== 'same-receipts') return [];
    const name = `workloads[${this.index}] (replay ${this.spec.file}): every recorded transaction ends with its recorded receipt status and output on every live honest node`;
    const nodes = this.ctx.readers(this.spec.group);
    if (nodes.length === 0) return [{ name, ok: false, detail: `no honest node of group ${this.spec.group} is up to read from` }];
    const mismatches: string[] = [];
    const place = (t: TrafficTransaction) => `${t.hash} (recorded block ${t.block}, transaction ${t.index})`;
    for (const block of this.traffic.blocks) {
      for (const t of block.transactions) {
        const record = this.records.get(t.hash);
        if (!record) {
          mismatches.push(`${place(t)}: never sent (the workload stopped at ${this.stoppedAt ?? this.stopMs} ms; lengthen duration or lift the rate cap)`);
          continue;
        }
        if (record.committedAt === undefined && !record.accepted && record.rejection !== undefined) {
          mismatches.push(`${place(t)}: refused by the node: ${record.rejection}; recorded status ${statusText(t.status)}`);
          continue;
        }
        for (const node of nodes) {
          const reply = await this.ctx.rpc.call(node, 'getTransactionReceipt', [this.spec.group, t.hash]);
          const receipt = reply?.result as { status?: string; output?: string } | null | undefined;
          if (!receipt) {
            mismatches.push(`${place(t)}: no receipt on ${node}${reply?.error ? ` (error ${reply.error.message})` : ''}; recorded status ${statusText(t.status)}`);
            break;
          }
          const status = receipt.status === undefined ? undefined : BigInt(receipt.status);
          const output = (receipt.output ?? '0x').toLowerCase();
          if (status !== t.status || output !== t.output) {
            mismatches.push(`${place(t)} on ${node}: recorded status ${statusText(t.status)} output ${short(t.output)}, simulated status ${receipt.status ?? '(none)'} output ${short(output)}`);
            break;
          }
        }
      }
    }
    const total = this.traffic.transactions;
    if (mismatches.length === 0) return [{ name, ok: true, detail: `${total} transactions of ${this.traffic.blocks.length} recorded blocks, each matching on ${nodes.length} node(s) (${nodes.join(', ')})` }];
    return [{ name, ok: false, detail: `${mismatches.length} of ${total} transactions differ; ${mismatches.slice(0, SHOWN).join('; ')}${mismatches.length > SHOWN ? `; and ${mismatches.length - SHOWN} more` : ''}` }];
  }
}
