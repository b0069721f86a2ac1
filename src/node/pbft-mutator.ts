import type { PbftMessage, PrepareMessage, Proposal } from '../consensus/index.js';
import { DEFAULT_MUTATION_RATE, MutationDice, type MutationName, type MutationPort } from './message-mutation.js';
import { conflictingProposal, type AdversaryPort, type ByzantineBehaviour } from './pbft-adversary.js';

/** What the PBFT mutator needs from its driver besides what every PBFT adversary gets. */
export interface PbftMutatorPort extends AdversaryPort, MutationPort {
  /** The view the node's state machine is in. */
  view(): number;
  sealerCount(): number;
  /** Leader index of the next block in `view`. */
  leaderOf(view: number): number;
  /** A proposal of pooled transactions for the next height, as this node would seal it (undefined with an empty pool). */
  draftProposal(): Proposal | undefined;
}

const VOTES: ReadonlySet<string> = new Set(['sign', 'commit']);

/**
 * The `mutate` behaviour of a PBFT sealer (see MUTATIONS): each message its honest state machine
 * sends goes out as it is or, with the behaviour's rate, with one mutation drawn from the node's
 * seeded stream among those enabled that fit the message. Out-of-role proposals are sent beside
 * the honest traffic when the node hears a proposal it does not lead.
 */
export class PbftMutator {
  readonly dice: MutationDice;
  constructor(
    readonly behaviour: ByzantineBehaviour,
    private readonly port: PbftMutatorPort,
  ) {
    this.dice = new MutationDice(behaviour.mutations ?? [], behaviour.rate ?? DEFAULT_MUTATION_RATE, port);
  }

  /** One of this node's own messages, in place of the honest broadcast. */
  send(message: PbftMessage): void {
    const honest = this.port.encode(message);
    const round = [message.height, message.view] as const;
    if (message.type === 'sign' || message.type === 'commit' || message.type === 'viewchange') this.dice.rememberHash(message.blockHash, round);
    const mutation = this.dice.pick(this.applicable(message));
    this.dice.rememberSent({ round, type: message.type, bytes: honest });
    if (!mutation) return this.broadcast(honest);
    const done = this.mutate(mutation, message, honest);
    if (!done) this.broadcast(honest);
  }

  /**
   * A new round began (a block committed, or the view changed): out of role, a sealer that does
   * not lead it may propose ahead of the leader, 100–400 ms in (the leader of a partial block
   * waits its 500 ms block interval; the pool has had time to fill since the last commit).
   */
  onRound(height: number, view: number): void {
    const self = this.port.selfIndex();
    if (self < 0 || this.port.leaderOf(view) === self || !this.dice.roll('rogue-proposal')) return;
    this.dice.later(100 + this.dice.int(301), () => {
      if (this.port.nextHeight() !== height || this.port.view() !== view) return;
      const draft = this.port.draftProposal();
      if (!draft || draft.number !== height) return;
      this.broadcast(this.port.encode({ type: 'prepare', height, view, idx: self, proposal: draft }));
      this.dice.note('rogue-proposal', { type: 'prepare', height, view, leader: this.port.leaderOf(view), ahead: true });
    });
  }

  /** An authenticated message from a peer (and its bytes): hashes, proposals and the message itself feed later mutations. */
  observe(message: PbftMessage, bytes?: Uint8Array): void {
    const round = [message.height, message.view] as const;
    if (bytes) this.dice.rememberSent({ round, type: message.type, bytes });
    if (message.type !== 'prepare') {
      this.dice.rememberHash(message.blockHash, round);
      return;
    }
    const self = this.port.selfIndex();
    if (message.height !== this.port.nextHeight() || self < 0) return;
    // out of role: a proposal of our own in a view we do not lead
    if (this.port.leaderOf(message.view) !== self && this.dice.roll('rogue-proposal')) {
      const rogue: PrepareMessage = { type: 'prepare', height: message.height, view: message.view, idx: self, proposal: { ...conflictingProposal(message.proposal), sealer: self } };
      this.broadcast(this.port.encode(rogue));
      this.dice.note('rogue-proposal', { type: 'prepare', height: message.height, view: message.view, leader: this.port.leaderOf(message.view) });
    }
    if (this.dice.roll('future-proposal')) this.sendFutureProposal(message);
  }

