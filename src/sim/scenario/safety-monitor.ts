import { toHex } from '../../codec/index.js';
import type { ProtocolInvariant } from '../invariants/invariant-monitor.js';
import type { SimChain } from '../sim-chain.js';

export type InvariantName = 'agreement' | 'state-root' | 'receipts-root' | 'parent-link' | 'heights' | 'history' | ProtocolInvariant;

/** A safety invariant that did not hold. */
export interface Violation {
  readonly atMs: number;
  readonly invariant: InvariantName;
  readonly group: number;
  readonly height: number;
  readonly node: string;
  readonly detail: string;
  /** The facts behind it (protocol invariants): nodes, view or term, hashes, the messages involved. */
  readonly evidence?: Readonly<Record<string, unknown>>;
}

/** The first block an honest node committed at a group and height: what every other must match. */
export interface CommittedBlock {
  readonly node: string;
  readonly atMs: number;
  readonly hash: string;
  readonly parent: string;
  readonly stateRoot: string;
  readonly receiptsRoot: string;
  readonly txs: number;
}

const short = (hash: string) => `${hash.slice(0, 10)}…`;

/**
 * Safety, checked on every commit of an honest node (byzantine nodes and twins may do as they
 * like): one block per height (same hash, state root and receipts root everywhere), each block's
 * parent is the block committed below it, and a node's height only ever grows by one. `audit`
 * re-reads every honest node's stored chain at the end, which catches history changed behind
 * the commit events' back.
 */
export class SafetyMonitor {
  readonly violations: Violation[] = [];
  readonly blocks = new Map<string, CommittedBlock>();
  private readonly heights = new Map<string, number>();
  /** Called for the first honest commit of each group and height. */
  onFirstCommit: ((group: number, height: number, block: CommittedBlock) => void) | undefined;
  private readonly honest: ReadonlySet<string>;
  /** Counting once per kind of trouble keeps a diverged run from flooding memory. */
  private static readonly MAX_VIOLATIONS = 200;

  constructor(honest: Iterable<string>) {
    this.honest = new Set(honest);
  }

  isHonest(node: string): boolean {
    return this.honest.has(node);
  }

  heightOf(node: string, group: number): number {
    return this.heights.get(`${group}/${node}`) ?? 0;
  }

  /** Records a violation found by another monitor (see InvariantMonitor). */
  violate(v: Violation): void {
    if (this.violations.length < SafetyMonitor.MAX_VIOLATIONS) this.violations.push(v);
  }

  readonly onNodeEvent = (node: string, kind: string, fields: Readonly<Record<string, unknown>>, atMs: number): void => {
    if (kind !== 'block-committed' || !this.honest.has(node)) return;
    const group = Number(fields['group']);
    const height = Number(fields['number']);
    const block: CommittedBlock = {
      node,
      atMs,
      hash: String(fields['hash']),
      parent: String(fields['parent']),
      stateRoot: String(fields['stateRoot']),
      receiptsRoot: String(fields['receiptsRoot']),
      txs: Number(fields['txs']),
    };
    const at = { atMs, group, height, node };
    const key = `${group}/${node}`;
    const last = this.heights.get(key) ?? 0;
    if (height <= last) this.violate({ ...at, invariant: 'heights', detail: `${node} committed height ${height} after already reaching ${last}` });
    else if (height !== last + 1) this.violate({ ...at, invariant: 'heights', detail: `${node} jumped from height ${last} to ${height}` });
    this.heights.set(key, Math.max(last, height));

    const first = this.blocks.get(`${group}/${height}`);
    if (!first) {
      this.blocks.set(`${group}/${height}`, block);
      this.onFirstCommit?.(group, height, block);
    } else if (first.hash !== block.hash) {
      this.violate({ ...at, invariant: 'agreement', detail: `${node} committed ${short(block.hash)} at height ${height}, ${first.node} committed ${short(first.hash)}` });
    } else {
      if (first.stateRoot !== block.stateRoot) this.violate({ ...at, invariant: 'state-root', detail: `${node} has state root ${short(block.stateRoot)} at height ${height}, ${first.node} ${short(first.stateRoot)}` });
      if (first.receiptsRoot !== block.receiptsRoot) this.violate({ ...at, invariant: 'receipts-root', detail: `${node} has receipts root ${short(block.receiptsRoot)} at height ${height}, ${first.node} ${short(first.receiptsRoot)}` });
    }
    const below = this.blocks.get(`${group}/${height - 1}`);
    if (height > 1 && below && below.hash !== block.parent) {
      this.violate({ ...at, invariant: 'parent-link', detail: `block ${height} on ${node} names parent ${short(block.parent)}, but block ${height - 1} is ${short(below.hash)}` });
    }
  };

  /**
   * Reads every up honest node's stored chain of each group from its storage (not the caches):
   * every block must link to its parent and be the block committed at its height.
   */
  async audit(chain: SimChain, groups: readonly number[], atMs: number): Promise<void> {
    for (const name of chain.sim.nodes().map((n) => n.name)) {
      if (!this.honest.has(name) || chain.sim.node(name).state !== 'up') continue;
      for (const groupId of groups) {
        const group = chain.group(name, groupId);
        if (!group) continue;
        let parent: string | undefined;
        for (let h = 0; h <= group.blockNumber(); h++) {
          const where = { atMs, group: groupId, height: h, node: name };
          let stored;
          try {
            stored = await group.storedHeader(h);
          } catch (e) {
            this.violate({ ...where, invariant: 'history', detail: `${name} cannot read its block ${h}: ${(e as Error).message}` });
            break;
          }
          if (!stored) {
            this.violate({ ...where, invariant: 'history', detail: `${name} has no block ${h} below its head ${group.blockNumber()}` });
            break;
          }
          const recomputed = toHex(stored.hash);
          if (parent !== undefined && toHex(stored.header.parentHash) !== parent) {
            this.violate({ ...where, invariant: 'history', detail: `${name}'s block ${h} names parent ${short(toHex(stored.header.parentHash))}, its block ${h - 1} is ${short(parent)}` });
          }
          if (stored.header.number !== h) this.violate({ ...where, invariant: 'history', detail: `${name}'s block stored at height ${h} says it is block ${stored.header.number}` });
          const committed = this.blocks.get(`${groupId}/${h}`);
          if (h > 0 && committed && committed.hash !== recomputed) {
            this.violate({ ...where, invariant: 'history', detail: `${name}'s stored block ${h} is ${short(recomputed)}, but ${committed.node} committed ${short(committed.hash)}` });
          }
          parent = recomputed;
        }
      }
    }
  }
}
