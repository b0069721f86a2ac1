import { adoptSender, blockHash, checkSignatureList, decodeBlock, encodeBlock, type Block, type BlockCodecOptions } from '../chain/index.js';
import { bytesEqual, toHexNoPrefix } from '../codec/index.js';
import type { StoredBlock } from '../ledger/index.js';
import type { NodeId } from '../runtime/index.js';
import { BlockSync, encodeSyncMessage, type SyncMessage, type SyncOutput } from '../sync/index.js';
import type { Group } from './group.js';
import { logLines } from './log-lines.js';
import type { SyncAdversary } from './sync-adversary.js';

/**
 * The block-sync side of one group (FISCO's SyncMaster): its status to the peers, their status and
 * block requests, the downloads the BlockSync machine plans, and the check and application of each
 * downloaded block. While the node is a byzantine `forge-sync` peer its SyncAdversary lies here.
 * It runs inside the group's work queue, on the group's timers; transactions gossiped over the
 * sync module are the group's (pool admission), not this.
 */
export class GroupSync {
  readonly machine: BlockSync;
  /** Set only while this node is a byzantine sync peer (forge-sync); the honest path never looks further. */
  adversary: SyncAdversary | undefined;

  constructor(
    private readonly group: Group,
    private readonly codec: BlockCodecOptions,
    now: number,
  ) {
    this.machine = new BlockSync(group.genesisHash, { number: group.chain.height, hash: group.chain.headHash }, now);
  }

  /** A peer's status, block request or blocks. */
  async onMessage(from: NodeId, message: Exclude<SyncMessage, { type: 'transactions' }>, now: number): Promise<void> {
    const { group } = this;
    switch (message.type) {
      case 'status':
        return this.apply(this.machine.onStatus(from, message.status, now));
      case 'reqBlocks': {
        if (this.adversary) {
          const forged = await this.adversary.answer(message.from, message.count);
          if (forged.length > 0) group.send(from, 'sync', encodeSyncMessage({ type: 'blocks', blocks: forged.map((b) => encodeBlock(b, this.codec)) }));
          return;
        }
        const blocks: Uint8Array[] = [];
        for (let n = message.from; n < message.from + message.count && n <= group.chain.height; n++) {
          blocks.push(encodeBlock((await group.chain.ledger.blockByNumber(n))!.block, this.codec));
        }
        if (blocks.length > 0) group.send(from, 'sync', encodeSyncMessage({ type: 'blocks', blocks }));
        return;
      }
      case 'blocks': {
        const decoded: Block[] = [];
        for (const bytes of message.blocks) {
          try {
            decoded.push(decodeBlock(bytes, this.codec));
          } catch (e) {
            group.counters.badMessages++;
            group.trace('bad-message', { from, module: 'sync', error: `block: ${(e as Error).message}` });
            return;
          }
        }
        return this.apply(this.machine.onBlocks(from, decoded, now));
      }
    }
  }

  /** The periodic tick: peers gone, a forger's greeting to peers that (re)connected, status and timeouts. */
  async tick(peers: readonly NodeId[], now: number): Promise<void> {
    await this.apply(this.machine.retainPeers(peers, now));
    if (this.adversary) for (const peer of this.adversary.newlyConnected(peers)) this.group.send(peer, 'sync', this.statusMessage());
    await this.apply(this.machine.onTick(now));
  }

  /** A block was stored (by consensus or sync). */
  onHeadChanged(stored: StoredBlock, now: number): Promise<void> {
    return this.apply(this.machine.onHeadChanged({ number: stored.block.header.number, hash: stored.hash }, now));
  }

  private async apply(out: SyncOutput): Promise<void> {
    const { group } = this;
    for (const e of out.events) group.trace(e.kind, e.fields);
    if (out.broadcastStatus) group.broadcast('sync', this.statusMessage());
    for (const r of out.requests) group.send(r.to, 'sync', encodeSyncMessage({ type: 'reqBlocks', from: r.from, count: r.count }));
    if (out.apply.length > 0) await this.applyDownloaded(out.apply);
  }

  /** This node's sync status (a forging peer's lie while it forges). */
  private statusMessage(): Uint8Array {
    const { group } = this;
    const liar = this.adversary;
    const status = liar
      ? { number: liar.advertisedHeight(), genesisHash: group.genesisHash, latestHash: liar.advertisedHash() }
      : { number: group.chain.height, genesisHash: group.genesisHash, latestHash: group.chain.headHash };
    return encodeSyncMessage({ type: 'status', status });
  }

  private async applyDownloaded(blocks: readonly Block[]): Promise<void> {
    const { group } = this;
    for (const block of blocks) {
      const number = block.header.number;
      if (number !== group.chain.height + 1) continue; // consensus got there first
      const problem = await this.checkSyncedBlock(block);
      if (problem) return this.apply(this.machine.onApplyFailed(number, problem, group.env.clock.now()));
      for (const tx of block.transactions) {
        const pooled = group.pool.get(tx.hash);
        if (pooled) adoptSender(tx, pooled.transaction);
      }
      let stored: StoredBlock;
      try {
        stored = await group.chain.applyBlock(block);
      } catch (e) {
        return this.apply(this.machine.onApplyFailed(number, (e as Error).message, group.env.clock.now()));
      }
      group.log('info', logLines.syncApplied(group.groupId, number, stored.hash, 'peer'));
      await group.afterCommit(stored, 'sync');
    }
    await this.apply(this.machine.onApplyDone(group.env.clock.now()));
  }

  /** A downloaded block must be signed by n − f of the sealers in force at its height. */
  private async checkSyncedBlock(block: Block): Promise<string | null> {
    const { group } = this;
    const { header } = block;
    const expected = group.next.number === header.number ? group.next : await group.configFor(header.number);
    if (header.sealerList.length !== expected.sealers.length || header.sealerList.some((id, i) => toHexNoPrefix(id) !== expected.sealers[i])) {
      return 'its sealer list is not the consensus list at its height';
    }
    if (!bytesEqual(header.parentHash, group.chain.headHash)) return 'its parent is not our head';
    const n = expected.sealers.length;
    const quorum = n - Math.floor((n - 1) / 3);
    const needed = group.consensusType === 'raft' ? n - Math.floor((n - 1) / 2) : quorum;
    const signer = group.options.signer;
    const check = checkSignatureList(blockHash(header, group.suite), block.signatureList, header.sealerList, group.suite, (d, sig, id) => signer.verify(d, sig, id));
    if (check.valid.length < needed) return `${check.valid.length} valid sealer signatures, ${needed} needed`;
    return null;
  }
}