  private applicable(message: PbftMessage): MutationName[] {
    const common: MutationName[] = ['view+1', 'height+1', 'other-index', 'duplicate', 'partial'];
    if (message.view > 0) common.push('view-1');
    if (message.height > 1) common.push('height-1');
    if (this.dice.earlier([message.height, message.view])) common.push('replay');
    if (message.type === 'prepare') return [...common, 'other-sealer'];
    if (VOTES.has(message.type)) return [...common, 'other-hash', 'second-vote'];
    return [...common, 'other-hash'];
  }

  /** Sends the mutated form of `message`; false when the mutation turned out not to apply (send it honestly). */
  private mutate(mutation: MutationName, message: PbftMessage, honest: Uint8Array): boolean {
    const what = { type: message.type, height: message.height, view: message.view };
    switch (mutation) {
      case 'view+1':
      case 'view-1':
        return this.resend(mutation, { ...message, view: message.view + (mutation === 'view+1' ? 1 : -1) }, what);
      case 'height+1':
      case 'height-1':
        return this.resend(mutation, { ...message, height: message.height + (mutation === 'height+1' ? 1 : -1) }, what);
      case 'other-index': {
        const n = this.port.sealerCount();
        if (n < 2) return false;
        const idx = (message.idx + 1 + this.dice.int(n - 1)) % n;
        return this.resend(mutation, { ...message, idx }, { ...what, claims: idx });
      }
      case 'other-sealer': {
        if (message.type !== 'prepare') return false;
        const n = this.port.sealerCount();
        if (n < 2) return false;
        const sealer = (message.proposal.sealer + 1 + this.dice.int(n - 1)) % n;
        return this.resend(mutation, { ...message, proposal: { ...message.proposal, sealer } }, { ...what, sealer });
      }
      case 'other-hash': {
        if (message.type === 'prepare') return false;
        const hash = this.dice.otherHash([message.height, message.view], message.blockHash);
        if (!hash) return false;
        const changed: PbftMessage = message.type === 'viewchange' ? { ...message, blockHash: hash } : { ...message, blockHash: hash, blockSignature: this.port.signBlock(hash) };
        return this.resend(mutation, changed, what);
      }
      case 'duplicate': {
        this.broadcast(honest);
        const ms = this.dice.delay();
        this.dice.later(ms, () => this.broadcast(honest));
        this.dice.note(mutation, { ...what, againAfterMs: ms });
        return true;
      }
      case 'replay': {
        const old = this.dice.earlier([message.height, message.view]);
        if (!old) return false;
        this.broadcast(honest);
        this.broadcast(old.bytes);
        this.dice.note(mutation, { ...what, replayed: old.type, of: { height: old.round[0], view: old.round[1] } });
        return true;
      }
      case 'partial': {
        const peers = this.port.peers();
        if (peers.length < 2) return false;
        const some = this.dice.someOf(peers);
        for (const peer of some) this.port.send(peer, honest);
        this.dice.note(mutation, { ...what, to: some.length, of: peers.length });
        return true;
      }
      case 'second-vote': {
        if (message.type !== 'sign' && message.type !== 'commit') return false;
        const hash = this.dice.otherHash([message.height, -1], message.blockHash);
        if (!hash) return false;
        this.broadcast(honest);
        const blockSignature = this.port.signBlock(hash);
        for (const type of ['sign', 'commit'] as const) this.broadcast(this.port.encode({ type, height: message.height, view: message.view, idx: message.idx, blockHash: hash, blockSignature }));
        this.dice.note(mutation, what);
        return true;
      }
      default:
        return false;
    }
  }

  private resend(mutation: MutationName, changed: PbftMessage, what: Record<string, unknown>): boolean {
    this.broadcast(this.port.encode(changed));
    this.dice.note(mutation, what);
    return true;
  }

  /** A proposal (a variant of the one heard) for the next view this node leads at this height. */
  private sendFutureProposal(heard: PrepareMessage): void {
    const self = this.port.selfIndex();
    const n = this.port.sealerCount();
    let view = heard.view + 1;
    while (this.port.leaderOf(view) !== self && view <= heard.view + n) view++;
    if (this.port.leaderOf(view) !== self) return;
    const prepare: PrepareMessage = { type: 'prepare', height: heard.height, view, idx: self, proposal: { ...conflictingProposal(heard.proposal), sealer: self } };
    this.broadcast(this.port.encode(prepare));
    this.dice.note('future-proposal', { type: 'prepare', height: heard.height, view, heardView: heard.view });
  }

  private broadcast(bytes: Uint8Array): void {
    for (const peer of this.port.peers()) this.port.send(peer, bytes);
  }
}
