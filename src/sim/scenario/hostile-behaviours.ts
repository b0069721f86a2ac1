/**
 * What hostile clients do (workload kind `hostile`, see hostile-clients.ts), one case per tick:
 * - `multi-submit`: one signed transaction sent to several nodes at once, and again once it is committed;
 * - `nonce-race`: two different transactions with one nonce, sent to two nodes at the same moment;
 * - `replay-committed`: a transaction already committed (any workload's) sent again to a node;
 * - `block-limit-edges`: four transactions whose blockLimit is at the edges of what the node's height
 *   admits (height, height + 1, height + 1000, height + 1001);
 * - `pool-burst`: a burst at one node of more transactions than its pool has room for.
 */
export const HOSTILE_BEHAVIOURS = ['multi-submit', 'nonce-race', 'replay-committed', 'block-limit-edges', 'pool-burst'] as const;
export type HostileBehaviour = (typeof HOSTILE_BEHAVIOURS)[number];
