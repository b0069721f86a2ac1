/** Two watched nodes committed different blocks at one height of a group. */
export interface CommitConflict {
  readonly group: number;
  readonly height: number;
  readonly first: { readonly node: string; readonly hash: string };
  readonly second: { readonly node: string; readonly hash: string };
  /** Virtual ms of the second commit. */
  readonly atMs: number;
}

/**
 * A safety invariant checked on every commit: give `onNodeEvent` to the simulation (SimChain or
 * cluster option). Each `block-committed` of a watched node is compared with the first block any
 * watched node committed at that group and height. Watch the honest nodes only: byzantine ones
 * and twins may commit whatever they like.
 */
export class CommitMonitor {
  readonly conflicts: CommitConflict[] = [];
  /** block-committed events seen from watched nodes. */
  commits = 0;
  /** Highest height committed by each watched node, by group. */
  readonly heights = new Map<string, number>();
  private readonly first = new Map<string, { node: string; hash: string }>();
  private readonly watched: ReadonlySet<string> | undefined;

  /** `watched`: node names (default: every node). */
  constructor(watched?: Iterable<string>) {
    this.watched = watched ? new Set(watched) : undefined;
  }

  readonly onNodeEvent = (node: string, kind: string, fields: Readonly<Record<string, unknown>>, timeMs: number): void => {
    if (kind !== 'block-committed' || (this.watched && !this.watched.has(node))) return;
    const group = Number(fields.group);
    const height = Number(fields.number);
    const hash = String(fields.hash);
    this.commits++;
    const at = `${group}/${node}`;
    this.heights.set(at, Math.max(this.heights.get(at) ?? 0, height));
    const key = `${group}/${height}`;
    const first = this.first.get(key);
    if (!first) this.first.set(key, { node, hash });
    else if (first.hash !== hash) this.conflicts.push({ group, height, first, second: { node, hash }, atMs: timeMs });
  };

  /** Highest height a watched node committed in the group. */
  heightOf(node: string, group = 1): number {
    return this.heights.get(`${group}/${node}`) ?? 0;
  }
}
