import { blockHash, type Block, type BlockHeader, type BlockSignature } from '../chain/index.js';
import { concatBytes, fromHex, toHex } from '../codec/index.js';
import { SuiteSigner, type ConsensusSigner } from '../consensus/index.js';
import type { ByzantineBehaviour } from './pbft-adversary.js';
import type { ForgeSyncVariant } from './byzantine-kinds.js';
import type { Group } from './group.js';

/** How far above its real head a forging peer claims to be. */
export const FORGE_SYNC_AHEAD = 3;

/**
 * A byzantine block-sync peer (`forge-sync`), in a group of either consensus. Its consensus stays
 * honest; its sync status claims FORGE_SYNC_AHEAD blocks more than it has, and it sends that status
 * to a peer as soon as the peer (re)connects, so that a node coming back behind hears from it before
 * the honest peers' next status and asks it for the blocks it lacks. Every block request
 * is answered with forged blocks, linked to each other from the requester's head (the real block
 * before the first one asked for) so that only the check the variant aims at can refuse them:
 *
 * - `too-few-signatures`: the block (the real one where this node has it, else a copy of its head
 *   renumbered) signed by this node alone;
 * - `one-signature-short`: the real block with the first n − f − 1 of its real signatures (Raft:
 *   one fewer than a majority), all valid: one short of the quorum. It can forge only the blocks it
 *   has, so it answers up to its real head;
 * - `non-sealer-signatures`: the same block claiming a made-up sealer set (n − f made-up keys in
 *   the first places of its sealer list) and signed by those keys;
 * - `short-sealer-list`: the same block with the real sealer list cut short by its last sealer,
 *   signed by this node alone (refused for its sealer list before its signatures are counted);
 * - `other-height`: a real block of another height renumbered to the asked one, its signatures kept
 *   (valid for the block it came from, not for this one);
 * - `other-fork`: a block on a made-up parent (another fork), signed by this node only;
 * - `other-body`: a real block with its header and its sealers' signatures, all valid, and its last
 *   transaction left out: only executing it shows that it is not the block the header names. It
 *   can forge only the blocks it has, so it answers up to its real head.
 */
export class SyncAdversary {
  private readonly variant: ForgeSyncVariant;
  private fakeKeys: ConsensusSigner[] | undefined;
  private fakePublicKeys: Uint8Array[] = [];
  /** Requests answered (for tests and traces). */
  forged = 0;
  /** The peers connected at the last look, to greet the ones that (re)connect. */
  private connected: ReadonlySet<string> | undefined;

  constructor(
    readonly behaviour: ByzantineBehaviour,
    private readonly group: Group,
  ) {
    this.variant = (behaviour.variant ?? 'too-few-signatures') as ForgeSyncVariant;
  }

  /** The height this peer claims in its status. */
  advertisedHeight(): number {
    return this.group.chain.height + FORGE_SYNC_AHEAD;
  }

  /** A made-up latest hash to go with the claimed height. */
  advertisedHash(): Uint8Array {
    return this.group.suite.hash(concatBytes(new TextEncoder().encode('forge-sync'), this.group.chain.headHash));
  }

  /**
   * The peers connected now that were not at the last call: the ones to send the lying status to
   * at once. The first call greets nobody (the periodic status covers the peers present when the
   * window opens).
   */
  newlyConnected(peers: readonly string[]): string[] {
    const before = this.connected;
    this.connected = new Set(peers);
    return before ? peers.filter((p) => !before.has(p)) : [];
  }

