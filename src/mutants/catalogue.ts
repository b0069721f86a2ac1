/**
 * The planted-bug catalogue of `twinchain mutants`: each mutant is a few exact text patches to
 * the sources, applied to a temporary copy of the repository (never to the working tree). Each
 * `find` must occur exactly once in its file, so a refactor that moves the code fails the
 * catalogue test instead of silently testing nothing.
 */

export interface MutantPatch {
  /** Path relative to the repository root. */
  readonly file: string;
  /** Exact text that must occur exactly once in the file. */
  readonly find: string;
  readonly replace: string;
}

export interface Mutant {
  readonly id: string;
  readonly title: string;
  /** Scenario files under scenarios/ that swarm runs against the mutant, in order. */
  readonly scenarios: readonly string[];
  readonly patches: readonly MutantPatch[];
}

const PBFT = 'src/consensus/pbft/pbft.ts';
const PBFT_DRIVER = 'src/node/pbft-driver.ts';
const RAFT = 'src/consensus/raft/raft.ts';
const RAFT_DRIVER = 'src/node/raft-driver.ts';
const GROUP = 'src/node/group.ts';
const GROUP_SYNC = 'src/node/group-sync.ts';
const PBFT_SWARM = ['pbft-swarm.yaml'];
const RAFT_SWARM = ['raft-swarm.yaml'];

