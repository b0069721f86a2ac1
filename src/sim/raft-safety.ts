import { toHex } from '../codec/index.js';
import { RaftDriver, type Node } from '../node/index.js';
import type { Simulation } from '../runtime/index.js';

export class RaftSafetyViolation extends Error {
  override readonly name = 'RaftSafetyViolation';
}

/**
 * Raft's safety properties over a simulated group, checked after every simulation event (hook it
 * with `sim.afterEvent(() => monitor.check())`): at most one leader per term; a block committed
 * at a height is the same on every node and never changes; nodes that accepted an uncommitted
 * block for the same (term, height) accepted the same block, on top of their head. A violation
 * throws, which stops the run at the event that caused it.
 */
export class RaftSafetyMonitor {
  /** term → node name of its leader. */
  readonly leaders = new Map<number, string>();
  /** height → block hash, from every node's ledger. */
  readonly committed = new Map<number, string>();
  /** "term:height" → hash of the uncommitted block accepted for it. */
  readonly entries = new Map<string, string>();
  /** Per node: the highest height whose block was checked. */
  private readonly checkedUpTo = new Map<string, number>();
  checks = 0;

  constructor(
    private readonly sim: Simulation<Node>,
    private readonly names: readonly string[],
    private readonly groupId = 1,
  ) {}

  async check(): Promise<void> {
    this.checks++;
    const leadersNow = new Map<number, string>();
    for (const name of this.names) {
      if (this.sim.node(name).state !== 'up') continue;
      const group = this.sim.node(name).handle?.groupById(this.groupId);
      if (!group || !(group.consensus instanceof RaftDriver)) continue;
      // committed blocks, including every block a batch of sync downloads added in one event
      const height = group.blockNumber();
      for (let n = Math.max(1, (this.checkedUpTo.get(name) ?? 0) + 1); n <= height; n++) {
        const hash = toHex((await group.blockByNumber(n))!.hash);
        const known = this.committed.get(n);
        if (known && known !== hash) throw new RaftSafetyViolation(`${name} committed ${hash.slice(0, 10)}… at height ${n}, another node ${known.slice(0, 10)}…`);
        this.committed.set(n, hash);
      }
      const head = this.checkedUpTo.get(name);
      if (head !== undefined && head > height) throw new RaftSafetyViolation(`${name} went back from height ${head} to ${height}`);
      if (head !== undefined && head >= 1 && head <= height && toHex((await group.blockByNumber(head))!.hash) !== this.committed.get(head)) {
        throw new RaftSafetyViolation(`${name}'s block ${head} changed`);
      }
      this.checkedUpTo.set(name, height);
      const s = group.consensus.inspect();
      if (s.role === 'leader') {
        const other = leadersNow.get(s.term) ?? this.leaders.get(s.term);
        if (other !== undefined && other !== name) throw new RaftSafetyViolation(`${other} and ${name} both lead term ${s.term}`);
        leadersNow.set(s.term, name);
        this.leaders.set(s.term, name);
      }
      if (s.pending) {
        if (s.pending.height !== height + 1) throw new RaftSafetyViolation(`${name} holds an uncommitted block at ${s.pending.height} on head ${height}`);
        const key = `${s.pending.term}:${s.pending.height}`;
        const hash = toHex(s.pending.blockHash);
        const known = this.entries.get(key);
        if (known && known !== hash) throw new RaftSafetyViolation(`two blocks at height ${s.pending.height} in term ${s.pending.term} (${name})`);
        this.entries.set(key, hash);
      }
    }
  }
}
