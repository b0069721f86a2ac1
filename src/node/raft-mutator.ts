import type { Heartbeat, Proposal, RaftMessage } from '../consensus/index.js';
import { DEFAULT_MUTATION_RATE, MutationDice, type MutationName, type MutationPort } from './message-mutation.js';
import { conflictingProposal, type ByzantineBehaviour } from './pbft-adversary.js';
import type { RaftAdversaryPort } from './raft-adversary.js';

/** What the Raft mutator needs from its driver besides what every Raft adversary gets. */
export interface RaftMutatorPort extends RaftAdversaryPort, MutationPort {
  /** The node's role and term in its state machine now. */
  role(): 'follower' | 'candidate' | 'leader';
  term(): number;
  /** This node's signature of a block hash (acknowledgements). */
  signBlock(blockHash: Uint8Array): Uint8Array;
}

type Target = number | 'all';

/**
 * The `mutate` behaviour of a Raft sealer (see MUTATIONS): each message its honest state machine
 * sends goes out as it is or, with the behaviour's rate, with one mutation drawn from the node's
 * seeded stream among those enabled that fit the message; out-of-role heartbeats (`rogue-proposal`
 * as a follower, `stale-leader` after being deposed) go out beside the honest answers.
 */
export class RaftMutator {
  readonly dice: MutationDice;
  /** The last heartbeat this node sent as leader: what a deposed leader acting on goes on sending. */
  private led: Heartbeat | undefined;
  /** The latest block a leader shipped to this node, for a rogue append of a conflicting one. */
  private heardBlock: { term: number; proposal: Proposal } | undefined;
  private rogue: { of: Proposal; proposal: Proposal; hash: Uint8Array } | undefined;

  constructor(
    readonly behaviour: ByzantineBehaviour,
    private readonly port: RaftMutatorPort,
  ) {
    this.dice = new MutationDice(behaviour.mutations ?? [], behaviour.rate ?? DEFAULT_MUTATION_RATE, port);
  }

  get stats(): Readonly<Record<string, number>> {
    return Object.fromEntries(this.dice.counts);
  }

  /**
   * Before the messages of one output go out: a follower answering its leader may append a
   * conflicting block of its own (`rogue-proposal`, executed here so that its hash is real), and
   * a deposed leader may go on heartbeating in its old term (`stale-leader`).
   */
  async prepare(send: ReadonlyArray<{ to: Target; message: RaftMessage }>): Promise<void> {
    if (!send.some((s) => s.message.type === 'heartbeatResp')) return;
    if (this.port.role() === 'follower' && this.heardBlock && this.dice.roll('rogue-proposal')) await this.rogueAppend();
    const led = this.led;
    if (led && led.term < this.port.term() && this.port.role() !== 'leader' && this.dice.roll('stale-leader')) {
      const beat: Heartbeat = { ...led, seq: led.seq + 1 };
      this.led = beat;
      this.sendAll(this.port.encode(beat));
      this.dice.note('stale-leader', { type: 'heartbeat', term: beat.term, currentTerm: this.port.term(), pending: beat.pending?.height });
    }
  }

  /** Sends one of this node's messages in place of the honest send; false lets the driver send it as is. */
  send(to: Target, message: RaftMessage): boolean {
    if (message.type === 'heartbeat' && this.port.role() === 'leader') this.led = message;
    const honest = this.port.encode(message);
    const round = [message.term, message.height] as const;
    this.noteHashes(message);
    const mutation = this.dice.pick(this.applicable(to, message));
    this.dice.rememberSent({ round, type: message.type, bytes: honest, ...(to === 'all' ? {} : { to }) });
    if (!mutation) return false;
    return this.mutate(mutation, to, message, honest);
  }

  /**
   * A message from a peer (and its bytes): hashes and blocks it carries feed later mutations, and
   * the message itself later replays, but a vote answer (it names a term, not a candidate: sent
   * to anyone else it would be a vote the voter never gave them).
   */
  observe(message: RaftMessage, bytes?: Uint8Array): void {
    this.noteHashes(message);
    if (bytes && message.type !== 'voteResp') this.dice.rememberSent({ round: [message.term, message.height], type: message.type, bytes });
    if (message.type === 'heartbeat' && message.pending?.proposal) this.heardBlock = { term: message.term, proposal: message.pending.proposal };
  }

  private noteHashes(message: RaftMessage): void {
    this.dice.rememberHash(message.blockHash, [message.term, message.height]);
    if (message.type === 'heartbeat' && message.pending) this.dice.rememberHash(message.pending.blockHash, [message.term, message.pending.height]);
  }

  private applicable(to: Target, message: RaftMessage): MutationName[] {
    const out: MutationName[] = ['term+1', 'height+1', 'other-hash', 'other-index', 'duplicate'];
    if (message.term > 1) out.push('term-1');
    if (message.height > 0) out.push('height-1');
    if (this.dice.earlier([message.term, message.height])) out.push('replay');
    if (to === 'all') out.push('partial');
    else if (!(message.type === 'voteResp' && message.flag === 'granted')) out.push('misroute');
    if (message.type === 'heartbeat' && message.pending?.proposal) out.push('other-sealer');
    if (message.type === 'voteResp') out.push(message.flag === 'granted' ? 'vote-withhold' : 'second-vote');
    if (message.type === 'heartbeat' && message.headSignatures.length > 1) out.push('forged-certificate');
    return out;
  }

