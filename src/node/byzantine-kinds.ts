import { mutationsProblem } from './message-mutation.js';

/**
 * The byzantine behaviours a simulated node can take (simulation and fault tests only), which
 * consensus each fits, and the variants some of them come in. The behaviours themselves live in
 * pbft-adversary.ts (PBFT), raft-adversary.ts (Raft), sync-adversary.ts (block sync), and
 * pbft-mutator.ts / raft-mutator.ts (`mutate`, either consensus: see message-mutation.ts).
 */
export const BYZANTINE_KINDS = ['equivocate', 'double-sign', 'silent', 'bad-block', 'lock-breaker', 'double-vote', 'conflicting-leader', 'forge-sync', 'mutate'] as const;
export type ByzantineKind = (typeof BYZANTINE_KINDS)[number];

/** Behaviours of a PBFT sealer. */
export const PBFT_BYZANTINE_KINDS: readonly ByzantineKind[] = ['equivocate', 'double-sign', 'silent', 'bad-block', 'lock-breaker', 'mutate'];
/** Behaviours of a Raft sealer. */
export const RAFT_BYZANTINE_KINDS: readonly ByzantineKind[] = ['double-vote', 'conflicting-leader', 'mutate'];
/** Behaviours of a block-sync peer, in a group of either consensus. */
export const SYNC_BYZANTINE_KINDS: readonly ByzantineKind[] = ['forge-sync'];

export const BAD_BLOCK_VARIANTS = [
  'bad-signature',
  'reused-nonce',
  'on-chain',
  'expired-block-limit',
  'wrong-chain-id',
  'wrong-group-id',
  'wrong-state-root',
  'wrong-receipts-root',
  'wrong-parent',
  'wrong-number',
  'stale-timestamp',
  'future-timestamp',
  'swapped-sealer-list',
  'sealer-out-of-range',
  'empty-block',
] as const;
export type BadBlockVariant = (typeof BAD_BLOCK_VARIANTS)[number];

/** bad-block variants that flaw the proposal's header (or empty it) on the wire: see pbft-adversary.ts. */
export const HEADER_VARIANTS: readonly BadBlockVariant[] = ['wrong-parent', 'wrong-number', 'stale-timestamp', 'future-timestamp', 'swapped-sealer-list', 'sealer-out-of-range', 'empty-block'];

export const FORGE_SYNC_VARIANTS = ['too-few-signatures', 'non-sealer-signatures', 'short-sealer-list', 'other-height', 'other-fork', 'other-body', 'one-signature-short'] as const;
export type ForgeSyncVariant = (typeof FORGE_SYNC_VARIANTS)[number];
/** The forge-sync variants swarm draws: all of them (docs/adversaries.md, What swarm draws). */
export const SWARM_FORGE_SYNC_VARIANTS: readonly ForgeSyncVariant[] = FORGE_SYNC_VARIANTS;

/** The variants of each behaviour that has some (the others take none). */
export const BYZANTINE_VARIANTS: Readonly<Partial<Record<ByzantineKind, readonly string[]>>> = {
  'bad-block': BAD_BLOCK_VARIANTS,
  'forge-sync': FORGE_SYNC_VARIANTS,
};

/** Whether `kind` fits a group of this consensus. */
export function kindFits(kind: ByzantineKind, consensus: string): boolean {
  return SYNC_BYZANTINE_KINDS.includes(kind) || (consensus === 'raft' ? RAFT_BYZANTINE_KINDS : PBFT_BYZANTINE_KINDS).includes(kind);
}

/**
 * What is wrong with a (behaviour, variant) pair, or undefined: an unknown behaviour, a variant
 * missing or unknown for a behaviour that has variants, or one given to a behaviour that has none;
 * mutations or a rate given to a behaviour other than `mutate`, or not fitting it.
 */
export function byzantineSettingProblem(kind: string, variant: string | undefined, mutate: { mutations?: readonly string[]; rate?: number } = {}): string | undefined {
  if (kind === 'mutate') {
    if (variant !== undefined) return `behaviour mutate takes no variant (got ${JSON.stringify(variant)}); list its mutations instead`;
    if (mutate.mutations !== undefined) {
      const problem = mutationsProblem(mutate.mutations);
      if (problem) return problem;
    }
    if (mutate.rate !== undefined && !(mutate.rate > 0 && mutate.rate <= 1)) return `rate must be above 0 and at most 1 (got ${mutate.rate})`;
    return undefined;
  }
  if (mutate.mutations !== undefined || mutate.rate !== undefined) return `only behaviour mutate takes mutations and a rate (got behaviour ${kind})`;
  if (!(BYZANTINE_KINDS as readonly string[]).includes(kind)) return `behaviour must be one of ${BYZANTINE_KINDS.join(', ')} (got ${JSON.stringify(kind)})`;
  const variants = BYZANTINE_VARIANTS[kind as ByzantineKind];
  if (!variants) return variant === undefined ? undefined : `behaviour ${kind} takes no variant (got ${JSON.stringify(variant)})`;
  if (variant === undefined) return `behaviour ${kind} needs a variant: one of ${variants.join(', ')}`;
  if (!variants.includes(variant)) return `variant of ${kind} must be one of ${variants.join(', ')} (got ${JSON.stringify(variant)})`;
  return undefined;
}