export const catalogue: readonly Mutant[] = [
  {
    id: 'pbft-commit-quorum',
    title: 'PBFT decides a block on f + 1 Commits instead of n − f',
    scenarios: PBFT_SWARM,
    patches: [
      {
        file: PBFT,
        find: '    if (this.sentCommit.has(view) && finalCommits && finalCommits.size >= this.quorum) {',
        replace: '    if (this.sentCommit.has(view) && finalCommits && finalCommits.size >= this.f + 1) { // MUTANT: f + 1 Commits decide',
      },
    ],
  },
  {
    id: 'pbft-forget-lock',
    title: 'a PBFT sealer forgets its lock (in memory; it stays on disk) when the view changes',
    scenarios: PBFT_SWARM,
    patches: [
      {
        file: PBFT,
        find: '    this.executed = undefined;\n    this.requestedExecution = undefined;\n    for (const v of [...this.proposals.keys()]) if (v < view) this.proposals.delete(v);\n',
        replace:
          '    this.executed = undefined;\n    this.requestedExecution = undefined;\n    this.lock = undefined; // MUTANT: the lock is forgotten on a view change\n    for (const v of [...this.proposals.keys()]) if (v < view) this.proposals.delete(v);\n',
      },
    ],
  },
  {
    id: 'pbft-sign-unexecuted',
    title: 'a PBFT replica signs the hash its leader signed, without validating or executing the proposal',
    scenarios: PBFT_SWARM,
    patches: [
      {
        file: PBFT_DRIVER,
        find: '  private async execute(height: number, view: number, proposal: Proposal, now: number): Promise<void> {\n',
        replace:
          '  private async execute(height: number, view: number, proposal: Proposal, now: number): Promise<void> {\n' +
          "    if (this.pbft.leaderOf(view) !== this.config().selfIndex) return; // MUTANT: another leader's proposal is neither validated nor executed\n",
      },
      {
        file: PBFT,
        find: "    if (message.view < this.view) return;\n    const votes = message.type === 'sign' ? this.signs : this.commits;\n",
        replace:
          '    if (message.view < this.view) return;\n' +
          "    if (message.type === 'sign' && message.view === this.view && message.idx === this.leaderOf(message.view) && message.idx !== this.config.selfIndex && this.requestedExecution === message.view) {\n" +
          "      // MUTANT: the leader's Sign is taken as this node's execution result\n" +
          '      this.requestedExecution = undefined;\n' +
          '      this.executed = { view: message.view, hash: message.blockHash };\n' +
          '      if (!this.sentSign.has(message.view)) {\n' +
          '        this.sentSign.add(message.view);\n' +
          "        this.send(out, this.vote('sign', message.view, message.blockHash));\n" +
          '      }\n' +
          '    }\n' +
          "    const votes = message.type === 'sign' ? this.signs : this.commits;\n",
      },
    ],
  },
  {
    id: 'raft-vote-no-log-check',
    title: 'Raft grants a vote without checking that the candidate’s log is up to date',
    scenarios: RAFT_SWARM,
    patches: [
      {
        file: RAFT,
        find: "    if (m.lastEntryTerm < this.hard.lastEntryTerm) return answer('lastTermError');\n    if (m.lastEntryTerm === this.hard.lastEntryTerm && m.lastHeight < this.lastHeight) return answer('outdated');\n",
        replace: '    // MUTANT: no up-to-date log check before granting\n',
      },
    ],
  },
  {
    id: 'raft-vote-not-persisted',
    title: 'Raft’s persisted hard state omits the vote, so a restarted node may vote again in a term',
    scenarios: RAFT_SWARM,
    patches: [
      {
        file: RAFT_DRIVER,
        find: '      int(state.votedTerm),\n      state.votedFor ?? new Uint8Array(0),\n',
        replace: '      int(0), // MUTANT: the vote is not persisted\n      new Uint8Array(0),\n',
      },
    ],
  },
  {
    id: 'raft-commit-minority',
    title: 'a Raft leader commits with ⌊n/2⌋ acknowledgements (itself included) instead of a majority',
    scenarios: RAFT_SWARM,
    patches: [
      {
        file: RAFT,
        find: '    if (this.lead.acks.size < this.quorum) return;\n',
        replace: '    if (this.lead.acks.size < Math.floor(this.n / 2)) return; // MUTANT: a minority commits\n',
      },
    ],
  },
  {
    id: 'sync-no-quorum-check',
    title: 'block sync applies a downloaded block without checking its signature quorum',
    scenarios: PBFT_SWARM,
    patches: [
      {
        file: GROUP_SYNC,
        find: '    if (check.valid.length < needed) return `${check.valid.length} valid sealer signatures, ${needed} needed`;\n',
        replace: '    void check; // MUTANT: the signature count is not checked\n    void needed;\n',
      },
    ],
  },
  {
    id: 'raft-two-votes-per-term',
    title: 'a Raft voter may change its vote within a term (a later candidate of the same term gets it too)',
    scenarios: RAFT_SWARM,
    patches: [
      {
        file: RAFT,
        find: "    if (m.term <= this.hard.votedTerm) return answer(votedForCandidate ? 'granted' : 'discard');\n",
        replace: "    if (m.term < this.hard.votedTerm || votedForCandidate) return answer(votedForCandidate ? 'granted' : 'discard'); // MUTANT: a second vote in the term\n",
      },
    ],
  },
  {
    id: 'raft-vote-lazy-sync',
    title: 'a Raft vote is written to storage without a sync before the answer leaves (a crash can lose it)',
    scenarios: RAFT_SWARM,
    patches: [
      {
        file: RAFT,
        find: "    this.hard.votedFor = candidateId;\n    this.markDirty('sync');\n",
        replace: "    this.hard.votedFor = candidateId;\n    this.markDirty('lazy'); // MUTANT: the vote is not synced before the answer\n",
      },
    ],
  },
  {
    id: 'pbft-decide-on-signs',
    title: 'PBFT decides as soon as n − f Signs arrive, skipping the Commit round that locks the others',
    scenarios: PBFT_SWARM,
    patches: [
      {
        file: PBFT,
        find: '    const finalCommits = this.commits.get(k);\n',
        replace: '    const finalCommits = this.signs.get(k); // MUTANT: n − f Signs decide\n',
      },
    ],
  },
  {
    id: 'sync-trusts-header-sealers',
    title: 'block sync checks a downloaded block’s signatures against the sealer list in its own header',
    scenarios: PBFT_SWARM,
    patches: [
      {
        file: GROUP_SYNC,
        find: '    if (header.sealerList.length !== expected.sealers.length || header.sealerList.some((id, i) => toHexNoPrefix(id) !== expected.sealers[i])) {\n',
        replace: '    if (header.sealerList.length !== expected.sealers.length) { // MUTANT: the header\'s sealers are trusted\n',
      },
    ],
  },
  {
    id: 'replica-skips-tx-validation',
    title: 'a replica takes a proposal’s transactions without the duplicate, on-chain, nonce and blockLimit checks',
    scenarios: PBFT_SWARM,
    patches: [
      {
        file: GROUP,
        find: '      if (seen.has(id)) return `transaction ${i} appears twice`;\n',
        replace: '      // MUTANT: no duplicate check\n',
      },
      {
        file: GROUP,
        find: '        if (await this.chain.ledger.hasTransaction(tx.hash)) return `transaction ${i} is already on chain`;\n',
        replace: '        // MUTANT: no already-on-chain check\n',
      },
      {
        file: GROUP,
        find: '      const nonce = tx.body.nonce.toString(16);\n      if (nonces.has(nonce)) return',
        replace: '      txs.push(tx); // MUTANT: no nonce or blockLimit checks\n      continue;\n      const nonce = tx.body.nonce.toString(16);\n      if (nonces.has(nonce)) return',
      },
    ],
  },
];

/**
 * The mutants `--quick` runs (CI): each was caught on the first seed of its swarm scenario, in
 * under 15 s with the child's start-up (60 s budget, --jobs 2, 2-core machine); one per
 * invariant family, so a drop in detection power shows.
 */
export const QUICK = {
  ids: ['pbft-commit-quorum', 'raft-commit-minority', 'pbft-sign-unexecuted', 'pbft-decide-on-signs', 'raft-vote-not-persisted', 'raft-two-votes-per-term'],
  budgetMs: 60_000,
} as const;