  private mutate(mutation: MutationName, to: Target, message: RaftMessage, honest: Uint8Array): boolean {
    const what = { type: message.type, term: message.term, height: message.height };
    const changed = (m: RaftMessage, extra: Record<string, unknown> = {}): boolean => {
      this.deliver(to, this.port.encode(m));
      this.dice.note(mutation, { ...what, ...extra });
      return true;
    };
    switch (mutation) {
      case 'term+1':
      case 'term-1': {
        const delta = mutation === 'term+1' ? 1 : -1;
        if (message.type === 'voteResp') return changed({ ...message, term: message.term + delta, candidateTerm: message.candidateTerm + delta });
        return changed({ ...message, term: message.term + delta });
      }
      case 'height+1':
      case 'height-1':
        return changed({ ...message, height: message.height + (mutation === 'height+1' ? 1 : -1) });
      case 'other-hash': {
        if (message.type === 'heartbeat' && message.pending) {
          const hash = this.dice.otherHash([message.term, message.pending.height], message.pending.blockHash);
          return hash ? changed({ ...message, pending: { ...message.pending, blockHash: hash } }, { pending: message.pending.height }) : false;
        }
        if (message.type === 'heartbeatResp' && message.ack) {
          const hash = this.dice.otherHash([message.term, message.ack.height], message.ack.blockHash);
          return hash ? changed({ ...message, ack: { ...message.ack, blockHash: hash, signature: this.port.signBlock(hash) } }, { ack: message.ack.height }) : false;
        }
        const hash = this.dice.otherHash([message.term, message.height], message.blockHash);
        return hash ? changed({ ...message, blockHash: hash }) : false;
      }
      case 'other-sealer': {
        if (message.type !== 'heartbeat' || !message.pending?.proposal) return false;
        const n = this.port.sealerCount();
        if (n < 2) return false;
        const p = message.pending.proposal;
        const sealer = (p.sealer + 1 + this.dice.int(n - 1)) % n;
        return changed({ ...message, pending: { ...message.pending, proposal: { ...p, sealer } } }, { sealer });
      }
      case 'other-index': {
        const n = this.port.sealerCount();
        if (n < 2) return false;
        const idx = (message.idx + 1 + this.dice.int(n - 1)) % n;
        return changed({ ...message, idx }, { claims: idx });
      }
      case 'duplicate': {
        this.deliver(to, honest);
        const ms = this.dice.delay();
        this.dice.later(ms, () => this.deliver(to, honest));
        this.dice.note(mutation, { ...what, againAfterMs: ms });
        return true;
      }
      case 'replay': {
        const old = this.dice.earlier([message.term, message.height]);
        if (!old) return false;
        this.deliver(to, honest);
        this.deliver(old.to ?? 'all', old.bytes);
        this.dice.note(mutation, { ...what, replayed: old.type, of: { term: old.round[0], height: old.round[1] } });
        return true;
      }
      case 'partial': {
        const peers = this.others();
        if (peers.length < 2) return false;
        const some = this.dice.someOf(peers);
        for (const peer of some) this.port.send(peer, honest);
        this.dice.note(mutation, { ...what, to: some.length, of: peers.length });
        return true;
      }
      case 'misroute': {
        if (to === 'all') return false;
        const others = this.others().filter((i) => i !== to);
        if (others.length === 0) return false;
        const instead = others[this.dice.int(others.length)]!;
        this.port.send(instead, honest);
        this.dice.note(mutation, { ...what, meantFor: to, sentTo: instead });
        return true;
      }
      case 'forged-certificate': {
        if (message.type !== 'heartbeat' || message.headSignatures.length < 2) return false;
        // signers' indexes kept (the count looks like a quorum), signatures this node's own: only its own verifies
        const own = this.port.signBlock(message.blockHash);
        const self = this.port.selfIndex();
        const headSignatures = message.headSignatures.map((s) => (s.index === self ? s : { index: s.index, signature: own }));
        return changed({ ...message, headSignatures }, { forged: headSignatures.filter((s) => s.index !== self).length });
      }
      case 'vote-withhold':
        if (message.type !== 'voteResp' || message.flag !== 'granted') return false;
        return changed({ ...message, flag: 'discard' }, { candidateTerm: message.candidateTerm });
      case 'second-vote':
        if (message.type !== 'voteResp' || message.flag === 'granted') return false;
        return changed({ ...message, flag: 'granted' }, { candidateTerm: message.candidateTerm, instead: message.flag });
      default:
        return false;
    }
  }

  /** As a follower, a heartbeat of the current term carrying a block conflicting with the leader's. */
  private async rogueAppend(): Promise<void> {
    const heard = this.heardBlock!;
    if (this.rogue?.of !== heard.proposal) {
      const proposal = { ...conflictingProposal(heard.proposal), sealer: this.port.selfIndex() };
      const hash = await this.port.execute(proposal);
      if (!hash) return;
      this.rogue = { of: heard.proposal, proposal, hash };
    }
    const r = this.rogue;
    const beat: Heartbeat = {
      type: 'heartbeat',
      term: this.port.term(),
      idx: this.port.selfIndex(),
      height: r.proposal.number - 1,
      blockHash: r.proposal.parentHash,
      seq: 1,
      headSignatures: [],
      pending: { height: r.proposal.number, blockHash: r.hash, proposal: r.proposal },
    };
    this.sendAll(this.port.encode(beat));
    this.dice.note('rogue-proposal', { type: 'heartbeat', term: beat.term, height: r.proposal.number });
  }

  private others(): number[] {
    const self = this.port.selfIndex();
    return Array.from({ length: this.port.sealerCount() }, (_, i) => i).filter((i) => i !== self);
  }

  private sendAll(bytes: Uint8Array): void {
    for (const i of this.others()) this.port.send(i, bytes);
  }

  private deliver(to: Target, bytes: Uint8Array): void {
    if (to === 'all') this.sendAll(bytes);
    else this.port.send(to, bytes);
  }
}
