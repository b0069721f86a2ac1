/**
 * How `twinchain swarm --shard I/N` splits a scan's seeds: seed s belongs to shard
 * (s − from) mod N, so shard I runs from + I, from + I + N, from + I + 2N, … in that order.
 *
 * Interleaving (not contiguous blocks) is what lets shards scan without knowing where the scan
 * ends: with `--budget` or `--until-fail` every shard advances through the low seeds at the same
 * pace, so the lowest failing seed of the merged shards is the lowest failing seed of the seeds
 * run, as in one unsharded scan; contiguous blocks would leave every shard but the first far
 * from the start.
 */
export interface ShardSpec {
  /** 0-based, as Kubernetes' JOB_COMPLETION_INDEX. */
  readonly index: number;
  readonly count: number;
}

/** The shards a scan may be split into at most (a Kubernetes Indexed Job allows 100,000 completions). */
export const MAX_SHARDS = 100_000;

/** The whole scan as one shard. */
export const WHOLE: ShardSpec = { index: 0, count: 1 };

/** The k-th seed (0-based) of a shard of a scan starting at `from`. */
export function shardSeed(from: number, shard: ShardSpec, k: number): number {
  return from + shard.index + k * shard.count;
}

/** How many of a scan's `total` seeds a shard runs; undefined (unbounded) when the scan is. */
export function shardSeedCount(total: number | undefined, shard: ShardSpec): number | undefined {
  if (total === undefined) return undefined;
  return Math.max(0, Math.ceil((total - shard.index) / shard.count));
}

/** The shard of N that runs seed s of a scan starting at `from` (undefined below `from`). */
export function shardOf(seed: number, from: number, count: number): number | undefined {
  return seed < from ? undefined : (seed - from) % count;
}

/** "1/3" */
export const shardName = (shard: ShardSpec): string => `${shard.index}/${shard.count}`;

/** The file a shard writes its result to in its --out folder. */
export const shardFileName = (shard: ShardSpec): string => `swarm-shard-${shard.index}-of-${shard.count}.json`;

/** Matches a shard result file name; its index and count. */
export const SHARD_FILE = /^swarm-shard-(\d+)-of-(\d+)\.json$/;
