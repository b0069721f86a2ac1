import type { Rng } from '../runtime/index.js';

/**
 * The generic byzantine behaviour `mutate` (simulations and fault tests): a sealer runs the
 * honest code and, message by message, changes what it sends. Each mutation is small in scope
 * (one field, one message, one moment), as in ByzzFuzz; the node signs every message it sends
 * with its own key wherever it could, so the receivers' protocol logic is what gets tested, not
 * only their signature checks.
 */
export const MUTATIONS = {
  // in value
  'view+1': 'PBFT: the view field one higher',
  'view-1': 'PBFT: the view field one lower',
  'height+1': 'the height field one higher (Raft: the head or acknowledged height)',
  'height-1': 'the height field one lower (Raft: the head, acknowledged or last log height)',
  'term+1': 'Raft: the term one higher (a claim of authority the node does not have)',
  'term-1': 'Raft: the term one lower (a stale message)',
  'other-hash': 'a block hash the node saw for another height or view in place of the real one, re-signed',
  'other-sealer': "another sealer's index in the body (a proposal's sealer field)",
  'other-index': "another sealer's index in the envelope (it cannot sign as that sealer: the receivers' signature check)",
  // in time
  duplicate: 'the message sent now and again 50–2000 ms later',
  replay: 'an earlier message (its own, or one a peer sent it: signed by that peer), byte for byte, sent again in a later view, term or height',
  misroute: 'a message meant for one peer sent to another',
  partial: 'a broadcast sent to only some of the peers',
  // out of role
  'rogue-proposal': "PBFT: a proposal from a sealer that does not lead the view; Raft: a follower's append (heartbeat with a block) in the current term",
  'future-proposal': 'PBFT: a proposal for a later view the node will lead, sent early',
  'second-vote': 'PBFT: a second Sign and Commit in the view, for another block; Raft: a vote granted in a term the node already voted in',
  'vote-withhold': 'Raft: a granted vote answered as already given (discard)',
  'stale-leader': 'Raft: heartbeats of a term the node led before, sent after it was deposed',
  'forged-certificate': "Raft: a leader's heartbeat whose commit certificate keeps every signer's index but carries the node's own signature under each other sealer's",
} as const;
export type MutationName = keyof typeof MUTATIONS;
export const MUTATION_NAMES = Object.keys(MUTATIONS) as MutationName[];

/** Mutations that make sense for each consensus. */
export const MUTATIONS_FOR: Readonly<Record<'pbft' | 'raft', readonly MutationName[]>> = {
  pbft: ['view+1', 'view-1', 'height+1', 'height-1', 'other-hash', 'other-sealer', 'other-index', 'duplicate', 'replay', 'partial', 'rogue-proposal', 'future-proposal', 'second-vote'],
  raft: ['term+1', 'term-1', 'height+1', 'height-1', 'other-hash', 'other-sealer', 'other-index', 'duplicate', 'replay', 'misroute', 'partial', 'rogue-proposal', 'second-vote', 'vote-withhold', 'stale-leader', 'forged-certificate'],
};

/**
 * What swarm draws for each consensus. PBFT tolerates f byzantine sealers, so everything it may
 * receive is fair. Raft tolerates none: its followers trust any heartbeat of the current term and
 * its candidates any vote, so a mutation that claims authority the node lacks (a higher term, a
 * vote it did not give or gave to another candidate, an append in a term it does not lead) can
 * make honest nodes disagree with no bug in them. Swarm draws for Raft only the mutations a
 * correct Raft refuses or shrugs off: stale, garbled, repeated, misdirected or withheld messages.
 * The others stay available in scenario files.
 */
export const SWARM_MUTATIONS: Readonly<Record<'pbft' | 'raft', readonly MutationName[]>> = {
  pbft: MUTATIONS_FOR.pbft,
  raft: ['term-1', 'height+1', 'height-1', 'other-hash', 'other-sealer', 'other-index', 'duplicate', 'replay', 'misroute', 'partial', 'vote-withhold', 'stale-leader'],
};

/** Default share of the node's messages that are mutated. */
export const DEFAULT_MUTATION_RATE = 0.3;

/** What is wrong with a mutation list for `consensus` (or for either, when undefined), or undefined. */
export function mutationsProblem(mutations: readonly string[], consensus?: 'pbft' | 'raft'): string | undefined {
  if (mutations.length === 0) return 'list at least one mutation';
  const allowed: readonly string[] = consensus ? MUTATIONS_FOR[consensus] : MUTATION_NAMES;
  const bad = mutations.filter((m) => !allowed.includes(m));
  if (bad.length > 0) return `unknown mutation${bad.length > 1 ? 's' : ''} ${bad.map((m) => JSON.stringify(m)).join(', ')}${consensus ? ` for ${consensus}` : ''}: choose from ${allowed.join(', ')}`;
  return undefined;
}