  /** Forged blocks for a request of `count` blocks from `from`. */
  async answer(from: number, count: number): Promise<Block[]> {
    const ledger = this.group.chain.ledger;
    const head = (await ledger.blockByNumber(this.group.chain.height))!.block;
    const before = from >= 1 ? await ledger.blockByNumber(from - 1) : undefined;
    let parent = before ? before.hash : this.group.suite.hash(new TextEncoder().encode(`unknown parent ${from - 1}`));
    let parentTime = before ? before.block.header.timestamp : head.header.timestamp;
    const out: Block[] = [];
    const last = Math.min(from + count, this.advertisedHeight() + 1);
    for (let n = Math.max(1, from); n < last; n++) {
      const real = (await ledger.blockByNumber(n))?.block;
      if (this.variant === 'other-body') {
        if (!real) break;
        out.push({ ...real, transactions: real.transactions.slice(0, -1) });
        continue;
      }
      if (this.variant === 'one-signature-short') {
        if (!real) break;
        out.push({ ...real, signatureList: real.signatureList.slice(0, this.quorum() - 1) });
        continue;
      }
      let base: Block = real ?? head;
      let signatures: readonly BlockSignature[] | undefined;
      if (this.variant === 'other-height') {
        const other = n > 1 ? (await ledger.blockByNumber(n - 1))?.block : (await ledger.blockByNumber(n + 1))?.block;
        if (other) {
          base = other;
          signatures = other.signatureList;
        }
      }
      if (this.variant === 'other-fork' && n === from) parent = this.group.suite.hash(new TextEncoder().encode(`fork ${n}`));
      // a copy of the head (or of genesis, whose header lists no sealers) carries the sealers in force
      const sealerList = base === real || base.header.number === n - 1 || base.header.number === n + 1 ? base.header.sealerList : this.group.next.sealers.map((id) => fromHex(id));
      const listed = base.header.number === 0 ? this.group.next.sealers.map((id) => fromHex(id)) : sealerList;
      const header: BlockHeader = {
        ...base.header,
        number: n,
        parentHash: parent,
        timestamp: Math.max(base.header.timestamp, parentTime + 1),
        sealerList: this.variant === 'non-sealer-signatures' ? this.madeUpSealerList(listed) : this.variant === 'short-sealer-list' ? listed.slice(0, -1) : listed,
      };
      const hash = blockHash(header, this.group.suite);
      const block: Block = { ...base, header, signatureList: signatures ?? this.sign(hash) };
      out.push(block);
      parent = hash;
      parentTime = header.timestamp;
    }
    this.forged++;
    this.group.trace('byzantine-action', {
      behaviour: 'forge-sync',
      action: 'forged-blocks',
      variant: this.variant,
      from,
      count: out.length,
      hashes: out.map((b) => toHex(blockHash(b.header, this.group.suite)).slice(0, 18)),
    });
    return out;
  }

  private sign(hash: Uint8Array): BlockSignature[] {
    const sealers = this.group.next.sealers;
    if (this.variant !== 'non-sealer-signatures') {
      const self = sealers.indexOf(this.group.nodeId);
      return self >= 0 ? [{ index: self, signature: this.group.options.signer.sign(hash) }] : [];
    }
    const keys = this.madeUpSigners(this.quorum());
    return keys.map((k, index) => ({ index, signature: k.sign(hash) }));
  }

  private quorum(): number {
    const n = this.group.next.sealers.length;
    return this.group.consensusType === 'raft' ? n - Math.floor((n - 1) / 2) : n - Math.floor((n - 1) / 3);
  }

  /** The sealer list with the made-up signers' keys in its first n − f places (same length). */
  private madeUpSealerList(real: readonly Uint8Array[]): Uint8Array[] {
    this.madeUpSigners(this.quorum());
    return real.map((id, i) => this.fakePublicKeys[i] ?? id);
  }

  /** Signers with keys no sealer holds (deterministic, from the node's "byzantine" stream). */
  private madeUpSigners(count: number): ConsensusSigner[] {
    if (this.fakeKeys && this.fakeKeys.length >= count) return this.fakeKeys.slice(0, count);
    this.fakePublicKeys = [];
    const own = this.group.options.signer;
    const rng = this.group.env.random.stream('byzantine');
    this.fakeKeys = Array.from({ length: count }, (_, i): ConsensusSigner => {
      if (own.scheme === 'simulated') {
        // the simulated scheme keys signatures by node id: a signature over another digest verifies for nobody
        return {
          scheme: own.scheme,
          signatureSize: own.signatureSize,
          distinctPart: own.distinctPart,
          sign: (d: Uint8Array) => own.sign(this.group.suite.hash(concatBytes(Uint8Array.of(i), d))),
          verify: () => false,
        };
      }
      const pair = this.group.suite.generateKeyPair((len) => rng.bytes(len));
      this.fakePublicKeys.push(pair.publicKey);
      return new SuiteSigner(this.group.suite, pair);
    });
    return this.fakeKeys;
  }
}
