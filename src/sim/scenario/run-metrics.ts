/** What a run measured from node events, for the summary and the report. */
export class RunMetrics {
  /** Height steps of each node and group: [virtual ms, height]. */
  readonly heights = new Map<string, { node: string; group: number; points: Array<[number, number]> }>();
  /** PBFT views or Raft terms of each node and group over time. */
  readonly rounds = new Map<string, { node: string; group: number; kind: 'view' | 'term'; points: Array<[number, number]> }>();
  /** Views (per group) that some honest node timed out into: view changes caused by trouble, not the empty-block handover. */
  readonly timeoutViews = new Map<number, Set<string>>();
  /** Terms in which an honest node became Raft leader, per group (elections won). */
  readonly terms = new Map<number, Set<number>>();
  /** Committed transactions of each group by 1-second bucket (first honest commit of each height). */
  readonly committedPerSecond = new Map<number, number[]>();
  readonly blocks = new Map<number, number>();
  readonly byzantineActions = new Map<string, number>();
  /** Mutations each mutating node made (behaviour `mutate`), by name: what the adversary did, with counts. */
  readonly mutations = new Map<string, Map<string, number>>();

  /** `pbftGroups`: FISCO's PBFT view starts again at 0 with every block, so a commit puts the view series back to 0. */
  constructor(
    private readonly isHonest: (node: string) => boolean,
    private readonly pbftGroups: ReadonlySet<number> = new Set(),
  ) {}

  readonly onNodeEvent = (node: string, kind: string, fields: Readonly<Record<string, unknown>>, atMs: number): void => {
    const group = Number(fields['group'] ?? 0);
    switch (kind) {
      case 'block-committed': {
        const key = `${group}/${node}`;
        let series = this.heights.get(key);
        if (!series) this.heights.set(key, (series = { node, group, points: [] }));
        series.points.push([atMs, Number(fields['number'])]);
        if (this.pbftGroups.has(group) && this.rounds.has(key)) this.round(node, group, 'view', atMs, 0);
        break;
      }
      case 'pbft-view':
        this.round(node, group, 'view', atMs, Number(fields['to']));
        break;
      case 'pbft-viewchange-sent':
        if (fields['reason'] === 'timeout' && this.isHonest(node)) {
          let views = this.timeoutViews.get(group);
          if (!views) this.timeoutViews.set(group, (views = new Set()));
          views.add(`${String(fields['height'])}/${String(fields['toView'])}`);
        }
        break;
      case 'raft-leader':
      case 'raft-follow': {
        const term = Number(fields['term']);
        if (!Number.isFinite(term)) break;
        this.round(node, group, 'term', atMs, term);
        if (kind === 'raft-leader' && this.isHonest(node)) {
          let terms = this.terms.get(group);
          if (!terms) this.terms.set(group, (terms = new Set()));
          terms.add(term);
        }
        break;
      }
      case 'byzantine-action': {
        this.byzantineActions.set(node, (this.byzantineActions.get(node) ?? 0) + 1);
        if (fields['behaviour'] !== 'mutate') break;
        let counts = this.mutations.get(node);
        if (!counts) this.mutations.set(node, (counts = new Map()));
        const action = String(fields['action']);
        counts.set(action, (counts.get(action) ?? 0) + 1);
        break;
      }
    }
  };

  /**
   * A PBFT group's sealers are in view 0 from the start: without this a run with no view change
   * would have no view series at all, and its report could not tell "view stayed 0" from "not recorded".
   */
  startViews(group: number, sealers: readonly string[], atMs = 0): void {
    for (const node of sealers) this.round(node, group, 'view', atMs, 0);
  }

  private round(node: string, group: number, kind: 'view' | 'term', atMs: number, value: number): void {
    const key = `${group}/${node}`;
    let series = this.rounds.get(key);
    if (!series) this.rounds.set(key, (series = { node, group, kind, points: [] }));
    const last = series.points.at(-1);
    if (last && last[1] === value) return;
    series.points.push([atMs, value]);
  }

  /** The first honest commit of a block: throughput counts it once. */
  onBlock(group: number, atMs: number, txs: number): void {
    let buckets = this.committedPerSecond.get(group);
    if (!buckets) this.committedPerSecond.set(group, (buckets = []));
    const i = Math.floor(atMs / 1000);
    while (buckets.length <= i) buckets.push(0);
    buckets[i]! += txs;
    this.blocks.set(group, (this.blocks.get(group) ?? 0) + 1);
  }

  /** The mutations each mutating node made, in words ("node1: view+1 ×3, duplicate ×2"), most frequent first. */
  mutationSummary(): string[] {
    return [...this.mutations].map(([node, counts]) => `${node}: ${[...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([m, n]) => `${m} ×${n}`).join(', ')}`);
  }

  /** View changes (PBFT, caused by timeouts) plus elections beyond the first (Raft), per group. */
  viewChanges(group: number): number {
    const elections = this.terms.get(group)?.size ?? 0;
    return (this.timeoutViews.get(group)?.size ?? 0) + Math.max(0, elections - 1);
  }
}