/** What a mutating node needs from its surroundings besides the consensus-specific port. */
export interface MutationPort {
  /** The node's seeded stream for its mutations. */
  readonly random: Rng;
  /** Runs `action` after `ms` (virtual or real), unless the node stopped meanwhile. */
  later(ms: number, action: () => void): void;
  trace(kind: string, fields: Record<string, unknown>): void;
}

/** An earlier message of the node, or one it received, kept for `replay`. */
export interface SentMessage {
  /** The round it belongs to: PBFT (height, view), Raft (term, height). */
  readonly round: readonly [number, number];
  readonly type: string;
  readonly bytes: Uint8Array;
  /** Sealer index it went to, or undefined for a broadcast. */
  readonly to?: number;
}

const KEPT_MESSAGES = 24;
const KEPT_HASHES = 16;

/**
 * The draws and the bookkeeping every mutating adversary shares: which mutation (if any) a
 * message gets, the hashes and messages seen for `other-hash` and `replay`, and the counts the
 * summary names.
 */
export class MutationDice {
  readonly counts = new Map<MutationName, number>();
  private readonly enabled: ReadonlySet<MutationName>;
  private readonly sent: SentMessage[] = [];
  /** Block hashes seen, with the round they were seen in, newest last. */
  private readonly hashes: Array<{ hash: Uint8Array; round: readonly [number, number]; hex: string }> = [];

  constructor(
    mutations: readonly MutationName[],
    readonly rate: number,
    private readonly port: MutationPort,
    private readonly behaviour = 'mutate',
  ) {
    this.enabled = new Set(mutations);
  }

  has(m: MutationName): boolean {
    return this.enabled.has(m);
  }

  /** With probability `rate`, one of the enabled mutations among `applicable`; else undefined (send honestly). */
  pick(applicable: readonly MutationName[]): MutationName | undefined {
    const choices = applicable.filter((m) => this.enabled.has(m));
    if (choices.length === 0) return undefined;
    if (this.port.random.next() >= this.rate) return undefined;
    return choices[this.port.random.int(choices.length)];
  }

  /** True with probability `rate` (for out-of-role extras triggered by what the node hears). */
  roll(m: MutationName): boolean {
    return this.enabled.has(m) && this.port.random.next() < this.rate;
  }

  int(maxExclusive: number): number {
    return this.port.random.int(maxExclusive);
  }

  /** A delay for `duplicate` (50–2000 ms). */
  delay(): number {
    return 50 + this.port.random.int(1951);
  }

  later(ms: number, action: () => void): void {
    this.port.later(ms, action);
  }

  /** Counts and traces one mutation. */
  note(m: MutationName, fields: Record<string, unknown>): void {
    this.counts.set(m, (this.counts.get(m) ?? 0) + 1);
    this.port.trace('byzantine-action', { behaviour: this.behaviour, action: m, ...fields });
  }

  rememberSent(message: SentMessage): void {
    this.sent.push(message);
    if (this.sent.length > KEPT_MESSAGES) this.sent.shift();
  }

  /** An earlier message of a round before `round` (lexicographic), of a type in `types` if given. */
  earlier(round: readonly [number, number], types?: readonly string[]): SentMessage | undefined {
    const older = this.sent.filter((s) => (s.round[0] < round[0] || (s.round[0] === round[0] && s.round[1] < round[1])) && (!types || types.includes(s.type)));
    return older.length === 0 ? undefined : older[this.port.random.int(older.length)];
  }

  rememberHash(hash: Uint8Array, round: readonly [number, number]): void {
    let hex = '';
    for (const b of hash.subarray(0, 12)) hex += b.toString(16).padStart(2, '0');
    const known = this.hashes.findIndex((h) => h.hex === hex);
    if (known >= 0) this.hashes.splice(known, 1);
    this.hashes.push({ hash, round, hex });
    if (this.hashes.length > KEPT_HASHES) this.hashes.shift();
  }

  /** A hash seen for another round than `round` and different from `not`, or undefined. */
  otherHash(round: readonly [number, number], not: Uint8Array): Uint8Array | undefined {
    const differs = (h: Uint8Array) => h.length !== not.length || h.some((b, i) => b !== not[i]);
    const others = this.hashes.filter((h) => (h.round[0] !== round[0] || h.round[1] !== round[1]) && differs(h.hash));
    return others.length === 0 ? undefined : others[this.port.random.int(others.length)]!.hash;
  }

  /** `peers` in a random order, cut to between one and all but one of them (for `partial`). */
  someOf<T>(peers: readonly T[]): T[] {
    const pool = [...peers];
    for (let i = pool.length - 1; i > 0; i--) {
      const j = this.port.random.int(i + 1);
      [pool[i], pool[j]] = [pool[j]!, pool[i]!];
    }
    return pool.slice(0, Math.max(1, pool.length - 1 - this.port.random.int(Math.max(1, pool.length - 1))));
  }
}
